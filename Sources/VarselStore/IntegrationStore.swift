import Foundation
import VarselCore

/// A system that acts in Varsel through an integration token: its account (name, role, when it was made and
/// revoked) and what is known of the token, which is stored only as a hash.
public struct Integration: Sendable, Hashable, Identifiable {
    /// The system's account: its display name is the system's name, its role what the token may do.
    public var account: User
    /// Who made the token; nil for the command line.
    public var createdBy: UserID?
    /// When the token was last used, to the minute; nil when never.
    public var lastUsedAt: Date?

    public var id: UserID { account.id }
    /// Whether the token was revoked: its account is deactivated, for good.
    public var isRevoked: Bool { !account.isActive }

    public init(account: User, createdBy: UserID?, lastUsedAt: Date?) {
        self.account = account
        self.createdBy = createdBy
        self.lastUsedAt = lastUsedAt
    }
}

/// The integration tokens systems act through, each with its own account.
///
/// Revoking a token is deactivating its account (``UserStore/changeAccount(userID:_:log:at:)``), so the change log
/// records it as every other change to an account.
public protocol IntegrationStore: Sendable {
    /// Creates `account` as an integration account with the token whose SHA-256 hash is `tokenHash`, recorded in
    /// its change log as made by `actorID` (nil: the command line); throws ``StoreError/conflict(_:)`` for a taken
    /// username.
    func createIntegration(_ account: NewUser, tokenHash: String, by actorID: UserID?, at date: Date) async throws -> Integration
    /// Every integration, revoked ones too, in the order they were made.
    func integrations() async throws -> [Integration]
    /// The integration whose token hashes to `tokenHash`, revoked or not; nil for an unknown token.
    func integration(tokenHash: String) async throws -> Integration?
    /// Records that integration `userID`'s token was used at `date`.
    func recordIntegrationUse(userID: UserID, at date: Date) async throws
}
