import Foundation
import Logging
import PostgresNIO
import VarselCore
import VarselStore

/// People, their accounts, sessions and preferences.
extension PostgresRepository {
    // MARK: Users

    public func createUser(_ user: NewUser, link: PasswordLink?, by actorID: UserID?, at date: Date) async throws -> User {
        try await write { c in
            let taken = try await c.query("SELECT 1 FROM users WHERE lower(username) = lower(\(user.username))", logger: self.logger).collect()
            guard taken.isEmpty else { throw StoreError.conflict("username is taken") }
            let row = try await Self.one(
                c.query(
                    """
                    INSERT INTO users (username, display_name, role, password_hash, language, created_at)
                    VALUES (\(user.username), \(user.displayName), \(user.role.rawValue), \(user.passwordHash), \(user.language.rawValue),
                            \(date.timeIntervalSince1970)) RETURNING id
                    """, logger: self.logger))
            let created = User(
                id: try row.decode(UserID.self), username: user.username, displayName: user.displayName, role: user.role,
                passwordHash: user.passwordHash, language: user.language, createdAt: date)
            if let link { try await self.insert(link, userID: created.id, c) }
            try await self.appendLog(
                [NewAccountLogEntry(actorID: actorID, action: .created, subject: user.role.rawValue)], userID: created.id, at: date, c)
            return created
        }
    }

    public func user(id: UserID) async throws -> User? {
        try await read { c in
            try await Self.first(c.query("SELECT \(unescaped: Self.userColumns) FROM users WHERE id = \(id)", logger: self.logger)).map(Self.user)
        }
    }

    public func user(username: String) async throws -> User? {
        try await read { c in
            try await Self.first(
                c.query(
                    "SELECT \(unescaped: Self.userColumns) FROM users WHERE lower(username) = lower(\(username))",
                    logger: self.logger)
            ).map(Self.user)
        }
    }

    public func users() async throws -> [User] {
        try await read { c in
            try await c.query("SELECT \(unescaped: Self.userColumns) FROM users ORDER BY id", logger: self.logger).collect().map(Self.user)
        }
    }

    public func setLanguage(_ language: Language, userID: UserID) async throws {
        try await write { c in
            let rows = try await c.query("UPDATE users SET language = \(language.rawValue) WHERE id = \(userID) RETURNING id", logger: self.logger)
                .collect()
            if rows.isEmpty { throw StoreError.notFound(.user) }
        }
    }

    public func setPause(from: Date?, until: Date?, userID: UserID) async throws {
        let from = until == nil ? nil : from?.timeIntervalSince1970
        try await write { c in
            let rows = try await c.query(
                """
                UPDATE users SET paused_from = \(from), paused_until = \(until?.timeIntervalSince1970) WHERE id = \(userID) RETURNING id
                """, logger: self.logger
            ).collect()
            if rows.isEmpty { throw StoreError.notFound(.user) }
        }
    }

    static let userColumns =
        "id, username, display_name, role, password_hash, language, created_at, paused_until, paused_from, deactivated_at, is_integration"
    /// ``userColumns`` of the users table joined to a session as `u`.
    static let sessionUserColumns = userColumns.split(separator: ", ").map { "u.\($0)" }.joined(separator: ", ")

    /// The values of ``userColumns``, in order.
    typealias UserColumns = (UserID, String, String, String, String, String, Double, Double?, Double?, Double?, Bool)

    static func user(_ row: PostgresRow) throws -> User {
        try user(row.decode(UserColumns.self))
    }

    static func user(_ columns: UserColumns) throws -> User {
        let (id, username, displayName, role, hash, language, created, paused, pausedFrom, deactivated, isIntegration) = columns
        return User(
            id: id, username: username, displayName: displayName, role: try Role(stored: role, column: "users.role"),
            passwordHash: hash, language: try Language(stored: language, column: "users.language"),
            createdAt: Self.date(created), pausedUntil: paused.map(Self.date), pausedFrom: pausedFrom.map(Self.date),
            deactivatedAt: deactivated.map(Self.date), isIntegration: isIntegration)
    }

    // MARK: Sessions

    public func createSession(_ session: Session) async throws {
        try await write { c in
            try await c.query(
                """
                INSERT INTO session (token_hash, user_id, csrf_token, created_at, expires_at)
                VALUES (\(session.tokenHash), \(session.userID), \(session.csrfToken), \(session.createdAt.timeIntervalSince1970),
                        \(session.expiresAt.timeIntervalSince1970))
                """, logger: self.logger)
        }
    }

    public func session(tokenHash: String, at date: Date) async throws -> Session? {
        try await read { c in
            try await Self.first(
                c.query(
                    """
                    SELECT token_hash, user_id, csrf_token, created_at, expires_at FROM session
                    WHERE token_hash = \(tokenHash) AND expires_at > \(date.timeIntervalSince1970)
                    """, logger: self.logger)
            ).map { row in
                let (hash, userID, csrf, created, expires) = try row.decode((String, UserID, String, Double, Double).self)
                return Session(tokenHash: hash, userID: userID, csrfToken: csrf, createdAt: Self.date(created), expiresAt: Self.date(expires))
            }
        }
    }

    /// One query for the session and its user (a join), not two: every signed-in request asks it, so it is one round
    /// trip to PostgreSQL instead of two.
    public func signedIn(tokenHash: String, at date: Date) async throws -> (session: Session, user: User)? {
        try await read { c in
            try await Self.first(
                c.query(
                    """
                    SELECT \(unescaped: Self.sessionUserColumns), s.csrf_token, s.created_at, s.expires_at
                    FROM session s JOIN users u ON u.id = s.user_id
                    WHERE s.token_hash = \(tokenHash) AND s.expires_at > \(date.timeIntervalSince1970)
                    """, logger: self.logger)
            ).map { row in
                let (
                    id, username, displayName, role, hash, language, created, paused, pausedFrom, deactivated, isIntegration, csrf, sessionCreated,
                    expires
                ) =
                    try row.decode(
                        (UserID, String, String, String, String, String, Double, Double?, Double?, Double?, Bool, String, Double, Double).self)
                let user = try Self.user((id, username, displayName, role, hash, language, created, paused, pausedFrom, deactivated, isIntegration))
                let session = Session(
                    tokenHash: tokenHash, userID: id, csrfToken: csrf, createdAt: Self.date(sessionCreated),
                    expiresAt: Self.date(expires))
                return (session, user)
            }
        }
    }

    public func sessions(userID: UserID) async throws -> [Session] {
        try await read { c in
            try await c.query(
                """
                SELECT token_hash, user_id, csrf_token, created_at, expires_at FROM session WHERE user_id = \(userID) ORDER BY created_at, token_hash
                """, logger: self.logger
            ).collect().map { row in
                let (hash, user, csrf, created, expires) = try row.decode((String, UserID, String, Double, Double).self)
                return Session(tokenHash: hash, userID: user, csrfToken: csrf, createdAt: Self.date(created), expiresAt: Self.date(expires))
            }
        }
    }

    public func deleteSession(tokenHash: String) async throws {
        try await write { c in try await c.query("DELETE FROM session WHERE token_hash = \(tokenHash)", logger: self.logger) }
    }

    public func changePassword(userID: UserID, passwordHash: String, keeping keptSession: String?, at date: Date) async throws -> [String] {
        try await write { c in
            let updated = try await c.query("UPDATE users SET password_hash = \(passwordHash) WHERE id = \(userID) RETURNING id", logger: self.logger)
                .collect()
            if updated.isEmpty { throw StoreError.notFound(.user) }
            try await self.appendLog([NewAccountLogEntry(actorID: userID, action: .passwordChanged)], userID: userID, at: date, c)
            return try await self.endSessions(of: userID, keeping: keptSession, c)
        }
    }

    /// Deletes `userID`'s sessions but `keptSession` (their push subscriptions go with them); returns their hashes.
    func endSessions(of userID: UserID, keeping keptSession: String? = nil, _ c: PostgresConnection) async throws -> [String] {
        try await c.query(
            """
            DELETE FROM session WHERE user_id = \(userID) AND token_hash IS DISTINCT FROM \(keptSession) RETURNING token_hash
            """, logger: logger
        ).collect().map { try $0.decode(String.self) }
    }

    public func deleteExpiredSessions(at date: Date) async throws -> Int {
        try await write { c in
            try await c.query("DELETE FROM password_link WHERE expires_at <= \(date.timeIntervalSince1970)", logger: self.logger)
            return try await c.query(
                "DELETE FROM session WHERE expires_at <= \(date.timeIntervalSince1970) RETURNING token_hash", logger: self.logger
            ).collect().count
        }
    }

    // MARK: Accounts

    public func changeAccount(userID: UserID, _ change: AccountChange, log: [NewAccountLogEntry], at date: Date) async throws -> AccountChangeOutcome
    {
        // A deactivation appends the event that ends the person's streams on every instance.
        try await write(appendsEvents: change == .deactivate) { c in
            let exists = try await c.query("SELECT 1 FROM users WHERE id = \(userID) FOR UPDATE", logger: self.logger).collect()
            guard !exists.isEmpty else {
                if case .certifications = change { throw StoreError.notFound(.mentor) }
                throw StoreError.notFound(.user)
            }
            var ended: [String] = []
            switch change {
            case let .role(role):
                try await c.query("UPDATE users SET role = \(role.rawValue) WHERE id = \(userID)", logger: self.logger)
            case .deactivate:
                try await c.query(
                    "UPDATE users SET deactivated_at = coalesce(deactivated_at, \(date.timeIntervalSince1970)) WHERE id = \(userID)",
                    logger: self.logger)
                try await c.query("DELETE FROM password_link WHERE user_id = \(userID)", logger: self.logger)
                ended = try await self.endSessions(of: userID, c)
                try await self.appendEvent(userID: userID, .accountDeactivated, at: date, c)
            case .reactivate:
                try await c.query("UPDATE users SET deactivated_at = NULL WHERE id = \(userID)", logger: self.logger)
            case let .passwordLink(link):
                try await c.query("DELETE FROM password_link WHERE user_id = \(userID)", logger: self.logger)
                try await self.insert(link, userID: userID, c)
                ended = try await self.endSessions(of: userID, c)
            case let .certifications(list):
                try await self.replaceCertifications(list, mentorID: userID, c)
            }
            try await self.appendLog(log, userID: userID, at: date, c)
            let user = try Self.user(
                try await Self.one(c.query("SELECT \(unescaped: Self.userColumns) FROM users WHERE id = \(userID)", logger: self.logger)))
            let certifications = try await c.query(
                "SELECT id, mentor_id, name, expires_at FROM certification WHERE mentor_id = \(userID) ORDER BY id",
                logger: self.logger
            ).collect().map(Self.certification)
            return AccountChangeOutcome(user: user, endedSessions: ended, certifications: certifications)
        }
    }

    public func passwordLinkUser(tokenHash: String, at date: Date) async throws -> User? {
        try await read { c in try await self.passwordLinkUser(tokenHash: tokenHash, at: date, c) }
    }

    func passwordLinkUser(tokenHash: String, at date: Date, _ c: PostgresConnection) async throws -> User? {
        try await Self.first(
            c.query(
                """
                SELECT \(unescaped: Self.userColumns.split(separator: ",").map { "users." + $0.trimmingCharacters(in: .whitespaces) }.joined(separator: ", "))
                FROM password_link JOIN users ON users.id = password_link.user_id
                WHERE password_link.token_hash = \(tokenHash) AND password_link.expires_at > \(date.timeIntervalSince1970) AND users.deactivated_at IS NULL
                """, logger: logger)
        ).map(Self.user)
    }

    public func usePasswordLink(tokenHash: String, passwordHash: String, at date: Date) async throws -> User? {
        try await write { c in
            guard var user = try await self.takePasswordLink(tokenHash: tokenHash, at: date, c) else { return nil }
            let userID = user.id
            try await c.query("UPDATE users SET password_hash = \(passwordHash) WHERE id = \(userID)", logger: self.logger)
            _ = try await self.endSessions(of: userID, c)
            try await self.appendLog([NewAccountLogEntry(actorID: userID, action: .passwordSet)], userID: userID, at: date, c)
            user.passwordHash = passwordHash
            return user
        }
    }

    /// Deletes the unexpired link `tokenHash` and returns its holder when they are active; nil when there is no such
    /// link or holder. Deleting the link first makes two uses at once wait for each other; only the first finds it.
    func takePasswordLink(tokenHash: String, at date: Date, _ c: PostgresConnection) async throws -> User? {
        guard
            let userID = try await Self.first(
                c.query(
                    "DELETE FROM password_link WHERE token_hash = \(tokenHash) AND expires_at > \(date.timeIntervalSince1970) RETURNING user_id",
                    logger: logger))?.decode(Int64.self)
        else { return nil }
        return try await Self.first(c.query("SELECT \(unescaped: Self.userColumns) FROM users WHERE id = \(userID)", logger: logger))
            .map(Self.user).flatMap { $0.isActive ? $0 : nil }
    }

    public func accountLog(userID: UserID) async throws -> [AccountLogEntry] {
        try await read { c in
            try await c.query(
                """
                SELECT id, user_id, actor_id, action, subject, date, at FROM account_log WHERE user_id = \(userID) ORDER BY id
                """, logger: self.logger
            ).collect().map { row in
                let (id, user, actor, action, subject, date, at) = try row.decode((Int64, UserID, UserID?, String, String, Double?, Double).self)
                guard let action = AccountAction(rawValue: action) else { throw StoreError.unknownStoredValue(column: "account_log.action") }
                return AccountLogEntry(
                    id: id, userID: user, actorID: actor, action: action, subject: subject, date: date.map(Self.date), at: Self.date(at))
            }
        }
    }

    func insert(_ link: PasswordLink, userID: UserID, _ c: PostgresConnection) async throws {
        try await c.query(
            """
            INSERT INTO password_link (token_hash, user_id, expires_at) VALUES (\(link.tokenHash), \(userID), \(link.expiresAt.timeIntervalSince1970))
            """, logger: logger)
    }

    func appendLog(_ entries: [NewAccountLogEntry], userID: UserID, at date: Date, _ c: PostgresConnection) async throws {
        for entry in entries {
            try await c.query(
                """
                INSERT INTO account_log (user_id, actor_id, action, subject, date, at)
                VALUES (\(userID), \(entry.actorID), \(entry.action.rawValue), \(entry.subject), \(entry.date?.timeIntervalSince1970), \(date.timeIntervalSince1970))
                """, logger: logger)
        }
    }

    // MARK: Preferences

    public func preferences(for userID: UserID) async throws -> NotificationPreferences {
        try await read { c in
            guard let row = try await Self.first(c.query("SELECT json FROM preferences WHERE user_id = \(userID)", logger: self.logger)) else {
                return .standard
            }
            return try Self.decoder.decode(NotificationPreferences.self, from: Data(try row.decode(String.self).utf8))
        }
    }

    public func setPreferences(_ preferences: NotificationPreferences, for userID: UserID) async throws {
        let json = try Self.json(preferences)
        try await write { c in
            try await c.query(
                """
                INSERT INTO preferences (user_id, json) VALUES (\(userID), \(json)) ON CONFLICT (user_id) DO UPDATE SET json = excluded.json
                """, logger: self.logger)
        }
    }
}
