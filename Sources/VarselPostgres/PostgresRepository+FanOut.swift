import Foundation
import PostgresNIO
import VarselCore
import VarselStore

/// Notifications to many recipients, written a chunk per transaction (see ``FanOut``).
extension PostgresRepository: FanOutWriting {
    /// Records `notifications` (more than a chunk, to recipients that exist) as a fan-out to be written at `date`;
    /// returns its id. Writes none of them.
    func recordFanOut(_ notifications: [NewNotification], at date: Date, _ c: PostgresConnection) async throws -> Int64 {
        let (variants, recipients) = FanOut.variants(of: notifications)
        let fanout = try await Self.one(
            c.query(
                "INSERT INTO fanout (created_at) VALUES (\(date.timeIntervalSince1970)) RETURNING id",
                logger: logger)
        ).decode(Int64.self)
        // A notification to many has a content or two; a batch of different notifications has as many as rows.
        var insert = PostgresRowsInsert(
            """
            INSERT INTO fanout_variant (fanout_id, variant, sender_id, kind, title, body, urgency, deep_link, personal_details) VALUES
            """)
        for (index, variant) in variants.enumerated() {
            var body = variant.body
            var details = try Self.json(variant.personalDetails)
            if FieldSealer.sealsNotification(personalDetails: variant.personalDetails) {
                body = sealer.seal(body, field: .notificationBody)
                details = sealer.seal(details, field: .notificationDetails)
            }
            let values = [
                insert.bind(fanout), insert.bind(Int32(index)), insert.bind(variant.senderID), insert.bind(variant.kind.rawValue),
                insert.bind(variant.title), insert.bind(body), insert.bind(variant.urgency.rawValue),
                insert.bind(try Self.json(variant.deepLink)), insert.bind(details),
            ]
            insert.addRow("(\(values.joined(separator: ", ")))")
        }
        for query in insert.queries() { try await c.query(query, logger: logger) }
        try await c.query(
            """
            INSERT INTO fanout_recipient (fanout_id, position, recipient_id, variant)
            SELECT \(fanout), r.position - 1, r.recipient_id, r.variant
            FROM unnest(\(recipients.map(\.recipientID))::bigint[], \(recipients.map { Int32($0.variant) })::integer[])
                 WITH ORDINALITY AS r(recipient_id, variant, position)
            """, logger: logger)
        return fanout
    }

    public func writeNextChunk(of fanout: Int64) async throws -> FanOutChunk {
        try await write(appendsEvents: true, locksLate: true, within: deadline(forRows: FanOut.chunkSize)) { c in
            try await self.writeFanOutChunk(fanout, c)
        }
    }

    public func storedNotifications(_ ids: [NotificationID]) async throws -> [NotificationItem] {
        try await read(within: deadline(forRows: ids.count)) { c in
            var items: [NotificationItem] = []
            for id in ids { if let item = try await self.fetchNotification(c, id: id) { items.append(item) } }
            return items
        }
    }

    /// Writes the next chunk of `fanout`'s notifications in the current transaction (taking the event-log lock for
    /// their events); the last chunk records the ids for the request's idempotency key and forgets what the fan-out
    /// kept to write them. The fan-out's row is locked first, so two instances finishing it take turns.
    func writeFanOutChunk(_ fanout: Int64, _ c: PostgresConnection) async throws -> FanOutChunk {
        guard
            let row = try await Self.first(
                c.query(
                    "SELECT created_at, notification_ids FROM fanout WHERE id = \(fanout) FOR UPDATE",
                    logger: logger))
        else {
            return FanOutChunk(written: [], isLast: true, finished: nil)
        }
        let (createdAt, finishedIDs) = try row.decode((Double, String?).self)
        if let finishedIDs {
            return FanOutChunk(written: [], isLast: true, finished: try Self.decoder.decode([NotificationID].self, from: Data(finishedIDs.utf8)))
        }
        let date = Self.date(createdAt)
        // One more than a chunk, to know whether this is the last.
        var pending: [(position: Int32, recipientID: UserID, variant: Int32)] = []
        for try await (position, recipientID, variant) in try await c.query(
            """
            SELECT position, recipient_id, variant FROM fanout_recipient WHERE fanout_id = \(fanout) AND notification_id IS NULL
            ORDER BY position LIMIT \(FanOut.chunkSize + 1)
            """, logger: logger
        ).decode((Int32, UserID, Int32).self) {
            pending.append((position, recipientID, variant))
        }
        // The contents this chunk needs, each read as a notification whose id is the variant's index, and its sender.
        let needed = Array(Set(pending.prefix(FanOut.chunkSize).map(\.variant)))
        var variants: [Int64: (senderID: UserID?, item: NotificationItem)] = [:]
        for try await row in try await c.query(
            """
            SELECT v.variant::bigint, 0::bigint, v.kind, v.title, v.body, f.created_at, NULL::double precision, v.urgency, v.deep_link,
                   v.personal_details, v.sender_id
            FROM fanout_variant v JOIN fanout f ON f.id = v.fanout_id WHERE v.fanout_id = \(fanout) AND v.variant = ANY(\(needed)::integer[])
            """, logger: logger)
        {
            let item = try notification(row)
            variants[item.id.rawValue] = (try row.makeRandomAccess()[10].decode(UserID?.self), item)
        }
        let chunk = pending.prefix(FanOut.chunkSize)
        let news = try chunk.map { pending in
            guard let (senderID, item) = variants[Int64(pending.variant)] else {
                throw StoreError.unknownStoredValue(column: "fanout_recipient.variant")
            }
            return NewNotification(
                recipientID: pending.recipientID, senderID: senderID, kind: item.kind, title: item.title,
                body: item.body, urgency: item.urgency, deepLink: item.deepLink, personalDetails: item.personalDetails)
        }
        let written = news.isEmpty ? [] : try await insertRows([(news, date)], c)[0]
        if !written.isEmpty {
            try await c.query(
                """
                UPDATE fanout_recipient r SET notification_id = w.id
                FROM unnest(\(chunk.map(\.position))::integer[], \(written.map(\.id))::bigint[]) AS w(position, id)
                WHERE r.fanout_id = \(fanout) AND r.position = w.position
                """, logger: logger)
            try await appendCreatedEvents(written, at: date, c)
        }
        guard pending.count <= FanOut.chunkSize else { return FanOutChunk(written: written, isLast: false) }
        var ids: [NotificationID] = []
        for try await id in try await c.query(
            """
            SELECT notification_id FROM fanout_recipient WHERE fanout_id = \(fanout) ORDER BY position
            """, logger: logger
        ).decode(NotificationID.self) {
            ids.append(id)
        }
        let json = String(decoding: try Self.encoder.encode(ids), as: UTF8.self)
        try await c.query("UPDATE fanout SET notification_ids = \(json) WHERE id = \(fanout)", logger: logger)
        try await c.query("UPDATE idempotency_key SET notification_ids = \(json), fanout_id = NULL WHERE fanout_id = \(fanout)", logger: logger)
        try await c.query("DELETE FROM fanout_recipient WHERE fanout_id = \(fanout)", logger: logger)
        try await c.query("DELETE FROM fanout_variant WHERE fanout_id = \(fanout)", logger: logger)
        return FanOutChunk(written: written, isLast: true, finished: ids)
    }

    public func unfinishedFanOuts(startedBefore date: Date) async throws -> [Int64] {
        // Finished ones are kept a while for their other finishers to read their ids, then forgotten here.
        try await write { c in
            try await c.query(
                "DELETE FROM fanout WHERE created_at < \(date.timeIntervalSince1970) AND notification_ids IS NOT NULL", logger: self.logger)
            var ids: [Int64] = []
            for try await id in try await c.query(
                "SELECT id FROM fanout WHERE created_at < \(date.timeIntervalSince1970)",
                logger: self.logger
            ).decode(Int64.self) {
                ids.append(id)
            }
            return ids
        }
    }
}
