import Foundation
import GRDB
import VarselCore
import VarselStore

/// People, their accounts, sessions and preferences.
extension SQLiteRepository {
    // MARK: Users

    public func createUser(_ user: NewUser, link: PasswordLink?, by actorID: UserID?, at date: Date) async throws -> User {
        try await commits.write { db in
            if try UserRecord.all().named(user.username).isEmpty(db) == false {
                throw StoreError.conflict("username is taken")
            }
            var record = UserRecord(user, at: date)
            try record.insert(db)
            let created = try record.user()
            if let link { try self.insert(link, userID: created.id, db: db) }
            try self.appendLog(
                [NewAccountLogEntry(actorID: actorID, action: .created, subject: user.role.rawValue)], userID: created.id, at: date, db: db)
            return created
        }
    }

    public func user(id: UserID) async throws -> User? {
        if let user = identities.user(id: id) { return user }
        let generation = identities.generation
        let user = try read { db in
            try Row.fetchOne(db.cachedStatement(sql: "SELECT * FROM user WHERE id = ?"), arguments: [id]).map { try UserRecord(row: $0).user() }
        }
        if let user { identities.keep(user: user, generation: generation) }
        return user
    }

    public func user(username: String) async throws -> User? {
        try read { db in
            try UserRecord.all().named(username).fetchOne(db)?.user()
        }
    }

    public func users() async throws -> [User] {
        try read { db in try UserRecord.order(UserRecord.Columns.id).fetchAll(db).map { try $0.user() } }
    }

    public func setLanguage(_ language: Language, userID: UserID) async throws {
        try await commits.write { db in
            try db.execute(sql: "UPDATE user SET language = ? WHERE id = ?", arguments: [language.rawValue, userID])
            if db.changesCount == 0 { throw StoreError.notFound(.user) }
        }
    }

    public func setPause(from: Date?, until: Date?, userID: UserID) async throws {
        try await commits.write { db in
            try db.execute(
                sql: "UPDATE user SET paused_from = ?, paused_until = ? WHERE id = ?",
                arguments: [until == nil ? nil : from?.timeIntervalSince1970, until?.timeIntervalSince1970, userID])
            if db.changesCount == 0 { throw StoreError.notFound(.user) }
        }
    }

    // MARK: Sessions

    public func createSession(_ session: Session) async throws {
        try await commits.write { db in
            try db.execute(
                sql: """
                    INSERT INTO session (token_hash, user_id, csrf_token, created_at, expires_at) VALUES (?, ?, ?, ?, ?)
                    """,
                arguments: [
                    session.tokenHash, session.userID, session.csrfToken, session.createdAt.timeIntervalSince1970,
                    session.expiresAt.timeIntervalSince1970,
                ])
        }
    }

    public func session(tokenHash: String, at date: Date) async throws -> Session? {
        if let session = identities.session(tokenHash: tokenHash) { return session.expiresAt > date ? session : nil }
        let generation = identities.generation
        let session = try read { db in
            try Row.fetchOne(
                db.cachedStatement(sql: "SELECT * FROM session WHERE token_hash = ? AND expires_at > ?"),
                arguments: [tokenHash, date.timeIntervalSince1970]
            ).map { row in
                Session(
                    tokenHash: row["token_hash"], userID: row["user_id"], csrfToken: row["csrf_token"],
                    createdAt: Self.date(row["created_at"]), expiresAt: Self.date(row["expires_at"]))
            }
        }
        if let session { identities.keep(session: session, generation: generation) }
        return session
    }

    public func sessions(userID: UserID) async throws -> [Session] {
        try read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM session WHERE user_id = ? ORDER BY created_at, token_hash", arguments: [userID]).map { row in
                Session(
                    tokenHash: row["token_hash"], userID: row["user_id"], csrfToken: row["csrf_token"],
                    createdAt: Self.date(row["created_at"]), expiresAt: Self.date(row["expires_at"]))
            }
        }
    }

    public func deleteSession(tokenHash: String) async throws {
        try await commits.write { db in try db.execute(sql: "DELETE FROM session WHERE token_hash = ?", arguments: [tokenHash]) }
    }

    public func changePassword(userID: UserID, passwordHash: String, keeping keptSession: String?, at date: Date) async throws -> [String] {
        try await commits.write { db in
            try db.execute(sql: "UPDATE user SET password_hash = ? WHERE id = ?", arguments: [passwordHash, userID])
            if db.changesCount == 0 { throw StoreError.notFound(.user) }
            try self.appendLog([NewAccountLogEntry(actorID: userID, action: .passwordChanged)], userID: userID, at: date, db: db)
            return try self.endSessions(of: userID, keeping: keptSession, db: db)
        }
    }

    /// Deletes `userID`'s sessions but `keptSession` (their push subscriptions go with them); returns their hashes.
    func endSessions(of userID: UserID, keeping keptSession: String? = nil, db: Database) throws -> [String] {
        let ended = try String.fetchAll(
            db, sql: "SELECT token_hash FROM session WHERE user_id = ? AND token_hash IS NOT ?",
            arguments: [userID, keptSession])
        try db.execute(sql: "DELETE FROM session WHERE user_id = ? AND token_hash IS NOT ?", arguments: [userID, keptSession])
        return ended
    }

    public func deleteExpiredSessions(at date: Date) async throws -> Int {
        try await commits.write { db in
            try db.execute(sql: "DELETE FROM password_link WHERE expires_at <= ?", arguments: [date.timeIntervalSince1970])
            try db.execute(sql: "DELETE FROM session WHERE expires_at <= ?", arguments: [date.timeIntervalSince1970])
            return db.changesCount
        }
    }

    // MARK: Accounts

    public func changeAccount(userID: UserID, _ change: AccountChange, log: [NewAccountLogEntry], at date: Date) async throws -> AccountChangeOutcome
    {
        try await commits.write { db in
            guard try Bool.fetchOne(db, sql: "SELECT 1 FROM user WHERE id = ?", arguments: [userID]) == true else {
                if case .certifications = change { throw StoreError.notFound(.mentor) }
                throw StoreError.notFound(.user)
            }
            var ended: [String] = []
            switch change {
            case let .role(role):
                try db.execute(sql: "UPDATE user SET role = ? WHERE id = ?", arguments: [role.rawValue, userID])
            case .deactivate:
                try db.execute(
                    sql: "UPDATE user SET deactivated_at = coalesce(deactivated_at, ?) WHERE id = ?",
                    arguments: [date.timeIntervalSince1970, userID])
                try db.execute(sql: "DELETE FROM password_link WHERE user_id = ?", arguments: [userID])
                ended = try self.endSessions(of: userID, db: db)
                try self.appendEvent(userID: userID, .accountDeactivated, at: date, db: db)
            case .reactivate:
                try db.execute(sql: "UPDATE user SET deactivated_at = NULL WHERE id = ?", arguments: [userID])
            case let .passwordLink(link):
                try db.execute(sql: "DELETE FROM password_link WHERE user_id = ?", arguments: [userID])
                try self.insert(link, userID: userID, db: db)
                ended = try self.endSessions(of: userID, db: db)
            case let .certifications(list):
                try self.replaceCertifications(list, mentorID: userID, db: db)
            }
            try self.appendLog(log, userID: userID, at: date, db: db)
            guard let user = try Row.fetchOne(db, sql: "SELECT * FROM user WHERE id = ?", arguments: [userID]).map({ try UserRecord(row: $0).user() })
            else {
                throw StoreError.notFound(.user)
            }
            let certifications = try Row.fetchAll(db, sql: "SELECT * FROM certification WHERE mentor_id = ? ORDER BY id", arguments: [userID])
                .map(self.certification)
            return AccountChangeOutcome(user: user, endedSessions: ended, certifications: certifications)
        }
    }

    public func passwordLinkUser(tokenHash: String, at date: Date) async throws -> User? {
        try read { db in try self.passwordLinkUser(tokenHash: tokenHash, at: date, db: db) }
    }

    func passwordLinkUser(tokenHash: String, at date: Date, db: Database) throws -> User? {
        try Row.fetchOne(
            db,
            sql: """
                SELECT user.* FROM password_link JOIN user ON user.id = password_link.user_id
                WHERE password_link.token_hash = ? AND password_link.expires_at > ? AND user.deactivated_at IS NULL
                """, arguments: [tokenHash, date.timeIntervalSince1970]
        ).map { try UserRecord(row: $0).user() }
    }

    public func usePasswordLink(tokenHash: String, passwordHash: String, at date: Date) async throws -> User? {
        try await commits.write { db in
            guard var user = try self.passwordLinkUser(tokenHash: tokenHash, at: date, db: db) else { return nil }
            try db.execute(sql: "DELETE FROM password_link WHERE token_hash = ?", arguments: [tokenHash])
            try db.execute(sql: "UPDATE user SET password_hash = ? WHERE id = ?", arguments: [passwordHash, user.id])
            _ = try self.endSessions(of: user.id, db: db)
            try self.appendLog([NewAccountLogEntry(actorID: user.id, action: .passwordSet)], userID: user.id, at: date, db: db)
            user.passwordHash = passwordHash
            return user
        }
    }

    public func accountLog(userID: UserID) async throws -> [AccountLogEntry] {
        try read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM account_log WHERE user_id = ? ORDER BY id", arguments: [userID]).map { row in
                guard let action = AccountAction(rawValue: row["action"]) else { throw StoreError.unknownStoredValue(column: "account_log.action") }
                return AccountLogEntry(
                    id: row["id"], userID: row["user_id"], actorID: row["actor_id"], action: action, subject: row["subject"],
                    date: (row["date"] as Double?).map(Self.date), at: Self.date(row["at"]))
            }
        }
    }

    func insert(_ link: PasswordLink, userID: UserID, db: Database) throws {
        try db.execute(
            sql: "INSERT INTO password_link (token_hash, user_id, expires_at) VALUES (?, ?, ?)",
            arguments: [link.tokenHash, userID, link.expiresAt.timeIntervalSince1970])
    }

    func appendLog(_ entries: [NewAccountLogEntry], userID: UserID, at date: Date, db: Database) throws {
        for entry in entries {
            try db.execute(
                sql: "INSERT INTO account_log (user_id, actor_id, action, subject, date, at) VALUES (?, ?, ?, ?, ?, ?)",
                arguments: [
                    userID, entry.actorID, entry.action.rawValue, entry.subject, entry.date?.timeIntervalSince1970,
                    date.timeIntervalSince1970,
                ])
        }
    }

    // MARK: Preferences

    public func preferences(for userID: UserID) async throws -> NotificationPreferences {
        try read { db in
            guard let json = try String.fetchOne(db.cachedStatement(sql: "SELECT json FROM preferences WHERE user_id = ?"), arguments: [userID])
            else {
                return .standard
            }
            return try Self.decoder.decode(NotificationPreferences.self, from: Data(json.utf8))
        }
    }

    public func setPreferences(_ preferences: NotificationPreferences, for userID: UserID) async throws {
        try await commits.write { db in
            try db.execute(
                sql: """
                    INSERT INTO preferences (user_id, json) VALUES (?, ?) ON CONFLICT(user_id) DO UPDATE SET json = excluded.json
                    """, arguments: [userID, try Self.json(preferences)])
        }
    }
}
