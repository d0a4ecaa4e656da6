import Foundation
import VarselCore
import VarselPush
import VarselStore

/// A user's devices that receive Web Push: subscribing (the endpoint and keys checked, the oldest dropped past the
/// limit) and unsubscribing.
public struct PushSubscriptions: Sendable {
    let repository: any VarselRepository
    let endpointPolicy: PushEndpointPolicy
    let perUser: Int
    let now: @Sendable () -> Date

    public init(repository: any VarselRepository, endpointPolicy: PushEndpointPolicy, perUser: Int, now: @escaping @Sendable () -> Date) {
        self.repository = repository
        self.endpointPolicy = endpointPolicy
        self.perUser = perUser
        self.now = now
    }

    /// Saves the browser's subscription for `userID` on `session`; `p256dh` and `auth` are base64url as browsers give
    /// them. Throws ``InvalidInput`` naming `endpoint`, `keys.p256dh` or `keys.auth`, never repeating them.
    public func subscribe(userID: UserID, session: Session, endpoint: String, p256dh: String, auth: String) async throws -> PushSubscription {
        var issues: [Validation.Issue] = []
        do {
            _ = try endpointPolicy.check(endpoint)
        } catch {
            issues.append(.init(field: "endpoint", rule: .other(error.description)))
        }
        let publicKey = Base64URL.decode(p256dh) ?? Data()
        let secret = Base64URL.decode(auth) ?? Data()
        do {
            try WebPushEncryption.validate(p256dh: publicKey, auth: secret)
        } catch .invalidAuthSecret {
            issues.append(.init(field: "keys.auth", rule: .other("must be the subscription's 16-byte auth secret, base64url")))
        } catch {
            issues.append(.init(field: "keys.p256dh", rule: .other("must be the subscription's P-256 public key (65 bytes, uncompressed), base64url")))
        }
        guard issues.isEmpty else { throw InvalidInput(issues, summary: "The push subscription is not valid.") }
        let saved = try await repository.savePushSubscription(NewPushSubscription(
            userID: userID, sessionTokenHash: session.tokenHash, endpoint: endpoint, p256dh: publicKey, auth: secret,
            actionSecret: PushActionToken.newSecret()), at: now())
        // One user's devices are few; past the limit the oldest subscription goes.
        for stale in try await repository.pushSubscriptions(for: userID).dropLast(perUser) {
            _ = try await repository.deletePushSubscription(id: stale.id, userID: userID)
        }
        return saved
    }

    /// Removes one of `userID`'s subscriptions; false when they have none with that id.
    public func unsubscribe(id: Int64, userID: UserID) async throws -> Bool {
        try await repository.deletePushSubscription(id: id, userID: userID)
    }
}
