import Foundation
import Logging
import PostgresNIO
import VarselCore
import VarselStore

/// The store for more than one machine: PostgreSQL through a PostgresNIO connection pool.
///
/// Each public method is one transaction. Several Varsel instances may share the database: every transaction
/// that appends to the event log first takes one transaction-scoped advisory lock, so event ids are assigned and
/// committed in the same order — a reader that has seen id n never later finds a smaller id committed (no gap a
/// stream could skip). The same transaction sends `NOTIFY varsel_events`, which wakes every instance's pump.
public final class PostgresRepository: VarselRepository, Sendable {
    let client: PostgresClient
    let logger: Logger
    let url: String
    private let runner: Task<Void, Never>
    /// Plain creates waiting to share a transaction.
    private let creates = PostgresCreateBatch()
    /// Encrypts personal details on their way in and opens them on their way out (see ``DataKeyring``).
    let sealer: FieldSealer
    /// The notifications this store last wrote or read in its event log, by their JSON.
    let notificationJSON = NotificationJSONCache(capacity: NotificationJSONCache.storeCapacity)
    static let encoder = JSONEncoder()
    static let decoder = JSONDecoder()
    /// The advisory lock that orders event-log writers.
    static let eventLock: Int64 = 0x7661_7273_656C_0001
    /// The advisory lock migrations take.
    static let migrationLock: Int64 = 0x7661_7273_656C_0002
    /// The channel `NOTIFY` uses when events are committed.
    public static let eventChannel = "varsel_events"

    /// Connects to the database at `url` (`postgres://user:password@host:port/database`) and brings its schema up to date.
    ///
    /// With `keys`, personal details are stored encrypted; a database that holds encrypted details is refused
    /// without them (``StoreError/dataKeyRequired``) or with a key file that lacks its key. `checksDataKey: false`
    /// opens it anyway, for work that never reads or writes personal details (the `varsel user` commands).
    public init(url: String, logger: Logger, keys: DataKeyring? = nil, checksDataKey: Bool = true) async throws {
        let configuration = try Self.configuration(from: url)
        client = PostgresClient(configuration: configuration, backgroundLogger: logger)
        self.logger = logger
        self.url = url
        sealer = FieldSealer(keys)
        let client = client
        runner = Task { await client.run() }
        do {
            try await PostgresMigrations.migrate(client, logger: logger)
            if checksDataKey || keys != nil { try await Self.checkDataKey(client, sealer: sealer, logger: logger) }
        } catch {
            runner.cancel()
            throw error
        }
    }

    deinit { runner.cancel() }

    /// Refuses a database whose details these keys cannot open, and marks a database encrypted from its first start
    /// with keys. Instances starting together agree: the first check stored is the one every instance verifies.
    private static func checkDataKey(_ client: PostgresClient, sealer: FieldSealer, logger: Logger) async throws {
        let select: PostgresQuery = "SELECT sealed FROM data_key_check WHERE id = 1"
        let existing = try await first(client.query(select, logger: logger))?.decode(String.self)
        guard let check = try sealer.startingCheck(existing: existing) else { return }
        try await client.query("INSERT INTO data_key_check (id, sealed) VALUES (1, \(check)) ON CONFLICT (id) DO NOTHING", logger: logger)
        _ = try sealer.startingCheck(existing: try await first(client.query(select, logger: logger))?.decode(String.self))
    }

    /// Closes the pool.
    public func shutdown() { runner.cancel() }

    // MARK: For tests of several instances

    /// The database URL this repository was opened with.
    public var urlForTests: String { url }

    /// The lock event-log writers take, so a test can hold it as another instance would.
    public static var eventLockForTests: Int64 { eventLock }

    /// A pooled connection outside any repository method, for tests that hold a transaction open.
    public func withConnectionForTests<T: Sendable>(_ body: @Sendable (PostgresConnection) async throws -> T) async throws -> T {
        try await client.withConnection { connection in try await body(connection) }
    }

    /// Whether `text` names a PostgreSQL database (`postgres://…` or `postgresql://…`) rather than a SQLite file.
    public static func isURL(_ text: String) -> Bool {
        let lowered = text.lowercased()
        return lowered.hasPrefix("postgres://") || lowered.hasPrefix("postgresql://")
    }

    /// Reads `postgres://user:password@host:port/database`; TLS is used when `sslmode=require` is given.
    public static func configuration(from url: String) throws -> PostgresClient.Configuration {
        guard let components = URLComponents(string: url), ["postgres", "postgresql"].contains(components.scheme?.lowercased() ?? ""),
              let host = components.host, let user = components.user, !user.isEmpty else {
            throw PostgresURLError()
        }
        let database = components.path.trimmingCharacters(in: CharacterSet(charactersIn: "/"))
        let requiresTLS = components.queryItems?.first { $0.name == "sslmode" }?.value == "require"
        var configuration = PostgresClient.Configuration(
            host: host, port: components.port ?? 5432, username: user, password: components.password,
            database: database.isEmpty ? nil : database, tls: requiresTLS ? .require(.makeClientConfiguration()) : .disable)
        configuration.options.maximumConnections = 16
        return configuration
    }

    // MARK: Transactions

    /// Runs `body` in a read-only snapshot.
    func read<T: Sendable>(_ body: @Sendable (PostgresConnection) async throws -> T) async throws -> T {
        try await client.withConnection { connection in try await body(connection) }
    }

    /// Runs `body` in a transaction; with `appendsEvents`, under the event-log lock. (A trigger on the event table
    /// sends the NOTIFY that wakes the other instances at commit.)
    ///
    /// The lock is what keeps event ids in commit order across instances, and every write that appends events waits
    /// for it, so the less a transaction does while holding it, the more writes per second the log takes. With
    /// `locksLate`, `body` takes it itself (``lockEventLog(_:)``) just before its first event, after the work that
    /// needs no order (the notifications' own rows).
    func write<T: Sendable>(appendsEvents: Bool = false, locksLate: Bool = false,
                            _ body: @Sendable (PostgresConnection) async throws -> T) async throws -> T {
        let logger = logger
        do {
            return try await client.withTransaction(logger: logger) { connection in
                if appendsEvents && !locksLate {
                    try await lockEventLog(connection)
                }
                return try await body(connection)
            }
        } catch let error as PostgresTransactionError {
            // The store's own errors (a taken username, an answered assignment) come out as themselves.
            if let storeError = error.closureError as? StoreError { throw storeError }
            throw error
        }
    }

    /// Takes the event-log lock until the end of the transaction.
    func lockEventLog(_ connection: PostgresConnection) async throws {
        try await connection.query("SELECT pg_advisory_xact_lock(\(Self.eventLock))", logger: logger)
    }

    // MARK: Users

    public func createUser(_ user: NewUser, link: PasswordLink?, by actorID: UserID?, at date: Date) async throws -> User {
        try await write { c in
            let taken = try await c.query("SELECT 1 FROM users WHERE lower(username) = lower(\(user.username))", logger: self.logger).collect()
            guard taken.isEmpty else { throw StoreError.conflict("username is taken") }
            let row = try await Self.one(c.query("""
                INSERT INTO users (username, display_name, role, password_hash, language, created_at)
                VALUES (\(user.username), \(user.displayName), \(user.role.rawValue), \(user.passwordHash), \(user.language.rawValue),
                        \(date.timeIntervalSince1970)) RETURNING id
                """, logger: self.logger))
            let created = User(id: try row.decode(UserID.self), username: user.username, displayName: user.displayName, role: user.role,
                               passwordHash: user.passwordHash, language: user.language, createdAt: date)
            if let link { try await self.insert(link, userID: created.id, c) }
            try await self.appendLog([NewAccountLogEntry(actorID: actorID, action: .created, subject: user.role.rawValue)], userID: created.id, at: date, c)
            return created
        }
    }

    public func user(id: UserID) async throws -> User? {
        try await read { c in try await Self.first(c.query("SELECT \(unescaped: Self.userColumns) FROM users WHERE id = \(id)", logger: self.logger)).map(Self.user) }
    }

    public func user(username: String) async throws -> User? {
        try await read { c in
            try await Self.first(c.query("SELECT \(unescaped: Self.userColumns) FROM users WHERE lower(username) = lower(\(username))",
                                         logger: self.logger)).map(Self.user)
        }
    }

    public func users() async throws -> [User] {
        try await read { c in try await c.query("SELECT \(unescaped: Self.userColumns) FROM users ORDER BY id", logger: self.logger).collect().map(Self.user) }
    }

    public func setLanguage(_ language: Language, userID: UserID) async throws {
        try await write { c in
            let rows = try await c.query("UPDATE users SET language = \(language.rawValue) WHERE id = \(userID) RETURNING id", logger: self.logger).collect()
            if rows.isEmpty { throw StoreError.notFound(.user) }
        }
    }

    public func setPause(from: Date?, until: Date?, userID: UserID) async throws {
        let from = until == nil ? nil : from?.timeIntervalSince1970
        try await write { c in
            let rows = try await c.query("""
                UPDATE users SET paused_from = \(from), paused_until = \(until?.timeIntervalSince1970) WHERE id = \(userID) RETURNING id
                """, logger: self.logger).collect()
            if rows.isEmpty { throw StoreError.notFound(.user) }
        }
    }

    static let userColumns = "id, username, display_name, role, password_hash, language, created_at, paused_until, paused_from, deactivated_at"

    static func user(_ row: PostgresRow) throws -> User {
        let (id, username, displayName, role, hash, language, created, paused, pausedFrom, deactivated) =
            try row.decode((UserID, String, String, String, String, String, Double, Double?, Double?, Double?).self)
        return User(id: id, username: username, displayName: displayName, role: try Role(stored: role, column: "users.role"),
                    passwordHash: hash, language: try Language(stored: language, column: "users.language"),
                    createdAt: Self.date(created), pausedUntil: paused.map(Self.date), pausedFrom: pausedFrom.map(Self.date),
                    deactivatedAt: deactivated.map(Self.date))
    }

    // MARK: Sessions

    public func createSession(_ session: Session) async throws {
        try await write { c in
            try await c.query("""
                INSERT INTO session (token_hash, user_id, csrf_token, created_at, expires_at)
                VALUES (\(session.tokenHash), \(session.userID), \(session.csrfToken), \(session.createdAt.timeIntervalSince1970),
                        \(session.expiresAt.timeIntervalSince1970))
                """, logger: self.logger)
        }
    }

    public func session(tokenHash: String, at date: Date) async throws -> Session? {
        try await read { c in
            try await Self.first(c.query("""
                SELECT token_hash, user_id, csrf_token, created_at, expires_at FROM session
                WHERE token_hash = \(tokenHash) AND expires_at > \(date.timeIntervalSince1970)
                """, logger: self.logger)).map { row in
                let (hash, userID, csrf, created, expires) = try row.decode((String, UserID, String, Double, Double).self)
                return Session(tokenHash: hash, userID: userID, csrfToken: csrf, createdAt: Self.date(created), expiresAt: Self.date(expires))
            }
        }
    }

    public func sessions(userID: UserID) async throws -> [Session] {
        try await read { c in
            try await c.query("""
                SELECT token_hash, user_id, csrf_token, created_at, expires_at FROM session WHERE user_id = \(userID) ORDER BY created_at, token_hash
                """, logger: self.logger).collect().map { row in
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
            let updated = try await c.query("UPDATE users SET password_hash = \(passwordHash) WHERE id = \(userID) RETURNING id", logger: self.logger).collect()
            if updated.isEmpty { throw StoreError.notFound(.user) }
            try await self.appendLog([NewAccountLogEntry(actorID: userID, action: .passwordChanged)], userID: userID, at: date, c)
            return try await self.endSessions(of: userID, keeping: keptSession, c)
        }
    }

    /// Deletes `userID`'s sessions but `keptSession` (their push subscriptions go with them); returns their hashes.
    func endSessions(of userID: UserID, keeping keptSession: String? = nil, _ c: PostgresConnection) async throws -> [String] {
        try await c.query("""
            DELETE FROM session WHERE user_id = \(userID) AND token_hash IS DISTINCT FROM \(keptSession) RETURNING token_hash
            """, logger: logger).collect().map { try $0.decode(String.self) }
    }

    public func deleteExpiredSessions(at date: Date) async throws -> Int {
        try await write { c in
            try await c.query("DELETE FROM password_link WHERE expires_at <= \(date.timeIntervalSince1970)", logger: self.logger)
            return try await c.query("DELETE FROM session WHERE expires_at <= \(date.timeIntervalSince1970) RETURNING token_hash", logger: self.logger).collect().count
        }
    }

    // MARK: Accounts

    public func changeAccount(userID: UserID, _ change: AccountChange, log: [NewAccountLogEntry], at date: Date) async throws -> AccountChangeOutcome {
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
                try await c.query("UPDATE users SET deactivated_at = coalesce(deactivated_at, \(date.timeIntervalSince1970)) WHERE id = \(userID)",
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
            let user = try Self.user(try await Self.one(c.query("SELECT \(unescaped: Self.userColumns) FROM users WHERE id = \(userID)", logger: self.logger)))
            let certifications = try await c.query("SELECT id, mentor_id, name, expires_at FROM certification WHERE mentor_id = \(userID) ORDER BY id",
                                                   logger: self.logger).collect().map(Self.certification)
            return AccountChangeOutcome(user: user, endedSessions: ended, certifications: certifications)
        }
    }

    public func passwordLinkUser(tokenHash: String, at date: Date) async throws -> User? {
        try await read { c in try await self.passwordLinkUser(tokenHash: tokenHash, at: date, c) }
    }

    private func passwordLinkUser(tokenHash: String, at date: Date, _ c: PostgresConnection) async throws -> User? {
        try await Self.first(c.query("""
            SELECT \(unescaped: Self.userColumns.split(separator: ",").map { "users." + $0.trimmingCharacters(in: .whitespaces) }.joined(separator: ", "))
            FROM password_link JOIN users ON users.id = password_link.user_id
            WHERE password_link.token_hash = \(tokenHash) AND password_link.expires_at > \(date.timeIntervalSince1970) AND users.deactivated_at IS NULL
            """, logger: logger)).map(Self.user)
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
        guard let userID = try await Self.first(c.query(
            "DELETE FROM password_link WHERE token_hash = \(tokenHash) AND expires_at > \(date.timeIntervalSince1970) RETURNING user_id",
            logger: logger))?.decode(Int64.self) else { return nil }
        return try await Self.first(c.query("SELECT \(unescaped: Self.userColumns) FROM users WHERE id = \(userID)", logger: logger))
            .map(Self.user).flatMap { $0.isActive ? $0 : nil }
    }

    public func accountLog(userID: UserID) async throws -> [AccountLogEntry] {
        try await read { c in
            try await c.query("""
                SELECT id, user_id, actor_id, action, subject, date, at FROM account_log WHERE user_id = \(userID) ORDER BY id
                """, logger: self.logger).collect().map { row in
                let (id, user, actor, action, subject, date, at) = try row.decode((Int64, UserID, UserID?, String, String, Double?, Double).self)
                guard let action = AccountAction(rawValue: action) else { throw StoreError.unknownStoredValue(column: "account_log.action") }
                return AccountLogEntry(id: id, userID: user, actorID: actor, action: action, subject: subject, date: date.map(Self.date), at: Self.date(at))
            }
        }
    }

    private func insert(_ link: PasswordLink, userID: UserID, _ c: PostgresConnection) async throws {
        try await c.query("""
            INSERT INTO password_link (token_hash, user_id, expires_at) VALUES (\(link.tokenHash), \(userID), \(link.expiresAt.timeIntervalSince1970))
            """, logger: logger)
    }

    func appendLog(_ entries: [NewAccountLogEntry], userID: UserID, at date: Date, _ c: PostgresConnection) async throws {
        for entry in entries {
            try await c.query("""
                INSERT INTO account_log (user_id, actor_id, action, subject, date, at)
                VALUES (\(userID), \(entry.actorID), \(entry.action.rawValue), \(entry.subject), \(entry.date?.timeIntervalSince1970), \(date.timeIntervalSince1970))
                """, logger: logger)
        }
    }

    // MARK: Notifications

    public func createNotifications(_ notifications: [NewNotification], idempotencyKey: IdempotencyKey?, at date: Date) async throws -> CreatedNotifications {
        // Without a key there is nothing to look up first: it shares a transaction with the creates waiting with it.
        // A fan-out has transactions of its own.
        guard idempotencyKey != nil || FanOut.isSpread(notifications.count) else { return try await creates.create(notifications, at: date, in: self) }
        do {
            return try await createNotificationsOnce(notifications, idempotencyKey: idempotencyKey, at: date)
        } catch let error as PostgresTransactionError
                    where idempotencyKey != nil && (error.closureError as? PSQLError)?.serverInfo?[.sqlState] == "23505" {
            // The same key was being used by a request still in flight when this one looked; it has committed now,
            // so this try finds it and answers as a replay (or as a reused key).
            return try await createNotificationsOnce(notifications, idempotencyKey: idempotencyKey, at: date)
        }
    }

    /// Creates the notifications, then takes the event-log lock only for their events: the rows, the recipient
    /// check and the idempotency key need no order, and the lock is held for three statements instead of eight.
    /// A fan-out's first chunk is written here and the rest after.
    private func createNotificationsOnce(_ notifications: [NewNotification], idempotencyKey: IdempotencyKey?, at date: Date) async throws -> CreatedNotifications {
        let start = try await write(appendsEvents: true, locksLate: true) { c in
            try await self.beginCreate(notifications, idempotencyKey: idempotencyKey, at: date, c)
        }
        return try await created(start) { try await createNotificationsOnce(notifications, idempotencyKey: idempotencyKey, at: date) }
    }

    /// The first transaction of a create: the replay of an idempotency key, or the recipient check and the
    /// notifications (the first chunk of a fan-out).
    func beginCreate(_ notifications: [NewNotification], idempotencyKey: IdempotencyKey?, at date: Date,
                     _ c: PostgresConnection) async throws -> CreateStart {
        if let key = idempotencyKey, let row = try await Self.first(c.query("""
            SELECT fingerprint, notification_ids, fanout_id FROM idempotency_key WHERE sender_id = \(key.senderID) AND key = \(key.key)
            """, logger: self.logger)) {
            let (fingerprint, idsJSON, fanout) = try row.decode((String, String, Int64?).self)
            guard fingerprint == key.fingerprint else { throw StoreError.idempotencyKeyReused }
            if let fanout { return .unfinished(fanout) }
            var items: [NotificationItem] = []
            for id in try Self.decoder.decode([NotificationID].self, from: Data(idsJSON.utf8)) {
                if let item = try await self.fetchNotification(c, id: id) { items.append(item) }
            }
            return .written(CreatedNotifications(items: items, isReplay: true))
        }
        let recipients = Array(Set(notifications.map(\.recipientID)))
        let found = try await Self.one(c.query("SELECT COUNT(*) FROM users WHERE id = ANY(\(recipients))", logger: self.logger)).decode(Int64.self)
        guard found == recipients.count else { throw StoreError.notFound(.recipient) }
        let rows = try await writeRows(notifications, at: date, c)
        if let key = idempotencyKey {
            // A concurrent request with the same key waits here until this one ends, then fails as a duplicate and is
            // tried again (above). A fan-out has written none yet: its ids are recorded when it is finished.
            let ids = String(decoding: try Self.encoder.encode(rows.written.map(\.id)), as: UTF8.self)
            try await c.query("""
                INSERT INTO idempotency_key (sender_id, key, fingerprint, notification_ids, created_at, fanout_id)
                VALUES (\(key.senderID), \(key.key), \(key.fingerprint), \(ids), \(date.timeIntervalSince1970), \(rows.fanout))
                """, logger: self.logger)
        }
        let (fanout, written) = try await writeEvents(rows, at: date, c)
        guard let fanout else { return .written(CreatedNotifications(items: written, isReplay: false)) }
        return .spreading(fanout, written: written)
    }

    /// What a create writes before it takes the event-log lock: its notifications, or, for a fan-out, its record.
    struct CreatedRows {
        var fanout: Int64?
        var written: [NotificationItem]
    }

    /// Writes the rows of `notifications` that need no order: all of them when they are few; when they are many, the
    /// fan-out's record, and none of them yet.
    func writeRows(_ notifications: [NewNotification], at date: Date, _ c: PostgresConnection) async throws -> CreatedRows {
        guard FanOut.isSpread(notifications.count) else { return CreatedRows(written: try await insertRows([(notifications, date)], c)[0]) }
        return CreatedRows(fanout: try await recordFanOut(notifications, at: date, c), written: [])
    }

    /// Appends the events of `rows` under the event-log lock, or writes a fan-out's first chunk (which takes the lock
    /// itself); returns the fan-out (nil: all are written) and the notifications written.
    func writeEvents(_ rows: CreatedRows, at date: Date, _ c: PostgresConnection) async throws -> (fanout: Int64?, written: [NotificationItem]) {
        if let fanout = rows.fanout { return (fanout, try await writeFanOutChunk(fanout, c).written) }
        try await lockEventLog(c)
        try await appendCreatedEvents(rows.written, at: date, c)
        return (nil, rows.written)
    }

    /// Runs `jobs` in one transaction, each as it would run alone, in turn (``PostgresCreateBatch``); returns each
    /// one's outcome.
    ///
    /// The rows of every create go in one statement and their events in another, so a batch costs the same six
    /// round trips however many creates it holds (begin, recipient check, rows, lock, events, commit).
    func createTogether(_ jobs: [PostgresCreateBatch.Job]) async throws -> [Result<CreatedNotifications, any Error>] {
        try await write(appendsEvents: true, locksLate: true) { c in
            let recipients = Array(Set(jobs.flatMap { $0.notifications.map(\.recipientID) }))
            var existing = Set<UserID>()
            for try await id in try await c.query("SELECT id FROM users WHERE id = ANY(\(recipients))", logger: self.logger).decode(UserID.self) {
                existing.insert(id)
            }
            let known = jobs.map { $0.notifications.allSatisfy { existing.contains($0.recipientID) } }
            let accepted = zip(jobs, known).filter(\.1).map(\.0)
            let created = try await self.insertRows(accepted.map { ($0.notifications, $0.date) }, c)
            if !accepted.isEmpty {
                try await self.lockEventLog(c)
                try await self.appendCreatedEvents(zip(created, accepted).map { ($0, $1.date) }, c)
            }
            var results = created.makeIterator()
            return known.map { known in
                guard known, let items = results.next() else { return .failure(StoreError.notFound(.recipient)) }
                return .success(CreatedNotifications(items: items, isReplay: false))
            }
        }
    }

    /// The events of new notifications: each one's `notification.created`, then each recipient's unread count
    /// (counted by the statement itself).
    func appendCreatedEvents(_ items: [NotificationItem], at date: Date, _ c: PostgresConnection) async throws {
        try await appendCreatedEvents([(items, date)], c)
    }

    /// The events of creates that commit together, as if each had committed alone, in turn: a create's
    /// `notification.created` events, then its recipients' unread counts, then the next create's.
    ///
    /// All the rows are in the table when the counts are taken, so a recipient's count leaves out the notifications
    /// of later creates. A multi-row `VALUES` takes its ids in row order.
    func appendCreatedEvents(_ creates: [(items: [NotificationItem], date: Date)], _ c: PostgresConnection) async throws {
        var later: [UserID: Int32] = [:]
        for item in creates.lazy.flatMap(\.items) { later[item.recipientID, default: 0] += 1 }
        var insert = PostgresRowsInsert("INSERT INTO event (user_id, type, notification_id, notification, unread_count, created_at) VALUES")
        for create in creates {
            for item in create.items {
                later[item.recipientID, default: 0] -= 1
                let json = try Self.json(item)
                notificationJSON.remember(item, json: json)
                insert.addRow("(\(insert.bind(item.recipientID)), \(insert.bind(EventType.notificationCreated.rawValue)), "
                              + "\(insert.bind(item.id)), \(insert.bind(sealedEventJSON(json, of: item))), NULL::integer, \(insert.bind(create.date.timeIntervalSince1970)))")
            }
            var seen = Set<UserID>()
            for recipient in create.items.map(\.recipientID) where seen.insert(recipient).inserted {
                let user = insert.bind(recipient)
                let count = "(SELECT COUNT(*)::integer FROM notification WHERE recipient_id = \(user) AND read_at IS NULL)"
                let laterOnes = later[recipient, default: 0]
                insert.addRow("(\(user), \(insert.bind(EventType.unreadCount.rawValue)), NULL::bigint, NULL, "
                              + "\(laterOnes == 0 ? count : "\(count) - \(insert.bind(laterOnes))"), \(insert.bind(create.date.timeIntervalSince1970)))")
            }
        }
        for query in insert.queries() { try await c.query(query, logger: logger) }
    }

    /// The notification's row alone; its events come from ``appendCreatedEvents(_:at:_:)``.
    func insertRow(_ new: NewNotification, at date: Date, _ c: PostgresConnection) async throws -> NotificationItem {
        try await insertRows([([new], date)], c)[0][0]
    }

    /// The rows of several creates' notifications, in as few statements as the protocol allows; returns each
    /// create's items with their ids. Their events come from ``appendCreatedEvents(_:_:)``.
    func insertRows(_ creates: [(notifications: [NewNotification], date: Date)], _ c: PostgresConnection) async throws -> [[NotificationItem]] {
        var insert = PostgresRowsInsert("""
            INSERT INTO notification (recipient_id, sender_id, kind, title, body, urgency, created_at, read_at, deep_link, personal_details) VALUES
            """, tail: "RETURNING id")
        for create in creates {
            for new in create.notifications {
                var body = new.body
                var details = try Self.json(new.personalDetails)
                if FieldSealer.sealsNotification(personalDetails: new.personalDetails) {
                    body = sealer.seal(body, field: .notificationBody)
                    details = sealer.seal(details, field: .notificationDetails)
                }
                let values = [insert.bind(new.recipientID), insert.bind(new.senderID), insert.bind(new.kind.rawValue), insert.bind(new.title),
                              insert.bind(body), insert.bind(new.urgency.rawValue), insert.bind(create.date.timeIntervalSince1970), "NULL",
                              insert.bind(try Self.json(new.deepLink)), insert.bind(details)]
                insert.addRow("(\(values.joined(separator: ", ")))")
            }
        }
        var ids: [NotificationID] = []
        for query in insert.queries() {
            for try await id in try await c.query(query, logger: logger).decode(NotificationID.self) { ids.append(id) }
        }
        // `RETURNING` promises no order; the ids were taken in row order, so ascending is row order.
        ids.sort()
        var next = ids.makeIterator()
        return try creates.map { create in
            try create.notifications.map { new in
                guard let id = next.next() else { throw StoreError.unknownStoredValue(column: "notification.id") }
                return NotificationItem(id: id, recipientID: new.recipientID, kind: new.kind, title: new.title, body: new.body,
                                        createdAt: create.date, urgency: new.urgency, deepLink: new.deepLink,
                                        personalDetails: new.personalDetails)
            }
        }
    }

    func appendEvent(userID: UserID, _ payload: EventPayload, at date: Date, _ c: PostgresConnection) async throws {
        var notification: NotificationItem?
        var unreadCount: Int32?
        switch payload {
        case let .notificationCreated(item), let .notificationUpdated(item): notification = item
        case .notificationDeleted, .accountDeactivated: break
        case let .unreadCount(count): unreadCount = Int32(count)
        }
        let json = try notification.map { sealedEventJSON(try Self.json($0), of: $0) }
        try await c.query("""
            INSERT INTO event (user_id, type, notification_id, notification, unread_count, created_at)
            VALUES (\(userID), \(payload.type.rawValue), \(payload.notificationID), \(json), \(unreadCount), \(date.timeIntervalSince1970))
            """, logger: logger)
    }

    /// The event log's copy of `item`, sealed when it has personal details.
    func sealedEventJSON(_ json: String, of item: NotificationItem) -> String {
        FieldSealer.sealsNotification(personalDetails: item.personalDetails) ? sealer.seal(json, field: .eventNotification) : json
    }

    func appendUnreadCounts(for userIDs: [UserID], at date: Date, _ c: PostgresConnection) async throws {
        var seen = Set<UserID>()
        for userID in userIDs where seen.insert(userID).inserted {
            try await appendEvent(userID: userID, .unreadCount(try await unreadCount(userID, c)), at: date, c)
        }
    }

    func unreadCount(_ userID: UserID, _ c: PostgresConnection) async throws -> Int {
        Int(try await Self.one(c.query("SELECT COUNT(*) FROM notification WHERE recipient_id = \(userID) AND read_at IS NULL",
                                       logger: logger)).decode(Int64.self))
    }

    static let notificationColumns = "id, recipient_id, kind, title, body, created_at, read_at, urgency, deep_link, personal_details"

    func fetchNotification(_ c: PostgresConnection, id: NotificationID) async throws -> NotificationItem? {
        try await Self.first(c.query("SELECT \(unescaped: Self.notificationColumns) FROM notification WHERE id = \(id)", logger: logger))
            .map(self.notification)
    }

    func notification(_ row: PostgresRow) throws -> NotificationItem {
        let (id, recipient, kind, title, body, created, read, urgency, deepLink, details) =
            try row.decode((NotificationID, UserID, String, String, String, Double, Double?, String, String, String).self)
        return NotificationItem(id: id, recipientID: recipient, kind: try NotificationKind(stored: kind, column: "notification.kind"),
                                title: title, body: try sealer.open(body, field: .notificationBody), createdAt: Self.date(created),
                                readAt: read.map(Self.date), urgency: try Urgency(stored: urgency, column: "notification.urgency"),
                                deepLink: try Self.decoder.decode(DeepLinkTarget.self, from: Data(deepLink.utf8)),
                                personalDetails: try Self.decoder.decode([String].self, from: Data(try sealer.open(details, field: .notificationDetails).utf8)))
    }

    public func notification(id: NotificationID) async throws -> NotificationItem? {
        try await read { c in try await self.fetchNotification(c, id: id) }
    }

    public func notifications(for userID: UserID, filter: NotificationFilter, after cursor: NotificationID?, limit: Int) async throws -> NotificationPage {
        try await read { c in
            let unreadOnly = filter == .unread
            let kind: String? = if case let .kind(kind) = filter { kind.rawValue } else { nil }
            let rows = try await c.query("""
                SELECT \(unescaped: Self.notificationColumns) FROM notification
                WHERE recipient_id = \(userID) AND (NOT \(unreadOnly) OR read_at IS NULL) AND (\(kind)::TEXT IS NULL OR kind = \(kind))
                  AND (\(cursor)::BIGINT IS NULL OR id < \(cursor))
                ORDER BY id DESC LIMIT \(Int64(limit + 1))
                """, logger: self.logger).collect().map(self.notification)
            let page = Array(rows.prefix(limit))
            return NotificationPage(items: page, nextCursor: rows.count > limit ? page.last?.id : nil)
        }
    }

    public func unreadCount(for userID: UserID) async throws -> Int {
        try await read { c in try await self.unreadCount(userID, c) }
    }

    public func setRead(_ isRead: Bool, notificationID: NotificationID, userID: UserID, at date: Date) async throws -> NotificationItem? {
        try await write(appendsEvents: true) { c in
            guard var item = try await self.fetchNotification(c, id: notificationID), item.recipientID == userID else { return nil }
            guard item.isUnread == isRead else { return item }
            item.readAt = isRead ? date : nil
            try await c.query("UPDATE notification SET read_at = \(item.readAt?.timeIntervalSince1970) WHERE id = \(item.id)", logger: self.logger)
            try await self.appendEvent(userID: userID, .notificationUpdated(item), at: date, c)
            try await self.appendUnreadCounts(for: [userID], at: date, c)
            return item
        }
    }

    public func markAllRead(userID: UserID, at date: Date) async throws -> Int {
        try await write(appendsEvents: true) { c in
            let ids = try await c.query("SELECT id FROM notification WHERE recipient_id = \(userID) AND read_at IS NULL", logger: self.logger)
                .collect().map { try $0.decode(NotificationID.self) }
            return try await self.markRead(ids: ids, userID: userID, at: date, c)
        }
    }

    public func markRead(ids: [NotificationID], userID: UserID, at date: Date) async throws -> Int {
        try await write(appendsEvents: true) { c in try await self.markRead(ids: ids, userID: userID, at: date, c) }
    }

    func markRead(ids: [NotificationID], userID: UserID, at date: Date, _ c: PostgresConnection) async throws -> Int {
        var changed = 0
        for id in Set(ids).sorted() {
            guard var item = try await fetchNotification(c, id: id), item.recipientID == userID, item.isUnread else { continue }
            item.readAt = date
            try await c.query("UPDATE notification SET read_at = \(date.timeIntervalSince1970) WHERE id = \(id)", logger: logger)
            try await appendEvent(userID: userID, .notificationUpdated(item), at: date, c)
            changed += 1
        }
        if changed > 0 { try await appendUnreadCounts(for: [userID], at: date, c) }
        return changed
    }

    public func delete(ids: [NotificationID], userID: UserID, at date: Date) async throws -> Int {
        try await write(appendsEvents: true) { c in
            var deleted = 0
            for id in Set(ids).sorted() {
                let rows = try await c.query("DELETE FROM notification WHERE id = \(id) AND recipient_id = \(userID) RETURNING id",
                                             logger: self.logger).collect()
                guard !rows.isEmpty else { continue }
                try await self.appendEvent(userID: userID, .notificationDeleted(notificationID: id), at: date, c)
                try await self.queuePushWithdrawal(notificationID: id, at: date, c)
                deleted += 1
            }
            if deleted > 0 { try await self.appendUnreadCounts(for: [userID], at: date, c) }
            return deleted
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
            try await c.query("""
                INSERT INTO preferences (user_id, json) VALUES (\(userID), \(json)) ON CONFLICT (user_id) DO UPDATE SET json = excluded.json
                """, logger: self.logger)
        }
    }

    // MARK: Contacts and assignments

    public func createAssignment(
        mentorID: UserID, coordinatorID: UserID?, contact: NewContact, at date: Date,
        makeNotification: @Sendable (ContactID, AssignmentID) -> NewNotification
    ) async throws -> (Assignment, Contact, NotificationItem) {
        let created: CreatedAssignment = try await write(appendsEvents: true) { c in
            let mentor = try await c.query("SELECT 1 FROM users WHERE id = \(mentorID)", logger: self.logger).collect()
            guard !mentor.isEmpty else { throw StoreError.notFound(.mentor) }
            let contactID = try await Self.one(c.query("""
                INSERT INTO contact (name, phone, address, notes)
                VALUES (\(self.sealer.seal(contact.name, field: .contactName)), \(self.sealer.seal(contact.phone, field: .contactPhone)),
                        \(self.sealer.seal(contact.address, field: .contactAddress)), \(self.sealer.seal(contact.notes, field: .contactNotes)))
                RETURNING id
                """, logger: self.logger)).decode(ContactID.self)
            let stored = Contact(id: contactID, name: contact.name, phone: contact.phone, address: contact.address, notes: contact.notes)
            let assignmentID = try await Self.one(c.query("""
                INSERT INTO assignment (mentor_id, contact_id, coordinator_id, status, created_at)
                VALUES (\(mentorID), \(contactID), \(coordinatorID), \(AssignmentStatus.pending.rawValue), \(date.timeIntervalSince1970))
                RETURNING id
                """, logger: self.logger)).decode(AssignmentID.self)
            let item = try await self.insertRow(makeNotification(contactID, assignmentID), at: date, c)
            try await self.appendCreatedEvents([item], at: date, c)
            try await c.query("UPDATE assignment SET notification_id = \(item.id) WHERE id = \(assignmentID)", logger: self.logger)
            let assignment = Assignment(id: assignmentID, mentorID: mentorID, contactID: contactID, coordinatorID: coordinatorID,
                                        status: .pending, createdAt: date, respondedAt: nil, notificationID: item.id)
            return CreatedAssignment(assignment: assignment, contact: stored, item: item)
        }
        return (created.assignment, created.contact, created.item)
    }

    private struct CreatedAssignment: Sendable {
        var assignment: Assignment
        var contact: Contact
        var item: NotificationItem
    }

    static let assignmentColumns = """
        id, mentor_id, contact_id, coordinator_id, status, created_at, responded_at, notification_id, \
        previous_id, reassigned_at, done_at, visit_note, delivered_at
        """

    func assignment(_ row: PostgresRow) throws -> Assignment {
        let (id, mentor, contact, coordinator, status, created, responded, notification, previous, reassigned, done, note, delivered) =
            try row.decode((AssignmentID, UserID, ContactID, UserID?, String, Double, Double?, NotificationID?, AssignmentID?, Double?, Double?, String?, Double?).self)
        return Assignment(id: id, mentorID: mentor, contactID: contact, coordinatorID: coordinator,
                          status: try AssignmentStatus(stored: status, column: "assignment.status"),
                          createdAt: Self.date(created), respondedAt: responded.map(Self.date), notificationID: notification,
                          previousID: previous, reassignedAt: reassigned.map(Self.date), doneAt: done.map(Self.date),
                          visitNote: try sealer.openIfPresent(note, field: .visitNote), deliveredAt: delivered.map(Self.date))
    }

    public func assignment(id: AssignmentID) async throws -> Assignment? {
        try await read { c in
            try await Self.first(c.query("SELECT \(unescaped: Self.assignmentColumns) FROM assignment WHERE id = \(id)", logger: self.logger))
                .map(self.assignment)
        }
    }

    public func assignments(_ listing: AssignmentListing) async throws -> [Assignment] {
        try await read { c in
            try await c.query(Self.listing(listing, select: "SELECT \(Self.assignmentColumns) FROM assignment a"), logger: self.logger)
                .collect().map(self.assignment)
        }
    }

    public func assignmentReports(_ listing: AssignmentListing) async throws -> [AssignmentReportRow] {
        try await read { c in
            let columns = Self.assignmentColumns.split(separator: ",").map { "a." + $0.trimmingCharacters(in: .whitespaces) }
            // The steps are the store's own constants, never input.
            let steps = EscalationStep.allCases.map {
                "(SELECT at FROM assignment_escalation e WHERE e.assignment_id = a.id AND e.step = '\($0.rawValue)')"
            }
            let select = """
                SELECT \((columns + ["c.name", "c.address", "c.erased_at", "COALESCE(u.display_name, '')", "n.read_at"] + steps).joined(separator: ", "))
                FROM assignment a
                JOIN contact c ON c.id = a.contact_id
                LEFT JOIN users u ON u.id = a.mentor_id
                LEFT JOIN notification n ON n.id = a.notification_id
                """
            return try await c.query(Self.listing(listing, select: select), logger: self.logger).collect().map { row in
                let cells = row.makeRandomAccess()
                let first = columns.count
                var reached: [EscalationStep: Date] = [:]
                for (index, step) in EscalationStep.allCases.enumerated() {
                    reached[step] = try cells[first + 5 + index].decode(Double?.self).map(Self.date)
                }
                return AssignmentReportRow(
                    assignment: try self.assignment(row),
                    contactName: try self.sealer.open(try cells[first].decode(String.self), field: .contactName),
                    contactAddress: try self.sealer.open(try cells[first + 1].decode(String.self), field: .contactAddress),
                    contactErasedAt: try cells[first + 2].decode(Double?.self).map(Self.date),
                    mentorName: try cells[first + 3].decode(String.self),
                    readAt: try cells[first + 4].decode(Double?.self).map(Self.date), escalations: reached)
            }
        }
    }

    /// `select` (naming the assignment `a`) with the condition an assignment meets to be in `listing`, newest first.
    static func listing(_ listing: AssignmentListing, select: String) -> PostgresQuery {
        let (mentor, coordinator, contact, ids, scope) = (listing.mentorID, listing.coordinatorID, listing.contactID, listing.ids, listing.scope.rawValue)
        return """
            \(unescaped: select)
            WHERE (\(mentor)::BIGINT IS NULL OR a.mentor_id = \(mentor)) AND (\(coordinator)::BIGINT IS NULL OR a.coordinator_id = \(coordinator))
            AND (\(contact)::BIGINT IS NULL OR a.contact_id = \(contact)) AND (\(ids)::BIGINT[] IS NULL OR a.id = ANY(\(ids)))
            AND (\(scope) = 'all' OR a.reassigned_at IS NULL) AND (\(scope) <> 'live' OR a.status IN ('pending', 'acknowledged'))
            ORDER BY a.id DESC
            """
    }

    public func pendingAssignments(createdBefore date: Date) async throws -> [Assignment] {
        try await read { c in
            try await c.query("""
                SELECT \(unescaped: Self.assignmentColumns) FROM assignment
                WHERE status = \(AssignmentStatus.pending.rawValue) AND created_at < \(date.timeIntervalSince1970) AND reassigned_at IS NULL
                ORDER BY id
                """, logger: self.logger).collect().map(self.assignment)
        }
    }

    public func recordEscalation(assignmentID: AssignmentID, step: EscalationStep, notification: NewNotification, at date: Date) async throws -> NotificationItem? {
        try await write(appendsEvents: true) { c in
            let exists = try await c.query("SELECT 1 FROM assignment WHERE id = \(assignmentID)", logger: self.logger).collect()
            guard !exists.isEmpty else { throw StoreError.notFound(.assignment) }
            // The primary key makes each step happen once, however many instances run the upkeep.
            let inserted = try await c.query("""
                INSERT INTO assignment_escalation (assignment_id, step, at) VALUES (\(assignmentID), \(step.rawValue), \(date.timeIntervalSince1970))
                ON CONFLICT DO NOTHING RETURNING assignment_id
                """, logger: self.logger).collect()
            guard !inserted.isEmpty else { return nil }
            let item = try await self.insertRow(notification, at: date, c)
            try await self.appendCreatedEvents([item], at: date, c)
            return item
        }
    }

    public func escalations(assignmentID: AssignmentID) async throws -> [EscalationStep: Date] {
        try await read { c in
            var steps: [EscalationStep: Date] = [:]
            for row in try await c.query("SELECT step, at FROM assignment_escalation WHERE assignment_id = \(assignmentID)", logger: self.logger).collect() {
                let (step, at) = try row.decode((String, Double).self)
                steps[try EscalationStep(stored: step, column: "assignment_escalation.step")] = Self.date(at)
            }
            return steps
        }
    }

    public func eraseContact(contactID: ContactID, titles: [Language: String], at date: Date) async throws -> [NotificationItem]? {
        try await write(appendsEvents: true) { c in
            let found = try await c.query("""
                UPDATE contact SET name = '', phone = '', address = '', notes = '', erased_at = coalesce(erased_at, \(date.timeIntervalSince1970))
                WHERE id = \(contactID) RETURNING id
                """, logger: self.logger).collect()
            guard !found.isEmpty else { return nil }
            try await c.query("UPDATE assignment SET visit_note = '' WHERE contact_id = \(contactID) AND visit_note IS NOT NULL", logger: self.logger)
            let named = try await c.query("""
                SELECT notification.id, users.language FROM assignment
                JOIN notification ON notification.id = assignment.notification_id JOIN users ON users.id = notification.recipient_id
                WHERE assignment.contact_id = \(contactID) ORDER BY notification.id
                """, logger: self.logger).collect().map { try $0.decode((NotificationID, String).self) }
            var items: [NotificationItem] = []
            for (id, stored) in named {
                let title = titles[try Language(stored: stored, column: "users.language")] ?? ""
                guard var item = try await self.fetchNotification(c, id: id) else { continue }
                if item.title != title || !item.body.isEmpty || !item.personalDetails.isEmpty {
                    try await c.query("UPDATE notification SET title = \(title), body = '', personal_details = '[]' WHERE id = \(id)", logger: self.logger)
                    item.title = title
                    item.body = ""
                    item.personalDetails = []
                    // The event log's copies now say what the notification says.
                    try await c.query("""
                        UPDATE event SET notification = \(try Self.json(item)) WHERE notification_id = \(id) AND notification IS NOT NULL
                        """, logger: self.logger)
                    try await self.queuePushWithdrawal(notificationID: id, at: date, c)
                    try await self.appendEvent(userID: item.recipientID, .notificationUpdated(item), at: date, c)
                }
                items.append(item)
            }
            return items
        }
    }

    public func contactsClosed(before date: Date) async throws -> [ContactID] {
        try await read { c in
            try await c.query("""
                SELECT assignment.contact_id FROM assignment JOIN contact ON contact.id = assignment.contact_id
                WHERE contact.erased_at IS NULL
                GROUP BY assignment.contact_id
                HAVING sum(CASE WHEN assignment.reassigned_at IS NULL AND assignment.status IN ('pending', 'acknowledged') THEN 1 ELSE 0 END) = 0
                   AND max(coalesce(assignment.reassigned_at, assignment.done_at, assignment.responded_at)) < \(date.timeIntervalSince1970)
                ORDER BY assignment.contact_id
                """, logger: self.logger).collect().map { try $0.decode(ContactID.self) }
        }
    }

    public func resealStale(limit: Int) async throws -> Int {
        guard let keyring = sealer.keyring else { return 0 }
        let current = DataKeyring.prefix(keyID: keyring.currentID)
        var done = 0
        for column in SealedColumn.all where done < limit {
            let room = limit - done
            done += try await write { c in
                let keys = column.keys.joined(separator: ", ")
                var select = PostgresBindings()
                select.append(current)
                select.append(SealedColumn.marker)
                select.append(Int64(room))
                let rows = try await c.query(PostgresQuery(unsafeSQL: """
                    SELECT \(column.column), \(keys) FROM \(column.table)
                    WHERE \(column.column) <> '' AND substr(\(column.column), 1, \(SealedColumn.prefixLength)) <> $1
                      AND (substr(\(column.column), 1, 1) = $2 OR (\(column.plainCondition)))
                    LIMIT $3 FOR UPDATE
                    """, binds: select), logger: self.logger).collect()
                let update = "UPDATE \(column.table) SET \(column.column) = $1 WHERE "
                    + column.keys.enumerated().map { "\($0.element) = $\($0.offset + 2)" }.joined(separator: " AND ")
                for row in rows {
                    let cells = Array(row)
                    let stored = try cells[0].decode(String.self)
                    var binds = PostgresBindings()
                    binds.append(self.sealer.seal(try self.sealer.open(stored, field: column.field), field: column.field))
                    for cell in cells.dropFirst() { binds.append(try cell.decode(Int64.self)) }
                    try await c.query(PostgresQuery(unsafeSQL: update, binds: binds), logger: self.logger)
                }
                return rows.count
            }
        }
        return done
    }

    public func sealedValueCounts() async throws -> [String: Int] {
        try await read { c in
            var counts: [String: Int] = [:]
            for column in SealedColumn.all {
                var binds = PostgresBindings()
                binds.append(SealedColumn.marker)
                let rows = try await c.query(PostgresQuery(unsafeSQL: """
                    SELECT substr(\(column.column), 2, 8), count(*) FROM \(column.table) WHERE substr(\(column.column), 1, 1) = $1 GROUP BY 1
                    """, binds: binds), logger: self.logger)
                for try await (key, n) in rows.decode((String, Int64).self) { counts[key, default: 0] += Int(n) }
            }
            return counts
        }
    }

    public func recordContactRead(contactID: ContactID, userID: UserID, channel: ContactReadChannel, at date: Date) async throws {
        try await write { c in
            try await c.query("""
                INSERT INTO contact_read (contact_id, user_id, channel, at) VALUES (\(contactID), \(userID), \(channel.rawValue), \(date.timeIntervalSince1970))
                """, logger: self.logger)
        }
    }

    public func contactReads(contactID: ContactID) async throws -> [ContactRead] {
        try await read { c in
            try await c.query("SELECT id, contact_id, user_id, channel, at FROM contact_read WHERE contact_id = \(contactID) ORDER BY id",
                              logger: self.logger).collect().map { row in
                let (id, contact, user, channel, at) = try row.decode((Int64, ContactID, UserID, String, Double).self)
                guard let parsed = ContactReadChannel(rawValue: channel) else { throw StoreError.unknownStoredValue(column: "contact_read.channel") }
                return ContactRead(id: id, contactID: contact, userID: user, channel: parsed, at: Self.date(at))
            }
        }
    }

    public func pruneContactReads(before date: Date) async throws -> Int {
        try await write { c in
            try await c.query("DELETE FROM contact_read WHERE at < \(date.timeIntervalSince1970) RETURNING id", logger: self.logger).collect().count
        }
    }

    public func contact(id: ContactID) async throws -> Contact? {
        try await read { c in
            try await Self.first(c.query("SELECT id, name, phone, address, notes, erased_at FROM contact WHERE id = \(id)", logger: self.logger)).map { row in
                let (id, name, phone, address, notes, erased) = try row.decode((ContactID, String, String, String, String, Double?).self)
                return Contact(id: id, name: try self.sealer.open(name, field: .contactName), phone: try self.sealer.open(phone, field: .contactPhone),
                               address: try self.sealer.open(address, field: .contactAddress), notes: try self.sealer.open(notes, field: .contactNotes),
                               erasedAt: erased.map(Self.date))
            }
        }
    }

    public func respond(to assignmentID: AssignmentID, status: AssignmentStatus, at date: Date) async throws -> Assignment {
        try await write { c in
            var assignment = try await self.lockedAssignment(assignmentID, c)
            if let refusal = assignment.refusalToRespond { throw refusal }
            assignment.status = status
            assignment.respondedAt = date
            try await c.query("""
                UPDATE assignment SET status = \(status.rawValue), responded_at = \(date.timeIntervalSince1970) WHERE id = \(assignmentID)
                """, logger: self.logger)
            return assignment
        }
    }

    /// The assignment, its row locked for the rest of the transaction.
    func lockedAssignment(_ id: AssignmentID, _ c: PostgresConnection) async throws -> Assignment {
        guard let assignment = try await Self.first(c.query("""
            SELECT \(unescaped: Self.assignmentColumns) FROM assignment WHERE id = \(id) FOR UPDATE
            """, logger: logger)).map(self.assignment) else {
            throw StoreError.notFound(.assignment)
        }
        return assignment
    }

    public func reassign(
        assignmentID: AssignmentID, to mentorID: UserID, at date: Date,
        makeNotification: @Sendable (ContactID, AssignmentID) -> NewNotification
    ) async throws -> (Assignment, NotificationItem) {
        let result: Reassigned = try await write(appendsEvents: true) { c in
            let old = try await self.lockedAssignment(assignmentID, c)
            let mentor = try await c.query("SELECT 1 FROM users WHERE id = \(mentorID)", logger: self.logger).collect()
            guard !mentor.isEmpty else { throw StoreError.notFound(.mentor) }
            if let refusal = old.refusalToReassign { throw refusal }
            let seconds = date.timeIntervalSince1970
            try await c.query("UPDATE assignment SET reassigned_at = \(seconds) WHERE id = \(assignmentID)", logger: self.logger)
            // The first mentor's phones take down the notification that named the person they will no longer visit.
            if let notificationID = old.notificationID { try await self.queuePushWithdrawal(notificationID: notificationID, at: date, c) }
            let newID = try await Self.one(c.query("""
                INSERT INTO assignment (mentor_id, contact_id, coordinator_id, status, created_at, previous_id)
                VALUES (\(mentorID), \(old.contactID), \(old.coordinatorID), \(AssignmentStatus.pending.rawValue), \(seconds), \(assignmentID))
                RETURNING id
                """, logger: self.logger)).decode(AssignmentID.self)
            let item = try await self.insertRow(makeNotification(old.contactID, newID), at: date, c)
            try await self.appendCreatedEvents([item], at: date, c)
            try await c.query("UPDATE assignment SET notification_id = \(item.id) WHERE id = \(newID)", logger: self.logger)
            return Reassigned(assignment: Assignment(id: newID, mentorID: mentorID, contactID: old.contactID, coordinatorID: old.coordinatorID,
                                                     status: .pending, createdAt: date, respondedAt: nil, notificationID: item.id,
                                                     previousID: assignmentID), item: item)
        }
        return (result.assignment, result.item)
    }

    private struct Reassigned: Sendable {
        var assignment: Assignment
        var item: NotificationItem
    }

    public func completeVisit(assignmentID: AssignmentID, note: String, at date: Date) async throws -> Assignment {
        try await write { c in
            var assignment = try await self.lockedAssignment(assignmentID, c)
            if let refusal = assignment.refusalToComplete { throw refusal }
            assignment.status = .done
            assignment.doneAt = date
            assignment.visitNote = note
            try await c.query("""
                UPDATE assignment SET status = \(AssignmentStatus.done.rawValue), done_at = \(date.timeIntervalSince1970),
                    visit_note = \(self.sealer.seal(note, field: .visitNote))
                WHERE id = \(assignmentID)
                """, logger: self.logger)
            return assignment
        }
    }

    public func recordLiveDelivery(notificationID: NotificationID, at date: Date) async throws {
        try await write { c in
            try await c.query("""
                UPDATE assignment SET delivered_at = \(date.timeIntervalSince1970) WHERE notification_id = \(notificationID) AND delivered_at IS NULL
                """, logger: self.logger)
        }
    }

    // MARK: Sign-in throttling

    public func signInFailures(keys: [String], since: Date) async throws -> [String: SignInFailures] {
        try await read { c in
            var found: [String: SignInFailures] = [:]
            for row in try await c.query("""
                SELECT key, failures, last FROM sign_in_failure WHERE key = ANY(\(keys)) AND last >= \(since.timeIntervalSince1970)
                """, logger: self.logger).collect() {
                let (key, failures, last) = try row.decode((String, Int, Double).self)
                found[key] = SignInFailures(count: failures, last: Self.date(last))
            }
            return found
        }
    }

    public func recordSignInFailure(keys: [String], at date: Date, forgetBefore: Date) async throws {
        try await write { c in
            try await c.query("DELETE FROM sign_in_failure WHERE last < \(forgetBefore.timeIntervalSince1970)", logger: self.logger)
            // One row per key, counted up atomically: instances failing the same key at once both count.
            for key in keys.sorted() {
                try await c.query("""
                    INSERT INTO sign_in_failure (key, failures, last) VALUES (\(key), 1, \(date.timeIntervalSince1970))
                    ON CONFLICT (key) DO UPDATE SET failures = sign_in_failure.failures + 1, last = EXCLUDED.last
                    """, logger: self.logger)
            }
        }
    }

    public func clearSignInFailures(key: String) async throws {
        try await write { c in try await c.query("DELETE FROM sign_in_failure WHERE key = \(key)", logger: self.logger) }
    }

    // MARK: Scenarios

    static let scenarioColumns = "s.id, s.title, s.body, s.coordinator_id, s.created_at"
    static let mentorScenarioQuery = """
        SELECT s.id, s.title, s.body, s.coordinator_id, s.created_at, r.mentor_id, r.done_at, r.reflection
        FROM scenario_recipient r JOIN scenario s ON s.id = r.scenario_id
        """

    static func scenario(_ row: PostgresRow) throws -> Scenario {
        let (id, title, body, coordinator, created) = try row.decode((Int64, String, String, UserID?, Double).self)
        return Scenario(id: id, title: title, body: body, coordinatorID: coordinator, createdAt: date(created))
    }

    func mentorScenario(_ row: PostgresRow) throws -> MentorScenario {
        let (id, title, body, coordinator, created, mentor, done, reflection) =
            try row.decode((Int64, String, String, UserID?, Double, UserID, Double?, String).self)
        return MentorScenario(scenario: Scenario(id: id, title: title, body: body, coordinatorID: coordinator, createdAt: Self.date(created)),
                              mentorID: mentor, doneAt: done.map(Self.date), reflection: try sealer.open(reflection, field: .reflection))
    }

    public func publishScenario(
        title: String, body: String, coordinatorID: UserID?, mentorIDs: [UserID], at date: Date,
        makeNotification: @Sendable (Int64, UserID) -> NewNotification
    ) async throws -> (Scenario, [NotificationItem]) {
        let mentors = Set(mentorIDs).sorted()
        // A statement for each kind of row, not one per mentor: a publish to every mentor is six round trips, and
        // the event-log lock is held only for the events. To many mentors, a fan-out's first chunk is written here.
        let published: Published = try await write(appendsEvents: true, locksLate: true) { c in
            let found = try await Self.one(c.query("SELECT COUNT(*) FROM users WHERE id = ANY(\(mentors))", logger: self.logger)).decode(Int64.self)
            guard found == mentors.count else { throw StoreError.notFound(.mentor) }
            let id = try await Self.one(c.query("""
                INSERT INTO scenario (title, body, coordinator_id, created_at) VALUES (\(title), \(body), \(coordinatorID), \(date.timeIntervalSince1970))
                RETURNING id
                """, logger: self.logger)).decode(Int64.self)
            try await c.query("INSERT INTO scenario_recipient (scenario_id, mentor_id) SELECT \(id), unnest(\(mentors)::bigint[])", logger: self.logger)
            let scenario = Scenario(id: id, title: title, body: body, coordinatorID: coordinatorID, createdAt: date)
            let rows = try await self.writeRows(mentors.map { makeNotification(id, $0) }, at: date, c)
            let (fanout, written) = try await self.writeEvents(rows, at: date, c)
            return Published(scenario: scenario, items: written, fanout: fanout)
        }
        guard let fanout = published.fanout else { return (published.scenario, published.items) }
        return (published.scenario, try await finishFanOut(fanout, written: published.items))
    }

    private struct Published: Sendable {
        var scenario: Scenario
        var items: [NotificationItem]
        var fanout: Int64?
    }

    public func scenarios(forMentor mentorID: UserID) async throws -> [MentorScenario] {
        try await read { c in
            try await c.query("\(unescaped: Self.mentorScenarioQuery) WHERE r.mentor_id = \(mentorID) ORDER BY s.id DESC", logger: self.logger)
                .collect().map(self.mentorScenario)
        }
    }

    public func allScenarios() async throws -> [(Scenario, [MentorScenario])] {
        let scenarios = try await read { c in
            try await c.query("SELECT \(unescaped: Self.scenarioColumns) FROM scenario s ORDER BY s.id DESC", logger: self.logger)
                .collect().map(Self.scenario)
        }
        let copies = try await read { c in
            try await c.query("\(unescaped: Self.mentorScenarioQuery) ORDER BY r.scenario_id, r.mentor_id", logger: self.logger)
                .collect().map(self.mentorScenario)
        }
        let byScenario = Dictionary(grouping: copies, by: \.scenario.id)
        return scenarios.map { ($0, byScenario[$0.id] ?? []) }
    }

    public func completeScenario(scenarioID: Int64, mentorID: UserID, reflection: String, at date: Date) async throws -> MentorScenario {
        try await write { c in
            try await c.query("""
                UPDATE scenario_recipient SET done_at = COALESCE(done_at, \(date.timeIntervalSince1970)), reflection = \(self.sealer.seal(reflection, field: .reflection))
                WHERE scenario_id = \(scenarioID) AND mentor_id = \(mentorID)
                """, logger: self.logger)
            guard let row = try await Self.first(c.query("""
                \(unescaped: Self.mentorScenarioQuery) WHERE r.scenario_id = \(scenarioID) AND r.mentor_id = \(mentorID)
                """, logger: self.logger)) else { throw StoreError.notFound(.scenario) }
            return try self.mentorScenario(row)
        }
    }

    // MARK: Certifications

    static func certification(_ row: PostgresRow) throws -> Certification {
        let (id, mentor, name, expires) = try row.decode((Int64, UserID, String, Double).self)
        return Certification(id: id, mentorID: mentor, name: name, expiresAt: date(expires))
    }

    private func replaceCertifications(_ certifications: [NewCertification], mentorID: UserID, _ c: PostgresConnection) async throws {
        let existing = try await c.query("SELECT id, mentor_id, name, expires_at FROM certification WHERE mentor_id = \(mentorID)",
                                         logger: logger).collect().map(Self.certification)
        var result: [Certification] = []
        for new in certifications {
            // An unchanged certification keeps its id, and so the warnings already sent for it.
            if let same = existing.first(where: { $0.name == new.name && $0.expiresAt == new.expiresAt }), !result.contains(same) {
                result.append(same)
                continue
            }
            let id = try await Self.one(c.query("""
                INSERT INTO certification (mentor_id, name, expires_at) VALUES (\(mentorID), \(new.name), \(new.expiresAt.timeIntervalSince1970))
                RETURNING id
                """, logger: logger)).decode(Int64.self)
            result.append(Certification(id: id, mentorID: mentorID, name: new.name, expiresAt: new.expiresAt))
        }
        for old in existing where !result.contains(old) {
            try await c.query("DELETE FROM certification WHERE id = \(old.id)", logger: logger)
        }
    }

    public func certifications(mentorID: UserID) async throws -> [Certification] {
        try await read { c in
            try await c.query("SELECT id, mentor_id, name, expires_at FROM certification WHERE mentor_id = \(mentorID) ORDER BY id",
                              logger: self.logger).collect().map(Self.certification)
        }
    }

    public func certifications(expiringBefore date: Date) async throws -> [Certification] {
        try await read { c in
            try await c.query("SELECT id, mentor_id, name, expires_at FROM certification WHERE expires_at < \(date.timeIntervalSince1970) ORDER BY id",
                              logger: self.logger).collect().map(Self.certification)
        }
    }

    public func recordExpiryWarning(certificationID: Int64, threshold: Int, alsoCovers: [Int], notification: NewNotification, at date: Date) async throws -> NotificationItem? {
        try await write(appendsEvents: true) { c in
            // The primary key makes this exactly once, however many instances run the upkeep at the same time.
            let inserted = try await c.query("""
                INSERT INTO certification_warning (certification_id, threshold) VALUES (\(certificationID), \(threshold))
                ON CONFLICT DO NOTHING RETURNING certification_id
                """, logger: self.logger).collect()
            guard !inserted.isEmpty else { return nil }
            for other in alsoCovers {
                try await c.query("""
                    INSERT INTO certification_warning (certification_id, threshold) VALUES (\(certificationID), \(other)) ON CONFLICT DO NOTHING
                    """, logger: self.logger)
            }
            let item = try await self.insertRow(notification, at: date, c)
            try await self.appendCreatedEvents([item], at: date, c)
            return item
        }
    }

    // MARK: Event log

    func event(_ row: PostgresRow) throws -> StoredEvent {
        let (id, userID, type, notificationID, notification, unreadCount, created) =
            try row.decode((Int64, UserID, String, NotificationID?, String?, Int32?, Double).self)
        let payload = try EventPayload.stored(type: type, notificationJSON: try sealer.openIfPresent(notification, field: .eventNotification),
                                              notificationID: notificationID, unreadCount: unreadCount.map(Int.init), decoder: Self.decoder,
                                              cache: notificationJSON)
        return StoredEvent(id: id, userID: userID, payload: payload, createdAt: Self.date(created))
    }

    public func events(after id: Int64, limit: Int) async throws -> [StoredEvent] {
        try await read { c in
            try await c.query("""
                SELECT id, user_id, type, notification_id, notification, unread_count, created_at FROM event
                WHERE id > \(id) ORDER BY id LIMIT \(Int64(limit))
                """, logger: self.logger).collect().map(self.event)
        }
    }

    public func events(for userID: UserID, after id: Int64, limit: Int) async throws -> [StoredEvent] {
        try await read { c in
            try await c.query("""
                SELECT id, user_id, type, notification_id, notification, unread_count, created_at FROM event
                WHERE user_id = \(userID) AND id > \(id) ORDER BY id LIMIT \(Int64(limit))
                """, logger: self.logger).collect().map(self.event)
        }
    }

    public func latestEventID() async throws -> Int64 {
        try await read { c in
            // The newest committed event; after pruning everything, the highest id pruned.
            try await Self.one(c.query("""
                SELECT GREATEST(COALESCE((SELECT MAX(id) FROM event), 0),
                                COALESCE((SELECT value FROM meta WHERE key = 'events_pruned_through'), 0))
                """, logger: self.logger)).decode(Int64.self)
        }
    }

    public func prunedThroughEventID() async throws -> Int64 {
        try await read { c in
            try await Self.first(c.query("SELECT value FROM meta WHERE key = 'events_pruned_through'", logger: self.logger))?.decode(Int64.self) ?? 0
        }
    }

    public func pruneEvents(before date: Date) async throws -> Int {
        try await write(appendsEvents: true) { c in
            guard let highest = try await Self.one(c.query("SELECT MAX(id) FROM event WHERE created_at < \(date.timeIntervalSince1970)",
                                                           logger: self.logger)).decode(Int64?.self) else { return 0 }
            let count = try await c.query("DELETE FROM event WHERE id <= \(highest) RETURNING id", logger: self.logger).collect().count
            try await c.query("""
                INSERT INTO meta (key, value) VALUES ('events_pruned_through', \(highest))
                ON CONFLICT (key) DO UPDATE SET value = GREATEST(meta.value, excluded.value)
                """, logger: self.logger)
            return count
        }
    }

    // MARK: Rows and values

    static func first(_ rows: PostgresRowSequence) async throws -> PostgresRow? {
        try await rows.collect().first
    }

    static func one(_ rows: PostgresRowSequence) async throws -> PostgresRow {
        guard let row = try await rows.collect().first else { throw StoreError.unknownStoredValue(column: "(a row the statement returns)") }
        return row
    }

    static func date(_ seconds: Double) -> Date { Date(timeIntervalSince1970: seconds) }

    static func json<T: Encodable>(_ value: T) throws -> String {
        String(decoding: try encoder.encode(value), as: UTF8.self)
    }
}

/// `--database` names neither a SQLite file nor a PostgreSQL URL Varsel can read.
public struct PostgresURLError: Error, CustomStringConvertible {
    public init() {}

    public var description: String { "The database URL must look like postgres://user:password@host:5432/database." }
}
