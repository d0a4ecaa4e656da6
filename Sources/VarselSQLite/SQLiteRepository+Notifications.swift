import Foundation
import GRDB
import VarselCore
import VarselStore

/// Notifications and the event log they append to.
extension SQLiteRepository {
    // MARK: Notifications

    public func createNotifications(_ notifications: [NewNotification], idempotencyKey: IdempotencyKey?, at date: Date) async throws
        -> CreatedNotifications
    {
        let start = try await commits.write { db in try self.beginCreate(notifications, idempotencyKey: idempotencyKey, at: date, db: db) }
        return try await created(start) { try await createNotifications(notifications, idempotencyKey: idempotencyKey, at: date) }
    }

    /// The first transaction of a create: the replay of an idempotency key, or the recipient check and the
    /// notifications (the first chunk of a fan-out).
    func beginCreate(_ notifications: [NewNotification], idempotencyKey: IdempotencyKey?, at date: Date, db: Database) throws -> CreateStart {
        if let key = idempotencyKey,
            let row = try Row.fetchOne(
                db.cachedStatement(
                    sql: """
                        SELECT fingerprint, notification_ids, fanout_id FROM idempotency_key WHERE sender_id = ? AND key = ?
                        """), arguments: [key.senderID, key.key])
        {
            guard (row["fingerprint"] as String) == key.fingerprint else { throw StoreError.idempotencyKeyReused }
            if let fanout = row["fanout_id"] as Int64? { return .unfinished(fanout) }
            let ids = try Self.decoder.decode([NotificationID].self, from: Data((row["notification_ids"] as String).utf8))
            return .written(CreatedNotifications(items: try ids.compactMap { try self.fetchNotification(db, id: $0) }, isReplay: true))
        }
        var checked = Set<UserID>()
        for recipient in notifications.map(\.recipientID) where checked.insert(recipient).inserted {
            guard try Bool.fetchOne(db.cachedStatement(sql: "SELECT 1 FROM user WHERE id = ?"), arguments: [recipient]) == true else {
                throw StoreError.unknownRecipient(recipient)
            }
        }
        let (fanout, created) = try self.startFanOut(notifications, at: date, db: db)
        if let key = idempotencyKey {
            let ids = String(decoding: try Self.encoder.encode(fanout == nil ? created.map(\.id) : []), as: UTF8.self)
            try db.execute(
                sql: """
                    INSERT INTO idempotency_key (sender_id, key, fingerprint, notification_ids, created_at, fanout_id) VALUES (?, ?, ?, ?, ?, ?)
                    """, arguments: [key.senderID, key.key, key.fingerprint, ids, date.timeIntervalSince1970, fanout])
        }
        guard let fanout else { return .written(CreatedNotifications(items: created, isReplay: false)) }
        return .spreading(fanout, written: created)
    }

    func insert(_ new: NewNotification, at date: Date, db: Database) throws -> NotificationItem {
        let record = try NotificationRecord(new, at: date, sealer: sealer, person: personKey(for: new.deepLink, details: new.personalDetails, db: db))
        let item = NotificationItem(
            id: 0, recipientID: new.recipientID, kind: new.kind, title: new.title,
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

    func appendEvent(userID: UserID, _ payload: EventPayload, at date: Date, db: Database) throws {
        var person: PersonKeyID?
        if case let .notificationCreated(item) = payload { person = try personKey(for: item.deepLink, details: item.personalDetails, db: db) }
        if case let .notificationUpdated(item) = payload { person = try personKey(for: item.deepLink, details: item.personalDetails, db: db) }
        let record = try EventRecord(
            userID: userID, payload: payload, at: date, encoder: Self.encoder, sealer: sealer, person: person, cache: notificationJSON)
        // A prepared statement: a record's own `insert` builds its arguments through `Encodable`, on every event.
        try db.cachedStatement(sql: EventRecord.insertSQL).execute(arguments: record.insertArguments)
        committed.appended(
            StoredEvent(
                id: db.lastInsertedRowID, userID: userID, payload: payload,
                createdAt: Date(timeIntervalSince1970: record.createdAt)))
    }

    func appendUnreadCounts(for userIDs: [UserID], at date: Date, db: Database) throws {
        var seen = Set<UserID>()
        for userID in userIDs where seen.insert(userID).inserted {
            try appendEvent(userID: userID, .unreadCount(try unreadCount(userID, db: db)), at: date, db: db)
        }
    }

    func unreadCount(_ userID: UserID, db: Database) throws -> Int {
        try Int.fetchOne(db.cachedStatement(sql: Self.unreadCountSQL), arguments: [userID]) ?? 0
    }

    /// How a recipient's unread notifications are counted, on every create and read change.
    static let unreadCountSQL = "SELECT COUNT(*) FROM notification WHERE recipient_id = ? AND read_at IS NULL"

    func fetchNotification(_ db: Database, id: NotificationID) throws -> NotificationItem? {
        try Row.fetchOne(db, sql: "SELECT * FROM notification WHERE id = ?", arguments: [id]).map(notification)
    }

    func notification(_ row: Row) throws -> NotificationItem {
        try NotificationRecord(row: row).item(sealer: sealer, decoder: Self.decoder)
    }

    public func notification(id: NotificationID) async throws -> NotificationItem? {
        try read { db in try self.fetchNotification(db, id: id) }
    }

    public func notifications(for userID: UserID, filter: NotificationFilter, after cursor: NotificationID?, limit: Int) async throws
        -> NotificationPage
    {
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
            if isRead { try self.queueWebhookEvents([.notificationRead(item)], at: date, db: db) }
            return item
        }
    }

    public func markAllRead(userID: UserID, at date: Date) async throws -> Int {
        try await commits.write { db in
            let ids = try NotificationID.fetchAll(
                db, sql: "SELECT id FROM notification WHERE recipient_id = ? AND read_at IS NULL", arguments: [userID])
            return try self.markRead(ids: ids, userID: userID, at: date, db: db)
        }
    }

    public func markRead(ids: [NotificationID], userID: UserID, at date: Date) async throws -> Int {
        try await commits.write { db in try self.markRead(ids: ids, userID: userID, at: date, db: db) }
    }

    func markRead(ids: [NotificationID], userID: UserID, at date: Date, db: Database) throws -> Int {
        var read: [NotificationItem] = []
        for id in Set(ids).sorted() {
            guard var item = try fetchNotification(db, id: id), item.recipientID == userID, item.isUnread else { continue }
            item.readAt = date
            try db.execute(sql: "UPDATE notification SET read_at = ? WHERE id = ?", arguments: [date.timeIntervalSince1970, id])
            try appendEvent(userID: userID, .notificationUpdated(item), at: date, db: db)
            read.append(item)
        }
        guard !read.isEmpty else { return 0 }
        try appendUnreadCounts(for: [userID], at: date, db: db)
        try queueWebhookEvents(read.map(NewWebhookEvent.notificationRead), at: date, db: db)
        return read.count
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

    // MARK: Event log

    public func events(after id: Int64, limit: Int) async throws -> [StoredEvent] {
        try read { db in
            try EventRecord.fetchAll(db.cachedStatement(sql: "SELECT * FROM event WHERE id > ? ORDER BY id LIMIT ?"), arguments: [id, limit])
                .map { try $0.event(decoder: Self.decoder, sealer: self.sealer, cache: self.notificationJSON) }
        }
    }

    public func events(for userID: UserID, after id: Int64, limit: Int) async throws -> [StoredEvent] {
        try read { db in
            try EventRecord.fetchAll(
                db.cachedStatement(sql: "SELECT * FROM event WHERE user_id = ? AND id > ? ORDER BY id LIMIT ?"),
                arguments: [userID, id, limit]
            ).map { try $0.event(decoder: Self.decoder, sealer: self.sealer, cache: self.notificationJSON) }
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
            guard
                let highest = try Int64.fetchOne(
                    db, sql: "SELECT MAX(id) FROM event WHERE created_at < ?",
                    arguments: [date.timeIntervalSince1970])
            else { return 0 }
            try db.execute(sql: "DELETE FROM event WHERE id <= ?", arguments: [highest])
            let count = db.changesCount
            try db.execute(
                sql: """
                    INSERT INTO meta (key, value) VALUES ('events_pruned_through', ?)
                    ON CONFLICT(key) DO UPDATE SET value = MAX(value, excluded.value)
                    """, arguments: [highest])
            return count
        }
    }
}
