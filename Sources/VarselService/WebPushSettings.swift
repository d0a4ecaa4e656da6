import Foundation
import VarselPush

/// What the HTTP layer needs to know of Web Push.
public struct WebPushSettings: Sendable {
    /// The VAPID public key (base64url, uncompressed point) browsers subscribe with.
    public var publicKey: String
    public var endpointPolicy: PushEndpointPolicy
    /// Subscriptions one user may hold; saving one more removes their oldest.
    public var subscriptionsPerUser = 10
    /// How long accepted pushes may go unshown before a device counts as stale (`--push-stale-after`).
    public var staleAfter: TimeInterval = 3 * 86400

    /// A throwaway key, for tests that do not push.
    public init(publicKey: String = VAPIDKey.generate().publicKeyBase64URL, endpointPolicy: PushEndpointPolicy = PushEndpointPolicy()) {
        self.publicKey = publicKey
        self.endpointPolicy = endpointPolicy
    }
}
