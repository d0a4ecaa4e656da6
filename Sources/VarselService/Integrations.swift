import Foundation
import VarselCore
import VarselStore

/// Integration tokens: the way a member or case system acts in Varsel without a person's password.
///
/// An administrator (or the operator at the command line) makes a named token with a role; the token is shown once
/// and only its hash is kept. The system acts through an account of its own, so everything it changes is recorded
/// as done by that system. A token is revoked for good: its account is deactivated and nobody can reactivate it.
public struct Integrations: Sendable {
    /// Why a change to an integration was refused; each sentence is safe to show and names no value typed in.
    public enum Refusal: Error, Sendable, Equatable {
        /// Only an administrator (or the command line) makes and revokes integration tokens.
        case adminOnly
        /// No integration with that id.
        case unknownIntegration

        public var sentence: String {
            switch self {
            case .adminOnly: "Only an administrator makes or revokes integration tokens."
            case .unknownIntegration: "No such integration token."
            }
        }
    }

    /// A token that was just made, to show once: the store keeps only its hash.
    public struct Issued: Sendable {
        public var integration: Integration
        public var token: String
    }

    /// What every integration token starts with, so a leaked one is recognised (by a secret scanner, or a person)
    /// and so a bearer token is looked up in the right place.
    public static let tokenPrefix = "varsel_it_"
    /// How stale a token's recorded last use may get before a request records it again: one write a minute at most.
    public static let useRecordingInterval: TimeInterval = 60

    let repository: any IntegrationStore & UserStore
    let broker: EventBroker?
    let now: @Sendable () -> Date

    public init(repository: any IntegrationStore & UserStore, broker: EventBroker? = nil, now: @escaping @Sendable () -> Date) {
        self.repository = repository
        self.broker = broker
        self.now = now
    }

    /// Makes a token named `name` (the system's name: "Member system") with `role` (`coordinator` or `admin`), by
    /// `actor` (nil: the command line). Throws ``InvalidInput`` naming `name` or `role`, ``Refusal/adminOnly``.
    public func create(name: String, role: String, by actor: User?) async throws -> Issued {
        try Self.requireAdmin(actor)
        let trimmed = name.trimmingCharacters(in: .whitespaces)
        var issues = Validation.text(trimmed, field: "name", max: Limits.maxDisplayNameLength)
        let parsedRole = Role(rawValue: role).flatMap { $0 == .mentor ? nil : $0 }
        if parsedRole == nil { issues.append(.init(field: "role", rule: .other("must be coordinator or admin"))) }
        guard issues.isEmpty, let parsedRole else { throw InvalidInput(issues) }
        let token = Self.tokenPrefix + Tokens.random()
        // The account's username is never typed by anyone: the system is known by its name.
        let username = "integration-" + Tokens.random().prefix(12).lowercased().filter { $0.isLetter || $0.isNumber }
        let account = NewUser(username: username, displayName: trimmed, role: parsedRole, passwordHash: "", language: .english)
        let integration = try await repository.createIntegration(account, tokenHash: Tokens.hash(token), by: actor?.id, at: now())
        return Issued(integration: integration, token: token)
    }

    /// Every integration token, revoked ones too, in the order they were made; administrators (and the command line) only.
    public func list(for actor: User?) async throws -> [Integration] {
        try Self.requireAdmin(actor)
        return try await repository.integrations()
    }

    /// Integration `id`, revoked or not; ``Refusal/unknownIntegration`` for any other id.
    public func integration(_ id: UserID, for actor: User?) async throws -> Integration {
        guard let integration = try await list(for: actor).first(where: { $0.id == id }) else { throw Refusal.unknownIntegration }
        return integration
    }

    /// Revokes integration `id` for good: its account is deactivated (recorded in its change log as done by
    /// `actor`) and its live streams end. Revoking twice changes nothing more.
    @discardableResult
    public func revoke(_ id: UserID, by actor: User?) async throws -> Integration {
        let integration = try await integration(id, for: actor)
        guard !integration.isRevoked else { return integration }
        let outcome = try await repository.changeAccount(
            userID: id, .deactivate, log: [NewAccountLogEntry(actorID: actor?.id, action: .deactivated)],
            at: now())
        broker?.endStreams(ofUser: id, reason: .deactivated)
        return Integration(account: outcome.user, createdBy: integration.createdBy, lastUsedAt: integration.lastUsedAt)
    }

    /// The account an unrevoked `token` acts as, with a session that stands for the token (never stored); nil for
    /// anything else. Records the token's use, at most once a minute.
    public func identify(token: String) async throws -> (session: Session, user: User)? {
        guard token.hasPrefix(Self.tokenPrefix) else { return nil }
        let hash = Tokens.hash(token)
        guard let integration = try await repository.integration(tokenHash: hash), !integration.isRevoked else { return nil }
        let date = now()
        if integration.lastUsedAt.map({ date.timeIntervalSince($0) >= Self.useRecordingInterval }) ?? true {
            try await repository.recordIntegrationUse(userID: integration.id, at: date)
        }
        // No CSRF secret: a token is only ever sent as a bearer token, never by a browser on its own.
        let session = Session(
            tokenHash: hash, userID: integration.id, csrfToken: "", createdAt: integration.account.createdAt, expiresAt: .distantFuture)
        return (session, integration.account)
    }

    /// Administrators who are people, and the command line: a system's own token never makes or revokes one.
    private static func requireAdmin(_ actor: User?) throws(Refusal) {
        guard actor.map({ $0.role == .admin && !$0.isIntegration }) ?? true else { throw .adminOnly }
    }
}
