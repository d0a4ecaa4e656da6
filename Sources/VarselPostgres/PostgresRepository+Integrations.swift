import Foundation
import PostgresNIO
import VarselCore
import VarselStore

/// The integration tokens systems act through, each with its own account.
extension PostgresRepository {
    public func createIntegration(_ account: NewUser, tokenHash: String, by actorID: UserID?, at date: Date) async throws -> Integration {
        try await write { c in
            let taken = try await c.query("SELECT 1 FROM users WHERE lower(username) = lower(\(account.username))", logger: self.logger).collect()
            guard taken.isEmpty else { throw StoreError.conflict("username is taken") }
            let row = try await Self.one(
                c.query(
                    """
                    INSERT INTO users (username, display_name, role, password_hash, language, created_at, is_integration)
                    VALUES (\(account.username), \(account.displayName), \(account.role.rawValue), \(account.passwordHash), \(account.language.rawValue),
                            \(date.timeIntervalSince1970), true) RETURNING id
                    """, logger: self.logger))
            let created = User(
                id: try row.decode(UserID.self), username: account.username, displayName: account.displayName, role: account.role,
                passwordHash: account.passwordHash, language: account.language, createdAt: date, isIntegration: true)
            try await c.query(
                "INSERT INTO integration (user_id, token_hash, created_by) VALUES (\(created.id), \(tokenHash), \(actorID))",
                logger: self.logger)
            try await self.appendLog(
                [NewAccountLogEntry(actorID: actorID, action: .created, subject: account.role.rawValue)], userID: created.id, at: date, c)
            return Integration(account: created, createdBy: actorID, lastUsedAt: nil)
        }
    }

    public func integrations() async throws -> [Integration] {
        try await read { c in
            let tokens = try await c.query("SELECT user_id, created_by, last_used_at FROM integration ORDER BY user_id", logger: self.logger)
                .collect()
            let accounts = try await c.query("SELECT \(unescaped: Self.userColumns) FROM users WHERE is_integration ORDER BY id", logger: self.logger)
                .collect().map(Self.user)
            let byID = Dictionary(uniqueKeysWithValues: accounts.map { ($0.id, $0) })
            return try tokens.compactMap { row in
                let (userID, createdBy, lastUsed) = try row.decode((UserID, UserID?, Double?).self)
                return byID[userID].map { Integration(account: $0, createdBy: createdBy, lastUsedAt: lastUsed.map(Self.date)) }
            }
        }
    }

    public func integration(tokenHash: String) async throws -> Integration? {
        try await read { c in
            guard
                let token = try await Self.first(
                    c.query(
                        "SELECT user_id, created_by, last_used_at FROM integration WHERE token_hash = \(tokenHash)",
                        logger: self.logger))
            else { return nil }
            let (userID, createdBy, lastUsed) = try token.decode((UserID, UserID?, Double?).self)
            guard
                let account = try await Self.first(
                    c.query(
                        "SELECT \(unescaped: Self.userColumns) FROM users WHERE id = \(userID)",
                        logger: self.logger)
                ).map(Self.user)
            else { return nil }
            return Integration(account: account, createdBy: createdBy, lastUsedAt: lastUsed.map(Self.date))
        }
    }

    public func recordIntegrationUse(userID: UserID, at date: Date) async throws {
        try await write { c in
            let rows = try await c.query(
                "UPDATE integration SET last_used_at = \(date.timeIntervalSince1970) WHERE user_id = \(userID) RETURNING user_id",
                logger: self.logger
            ).collect()
            if rows.isEmpty { throw StoreError.notFound(.user) }
        }
    }
}
