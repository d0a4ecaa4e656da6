import Foundation
import Logging
import PostgresNIO
import VarselCore
import VarselStore

/// Notifications and the event log they append to.
extension PostgresRepository {
    // MARK: Notifications

    public func createNotifications(_ notifications: [NewNotification], idempotencyKey: IdempotencyKey?, at date: Date) async throws
        -> CreatedNotifications
    {
        // Without a key there is nothing to look up first: it shares a transaction with the creates waiting with it.
        // A fan-out has transactions of its own.
        guard idempotencyKey != nil || FanOut.isSpread(notifications.count) else {
            return try await creates.create(notifications, at: date, in: self)
        }
        do {
            return try await createNotificationsOnce(notifications, idempotencyKey: idempotencyKey, at: date)
        } catch let error as PostgresTransactionError
            where idempotencyKey != nil && (error.closureError as? PSQLError)?.serverInfo?[.sqlState] == "23505"
        {
            // The same key was being used by a request still in flight when this one looked; it has committed now,
            // so this try finds it and answers as a replay (or as a reused key).
            return try await createNotificationsOnce(notifications, idempotencyKey: idempotencyKey, at: date)
        }
    }

    /// Creates the notifications, then takes the event-log lock only for their events: the rows, the recipient
    /// check and the idempotency key need no order, and the lock is held from the statement of the events to the
    /// commit. A fan-out's first chunk is written here and the rest after.
    func createNotificationsOnce(_ notifications: [NewNotification], idempotencyKey: IdempotencyKey?, at date: Date) async throws
        -> CreatedNotifications
    {
        let start = try await write(appendsEvents: true, locksLate: true, within: deadline(forRows: notifications.count)) { c in
            try await self.beginCreate(notifications, idempotencyKey: idempotencyKey, at: date, c)
        }
        return try await created(start) { try await createNotificationsOnce(notifications, idempotencyKey: idempotencyKey, at: date) }
    }

    /// The first transaction of a create: the replay of an idempotency key, or the recipient check and the
    /// notifications (the first chunk of a fan-out).
    func beginCreate(
        _ notifications: [NewNotification], idempotencyKey: IdempotencyKey?, at date: Date,
        _ c: PostgresConnection
    ) async throws -> CreateStart {
        if let key = idempotencyKey,
            let row = try await Self.first(
                c.query(
                    """
                    SELECT fingerprint, notification_ids, fanout_id FROM idempotency_key WHERE sender_id = \(key.senderID) AND key = \(key.key)
                    """, logger: self.logger))
        {
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
        var existing = Set<UserID>()
        for try await id in try await c.query("SELECT id FROM users WHERE id = ANY(\(recipients))", logger: self.logger).decode(UserID.self) {
            existing.insert(id)
        }
        if let unknown = notifications.first(where: { !existing.contains($0.recipientID) }) {
            throw StoreError.unknownRecipient(unknown.recipientID)
        }
        let rows = try await writeRows(notifications, at: date, c)
        if let key = idempotencyKey {
            // A concurrent request with the same key waits here until this one ends, then fails as a duplicate and is
            // tried again (above). A fan-out has written none yet: its ids are recorded when it is finished.
            let ids = String(decoding: try Self.encoder.encode(rows.written.map(\.id)), as: UTF8.self)
            try await c.query(
                """
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
        try await appendCreatedEvents(rows.written, at: date, c)
        return (nil, rows.written)
    }

    /// Runs `jobs` in one transaction, each as it would run alone, in turn (``PostgresCreateBatch``); returns each
    /// one's outcome.
    ///
    /// The rows of every create go in one statement and their events in another, so a batch costs the same five
    /// round trips however many creates it holds (begin, recipient check, rows, events with the lock, commit).
    func createTogether(_ jobs: [PostgresCreateBatch.Job]) async throws -> [Result<CreatedNotifications, any Error>] {
        try await write(appendsEvents: true, locksLate: true) { c in
            let recipients = Array(Set(jobs.flatMap { $0.notifications.map(\.recipientID) }))
            var existing = Set<UserID>()
            for try await id in try await c.query("SELECT id FROM users WHERE id = ANY(\(recipients))", logger: self.logger).decode(UserID.self) {
                existing.insert(id)
            }
            let unknown = jobs.map { $0.notifications.first { !existing.contains($0.recipientID) }?.recipientID }
            let known = unknown.map { $0 == nil }
            let accepted = zip(jobs, known).filter(\.1).map(\.0)
            let created = try await self.insertRows(accepted.map { ($0.notifications, $0.date) }, c)
            if !accepted.isEmpty {
                try await self.appendCreatedEvents(zip(created, accepted).map { ($0, $1.date) }, c)
            }
            var results = created.makeIterator()
            return unknown.map { unknown in
                if let unknown { return .failure(StoreError.unknownRecipient(unknown)) }
                guard let items = results.next() else { return .failure(StoreError.unknownStoredValue(column: "notification.id")) }
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
    /// `notification.created` events, then its recipients' unread counts, then the next create's. Takes the event-log
    /// lock itself (``lockedEventsInsert``).
    ///
    /// All the rows are in the table when the counts are taken, so a recipient's count leaves out the notifications
    /// of later creates. A multi-row `VALUES` takes its ids in row order.
    func appendCreatedEvents(_ creates: [(items: [NotificationItem], date: Date)], _ c: PostgresConnection) async throws {
        var later: [UserID: Int32] = [:]
        for item in creates.lazy.flatMap(\.items) { later[item.recipientID, default: 0] += 1 }
        let people = try await personKeys(about: creates.flatMap { $0.items.map { ($0.deepLink, $0.personalDetails) } }, c)
        var insert = Self.lockedEventsInsert()
        for create in creates {
            for item in create.items {
                later[item.recipientID, default: 0] -= 1
                let json = try Self.storedJSON(item)
                notificationJSON.remember(item, json: json)
                insert.addRow(
                    "(\(insert.bind(item.recipientID)), \(insert.bind(EventType.notificationCreated.rawValue)), "
                        + "\(insert.bind(item.id)), \(insert.bind(try sealedEventJSON(json, of: item, people: people))), NULL::integer, \(insert.bind(create.date.timeIntervalSince1970)))"
                )
            }
            var seen = Set<UserID>()
            for recipient in create.items.map(\.recipientID) where seen.insert(recipient).inserted {
                let user = insert.bind(recipient)
                let count = "(SELECT COUNT(*)::integer FROM notification WHERE recipient_id = \(user) AND read_at IS NULL)"
                let laterOnes = later[recipient, default: 0]
                insert.addRow(
                    "(\(user), \(insert.bind(EventType.unreadCount.rawValue)), NULL::bigint, NULL::text, "
                        + "\(laterOnes == 0 ? count : "\(count) - \(insert.bind(laterOnes))"), \(insert.bind(create.date.timeIntervalSince1970)))")
            }
        }
        for query in insert.queries() { try await c.query(query, logger: logger) }
    }

    /// An insert of events that takes the event-log lock in the same statement, before the rows take their ids: one
    /// round trip fewer than locking first, and the lock is held from there to the commit only.
    ///
    /// The lock is a one-time filter (PostgreSQL evaluates it once, before it reads the first row of `VALUES`), and
    /// the rows' ids are their column's default, taken as each row is inserted, after it. Taking it again in a later
    /// statement of the same transaction is harmless: the lock is already held.
    static func lockedEventsInsert() -> PostgresRowsInsert {
        PostgresRowsInsert(
            """
            INSERT INTO event (user_id, type, notification_id, notification, unread_count, created_at) SELECT * FROM (VALUES
            """, tail: ") AS v WHERE (SELECT pg_advisory_xact_lock(\(eventLock))::text) IS NOT NULL")
    }

    /// The notification's row alone; its events come from ``appendCreatedEvents(_:at:_:)``.
    func insertRow(_ new: NewNotification, at date: Date, _ c: PostgresConnection) async throws -> NotificationItem {
        try await insertRows([([new], date)], c)[0][0]
    }

    /// The rows of several creates' notifications, in as few statements as the protocol allows; returns each
    /// create's items with their ids. Their events come from ``appendCreatedEvents(_:_:)``.
    func insertRows(_ creates: [(notifications: [NewNotification], date: Date)], _ c: PostgresConnection) async throws -> [[NotificationItem]] {
        var insert = PostgresRowsInsert(
            """
            INSERT INTO notification (recipient_id, sender_id, kind, title, body, urgency, created_at, read_at, deep_link, personal_details) VALUES
            """, tail: "RETURNING id")
        let people = try await personKeys(about: creates.flatMap { $0.notifications.map { ($0.deepLink, $0.personalDetails) } }, c)
        for create in creates {
            for new in create.notifications {
                var body = new.body
                var details = StoredNotificationJSON.encode(new.personalDetails)
                if FieldSealer.sealsNotification(personalDetails: new.personalDetails) {
                    let person = sealer.personSealing(deepLink: new.deepLink, details: new.personalDetails).flatMap { people[$0] }
                    body = try sealer.seal(body, field: .notificationBody, person: person)
                    details = try sealer.seal(details, field: .notificationDetails, person: person)
                }
                let values = [
                    insert.bind(new.recipientID), insert.bind(new.senderID), insert.bind(new.kind.rawValue), insert.bind(new.title),
                    insert.bind(body), insert.bind(new.urgency.rawValue), insert.bind(create.date.timeIntervalSince1970), "NULL",
                    insert.bind(StoredNotificationJSON.encode(new.deepLink)), insert.bind(details),
                ]
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
                return NotificationItem(
                    id: id, recipientID: new.recipientID, kind: new.kind, title: new.title, body: new.body,
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
        let people = try await personKeys(about: notification.map { [($0.deepLink, $0.personalDetails)] } ?? [], c)
        let json = try notification.map { try sealedEventJSON(try Self.storedJSON($0), of: $0, people: people) }
        try await c.query(
            """
            INSERT INTO event (user_id, type, notification_id, notification, unread_count, created_at)
            VALUES (\(userID), \(payload.type.rawValue), \(payload.notificationID), \(json), \(unreadCount), \(date.timeIntervalSince1970))
            """, logger: logger)
    }

    /// The event log's copy of `item`, sealed when it has personal details, under the key of the person they are
    /// about when `people` (``personKeys(about:_:)``) names one.
    func sealedEventJSON(_ json: String, of item: NotificationItem, people: [ContactID: PersonKeyID]) throws -> String {
        guard FieldSealer.sealsNotification(personalDetails: item.personalDetails) else { return json }
        let person = sealer.personSealing(deepLink: item.deepLink, details: item.personalDetails).flatMap { people[$0] }
        return try sealer.seal(json, field: .eventNotification, person: person)
    }

    func appendUnreadCounts(for userIDs: [UserID], at date: Date, _ c: PostgresConnection) async throws {
        var seen = Set<UserID>()
        for userID in userIDs where seen.insert(userID).inserted {
            try await appendEvent(userID: userID, .unreadCount(try await unreadCount(userID, c)), at: date, c)
        }
    }

    func unreadCount(_ userID: UserID, _ c: PostgresConnection) async throws -> Int {
        Int(
            try await Self.one(
                c.query(
                    "SELECT COUNT(*) FROM notification WHERE recipient_id = \(userID) AND read_at IS NULL",
                    logger: logger)
            ).decode(Int64.self))
    }

    static let notificationColumns = "id, recipient_id, kind, title, body, created_at, read_at, urgency, deep_link, personal_details"

    func fetchNotification(_ c: PostgresConnection, id: NotificationID) async throws -> NotificationItem? {
        try await Self.first(c.query("SELECT \(unescaped: Self.notificationColumns) FROM notification WHERE id = \(id)", logger: logger))
            .map(self.notification)
    }

    func notification(_ row: PostgresRow) throws -> NotificationItem {
        let (id, recipient, kind, title, body, created, read, urgency, deepLink, details) =
            try row.decode((NotificationID, UserID, String, String, String, Double, Double?, String, String, String).self)
        return NotificationItem(
            id: id, recipientID: recipient, kind: try NotificationKind(stored: kind, column: "notification.kind"),
            title: title, body: try sealer.open(body, field: .notificationBody), createdAt: Self.date(created),
            readAt: read.map(Self.date), urgency: try Urgency(stored: urgency, column: "notification.urgency"),
            deepLink: try Self.decoder.decode(DeepLinkTarget.self, from: Data(deepLink.utf8)),
            personalDetails: try StoredNotificationJSON.strings(try sealer.open(details, field: .notificationDetails), decoder: Self.decoder))
    }

    public func notification(id: NotificationID) async throws -> NotificationItem? {
        try await read { c in try await self.fetchNotification(c, id: id) }
    }

    public func notifications(for userID: UserID, filter: NotificationFilter, after cursor: NotificationID?, limit: Int) async throws
        -> NotificationPage
    {
        try await read { c in
            let unreadOnly = filter == .unread
            let kind: String? = if case let .kind(kind) = filter { kind.rawValue } else { nil }
            let rows = try await c.query(
                """
                SELECT \(unescaped: Self.notificationColumns) FROM notification
                WHERE recipient_id = \(userID) AND (NOT \(unreadOnly) OR read_at IS NULL) AND (\(kind)::TEXT IS NULL OR kind = \(kind))
                  AND (\(cursor)::BIGINT IS NULL OR id < \(cursor))
                ORDER BY id DESC LIMIT \(Int64(limit + 1))
                """, logger: self.logger
            ).collect().map(self.notification)
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
            if isRead { try await self.queueWebhookEvents([.notificationRead(item)], at: date, c) }
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
        var read: [NotificationItem] = []
        for id in Set(ids).sorted() {
            guard var item = try await fetchNotification(c, id: id), item.recipientID == userID, item.isUnread else { continue }
            item.readAt = date
            try await c.query("UPDATE notification SET read_at = \(date.timeIntervalSince1970) WHERE id = \(id)", logger: logger)
            try await appendEvent(userID: userID, .notificationUpdated(item), at: date, c)
            read.append(item)
        }
        guard !read.isEmpty else { return 0 }
        try await appendUnreadCounts(for: [userID], at: date, c)
        try await queueWebhookEvents(read.map(NewWebhookEvent.notificationRead), at: date, c)
        return read.count
    }

    public func delete(ids: [NotificationID], userID: UserID, at date: Date) async throws -> Int {
        try await write(appendsEvents: true) { c in
            var deleted = 0
            for id in Set(ids).sorted() {
                let rows = try await c.query(
                    "DELETE FROM notification WHERE id = \(id) AND recipient_id = \(userID) RETURNING id",
                    logger: self.logger
                ).collect()
                guard !rows.isEmpty else { continue }
                try await self.appendEvent(userID: userID, .notificationDeleted(notificationID: id), at: date, c)
                try await self.queuePushWithdrawal(notificationID: id, at: date, c)
                deleted += 1
            }
            if deleted > 0 { try await self.appendUnreadCounts(for: [userID], at: date, c) }
            return deleted
        }
    }

    // MARK: Event log

    func event(_ row: PostgresRow) throws -> StoredEvent {
        let (id, userID, type, notificationID, notification, unreadCount, created) =
            try row.decode((Int64, UserID, String, NotificationID?, String?, Int32?, Double).self)
        let payload = try EventPayload.stored(
            type: type, notificationJSON: try sealer.openIfPresent(notification, field: .eventNotification),
            notificationID: notificationID, unreadCount: unreadCount.map(Int.init), decoder: Self.decoder,
            cache: notificationJSON)
        return StoredEvent(id: id, userID: userID, payload: payload, createdAt: Self.date(created))
    }

    public func events(after id: Int64, limit: Int) async throws -> [StoredEvent] {
        try await read { c in
            try await c.query(
                """
                SELECT id, user_id, type, notification_id, notification, unread_count, created_at FROM event
                WHERE id > \(id) ORDER BY id LIMIT \(Int64(limit))
                """, logger: self.logger
            ).collect().map(self.event)
        }
    }

    public func events(for userID: UserID, after id: Int64, limit: Int) async throws -> [StoredEvent] {
        try await read { c in
            try await c.query(
                """
                SELECT id, user_id, type, notification_id, notification, unread_count, created_at FROM event
                WHERE user_id = \(userID) AND id > \(id) ORDER BY id LIMIT \(Int64(limit))
                """, logger: self.logger
            ).collect().map(self.event)
        }
    }

    public func latestEventID() async throws -> Int64 {
        try await read { c in
            // The newest committed event; after pruning everything, the highest id pruned.
            try await Self.one(
                c.query(
                    """
                    SELECT GREATEST(COALESCE((SELECT MAX(id) FROM event), 0),
                                    COALESCE((SELECT value FROM meta WHERE key = 'events_pruned_through'), 0))
                    """, logger: self.logger)
            ).decode(Int64.self)
        }
    }

    public func prunedThroughEventID() async throws -> Int64 {
        try await read { c in
            try await Self.first(c.query("SELECT value FROM meta WHERE key = 'events_pruned_through'", logger: self.logger))?.decode(Int64.self) ?? 0
        }
    }

    public func pruneEvents(before date: Date) async throws -> Int {
        try await write(appendsEvents: true) { c in
            guard
                let highest = try await Self.one(
                    c.query(
                        "SELECT MAX(id) FROM event WHERE created_at < \(date.timeIntervalSince1970)",
                        logger: self.logger)
                ).decode(Int64?.self)
            else { return 0 }
            let count = try await c.query("DELETE FROM event WHERE id <= \(highest) RETURNING id", logger: self.logger).collect().count
            try await c.query(
                """
                INSERT INTO meta (key, value) VALUES ('events_pruned_through', \(highest))
                ON CONFLICT (key) DO UPDATE SET value = GREATEST(meta.value, excluded.value)
                """, logger: self.logger)
            return count
        }
    }
}
