import Foundation
import VarselCore

/// People, their accounts, sessions and preferences.
///
/// Each method is one transaction; an account change and its change-log entries are written together.
public protocol UserStore: Sendable {
    // MARK: Users
    /// Creates a user and records it in their change log as done by `actorID` (nil: the command line), with a
    /// one-time password link when `link` is given; throws ``StoreError/conflict(_:)`` for a taken username.
    func createUser(_ user: NewUser, link: PasswordLink?, by actorID: UserID?, at date: Date) async throws -> User
    func user(id: UserID) async throws -> User?
    func user(username: String) async throws -> User?
    func users() async throws -> [User]
    /// Sets or clears a mentor's pause: in force from `from` (nil: at once) until `until` (nil: no pause).
    func setPause(from: Date?, until: Date?, userID: UserID) async throws
    /// Sets the language a user reads Varsel in.
    func setLanguage(_ language: Language, userID: UserID) async throws

    // MARK: Accounts
    /// Makes `change` to `userID`'s account and appends `log` to its change log, in one transaction; throws
    /// ``StoreError/notFound(_:)`` for an unknown user.
    func changeAccount(userID: UserID, _ change: AccountChange, log: [NewAccountLogEntry], at date: Date) async throws -> AccountChangeOutcome
    /// The active user a one-time password link is for, while it is unused and unexpired at `date`.
    func passwordLinkUser(tokenHash: String, at date: Date) async throws -> User?
    /// Sets the password through a one-time link, once: the link is used up, every session of the user ends, and
    /// the change log records it. Returns nil, changing nothing, when the link is unknown, used or expired, or the
    /// account is deactivated.
    func usePasswordLink(tokenHash: String, passwordHash: String, at date: Date) async throws -> User?
    /// `userID`'s change log, oldest first.
    func accountLog(userID: UserID) async throws -> [AccountLogEntry]

    // MARK: Sessions
    func createSession(_ session: Session) async throws
    func session(tokenHash: String, at date: Date) async throws -> Session?
    /// The session with token hash `tokenHash`, unexpired at `date`, and its user, read together: what every signed-in
    /// request asks first. Nil when there is no such session.
    func signedIn(tokenHash: String, at date: Date) async throws -> (session: Session, user: User)?
    func deleteSession(tokenHash: String) async throws
    /// `userID`'s sessions, oldest first (for their own data export).
    func sessions(userID: UserID) async throws -> [Session]
    func deleteExpiredSessions(at date: Date) async throws -> Int
    /// Replaces `userID`'s password hash, deletes every session of theirs except `keptSession` (a token hash) and
    /// records the change in their change log as their own, in one transaction; returns the token hashes of the
    /// sessions deleted.
    func changePassword(userID: UserID, passwordHash: String, keeping keptSession: String?, at date: Date) async throws -> [String]

    // MARK: Preferences
    func preferences(for userID: UserID) async throws -> NotificationPreferences
    func setPreferences(_ preferences: NotificationPreferences, for userID: UserID) async throws
}

extension UserStore {
    /// The session, then its user, by the two reads each store has; a store answers in one read where it can.
    public func signedIn(tokenHash: String, at date: Date) async throws -> (session: Session, user: User)? {
        guard let session = try await session(tokenHash: tokenHash, at: date), let user = try await user(id: session.userID) else { return nil }
        return (session, user)
    }

    /// Creates a user with a password (the command line, the demo), recorded as done by nobody in particular.
    public func createUser(_ user: NewUser, at date: Date) async throws -> User {
        try await createUser(user, link: nil, by: nil, at: date)
    }
}
