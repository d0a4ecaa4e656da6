import Foundation
import VarselCore
import VarselStore

/// Signing in, signing out and changing one's password: the one place that checks a password, counts failures
/// against the sign-in throttle, and ends sessions and their live streams.
public struct Sessions: Sendable {
    /// Why a sign-in or a password change was refused.
    public enum Refusal: Error, Sendable, Equatable {
        /// A required field is empty: `username` or `password`.
        case missing(field: String)
        /// Too many failures for this account or client; try again after this many seconds.
        case tooManyAttempts(retryAfterSeconds: Int)
        /// No such user, or the wrong password (the two are not told apart).
        case wrongCredentials
        /// The password was right but the account is deactivated; said only to whoever knows the password.
        case deactivated
    }

    /// A session that was just started, with the token the client keeps (only its hash is stored).
    public struct Started: Sendable {
        public var token: String
        public var session: Session
        public var user: User
    }

    let repository: any UserStore
    let passwords: PasswordHasher
    let throttle: LoginThrottle
    let broker: EventBroker
    let lifetime: TimeInterval
    let now: @Sendable () -> Date

    public init(
        repository: any UserStore, passwords: PasswordHasher, throttle: LoginThrottle, broker: EventBroker,
        lifetime: TimeInterval, now: @escaping @Sendable () -> Date
    ) {
        self.repository = repository
        self.passwords = passwords
        self.throttle = throttle
        self.broker = broker
        self.lifetime = lifetime
        self.now = now
    }

    /// The unexpired session `token` (as the client holds it) opens, with its user, while the account is active.
    public func identify(token: String) async throws -> (session: Session, user: User)? {
        guard let (session, user) = try await repository.signedIn(tokenHash: Tokens.hash(token), at: now()), user.isActive else { return nil }
        return (session, user)
    }

    /// Checks `username` and `password` from `client` (an address, for the throttle) and stores a new session.
    public func signIn(username: String, password: String, client: String) async throws -> Started {
        let trimmed = username.trimmingCharacters(in: .whitespaces)
        guard !trimmed.isEmpty, !password.isEmpty else { throw Refusal.missing(field: trimmed.isEmpty ? "username" : "password") }
        let attempt = try await reserve(account: trimmed, client: client)
        let user: User?
        let matches: Bool
        do {
            user = try await repository.user(username: trimmed)
            matches = try await passwords.verify(password, hashIfAccountExists: user?.passwordHash)
        } catch {
            await throttle.failed(attempt)
            throw error
        }
        guard let user, matches else {
            await throttle.failed(attempt)
            throw Refusal.wrongCredentials
        }
        await throttle.succeeded(attempt)
        guard user.isActive else { throw Refusal.deactivated }
        return try await start(for: user)
    }

    /// Stores a new session for `user`, who proved who they are another way (a one-time set-password link).
    public func start(for user: User) async throws -> Started {
        guard user.isActive else { throw Refusal.deactivated }
        let token = Tokens.random()
        let started = now()
        let session = Session(
            tokenHash: Tokens.hash(token), userID: user.id, csrfToken: Tokens.random(), createdAt: started,
            expiresAt: started.addingTimeInterval(lifetime))
        try await repository.createSession(session)
        return Started(token: token, session: session, user: user)
    }

    /// Ends `session` and its live streams.
    public func signOut(_ session: Session) async throws {
        try await repository.deleteSession(tokenHash: session.tokenHash)
        broker.endStreams(ofSession: session.tokenHash)
    }

    /// Changes `user`'s password after checking the current one (throttled as sign-in is), and ends their other
    /// sessions and those sessions' streams; `session` stays. Returns how many sessions ended. Throws
    /// ``InvalidInput`` for a new password that breaks the rules or a wrong current one.
    @discardableResult
    public func changePassword(of user: User, keeping session: Session, current: String, new: String, client: String) async throws -> Int {
        let issues = Validation.password(new, field: "newPassword")
        guard issues.isEmpty else { throw InvalidInput(issues) }
        let attempt = try await reserve(account: user.username, client: client)
        guard try await passwords.verify(current, hash: user.passwordHash) else {
            await throttle.failed(attempt)
            throw InvalidInput([.init(field: "currentPassword", rule: .other("is not the current password"))])
        }
        await throttle.succeeded(attempt)
        let hash = try await passwords.hash(new)
        let ended = try await repository.changePassword(userID: user.id, passwordHash: hash, keeping: session.tokenHash, at: now())
        ended.forEach(broker.endStreams(ofSession:))
        return ended.count
    }

    /// A throttle attempt for `account` from `client`, or ``Refusal/tooManyAttempts(retryAfterSeconds:)`` with the
    /// throttle's own wait.
    private func reserve(account: String, client: String) async throws(Refusal) -> LoginThrottle.Attempt {
        switch await throttle.reserve(account: account, client: client) {
        case let .proceed(attempt): attempt
        case let .retry(after: wait): throw .tooManyAttempts(retryAfterSeconds: max(1, Int(wait.rounded(.up))))
        }
    }
}
