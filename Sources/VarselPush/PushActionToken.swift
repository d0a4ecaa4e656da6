import Crypto
import Foundation
import VarselCore
import VarselStore

/// The credential a push notification's button or receipt carries: "Acknowledge", and the report that the
/// notification was shown, are posted back with it, without a session.
///
/// An HMAC of what the button does, keyed by the subscription's own server-side secret. Only the device can
/// read it (the push is encrypted for it), it does that one thing only, and deleting the subscription revokes it.
public enum PushActionToken {
    /// The token that lets `subscription`'s device acknowledge `assignmentID`.
    public static func acknowledge(assignmentID: AssignmentID, subscription: PushSubscription) -> String {
        let code = HMAC<SHA256>.authenticationCode(
            for: Data("acknowledge:\(assignmentID)".utf8),
            using: SymmetricKey(data: subscription.actionSecret))
        return Base64URL.encode(Data(code))
    }

    /// Whether `token` lets `subscription`'s device acknowledge `assignmentID`; compared in constant time.
    public static func verifyAcknowledge(_ token: String, assignmentID: AssignmentID, subscription: PushSubscription) -> Bool {
        guard let presented = Base64URL.decode(token), presented.count == SHA256.byteCount else { return false }
        return HMAC<SHA256>.isValidAuthenticationCode(
            presented, authenticating: Data("acknowledge:\(assignmentID)".utf8),
            using: SymmetricKey(data: subscription.actionSecret))
    }

    /// The token with which `subscription`'s device reports that it showed `notificationID`'s push (a receipt).
    public static func shown(notificationID: NotificationID, subscription: PushSubscription) -> String {
        let code = HMAC<SHA256>.authenticationCode(for: Data("shown:\(notificationID)".utf8), using: SymmetricKey(data: subscription.actionSecret))
        return Base64URL.encode(Data(code))
    }

    /// Whether `token` lets `subscription`'s device report `notificationID`'s push shown; compared in constant time.
    public static func verifyShown(_ token: String, notificationID: NotificationID, subscription: PushSubscription) -> Bool {
        guard let presented = Base64URL.decode(token), presented.count == SHA256.byteCount else { return false }
        return HMAC<SHA256>.isValidAuthenticationCode(
            presented, authenticating: Data("shown:\(notificationID)".utf8),
            using: SymmetricKey(data: subscription.actionSecret))
    }

    /// A fresh secret for a new subscription.
    public static func newSecret() -> Data {
        SymmetricKey(size: .bits256).withUnsafeBytes { Data($0) }
    }
}
