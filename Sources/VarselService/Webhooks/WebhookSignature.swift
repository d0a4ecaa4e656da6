import Crypto
import Foundation

/// Signs a webhook by the Standard Webhooks specification: HMAC-SHA256 over `id.timestamp.body`, sent as
/// `webhook-signature: v1,<base64>` beside `webhook-id` and `webhook-timestamp`.
///
/// The receiver checks the signature with the secret it was shown once (`whsec_` and the key in base64) and refuses a
/// timestamp too far from its clock, so a captured request cannot be replayed later.
public struct WebhookSignature: Sendable {
    /// What every signing secret starts with, as the specification's libraries expect.
    public static let secretPrefix = "whsec_"
    /// The key's length in bytes.
    public static let keyLength = 32

    /// A new random key.
    public static func newKey() -> Data {
        SymmetricKey(size: .bits256).withUnsafeBytes { Data($0) }
    }

    /// The secret as shown to the person who adds the endpoint, and as the receiver's library takes it.
    public static func secret(key: Data) -> String {
        secretPrefix + key.base64EncodedString()
    }

    /// The three headers that sign `body` sent as message `id` at `date`.
    public static func headers(key: Data, id: String, date: Date, body: Data) -> [(String, String)] {
        let timestamp = String(Int64(date.timeIntervalSince1970.rounded(.down)))
        var signed = Data("\(id).\(timestamp).".utf8)
        signed.append(body)
        let mac = HMAC<SHA256>.authenticationCode(for: signed, using: SymmetricKey(data: key))
        return [
            ("webhook-id", id),
            ("webhook-timestamp", timestamp),
            ("webhook-signature", "v1," + Data(mac).base64EncodedString()),
        ]
    }
}
