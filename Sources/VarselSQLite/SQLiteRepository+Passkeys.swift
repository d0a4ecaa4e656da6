import Foundation
import GRDB
import VarselCore
import VarselStore

/// Passkeys in the SQLite store (deleted with their user by a foreign key), and their ceremonies' challenges.
extension SQLiteRepository {
    public func addPasskey(_ new: NewPasskey, at date: Date) async throws -> Passkey {
        try await commits.write { db in
            guard try Bool.fetchOne(db, sql: "SELECT 1 FROM user WHERE id = ?", arguments: [new.userID]) == true else {
                throw StoreError.notFound(.user)
            }
            return try self.insert(new, at: date, db: db)
        }
    }

    public func usePasswordLink(tokenHash: String, addingPasskey new: NewPasskey, at date: Date) async throws -> (User, Passkey)? {
        try await commits.write { db in
            guard let user = try self.passwordLinkUser(tokenHash: tokenHash, at: date, db: db), user.id == new.userID else { return nil }
            let passkey = try self.insert(new, at: date, db: db)
            try db.execute(sql: "DELETE FROM password_link WHERE token_hash = ?", arguments: [tokenHash])
            _ = try self.endSessions(of: user.id, db: db)
            return (user, passkey)
        }
    }

    private func insert(_ new: NewPasskey, at date: Date, db: Database) throws -> Passkey {
        guard try Bool.fetchOne(db, sql: "SELECT 1 FROM passkey WHERE credential_id = ?", arguments: [new.credentialID]) != true else {
            throw StoreError.conflict("passkey is registered")
        }
        try db.execute(
            sql: """
                INSERT INTO passkey (user_id, credential_id, public_key, sign_count, name, created_at) VALUES (?, ?, ?, ?, ?, ?)
                """, arguments: [new.userID, new.credentialID, new.publicKey, Int64(new.signCount), new.name, date.timeIntervalSince1970])
        let id = db.lastInsertedRowID
        try self.appendLog([NewAccountLogEntry(actorID: new.userID, action: .passkeyAdded, subject: new.name)], userID: new.userID, at: date, db: db)
        return Passkey(
            id: id, userID: new.userID, credentialID: new.credentialID, publicKey: new.publicKey, signCount: new.signCount,
            name: new.name, createdAt: date, lastUsedAt: nil)
    }

    public func passkeys(userID: UserID) async throws -> [Passkey] {
        try read { db in try Row.fetchAll(db, sql: "SELECT * FROM passkey WHERE user_id = ? ORDER BY id", arguments: [userID]).map(Self.passkey) }
    }

    public func passkey(credentialID: String) async throws -> Passkey? {
        try read { db in try Row.fetchOne(db, sql: "SELECT * FROM passkey WHERE credential_id = ?", arguments: [credentialID]).map(Self.passkey) }
    }

    public func recordPasskeyUse(id: Int64, signCount: UInt32, at date: Date) async throws {
        try await commits.write { db in
            try db.execute(
                sql: "UPDATE passkey SET sign_count = ?, last_used_at = ? WHERE id = ?",
                arguments: [Int64(signCount), date.timeIntervalSince1970, id])
        }
    }

    public func renamePasskey(id: Int64, userID: UserID, name: String) async throws -> Passkey? {
        try await commits.write { db in
            try db.execute(sql: "UPDATE passkey SET name = ? WHERE id = ? AND user_id = ?", arguments: [name, id, userID])
            return try Row.fetchOne(db, sql: "SELECT * FROM passkey WHERE id = ? AND user_id = ?", arguments: [id, userID]).map(Self.passkey)
        }
    }

    public func removePasskey(id: Int64, userID: UserID, at date: Date) async throws -> Bool {
        try await commits.write { db in
            guard let name = try String.fetchOne(db, sql: "SELECT name FROM passkey WHERE id = ? AND user_id = ?", arguments: [id, userID]) else {
                return false
            }
            try db.execute(sql: "DELETE FROM passkey WHERE id = ?", arguments: [id])
            try self.appendLog([NewAccountLogEntry(actorID: userID, action: .passkeyRemoved, subject: name)], userID: userID, at: date, db: db)
            return true
        }
    }

    public func storeChallenge(_ challenge: PasskeyChallenge, at date: Date) async throws {
        try await commits.write { db in
            try db.execute(sql: "DELETE FROM passkey_challenge WHERE expires_at <= ?", arguments: [date.timeIntervalSince1970])
            try db.execute(
                sql: """
                    INSERT INTO passkey_challenge (challenge_hash, purpose, user_id, binding_hash, expires_at) VALUES (?, ?, ?, ?, ?)
                    """,
                arguments: [
                    challenge.challengeHash, challenge.purpose.rawValue, challenge.userID, challenge.bindingHash,
                    challenge.expiresAt.timeIntervalSince1970,
                ])
        }
    }

    public func takeChallenge(challengeHash: String, at date: Date) async throws -> PasskeyChallenge? {
        try await commits.write { db in
            let row = try Row.fetchOne(db, sql: "SELECT * FROM passkey_challenge WHERE challenge_hash = ?", arguments: [challengeHash])
            try db.execute(
                sql: "DELETE FROM passkey_challenge WHERE challenge_hash = ? OR expires_at <= ?",
                arguments: [challengeHash, date.timeIntervalSince1970])
            guard let row, (row["expires_at"] as Double) > date.timeIntervalSince1970 else { return nil }
            return PasskeyChallenge(
                challengeHash: row["challenge_hash"],
                purpose: try PasskeyChallenge.Purpose(stored: row["purpose"], column: "passkey_challenge.purpose"),
                userID: row["user_id"], bindingHash: row["binding_hash"], expiresAt: Self.date(row["expires_at"]))
        }
    }

    private static func passkey(_ row: Row) -> Passkey {
        Passkey(
            id: row["id"], userID: row["user_id"], credentialID: row["credential_id"], publicKey: row["public_key"],
            signCount: UInt32(clamping: row["sign_count"] as Int64), name: row["name"], createdAt: date(row["created_at"]),
            lastUsedAt: (row["last_used_at"] as Double?).map(date))
    }
}
