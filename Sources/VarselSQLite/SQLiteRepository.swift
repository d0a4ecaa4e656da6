import Foundation
import GRDB
import VarselCore
import VarselStore

/// The embedded default store: one SQLite file in WAL mode, through a GRDB `DatabasePool`.
///
/// Each public method is all or nothing: a read is one transaction, a write one savepoint of a transaction that
/// writes arriving together share (``GroupCommit``). Writes are serialized by SQLite, so event ids are assigned in
/// commit order, which the live stream relies on to resume without gaps.
public final class SQLiteRepository: VarselRepository, Sendable {
    let writer: any DatabaseWriter
    /// Where every write goes: one transaction, and one wait for the disk, for a burst of them.
    let commits: GroupCommit
    /// Sessions and users as last read, forgotten when a write touches them.
    private let identities = IdentityCache()
    /// Each transaction's events, handed to the pump as it commits.
    let committed = CommittedEvents()
    /// Encrypts personal details on their way in and opens them on their way out (see ``DataKeyring``).
    let sealer: FieldSealer
    /// The notifications this store last wrote or read in its event log, by their JSON.
    let notificationJSON = NotificationJSONCache(capacity: NotificationJSONCache.storeCapacity)
    static let encoder = JSONEncoder()
    static let decoder = JSONDecoder()

    /// How much a committed write survives.
    public enum Durability: String, Sendable, CaseIterable {
        /// `synchronous = FULL`: a commit is on disk before it returns, so an accepted notification survives a
        /// power loss. The default.
        case full
        /// `synchronous = NORMAL`: survives a crash of the process, maybe not of the machine. For benchmarks.
        case normal
    }

    /// Opens (creating if needed) the database at `path` and brings its schema up to date.
    ///
    /// `commitInterval` is the least time between the starts of two commits while writes keep coming (see
    /// ``GroupCommit``): the server's writes gather into fewer commits, each waiting for the disk once, at the price of
    /// up to that much latency. Zero, the default, commits each write as soon as it can.
    /// With `keys`, personal details are stored encrypted; a database that holds encrypted details is refused
    /// without them (``StoreError/dataKeyRequired``) or with a key file that lacks its key. `checksDataKey: false`
    /// opens it anyway, for work that never reads or writes personal details (the `varsel user` commands).
    public convenience init(path: String, durability: Durability = .full, commitInterval: Duration = .zero, keys: DataKeyring? = nil,
                            checksDataKey: Bool = true) throws {
        var configuration = Configuration()
        configuration.busyMode = .timeout(10)
        let pool = try DatabasePool(path: path, configuration: configuration)
        // Set on the writer connection after GRDB's WAL set-up, which chooses NORMAL itself; readers never commit.
        try pool.writeWithoutTransaction { db in
            try db.execute(sql: durability == .full ? "PRAGMA synchronous = FULL" : "PRAGMA synchronous = NORMAL")
        }
        try self.init(writer: pool, commitInterval: commitInterval, keys: keys, checksDataKey: checksDataKey)
    }

    /// A store over `writer`, its schema brought up to date: a `DatabasePool` in production, an in-memory
    /// `DatabaseQueue` in tests.
    public init(writer: any DatabaseWriter, commitInterval: Duration = .zero, keys: DataKeyring? = nil, checksDataKey: Bool = true) throws {
        try Migrations.migrator.migrate(writer)
        sealer = FieldSealer(keys)
        let sealer = sealer
        if checksDataKey || keys != nil {
            try writer.write { db in
                let existing = try String.fetchOne(db, sql: "SELECT sealed FROM data_key_check WHERE id = 1")
                if let check = try sealer.startingCheck(existing: existing) {
                    try db.execute(sql: "INSERT INTO data_key_check (id, sealed) VALUES (1, ?)", arguments: [check])
                }
            }
        }
        self.writer = writer
        commits = GroupCommit(writer: writer, interval: commitInterval, events: committed)
        writer.add(transactionObserver: identities, extent: .databaseLifetime)
        writer.add(transactionObserver: committed, extent: .databaseLifetime)
        try writer.writeWithoutTransaction { db in
            // Deleted and overwritten content is zeroed where that costs no extra I/O (`FAST`), so an erased person's
            // details are not left in free space in the file; an erasure also empties the write-ahead log.
            try db.execute(sql: "PRAGMA secure_delete = FAST")
        }
    }

    public var publishesCommittedEvents: Bool { true }

    public func followCommittedEvents(_ follower: @escaping @Sendable ([StoredEvent]) -> Void) {
        committed.follow(follower)
    }

    /// A store in memory, gone when released: for fast contract tests.
    public static func inMemory() throws -> SQLiteRepository {
        try SQLiteRepository(writer: DatabaseQueue())
    }

    /// Runs `body` in a read transaction on the calling thread. The store's reads take microseconds; handing one to a
    /// GRDB reader thread and back (`await writer.read`) cost more than the read, in thread switches.
    func read<T>(_ body: (Database) throws -> T) throws -> T {
        try writer.read(body)
    }

    /// The `synchronous` setting in force (2 is FULL, 1 NORMAL), for tests.
    public func synchronousSetting() async throws -> Int {
        try await commits.write { db in try Int.fetchOne(db, sql: "PRAGMA synchronous") ?? -1 }
    }

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
            try self.appendLog([NewAccountLogEntry(actorID: actorID, action: .created, subject: user.role.rawValue)], userID: created.id, at: date, db: db)
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
            try db.execute(sql: "UPDATE user SET paused_from = ?, paused_until = ? WHERE id = ?",
                           arguments: [until == nil ? nil : from?.timeIntervalSince1970, until?.timeIntervalSince1970, userID])
            if db.changesCount == 0 { throw StoreError.notFound(.user) }
        }
    }

    // MARK: Sessions

    public func createSession(_ session: Session) async throws {
        try await commits.write { db in
            try db.execute(sql: """
                INSERT INTO session (token_hash, user_id, csrf_token, created_at, expires_at) VALUES (?, ?, ?, ?, ?)
                """, arguments: [session.tokenHash, session.userID, session.csrfToken, session.createdAt.timeIntervalSince1970,
                                 session.expiresAt.timeIntervalSince1970])
        }
    }

    public func session(tokenHash: String, at date: Date) async throws -> Session? {
        if let session = identities.session(tokenHash: tokenHash) { return session.expiresAt > date ? session : nil }
        let generation = identities.generation
        let session = try read { db in
            try Row.fetchOne(db.cachedStatement(sql: "SELECT * FROM session WHERE token_hash = ? AND expires_at > ?"),
                             arguments: [tokenHash, date.timeIntervalSince1970]).map { row in
                Session(tokenHash: row["token_hash"], userID: row["user_id"], csrfToken: row["csrf_token"],
                        createdAt: Self.date(row["created_at"]), expiresAt: Self.date(row["expires_at"]))
            }
        }
        if let session { identities.keep(session: session, generation: generation) }
        return session
    }

    public func sessions(userID: UserID) async throws -> [Session] {
        try read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM session WHERE user_id = ? ORDER BY created_at, token_hash", arguments: [userID]).map { row in
                Session(tokenHash: row["token_hash"], userID: row["user_id"], csrfToken: row["csrf_token"],
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
        let ended = try String.fetchAll(db, sql: "SELECT token_hash FROM session WHERE user_id = ? AND token_hash IS NOT ?",
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

    public func changeAccount(userID: UserID, _ change: AccountChange, log: [NewAccountLogEntry], at date: Date) async throws -> AccountChangeOutcome {
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
                try db.execute(sql: "UPDATE user SET deactivated_at = coalesce(deactivated_at, ?) WHERE id = ?",
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
            guard let user = try Row.fetchOne(db, sql: "SELECT * FROM user WHERE id = ?", arguments: [userID]).map({ try UserRecord(row: $0).user() }) else {
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
        try Row.fetchOne(db, sql: """
            SELECT user.* FROM password_link JOIN user ON user.id = password_link.user_id
            WHERE password_link.token_hash = ? AND password_link.expires_at > ? AND user.deactivated_at IS NULL
            """, arguments: [tokenHash, date.timeIntervalSince1970]).map { try UserRecord(row: $0).user() }
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
                return AccountLogEntry(id: row["id"], userID: row["user_id"], actorID: row["actor_id"], action: action, subject: row["subject"],
                                       date: (row["date"] as Double?).map(Self.date), at: Self.date(row["at"]))
            }
        }
    }

    private func insert(_ link: PasswordLink, userID: UserID, db: Database) throws {
        try db.execute(sql: "INSERT INTO password_link (token_hash, user_id, expires_at) VALUES (?, ?, ?)",
                       arguments: [link.tokenHash, userID, link.expiresAt.timeIntervalSince1970])
    }

    func appendLog(_ entries: [NewAccountLogEntry], userID: UserID, at date: Date, db: Database) throws {
        for entry in entries {
            try db.execute(sql: "INSERT INTO account_log (user_id, actor_id, action, subject, date, at) VALUES (?, ?, ?, ?, ?, ?)",
                           arguments: [userID, entry.actorID, entry.action.rawValue, entry.subject, entry.date?.timeIntervalSince1970,
                                       date.timeIntervalSince1970])
        }
    }

    // MARK: Notifications

    public func createNotifications(_ notifications: [NewNotification], idempotencyKey: IdempotencyKey?, at date: Date) async throws -> CreatedNotifications {
        let start = try await commits.write { db in try self.beginCreate(notifications, idempotencyKey: idempotencyKey, at: date, db: db) }
        return try await created(start) { try await createNotifications(notifications, idempotencyKey: idempotencyKey, at: date) }
    }

    /// The first transaction of a create: the replay of an idempotency key, or the recipient check and the
    /// notifications (the first chunk of a fan-out).
    func beginCreate(_ notifications: [NewNotification], idempotencyKey: IdempotencyKey?, at date: Date, db: Database) throws -> CreateStart {
        if let key = idempotencyKey,
           let row = try Row.fetchOne(db.cachedStatement(sql: """
               SELECT fingerprint, notification_ids, fanout_id FROM idempotency_key WHERE sender_id = ? AND key = ?
               """), arguments: [key.senderID, key.key]) {
            guard (row["fingerprint"] as String) == key.fingerprint else { throw StoreError.idempotencyKeyReused }
            if let fanout = row["fanout_id"] as Int64? { return .unfinished(fanout) }
            let ids = try Self.decoder.decode([NotificationID].self, from: Data((row["notification_ids"] as String).utf8))
            return .written(CreatedNotifications(items: try ids.compactMap { try self.fetchNotification(db, id: $0) }, isReplay: true))
        }
        for recipient in Set(notifications.map(\.recipientID)) {
            guard try Bool.fetchOne(db.cachedStatement(sql: "SELECT 1 FROM user WHERE id = ?"), arguments: [recipient]) == true else {
                throw StoreError.notFound(.recipient)
            }
        }
        let (fanout, created) = try self.startFanOut(notifications, at: date, db: db)
        if let key = idempotencyKey {
            let ids = String(decoding: try Self.encoder.encode(fanout == nil ? created.map(\.id) : []), as: UTF8.self)
            try db.execute(sql: """
                INSERT INTO idempotency_key (sender_id, key, fingerprint, notification_ids, created_at, fanout_id) VALUES (?, ?, ?, ?, ?, ?)
                """, arguments: [key.senderID, key.key, key.fingerprint, ids, date.timeIntervalSince1970, fanout])
        }
        guard let fanout else { return .written(CreatedNotifications(items: created, isReplay: false)) }
        return .spreading(fanout, written: created)
    }

    func insert(_ new: NewNotification, at date: Date, db: Database) throws -> NotificationItem {
        let record = try NotificationRecord(new, at: date, encoder: Self.encoder, sealer: sealer)
        let item = NotificationItem(id: 0, recipientID: new.recipientID, kind: new.kind, title: new.title,
                                    body: new.body, createdAt: date, urgency: new.urgency, deepLink: new.deepLink,
                                    personalDetails: new.personalDetails)
        return try insert(record, as: item, db: db)
    }

    /// Inserts `record` and appends its `notification.created` event; `item` is the notification it stores, whose
    /// id is taken from the insert.
    func insert(_ record: NotificationRecord, as item: NotificationItem, db: Database) throws -> NotificationItem {
        try db.cachedStatement(sql: NotificationRecord.insertSQL).execute(arguments: record.insertArguments)
        var item = item
        item.id = NotificationID(db.lastInsertedRowID)
        try appendEvent(userID: item.recipientID, .notificationCreated(item), at: item.createdAt, db: db)
        return item
    }

    private func appendEvent(userID: UserID, _ payload: EventPayload, at date: Date, db: Database) throws {
        let record = try EventRecord(userID: userID, payload: payload, at: date, encoder: Self.encoder, sealer: sealer, cache: notificationJSON)
        // A prepared statement: a record's own `insert` builds its arguments through `Encodable`, on every event.
        try db.cachedStatement(sql: EventRecord.insertSQL).execute(arguments: record.insertArguments)
        committed.appended(StoredEvent(id: db.lastInsertedRowID, userID: userID, payload: payload,
                                       createdAt: Date(timeIntervalSince1970: record.createdAt)))
    }

    func appendUnreadCounts(for userIDs: [UserID], at date: Date, db: Database) throws {
        var seen = Set<UserID>()
        for userID in userIDs where seen.insert(userID).inserted {
            try appendEvent(userID: userID, .unreadCount(try unreadCount(userID, db: db)), at: date, db: db)
        }
    }

    private func unreadCount(_ userID: UserID, db: Database) throws -> Int {
        try Int.fetchOne(db.cachedStatement(sql: Self.unreadCountSQL), arguments: [userID]) ?? 0
    }

    /// How a recipient's unread notifications are counted, on every create and read change.
    static let unreadCountSQL = "SELECT COUNT(*) FROM notification WHERE recipient_id = ? AND read_at IS NULL"

    func fetchNotification(_ db: Database, id: NotificationID) throws -> NotificationItem? {
        try Row.fetchOne(db, sql: "SELECT * FROM notification WHERE id = ?", arguments: [id]).map(notification)
    }

    private func notification(_ row: Row) throws -> NotificationItem {
        try NotificationRecord(row: row).item(sealer: sealer, decoder: Self.decoder)
    }

    public func notification(id: NotificationID) async throws -> NotificationItem? {
        try read { db in try self.fetchNotification(db, id: id) }
    }

    public func notifications(for userID: UserID, filter: NotificationFilter, after cursor: NotificationID?, limit: Int) async throws -> NotificationPage {
        try read { db in
            var sql = "SELECT * FROM notification WHERE recipient_id = ?"
            var arguments: StatementArguments = [userID]
            switch filter {
            case .all: break
            case .unread: sql += " AND read_at IS NULL"
            case let .kind(kind):
                sql += " AND kind = ?"
                arguments += [kind.rawValue]
            }
            if let cursor {
                sql += " AND id < ?"
                arguments += [cursor]
            }
            sql += " ORDER BY id DESC LIMIT ?"
            arguments += [limit + 1]
            let rows = try Row.fetchAll(db, sql: sql, arguments: arguments).map(self.notification)
            let page = Array(rows.prefix(limit))
            return NotificationPage(items: page, nextCursor: rows.count > limit ? page.last?.id : nil)
        }
    }

    public func unreadCount(for userID: UserID) async throws -> Int {
        try read { db in try self.unreadCount(userID, db: db) }
    }

    public func setRead(_ isRead: Bool, notificationID: NotificationID, userID: UserID, at date: Date) async throws -> NotificationItem? {
        try await commits.write { db in
            guard var item = try self.fetchNotification(db, id: notificationID), item.recipientID == userID else { return nil }
            guard item.isUnread == isRead else { return item }
            item.readAt = isRead ? date : nil
            try db.execute(sql: "UPDATE notification SET read_at = ? WHERE id = ?", arguments: [item.readAt?.timeIntervalSince1970, item.id])
            try self.appendEvent(userID: userID, .notificationUpdated(item), at: date, db: db)
            try self.appendUnreadCounts(for: [userID], at: date, db: db)
            return item
        }
    }

    public func markAllRead(userID: UserID, at date: Date) async throws -> Int {
        try await commits.write { db in
            let ids = try NotificationID.fetchAll(db, sql: "SELECT id FROM notification WHERE recipient_id = ? AND read_at IS NULL", arguments: [userID])
            return try self.markRead(ids: ids, userID: userID, at: date, db: db)
        }
    }

    public func markRead(ids: [NotificationID], userID: UserID, at date: Date) async throws -> Int {
        try await commits.write { db in try self.markRead(ids: ids, userID: userID, at: date, db: db) }
    }

    private func markRead(ids: [NotificationID], userID: UserID, at date: Date, db: Database) throws -> Int {
        var changed = 0
        for id in Set(ids).sorted() {
            guard var item = try fetchNotification(db, id: id), item.recipientID == userID, item.isUnread else { continue }
            item.readAt = date
            try db.execute(sql: "UPDATE notification SET read_at = ? WHERE id = ?", arguments: [date.timeIntervalSince1970, id])
            try appendEvent(userID: userID, .notificationUpdated(item), at: date, db: db)
            changed += 1
        }
        if changed > 0 { try appendUnreadCounts(for: [userID], at: date, db: db) }
        return changed
    }

    public func delete(ids: [NotificationID], userID: UserID, at date: Date) async throws -> Int {
        try await commits.write { db in
            var deleted = 0
            for id in Set(ids).sorted() {
                try db.execute(sql: "DELETE FROM notification WHERE id = ? AND recipient_id = ?", arguments: [id, userID])
                guard db.changesCount > 0 else { continue }
                try self.appendEvent(userID: userID, .notificationDeleted(notificationID: id), at: date, db: db)
                try self.queuePushWithdrawal(notificationID: id, at: date, db: db)
                deleted += 1
            }
            if deleted > 0 { try self.appendUnreadCounts(for: [userID], at: date, db: db) }
            return deleted
        }
    }

    // MARK: Preferences

    public func preferences(for userID: UserID) async throws -> NotificationPreferences {
        try read { db in
            guard let json = try String.fetchOne(db.cachedStatement(sql: "SELECT json FROM preferences WHERE user_id = ?"), arguments: [userID]) else {
                return .standard
            }
            return try Self.decoder.decode(NotificationPreferences.self, from: Data(json.utf8))
        }
    }

    public func setPreferences(_ preferences: NotificationPreferences, for userID: UserID) async throws {
        try await commits.write { db in
            try db.execute(sql: """
                INSERT INTO preferences (user_id, json) VALUES (?, ?) ON CONFLICT(user_id) DO UPDATE SET json = excluded.json
                """, arguments: [userID, try Self.json(preferences)])
        }
    }

    // MARK: Contacts and assignments

    public func createAssignment(
        mentorID: UserID, coordinatorID: UserID?, contact: NewContact, at date: Date,
        makeNotification: @Sendable (ContactID, AssignmentID) -> NewNotification
    ) async throws -> (Assignment, Contact, NotificationItem) {
        // A transaction of its own: `makeNotification` may not outlive this call, as a write waiting for a batch would.
        try await writer.write { db in
            guard try Bool.fetchOne(db, sql: "SELECT 1 FROM user WHERE id = ?", arguments: [mentorID]) == true else {
                throw StoreError.notFound(.mentor)
            }
            try db.execute(sql: "INSERT INTO contact (name, phone, address, notes) VALUES (?, ?, ?, ?)",
                           arguments: [self.sealer.seal(contact.name, field: .contactName), self.sealer.seal(contact.phone, field: .contactPhone),
                                       self.sealer.seal(contact.address, field: .contactAddress), self.sealer.seal(contact.notes, field: .contactNotes)])
            let stored = Contact(id: ContactID(db.lastInsertedRowID), name: contact.name, phone: contact.phone, address: contact.address, notes: contact.notes)
            try db.execute(sql: """
                INSERT INTO assignment (mentor_id, contact_id, coordinator_id, status, created_at) VALUES (?, ?, ?, ?, ?)
                """, arguments: [mentorID, stored.id, coordinatorID, AssignmentStatus.pending.rawValue, date.timeIntervalSince1970])
            let assignmentID = AssignmentID(db.lastInsertedRowID)
            let item = try self.insert(makeNotification(stored.id, assignmentID), at: date, db: db)
            try self.appendUnreadCounts(for: [item.recipientID], at: date, db: db)
            try db.execute(sql: "UPDATE assignment SET notification_id = ? WHERE id = ?", arguments: [item.id, assignmentID])
            let assignment = Assignment(id: assignmentID, mentorID: mentorID, contactID: stored.id, coordinatorID: coordinatorID,
                                        status: .pending, createdAt: date, respondedAt: nil, notificationID: item.id)
            return (assignment, stored, item)
        }
    }

    private func assignment(_ row: Row) throws -> Assignment {
        Assignment(id: row["id"], mentorID: row["mentor_id"], contactID: row["contact_id"], coordinatorID: row["coordinator_id"],
                   status: try AssignmentStatus(stored: row["status"], column: "assignment.status"), createdAt: Self.date(row["created_at"]),
                   respondedAt: (row["responded_at"] as Double?).map(Self.date), notificationID: row["notification_id"],
                   previousID: row["previous_id"], reassignedAt: (row["reassigned_at"] as Double?).map(Self.date),
                   doneAt: (row["done_at"] as Double?).map(Self.date), visitNote: try sealer.openIfPresent(row["visit_note"] as String?, field: .visitNote),
                   deliveredAt: (row["delivered_at"] as Double?).map(Self.date))
    }

    public func assignment(id: AssignmentID) async throws -> Assignment? {
        try read { db in try Row.fetchOne(db, sql: "SELECT * FROM assignment WHERE id = ?", arguments: [id]).map(self.assignment) }
    }

    public func assignments(_ listing: AssignmentListing) async throws -> [Assignment] {
        try read { db in
            try Row.fetchAll(db, sql: "SELECT a.* FROM assignment a WHERE \(Self.listingCondition) ORDER BY a.id DESC",
                             arguments: Self.arguments(for: listing)).map(self.assignment)
        }
    }

    public func assignmentReports(_ listing: AssignmentListing) async throws -> [AssignmentReportRow] {
        try read { db in
            let steps = EscalationStep.allCases
            let escalations = steps.enumerated().map { index, _ in
                "(SELECT at FROM assignment_escalation e WHERE e.assignment_id = a.id AND e.step = ?) AS step_\(index)"
            }.joined(separator: ", ")
            let sql = """
                SELECT a.*, c.name AS contact_name, c.address AS contact_address, c.erased_at AS contact_erased_at,
                       COALESCE(u.display_name, '') AS mentor_name, n.read_at AS notification_read_at, \(escalations)
                FROM assignment a
                JOIN contact c ON c.id = a.contact_id
                LEFT JOIN user u ON u.id = a.mentor_id
                LEFT JOIN notification n ON n.id = a.notification_id
                WHERE \(Self.listingCondition)
                ORDER BY a.id DESC
                """
            var arguments = StatementArguments(steps.map(\.rawValue))
            arguments += Self.arguments(for: listing)
            return try Row.fetchAll(db, sql: sql, arguments: arguments).map { row in
                var reached: [EscalationStep: Date] = [:]
                for (index, step) in steps.enumerated() {
                    if let at = row["step_\(index)"] as Double? { reached[step] = Self.date(at) }
                }
                return AssignmentReportRow(
                    assignment: try self.assignment(row),
                    contactName: try self.sealer.open(row["contact_name"] as String, field: .contactName),
                    contactAddress: try self.sealer.open(row["contact_address"] as String, field: .contactAddress),
                    contactErasedAt: (row["contact_erased_at"] as Double?).map(Self.date), mentorName: row["mentor_name"],
                    readAt: (row["notification_read_at"] as Double?).map(Self.date), escalations: reached)
            }
        }
    }

    /// The condition an assignment (`a`) meets to be in a listing, with ``arguments(for:)`` in order.
    static let listingCondition = """
        (? IS NULL OR a.mentor_id = ?) AND (? IS NULL OR a.coordinator_id = ?) AND (? IS NULL OR a.contact_id = ?) \
        AND (? IS NULL OR a.id IN (SELECT value FROM json_each(?))) \
        AND (? = 'all' OR a.reassigned_at IS NULL) AND (? <> 'live' OR a.status IN ('pending', 'acknowledged'))
        """

    static func arguments(for listing: AssignmentListing) -> StatementArguments {
        let ids = listing.ids.map { "[" + $0.map(String.init).joined(separator: ",") + "]" }
        return [listing.mentorID, listing.mentorID, listing.coordinatorID, listing.coordinatorID, listing.contactID, listing.contactID,
                ids, ids, listing.scope.rawValue, listing.scope.rawValue]
    }

    public func pendingAssignments(createdBefore date: Date) async throws -> [Assignment] {
        try read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM assignment WHERE status = ? AND created_at < ? AND reassigned_at IS NULL ORDER BY id",
                             arguments: [AssignmentStatus.pending.rawValue, date.timeIntervalSince1970]).map(self.assignment)
        }
    }

    public func recordEscalation(assignmentID: AssignmentID, step: EscalationStep, notification: NewNotification, at date: Date) async throws -> NotificationItem? {
        try await commits.write { db in
            guard try Bool.fetchOne(db, sql: "SELECT 1 FROM assignment WHERE id = ?", arguments: [assignmentID]) == true else {
                throw StoreError.notFound(.assignment)
            }
            try db.execute(sql: "INSERT OR IGNORE INTO assignment_escalation (assignment_id, step, at) VALUES (?, ?, ?)",
                           arguments: [assignmentID, step.rawValue, date.timeIntervalSince1970])
            guard db.changesCount > 0 else { return nil }
            let item = try self.insert(notification, at: date, db: db)
            try self.appendUnreadCounts(for: [item.recipientID], at: date, db: db)
            return item
        }
    }

    public func escalations(assignmentID: AssignmentID) async throws -> [EscalationStep: Date] {
        try read { db in
            var steps: [EscalationStep: Date] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT step, at FROM assignment_escalation WHERE assignment_id = ?", arguments: [assignmentID]) {
                steps[try EscalationStep(stored: row["step"], column: "assignment_escalation.step")] = Self.date(row["at"])
            }
            return steps
        }
    }

    public func eraseContact(contactID: ContactID, titles: [Language: String], at date: Date) async throws -> [NotificationItem]? {
        let erased: [NotificationItem]? = try await commits.write { db in
            guard try Bool.fetchOne(db, sql: "SELECT 1 FROM contact WHERE id = ?", arguments: [contactID]) == true else { return nil }
            try db.execute(sql: """
                UPDATE contact SET name = '', phone = '', address = '', notes = '', erased_at = coalesce(erased_at, ?) WHERE id = ?
                """, arguments: [date.timeIntervalSince1970, contactID])
            try db.execute(sql: "UPDATE assignment SET visit_note = '' WHERE contact_id = ? AND visit_note IS NOT NULL", arguments: [contactID])
            let named = try Row.fetchAll(db, sql: """
                SELECT notification.id, user.language FROM assignment
                JOIN notification ON notification.id = assignment.notification_id JOIN user ON user.id = notification.recipient_id
                WHERE assignment.contact_id = ? ORDER BY notification.id
                """, arguments: [contactID])
            var items: [NotificationItem] = []
            for row in named {
                let id: NotificationID = row["id"]
                let language = try Language(stored: row["language"], column: "user.language")
                guard var item = try self.fetchNotification(db, id: id) else { continue }
                if item.title != (titles[language] ?? "") || !item.body.isEmpty || !item.personalDetails.isEmpty {
                    try db.execute(sql: "UPDATE notification SET title = ?, body = '', personal_details = '[]' WHERE id = ?",
                                   arguments: [(titles[language] ?? ""), id])
                    item.title = (titles[language] ?? "")
                    item.body = ""
                    item.personalDetails = []
                    // The event log's copies now say what the notification says.
                    try db.execute(sql: "UPDATE event SET notification = ? WHERE notification_id = ? AND notification IS NOT NULL",
                                   arguments: [String(decoding: try Self.encoder.encode(item), as: UTF8.self), id])
                    try self.queuePushWithdrawal(notificationID: id, at: date, db: db)
                    try self.appendEvent(userID: item.recipientID, .notificationUpdated(item), at: date, db: db)
                }
                items.append(item)
            }
            return items
        }
        // What was overwritten must not linger in the write-ahead log: it is copied into the file and emptied.
        if erased != nil { _ = try? await writer.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)") } }
        return erased
    }

    public func contactsClosed(before date: Date) async throws -> [ContactID] {
        try read { db in
            try ContactID.fetchAll(db, sql: """
                SELECT assignment.contact_id FROM assignment JOIN contact ON contact.id = assignment.contact_id
                WHERE contact.erased_at IS NULL
                GROUP BY assignment.contact_id
                HAVING sum(CASE WHEN assignment.reassigned_at IS NULL AND assignment.status IN ('pending', 'acknowledged') THEN 1 ELSE 0 END) = 0
                   AND max(coalesce(assignment.reassigned_at, assignment.done_at, assignment.responded_at)) < ?
                ORDER BY assignment.contact_id
                """, arguments: [date.timeIntervalSince1970])
        }
    }

    public func resealStale(limit: Int) async throws -> Int {
        guard let keyring = sealer.keyring else { return 0 }
        let current = DataKeyring.prefix(keyID: keyring.currentID)
        var done = 0
        for column in SealedColumn.all where done < limit {
            let room = limit - done
            done += try await commits.write { db in
                let keys = column.keys.joined(separator: ", ")
                let rows = try Row.fetchAll(db, sql: """
                    SELECT \(keys), \(column.column) AS value FROM \(column.table)
                    WHERE \(column.column) <> '' AND substr(\(column.column), 1, \(SealedColumn.prefixLength)) <> ?
                      AND (substr(\(column.column), 1, 1) = ? OR (\(column.plainCondition)))
                    LIMIT ?
                    """, arguments: [current, SealedColumn.marker, room])
                let update = "UPDATE \(column.table) SET \(column.column) = ? WHERE "
                    + column.keys.map { "\($0) = ?" }.joined(separator: " AND ") + " AND \(column.column) = ?"
                for row in rows {
                    let stored: String = row["value"]
                    let resealed = self.sealer.seal(try self.sealer.open(stored, field: column.field), field: column.field)
                    var arguments: StatementArguments = [resealed]
                    for key in column.keys { arguments += [row[key] as DatabaseValue] }
                    arguments += [stored]
                    try db.execute(sql: update, arguments: arguments)
                }
                return rows.count
            }
        }
        // The values as they were must not linger in the write-ahead log: it is copied into the file and emptied.
        if done > 0 { _ = try? await writer.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)") } }
        return done
    }

    public func sealedValueCounts() async throws -> [String: Int] {
        try read { db in
            var counts: [String: Int] = [:]
            for column in SealedColumn.all {
                for row in try Row.fetchAll(db, sql: """
                    SELECT substr(\(column.column), 2, 8) AS key, count(*) AS n FROM \(column.table)
                    WHERE substr(\(column.column), 1, 1) = ? GROUP BY 1
                    """, arguments: [SealedColumn.marker]) {
                    counts[row["key"], default: 0] += row["n"] as Int
                }
            }
            return counts
        }
    }

    public func recordContactRead(contactID: ContactID, userID: UserID, channel: ContactReadChannel, at date: Date) async throws {
        try await commits.write { db in
            try db.execute(sql: "INSERT INTO contact_read (contact_id, user_id, channel, at) VALUES (?, ?, ?, ?)",
                           arguments: [contactID, userID, channel.rawValue, date.timeIntervalSince1970])
        }
    }

    public func contactReads(contactID: ContactID) async throws -> [ContactRead] {
        try read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM contact_read WHERE contact_id = ? ORDER BY id", arguments: [contactID]).map { row in
                guard let channel = ContactReadChannel(rawValue: row["channel"]) else { throw StoreError.unknownStoredValue(column: "contact_read.channel") }
                return ContactRead(id: row["id"], contactID: row["contact_id"], userID: row["user_id"], channel: channel, at: Self.date(row["at"]))
            }
        }
    }

    public func pruneContactReads(before date: Date) async throws -> Int {
        try await commits.write { db in
            try db.execute(sql: "DELETE FROM contact_read WHERE at < ?", arguments: [date.timeIntervalSince1970])
            return db.changesCount
        }
    }

    public func contact(id: ContactID) async throws -> Contact? {
        try read { db in
            try Row.fetchOne(db, sql: "SELECT * FROM contact WHERE id = ?", arguments: [id]).map { row in
                Contact(id: row["id"], name: try self.sealer.open(row["name"] as String, field: .contactName),
                        phone: try self.sealer.open(row["phone"] as String, field: .contactPhone),
                        address: try self.sealer.open(row["address"] as String, field: .contactAddress),
                        notes: try self.sealer.open(row["notes"] as String, field: .contactNotes),
                        erasedAt: (row["erased_at"] as Double?).map(Self.date))
            }
        }
    }

    public func respond(to assignmentID: AssignmentID, status: AssignmentStatus, at date: Date) async throws -> Assignment {
        try await commits.write { db in
            var assignment = try self.assignment(assignmentID, db: db)
            if let refusal = assignment.refusalToRespond { throw refusal }
            assignment.status = status
            assignment.respondedAt = date
            try db.execute(sql: "UPDATE assignment SET status = ?, responded_at = ? WHERE id = ?",
                           arguments: [status.rawValue, date.timeIntervalSince1970, assignmentID])
            return assignment
        }
    }

    private func assignment(_ id: AssignmentID, db: Database) throws -> Assignment {
        guard let assignment = try Row.fetchOne(db, sql: "SELECT * FROM assignment WHERE id = ?", arguments: [id]).map(self.assignment) else {
            throw StoreError.notFound(.assignment)
        }
        return assignment
    }

    public func reassign(
        assignmentID: AssignmentID, to mentorID: UserID, at date: Date,
        makeNotification: @Sendable (ContactID, AssignmentID) -> NewNotification
    ) async throws -> (Assignment, NotificationItem) {
        try await writer.write { db in
            let old = try self.assignment(assignmentID, db: db)
            guard try Bool.fetchOne(db, sql: "SELECT 1 FROM user WHERE id = ?", arguments: [mentorID]) == true else {
                throw StoreError.notFound(.mentor)
            }
            if let refusal = old.refusalToReassign { throw refusal }
            let seconds = date.timeIntervalSince1970
            try db.execute(sql: "UPDATE assignment SET reassigned_at = ? WHERE id = ?", arguments: [seconds, assignmentID])
            // The first mentor's phones take down the notification that named the person they will no longer visit.
            if let notificationID = old.notificationID { try self.queuePushWithdrawal(notificationID: notificationID, at: date, db: db) }
            try db.execute(sql: """
                INSERT INTO assignment (mentor_id, contact_id, coordinator_id, status, created_at, previous_id) VALUES (?, ?, ?, ?, ?, ?)
                """, arguments: [mentorID, old.contactID, old.coordinatorID, AssignmentStatus.pending.rawValue, seconds, assignmentID])
            let newID = AssignmentID(db.lastInsertedRowID)
            let item = try self.insert(makeNotification(old.contactID, newID), at: date, db: db)
            try self.appendUnreadCounts(for: [item.recipientID], at: date, db: db)
            try db.execute(sql: "UPDATE assignment SET notification_id = ? WHERE id = ?", arguments: [item.id, newID])
            return (Assignment(id: newID, mentorID: mentorID, contactID: old.contactID, coordinatorID: old.coordinatorID, status: .pending,
                               createdAt: date, respondedAt: nil, notificationID: item.id, previousID: assignmentID), item)
        }
    }

    public func completeVisit(assignmentID: AssignmentID, note: String, at date: Date) async throws -> Assignment {
        try await commits.write { db in
            var assignment = try self.assignment(assignmentID, db: db)
            if let refusal = assignment.refusalToComplete { throw refusal }
            assignment.status = .done
            assignment.doneAt = date
            assignment.visitNote = note
            try db.execute(sql: "UPDATE assignment SET status = ?, done_at = ?, visit_note = ? WHERE id = ?",
                           arguments: [AssignmentStatus.done.rawValue, date.timeIntervalSince1970, self.sealer.seal(note, field: .visitNote), assignmentID])
            return assignment
        }
    }

    public func recordLiveDelivery(notificationID: NotificationID, at date: Date) async throws {
        try await commits.write { db in
            try db.execute(sql: "UPDATE assignment SET delivered_at = ? WHERE notification_id = ? AND delivered_at IS NULL",
                           arguments: [date.timeIntervalSince1970, notificationID])
        }
    }

    // MARK: Sign-in throttling

    public func signInFailures(keys: [String], since: Date) async throws -> [String: SignInFailures] {
        try read { db in
            var found: [String: SignInFailures] = [:]
            for key in keys {
                if let row = try Row.fetchOne(db, sql: "SELECT failures, last FROM sign_in_failure WHERE key = ? AND last >= ?",
                                              arguments: [key, since.timeIntervalSince1970]) {
                    found[key] = SignInFailures(count: row["failures"], last: Self.date(row["last"]))
                }
            }
            return found
        }
    }

    public func recordSignInFailure(keys: [String], at date: Date, forgetBefore: Date) async throws {
        try await commits.write { db in
            try db.execute(sql: "DELETE FROM sign_in_failure WHERE last < ?", arguments: [forgetBefore.timeIntervalSince1970])
            for key in keys {
                try db.execute(sql: """
                    INSERT INTO sign_in_failure (key, failures, last) VALUES (?, 1, ?)
                    ON CONFLICT(key) DO UPDATE SET failures = failures + 1, last = excluded.last
                    """, arguments: [key, date.timeIntervalSince1970])
            }
        }
    }

    public func clearSignInFailures(key: String) async throws {
        try await commits.write { db in try db.execute(sql: "DELETE FROM sign_in_failure WHERE key = ?", arguments: [key]) }
    }

    // MARK: Scenarios

    private func scenario(_ row: Row) -> Scenario {
        Scenario(id: row["id"], title: row["title"], body: row["body"], coordinatorID: row["coordinator_id"], createdAt: Self.date(row["created_at"]))
    }

    private func mentorScenario(_ row: Row, _ scenario: Scenario) throws -> MentorScenario {
        MentorScenario(scenario: scenario, mentorID: row["mentor_id"], doneAt: (row["done_at"] as Double?).map(Self.date),
                       reflection: try sealer.open(row["reflection"] as String, field: .reflection))
    }

    public func publishScenario(
        title: String, body: String, coordinatorID: UserID?, mentorIDs: [UserID], at date: Date,
        makeNotification: @Sendable (Int64, UserID) -> NewNotification
    ) async throws -> (Scenario, [NotificationItem]) {
        let (scenario, fanout, written) = try await writer.write { db in
            let mentors = Set(mentorIDs).sorted()
            for mentorID in mentors where try Bool.fetchOne(db, sql: "SELECT 1 FROM user WHERE id = ?", arguments: [mentorID]) != true {
                throw StoreError.notFound(.mentor)
            }
            try db.execute(sql: "INSERT INTO scenario (title, body, coordinator_id, created_at) VALUES (?, ?, ?, ?)",
                           arguments: [title, body, coordinatorID, date.timeIntervalSince1970])
            let scenario = Scenario(id: db.lastInsertedRowID, title: title, body: body, coordinatorID: coordinatorID, createdAt: date)
            let copy = try db.cachedStatement(sql: "INSERT INTO scenario_recipient (scenario_id, mentor_id) VALUES (?, ?)")
            for mentorID in mentors { try copy.execute(arguments: [scenario.id, mentorID]) }
            let (fanout, written) = try self.startFanOut(mentors.map { makeNotification(scenario.id, $0) }, at: date, db: db)
            return (scenario, fanout, written)
        }
        guard let fanout else { return (scenario, written) }
        return (scenario, try await finishFanOut(fanout, written: written))
    }

    public func scenarios(forMentor mentorID: UserID) async throws -> [MentorScenario] {
        try read { db in
            try Row.fetchAll(db, sql: """
                SELECT s.*, r.mentor_id, r.done_at, r.reflection FROM scenario_recipient r JOIN scenario s ON s.id = r.scenario_id
                WHERE r.mentor_id = ? ORDER BY s.id DESC
                """, arguments: [mentorID]).map { try self.mentorScenario($0, self.scenario($0)) }
        }
    }

    public func allScenarios() async throws -> [(Scenario, [MentorScenario])] {
        try read { db in
            let scenarios = try Row.fetchAll(db, sql: "SELECT * FROM scenario ORDER BY id DESC").map(self.scenario)
            var copies: [Int64: [MentorScenario]] = [:]
            let byID = Dictionary(uniqueKeysWithValues: scenarios.map { ($0.id, $0) })
            for row in try Row.fetchAll(db, sql: "SELECT * FROM scenario_recipient ORDER BY scenario_id, mentor_id") {
                guard let scenario = byID[row["scenario_id"]] else { continue }
                copies[scenario.id, default: []].append(try self.mentorScenario(row, scenario))
            }
            return scenarios.map { ($0, copies[$0.id] ?? []) }
        }
    }

    public func completeScenario(scenarioID: Int64, mentorID: UserID, reflection: String, at date: Date) async throws -> MentorScenario {
        try await commits.write { db in
            try db.execute(sql: """
                UPDATE scenario_recipient SET done_at = COALESCE(done_at, ?), reflection = ? WHERE scenario_id = ? AND mentor_id = ?
                """, arguments: [date.timeIntervalSince1970, self.sealer.seal(reflection, field: .reflection), scenarioID, mentorID])
            guard db.changesCount == 1, let row = try Row.fetchOne(db, sql: """
                SELECT s.*, r.mentor_id, r.done_at, r.reflection FROM scenario_recipient r JOIN scenario s ON s.id = r.scenario_id
                WHERE r.scenario_id = ? AND r.mentor_id = ?
                """, arguments: [scenarioID, mentorID]) else { throw StoreError.notFound(.scenario) }
            return try self.mentorScenario(row, self.scenario(row))
        }
    }

    // MARK: Certifications

    private func certification(_ row: Row) -> Certification {
        Certification(id: row["id"], mentorID: row["mentor_id"], name: row["name"], expiresAt: Self.date(row["expires_at"]))
    }

    private func replaceCertifications(_ certifications: [NewCertification], mentorID: UserID, db: Database) throws {
        let existing = try Row.fetchAll(db, sql: "SELECT * FROM certification WHERE mentor_id = ?", arguments: [mentorID]).map(self.certification)
        var result: [Certification] = []
        for new in certifications {
            // An unchanged certification keeps its id, and so the warnings already sent for it.
            if let same = existing.first(where: { $0.name == new.name && $0.expiresAt == new.expiresAt }), !result.contains(same) {
                result.append(same)
                continue
            }
            try db.execute(sql: "INSERT INTO certification (mentor_id, name, expires_at) VALUES (?, ?, ?)",
                           arguments: [mentorID, new.name, new.expiresAt.timeIntervalSince1970])
            result.append(Certification(id: db.lastInsertedRowID, mentorID: mentorID, name: new.name, expiresAt: new.expiresAt))
        }
        for old in existing where !result.contains(old) {
            try db.execute(sql: "DELETE FROM certification WHERE id = ?", arguments: [old.id])
        }
    }

    public func certifications(mentorID: UserID) async throws -> [Certification] {
        try read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM certification WHERE mentor_id = ? ORDER BY id", arguments: [mentorID]).map(self.certification)
        }
    }

    public func certifications(expiringBefore date: Date) async throws -> [Certification] {
        try read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM certification WHERE expires_at < ? ORDER BY id",
                             arguments: [date.timeIntervalSince1970]).map(self.certification)
        }
    }

    public func recordExpiryWarning(certificationID: Int64, threshold: Int, alsoCovers: [Int], notification: NewNotification, at date: Date) async throws -> NotificationItem? {
        try await commits.write { db in
            try db.execute(sql: "INSERT OR IGNORE INTO certification_warning (certification_id, threshold) VALUES (?, ?)",
                           arguments: [certificationID, threshold])
            guard db.changesCount > 0 else { return nil }
            for other in alsoCovers {
                try db.execute(sql: "INSERT OR IGNORE INTO certification_warning (certification_id, threshold) VALUES (?, ?)",
                               arguments: [certificationID, other])
            }
            let item = try self.insert(notification, at: date, db: db)
            try self.appendUnreadCounts(for: [item.recipientID], at: date, db: db)
            return item
        }
    }

    // MARK: Event log

    public func events(after id: Int64, limit: Int) async throws -> [StoredEvent] {
        try read { db in
            try EventRecord.fetchAll(db.cachedStatement(sql: "SELECT * FROM event WHERE id > ? ORDER BY id LIMIT ?"), arguments: [id, limit])
                .map { try $0.event(decoder: Self.decoder, sealer: self.sealer, cache: self.notificationJSON) }
        }
    }

    public func events(for userID: UserID, after id: Int64, limit: Int) async throws -> [StoredEvent] {
        try read { db in
            try EventRecord.fetchAll(db.cachedStatement(sql: "SELECT * FROM event WHERE user_id = ? AND id > ? ORDER BY id LIMIT ?"),
                                     arguments: [userID, id, limit]).map { try $0.event(decoder: Self.decoder, sealer: self.sealer, cache: self.notificationJSON) }
        }
    }

    public func latestEventID() async throws -> Int64 {
        try read { db in
            // AUTOINCREMENT keeps the highest id ever used in sqlite_sequence, even after pruning.
            try Int64.fetchOne(db.cachedStatement(sql: "SELECT seq FROM sqlite_sequence WHERE name = 'event'")) ?? 0
        }
    }

    public func prunedThroughEventID() async throws -> Int64 {
        try read { db in try Int64.fetchOne(db.cachedStatement(sql: "SELECT value FROM meta WHERE key = 'events_pruned_through'")) ?? 0 }
    }

    public func pruneEvents(before date: Date) async throws -> Int {
        try await commits.write { db in
            guard let highest = try Int64.fetchOne(db, sql: "SELECT MAX(id) FROM event WHERE created_at < ?",
                                                   arguments: [date.timeIntervalSince1970]) else { return 0 }
            try db.execute(sql: "DELETE FROM event WHERE id <= ?", arguments: [highest])
            let count = db.changesCount
            try db.execute(sql: """
                INSERT INTO meta (key, value) VALUES ('events_pruned_through', ?)
                ON CONFLICT(key) DO UPDATE SET value = MAX(value, excluded.value)
                """, arguments: [highest])
            return count
        }
    }

    // MARK: Encoding

    static func date(_ seconds: Double) -> Date { Date(timeIntervalSince1970: seconds) }

    private static func json<T: Encodable>(_ value: T) throws -> String {
        String(decoding: try encoder.encode(value), as: UTF8.self)
    }
}
