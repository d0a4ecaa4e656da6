import Foundation
import VarselCore

/// A one-time link that lets a person choose their password; only the hash of its token is stored.
public struct PasswordLink: Sendable, Hashable {
    /// SHA-256 of the link's token, hex.
    public var tokenHash: String
    public var expiresAt: Date

    public init(tokenHash: String, expiresAt: Date) {
        self.tokenHash = tokenHash
        self.expiresAt = expiresAt
    }
}

/// What was done to an account, as its change log records it.
public enum AccountAction: String, Sendable, Codable, Hashable, CaseIterable {
    case created
    case passwordLinkIssued = "password-link-issued"
    case passwordSet = "password-set"
    case passwordChanged = "password-changed"
    case roleChanged = "role-changed"
    case deactivated
    case reactivated
    case certificationAdded = "certification-added"
    case certificationRenewed = "certification-renewed"
    case certificationRemoved = "certification-removed"
    case passkeyAdded = "passkey-added"
    case passkeyRemoved = "passkey-removed"
}

/// One entry of an account's change log: who did what, and when. Never a password or a link.
public struct AccountLogEntry: Sendable, Codable, Hashable, Identifiable {
    public var id: Int64
    /// The account changed.
    public var userID: UserID
    /// Who changed it; nil for the command line.
    public var actorID: UserID?
    public var action: AccountAction
    /// What the change was about: the new role, or a certification's name; empty when nothing.
    public var subject: String
    /// A certification's expiry date, when the change set one.
    public var date: Date?
    public var at: Date

    public init(id: Int64, userID: UserID, actorID: UserID?, action: AccountAction, subject: String, date: Date?, at: Date) {
        self.id = id
        self.userID = userID
        self.actorID = actorID
        self.action = action
        self.subject = subject
        self.date = date
        self.at = at
    }
}

/// The change log entry to record with a change.
public struct NewAccountLogEntry: Sendable, Hashable {
    public var actorID: UserID?
    public var action: AccountAction
    public var subject: String
    public var date: Date?

    public init(actorID: UserID?, action: AccountAction, subject: String = "", date: Date? = nil) {
        self.actorID = actorID
        self.action = action
        self.subject = subject
        self.date = date
    }
}

/// A change to an account that the store makes in one transaction with its change log entries.
public enum AccountChange: Sendable, Hashable {
    /// A new role.
    case role(Role)
    /// Sign-in refused from now on: every session ends (and with them the push subscriptions), unused password
    /// links are dropped. Nothing else is deleted.
    case deactivate
    /// Sign-in allowed again.
    case reactivate
    /// A new one-time password link, replacing any unused one; every session ends.
    case passwordLink(PasswordLink)
    /// The mentor's certifications, replacing the list (an unchanged one keeps its id and the warnings sent).
    case certifications([NewCertification])
}

/// What a change to an account left behind.
public struct AccountChangeOutcome: Sendable, Hashable {
    public var user: User
    /// The token hashes of the sessions the change ended, so their live streams can be closed.
    public var endedSessions: [String]
    /// The mentor's certifications after the change.
    public var certifications: [Certification]

    public init(user: User, endedSessions: [String], certifications: [Certification]) {
        self.user = user
        self.endedSessions = endedSessions
        self.certifications = certifications
    }
}
