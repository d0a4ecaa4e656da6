import Crypto
import Foundation
import Hummingbird
import VarselCore
import VarselPush
import VarselStore

/// Carries a secret shown once (a set-password link's code, an integration token) from the form that made it to the
/// page that shows it.
///
/// The form's answer is a redirect, so reloading the page does not post the form again; the secret cannot travel in
/// that redirect's URL (ours never hold one). It travels in a cookie for that page's path alone, sealed with AES-GCM
/// under a key derived from the session's own secret and bound to the thing it is for, and the page clears it as it
/// shows the secret: a reload finds nothing, and says it was shown once.
struct SealedHandover: Sendable {
    /// The cookie's name, one per kind of secret.
    let cookieName: String
    /// What the key is derived for, so one kind's cookie never opens as another's.
    let purpose: String
    /// How long the sealed secret waits for its page, in seconds.
    static let lifetime = 600

    /// `message`, sealed for the page of `subject` in `session`.
    func seal(_ message: String, subject: String, session: Session) throws -> String {
        let box = try AES.GCM.seal(Data(message.utf8), using: key(session), authenticating: Data(subject.utf8))
        guard let combined = box.combined else { throw CryptoKitError.incorrectParameterSize }
        return Base64URL.encode(combined)
    }

    /// The message sealed in `value` for `subject` in `session`; nil for anything else.
    func open(_ value: String, subject: String, session: Session) -> String? {
        guard let combined = Base64URL.decode(value), let box = try? AES.GCM.SealedBox(combined: combined),
            let message = try? AES.GCM.open(box, using: key(session), authenticating: Data(subject.utf8))
        else { return nil }
        return String(decoding: message, as: UTF8.self)
    }

    /// The cookie that carries `sealed` to `path`.
    func cookie(_ sealed: String, path: String, secure: Bool) -> Cookie {
        Cookie(name: cookieName, value: sealed, maxAge: Self.lifetime, path: path, secure: secure, httpOnly: true, sameSite: .strict)
    }

    /// The cookie that clears what was handed to `path`.
    func cleared(path: String, secure: Bool) -> Cookie {
        Cookie(name: cookieName, value: "", maxAge: 0, path: path, secure: secure, httpOnly: true, sameSite: .strict)
    }

    /// The key: the session's CSRF secret, which only the server and that session's pages hold, hashed for this use.
    private func key(_ session: Session) -> SymmetricKey {
        SymmetricKey(data: SHA256.hash(data: Data("varsel \(purpose) handover\u{0}\(session.csrfToken)".utf8)))
    }
}

/// Carries a one-time set-password link's code and expiry from the form that made it to the page that shows it, once.
enum LinkHandover {
    static let handover = SealedHandover(cookieName: "varsel_link", purpose: "set-password link")
    static var cookieName: String { handover.cookieName }
    static var lifetime: Int { SealedHandover.lifetime }

    /// The path of the page that shows `personID`'s new link, where the cookie is sent.
    static func path(for personID: UserID) -> String { "/people/\(personID)/link" }

    /// `code` and its expiry, sealed for `personID`'s page in `session`.
    static func seal(code: String, expiresAt: Date, personID: UserID, session: Session) throws -> String {
        try handover.seal("\(code)\n\(Int64(expiresAt.timeIntervalSince1970))", subject: "\(personID)", session: session)
    }

    /// The code and expiry sealed in `value` for `personID` in `session`; nil for anything else.
    static func open(_ value: String, personID: UserID, session: Session) -> (code: String, expiresAt: Date)? {
        guard let message = handover.open(value, subject: "\(personID)", session: session) else { return nil }
        let parts = message.split(separator: "\n")
        guard parts.count == 2, let seconds = Int64(parts[1]) else { return nil }
        return (String(parts[0]), Date(timeIntervalSince1970: TimeInterval(seconds)))
    }
}

/// Carries a new integration token from the form that made it to the page that shows it, once.
enum TokenHandover {
    static let handover = SealedHandover(cookieName: "varsel_token", purpose: "integration token")

    /// The path of the page that shows integration `id`'s new token, where the cookie is sent.
    static func path(for id: UserID) -> String { "/integrations/\(id)/token" }
}
