import Foundation
import VarselCore

/// A passkey: a credential on a user's device that signs them in with the device's own lock.
public struct Passkey: Sendable, Hashable, Identifiable {
    public var id: Int64
    public var userID: UserID
    /// The credential's id, base64url, as the browser names it.
    public var credentialID: String
    /// Its public key, the COSE_Key bytes the authenticator sent.
    public var publicKey: Data
    /// The authenticator's signature counter as last seen (0 for authenticators without one).
    public var signCount: UInt32
    /// The name its owner gave it ("iPhone").
    public var name: String
    public var createdAt: Date
    public var lastUsedAt: Date?

    public init(
        id: Int64, userID: UserID, credentialID: String, publicKey: Data, signCount: UInt32, name: String, createdAt: Date,
        lastUsedAt: Date?
    ) {
        self.id = id
        self.userID = userID
        self.credentialID = credentialID
        self.publicKey = publicKey
        self.signCount = signCount
        self.name = name
        self.createdAt = createdAt
        self.lastUsedAt = lastUsedAt
    }
}

/// A passkey about to be saved.
public struct NewPasskey: Sendable, Hashable {
    public var userID: UserID
    public var credentialID: String
    public var publicKey: Data
    public var signCount: UInt32
    public var name: String

    public init(userID: UserID, credentialID: String, publicKey: Data, signCount: UInt32, name: String) {
        self.userID = userID
        self.credentialID = credentialID
        self.publicKey = publicKey
        self.signCount = signCount
        self.name = name
    }
}

/// A challenge issued for one ceremony: random, single use, bound to what asked for it, short-lived.
public struct PasskeyChallenge: Sendable, Hashable {
    /// Which ceremony it is for.
    public enum Purpose: String, Sendable, Hashable {
        case registration
        case signIn = "sign-in"
    }

    /// SHA-256 of the challenge's bytes, hex: the challenge itself is never stored.
    public var challengeHash: String
    public var purpose: Purpose
    /// The user adding a passkey; nil for a sign-in.
    public var userID: UserID?
    /// SHA-256 (hex) of what it is bound to: the session's token (adding) or the sign-in attempt's cookie.
    public var bindingHash: String
    public var expiresAt: Date

    public init(challengeHash: String, purpose: Purpose, userID: UserID?, bindingHash: String, expiresAt: Date) {
        self.challengeHash = challengeHash
        self.purpose = purpose
        self.userID = userID
        self.bindingHash = bindingHash
        self.expiresAt = expiresAt
    }
}

/// Where passkeys and their ceremonies' challenges are kept.
public protocol PasskeyStore: Sendable {
    /// Saves a passkey and records it in its owner's change log; ``StoreError/conflict(_:)`` when the credential is
    /// already registered.
    func addPasskey(_ passkey: NewPasskey, at date: Date) async throws -> Passkey
    /// Uses a one-time password link to add a passkey instead of choosing a password, in one transaction: the link is
    /// used up, every session of its account ends, the passkey is saved and logged; the password is left as it was.
    /// Nil, changing nothing, when the link is unknown, used, expired, another account's, or its account deactivated.
    func usePasswordLink(tokenHash: String, addingPasskey passkey: NewPasskey, at date: Date) async throws -> (User, Passkey)?
    func passkeys(userID: UserID) async throws -> [Passkey]
    func passkey(credentialID: String) async throws -> Passkey?
    /// Records a sign-in with the passkey: its new counter and when.
    func recordPasskeyUse(id: Int64, signCount: UInt32, at date: Date) async throws
    /// Renames the user's passkey; nil when they have no such passkey.
    func renamePasskey(id: Int64, userID: UserID, name: String) async throws -> Passkey?
    /// Removes the user's passkey and records it in their change log; false when they have no such passkey.
    func removePasskey(id: Int64, userID: UserID, at date: Date) async throws -> Bool
    /// Keeps a challenge until it is taken or expires. Challenges expired by `date` are forgotten on the way, so asking
    /// for options again and again without answering cannot grow the table.
    func storeChallenge(_ challenge: PasskeyChallenge, at date: Date) async throws
    /// Takes the challenge with `challengeHash` once: it is gone afterwards, whoever asked; nil when there is none or
    /// it expired by `date`. Expired challenges are forgotten on the way.
    func takeChallenge(challengeHash: String, at date: Date) async throws -> PasskeyChallenge?
}
