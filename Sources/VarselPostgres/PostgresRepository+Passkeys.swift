import Foundation
import PostgresNIO
import VarselCore
import VarselStore

/// Passkeys in the PostgreSQL store, and their ceremonies' challenges: taking one is a `DELETE … RETURNING`, so of
/// two instances racing for it only one gets it.
extension PostgresRepository {
    static let passkeyColumns = "id, user_id, credential_id, public_key, sign_count, name, created_at, last_used_at"

    public func addPasskey(_ new: NewPasskey, at date: Date) async throws -> Passkey {
        try await write { c in
            guard try await Self.first(c.query("SELECT 1 FROM users WHERE id = \(new.userID)", logger: self.logger)) != nil else {
                throw StoreError.notFound(.user)
            }
            return try await self.insert(new, at: date, c)
        }
    }

    public func usePasswordLink(tokenHash: String, addingPasskey new: NewPasskey, at date: Date) async throws -> (User, Passkey)? {
        do {
            let used: LinkUse = try await write { c in
                guard let user = try await self.takePasswordLink(tokenHash: tokenHash, at: date, c), user.id == new.userID else {
                    throw LinkNotUsable()
                }
                _ = try await self.endSessions(of: user.id, c)
                return LinkUse(user: user, passkey: try await self.insert(new, at: date, c))
            }
            return (used.user, used.passkey)
        } catch let error as PostgresTransactionError where error.closureError is LinkNotUsable {
            return nil
        }
    }

    /// Rolls back a link use that finds nothing to use.
    private struct LinkNotUsable: Error {}

    private struct LinkUse: Sendable {
        var user: User
        var passkey: Passkey
    }

    private func insert(_ new: NewPasskey, at date: Date, _ c: PostgresConnection) async throws -> Passkey {
        let id = try await Self.first(
            c.query(
                """
                INSERT INTO passkey (user_id, credential_id, public_key, sign_count, name, created_at)
                VALUES (\(new.userID), \(new.credentialID), \(new.publicKey), \(Int64(new.signCount)), \(new.name), \(date.timeIntervalSince1970))
                ON CONFLICT (credential_id) DO NOTHING RETURNING id
                """, logger: self.logger))?.decode(Int64.self)
        guard let id else { throw StoreError.conflict("passkey is registered") }
        try await self.appendLog(
            [NewAccountLogEntry(actorID: new.userID, action: .passkeyAdded, subject: new.name)], userID: new.userID,
            at: date, c)
        return Passkey(
            id: id, userID: new.userID, credentialID: new.credentialID, publicKey: new.publicKey, signCount: new.signCount,
            name: new.name, createdAt: date, lastUsedAt: nil)
    }

    public func passkeys(userID: UserID) async throws -> [Passkey] {
        try await read { c in
            try await c.query("SELECT \(unescaped: Self.passkeyColumns) FROM passkey WHERE user_id = \(userID) ORDER BY id", logger: self.logger)
                .collect().map(Self.passkey)
        }
    }

    public func passkey(credentialID: String) async throws -> Passkey? {
        try await read { c in
            try await Self.first(
                c.query(
                    "SELECT \(unescaped: Self.passkeyColumns) FROM passkey WHERE credential_id = \(credentialID)",
                    logger: self.logger)
            ).map(Self.passkey)
        }
    }

    public func recordPasskeyUse(id: Int64, signCount: UInt32, at date: Date) async throws {
        try await write { c in
            try await c.query(
                "UPDATE passkey SET sign_count = \(Int64(signCount)), last_used_at = \(date.timeIntervalSince1970) WHERE id = \(id)",
                logger: self.logger)
        }
    }

    public func renamePasskey(id: Int64, userID: UserID, name: String) async throws -> Passkey? {
        try await write { c in
            try await Self.first(
                c.query(
                    """
                    UPDATE passkey SET name = \(name) WHERE id = \(id) AND user_id = \(userID) RETURNING \(unescaped: Self.passkeyColumns)
                    """, logger: self.logger)
            ).map(Self.passkey)
        }
    }

    public func removePasskey(id: Int64, userID: UserID, at date: Date) async throws -> Bool {
        try await write { c in
            guard
                let name = try await Self.first(
                    c.query(
                        "DELETE FROM passkey WHERE id = \(id) AND user_id = \(userID) RETURNING name",
                        logger: self.logger))?.decode(String.self)
            else { return false }
            try await self.appendLog([NewAccountLogEntry(actorID: userID, action: .passkeyRemoved, subject: name)], userID: userID, at: date, c)
            return true
        }
    }

    public func storeChallenge(_ challenge: PasskeyChallenge, at date: Date) async throws {
        try await write { c in
            try await c.query("DELETE FROM passkey_challenge WHERE expires_at <= \(date.timeIntervalSince1970)", logger: self.logger)
            try await c.query(
                """
                INSERT INTO passkey_challenge (challenge_hash, purpose, user_id, binding_hash, expires_at)
                VALUES (\(challenge.challengeHash), \(challenge.purpose.rawValue), \(challenge.userID), \(challenge.bindingHash),
                        \(challenge.expiresAt.timeIntervalSince1970))
                """, logger: self.logger)
        }
    }

    public func takeChallenge(challengeHash: String, at date: Date) async throws -> PasskeyChallenge? {
        try await write { c in
            let row = try await Self.first(
                c.query(
                    """
                    DELETE FROM passkey_challenge WHERE challenge_hash = \(challengeHash)
                    RETURNING challenge_hash, purpose, user_id, binding_hash, expires_at
                    """, logger: self.logger))
            try await c.query("DELETE FROM passkey_challenge WHERE expires_at <= \(date.timeIntervalSince1970)", logger: self.logger)
            guard let row else { return nil }
            let (hash, purpose, userID, binding, expires) = try row.decode((String, String, UserID?, String, Double).self)
            guard expires > date.timeIntervalSince1970 else { return nil }
            return PasskeyChallenge(
                challengeHash: hash, purpose: try PasskeyChallenge.Purpose(stored: purpose, column: "passkey_challenge.purpose"),
                userID: userID, bindingHash: binding, expiresAt: Self.date(expires))
        }
    }

    static func passkey(_ row: PostgresRow) throws -> Passkey {
        let (id, userID, credentialID, publicKey, signCount, name, created, lastUsed) =
            try row.decode((Int64, UserID, String, Data, Int64, String, Double, Double?).self)
        return Passkey(
            id: id, userID: userID, credentialID: credentialID, publicKey: publicKey, signCount: UInt32(clamping: signCount), name: name,
            createdAt: date(created), lastUsedAt: lastUsed.map(date))
    }
}
