import Crypto
import Foundation
import VarselCore
import VarselPush
import VarselStore

/// Carries a one-time set-password link from the form that made it to the page that shows it, once.
///
/// The form's answer is a redirect, so reloading the page does not post the form again; the code cannot travel in
/// that redirect's URL (ours never hold one). It travels in a cookie for that page's path alone, sealed with AES-GCM
/// under a key derived from the session's own secret and bound to the person, and the page clears it as it shows
/// the code: a reload finds no code, and says the link was shown once.
enum LinkHandover {
    static let cookieName = "varsel_link"
    /// How long the sealed code waits for its page.
    static let lifetime = 600

    /// The path of the page that shows `personID`'s new link, where the cookie is sent.
    static func path(for personID: UserID) -> String { "/people/\(personID)/link" }

    /// `code` and its expiry, sealed for `personID`'s page in `session`.
    static func seal(code: String, expiresAt: Date, personID: UserID, session: Session) throws -> String {
        let message = Data("\(code)\n\(Int64(expiresAt.timeIntervalSince1970))".utf8)
        let box = try AES.GCM.seal(message, using: key(session), authenticating: Data("\(personID)".utf8))
        guard let combined = box.combined else { throw CryptoKitError.incorrectParameterSize }
        return Base64URL.encode(combined)
    }

    /// The code and expiry sealed in `value` for `personID` in `session`; nil for anything else.
    static func open(_ value: String, personID: UserID, session: Session) -> (code: String, expiresAt: Date)? {
        guard let combined = Base64URL.decode(value), let box = try? AES.GCM.SealedBox(combined: combined),
              let message = try? AES.GCM.open(box, using: key(session), authenticating: Data("\(personID)".utf8)) else { return nil }
        let parts = String(decoding: message, as: UTF8.self).split(separator: "\n")
        guard parts.count == 2, let seconds = Int64(parts[1]) else { return nil }
        return (String(parts[0]), Date(timeIntervalSince1970: TimeInterval(seconds)))
    }

    /// The key: the session's CSRF secret, which only the server and that session's pages hold, hashed for this use.
    private static func key(_ session: Session) -> SymmetricKey {
        SymmetricKey(data: SHA256.hash(data: Data("varsel set-password link handover\u{0}\(session.csrfToken)".utf8)))
    }
}
