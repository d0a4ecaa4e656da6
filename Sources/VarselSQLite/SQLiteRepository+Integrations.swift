import Foundation
import GRDB
import VarselCore
import VarselStore

/// The integration tokens systems act through, each with its own account.
extension SQLiteRepository {
    public func createIntegration(_ account: NewUser, tokenHash: String, by actorID: UserID?, at date: Date) async throws -> Integration {
        try await commits.write { db in
            if try UserRecord.all().named(account.username).isEmpty(db) == false {
                throw StoreError.conflict("username is taken")
            }
            var record = UserRecord(account, at: date)
            record.isIntegration = true
            try record.insert(db)
            let created = try record.user()
            try db.execute(
                sql: "INSERT INTO integration (user_id, token_hash, created_by) VALUES (?, ?, ?)",
                arguments: [created.id, tokenHash, actorID])
            try self.appendLog(
                [NewAccountLogEntry(actorID: actorID, action: .created, subject: account.role.rawValue)], userID: created.id, at: date, db: db)
            return Integration(account: created, createdBy: actorID, lastUsedAt: nil)
        }
    }

    public func integrations() async throws -> [Integration] {
        try read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT user.*, integration.created_by, integration.last_used_at FROM integration JOIN user ON user.id = integration.user_id
                    ORDER BY user.id
                    """
            ).map(Self.integration)
        }
    }

    public func integration(tokenHash: String) async throws -> Integration? {
        try read { db in
            try Row.fetchOne(
                db.cachedStatement(
                    sql: """
                        SELECT user.*, integration.created_by, integration.last_used_at FROM integration JOIN user ON user.id = integration.user_id
                        WHERE integration.token_hash = ?
                        """), arguments: [tokenHash]
            ).map(Self.integration)
        }
    }

    public func recordIntegrationUse(userID: UserID, at date: Date) async throws {
        try await commits.write { db in
            try db.execute(sql: "UPDATE integration SET last_used_at = ? WHERE user_id = ?", arguments: [date.timeIntervalSince1970, userID])
            if db.changesCount == 0 { throw StoreError.notFound(.user) }
        }
    }

    private static func integration(_ row: Row) throws -> Integration {
        Integration(
            account: try UserRecord(row: row).user(), createdBy: row["created_by"],
            lastUsedAt: (row["last_used_at"] as Double?).map(Self.date))
    }
}
