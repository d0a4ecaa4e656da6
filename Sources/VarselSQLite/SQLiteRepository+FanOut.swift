import Foundation
import GRDB
import VarselCore
import VarselStore

/// Notifications to many recipients, written a chunk per transaction (see ``FanOut``).
extension SQLiteRepository: FanOutWriting {
    /// Writes `notifications` at `date` in the current transaction when they are few; when they are many, records
    /// them as a fan-out and writes its first chunk. Returns the fan-out's id (nil: all are written) and the
    /// notifications written. The recipients must exist.
    func startFanOut(_ notifications: [NewNotification], at date: Date, db: Database) throws -> (fanout: Int64?, written: [NotificationItem]) {
        guard FanOut.isSpread(notifications.count) else {
            let created = try notifications.map { try insert($0, at: date, db: db) }
            try appendUnreadCounts(for: created.map(\.recipientID), at: date, db: db)
            return (nil, created)
        }
        let (variants, recipients) = FanOut.variants(of: notifications)
        try db.execute(sql: "INSERT INTO fanout (created_at) VALUES (?)", arguments: [date.timeIntervalSince1970])
        let fanout = db.lastInsertedRowID
        for (index, variant) in variants.enumerated() {
            let record = try NotificationRecord(variant, at: date, sealer: sealer)
            try db.execute(
                sql: """
                    INSERT INTO fanout_variant (fanout_id, variant, sender_id, kind, title, body, urgency, deep_link, personal_details)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: [
                    fanout, index, record.senderID, record.kind, record.title, record.body, record.urgency,
                    record.deepLink, record.personalDetails,
                ])
        }
        let pending = try db.cachedStatement(sql: "INSERT INTO fanout_recipient (fanout_id, position, recipient_id, variant) VALUES (?, ?, ?, ?)")
        for (position, recipient) in recipients.enumerated() {
            try pending.execute(arguments: [fanout, position, recipient.recipientID, recipient.variant])
        }
        return (fanout, try writeFanOutChunk(fanout, db: db).written)
    }

    public func writeNextChunk(of fanout: Int64) async throws -> FanOutChunk {
        try await commits.write { db in try self.writeFanOutChunk(fanout, db: db) }
    }

    public func storedNotifications(_ ids: [NotificationID]) async throws -> [NotificationItem] {
        try read { db in try ids.compactMap { try self.fetchNotification(db, id: $0) } }
    }

    /// Writes the next chunk of `fanout`'s notifications, in the current transaction; the last chunk records the ids
    /// for the request's idempotency key and forgets what the fan-out kept to write them.
    func writeFanOutChunk(_ fanout: Int64, db: Database) throws -> FanOutChunk {
        guard
            let row = try Row.fetchOne(
                db.cachedStatement(sql: "SELECT created_at, notification_ids FROM fanout WHERE id = ?"),
                arguments: [fanout])
        else {
            return FanOutChunk(written: [], isLast: true, finished: nil)
        }
        if let ids = row["notification_ids"] as String? {
            return FanOutChunk(written: [], isLast: true, finished: try Self.decoder.decode([NotificationID].self, from: Data(ids.utf8)))
        }
        let date = Date(timeIntervalSince1970: row["created_at"])
        // One more than a chunk, to know whether this is the last; each with its content, as a notification row.
        let pending = try Row.fetchAll(
            db.cachedStatement(
                sql: """
                    SELECT r.position, r.variant, r.recipient_id, v.sender_id, v.kind, v.title, v.body, v.urgency, f.created_at, v.deep_link, v.personal_details
                    FROM fanout_recipient r
                    JOIN fanout_variant v ON v.fanout_id = r.fanout_id AND v.variant = r.variant
                    JOIN fanout f ON f.id = r.fanout_id
                    WHERE r.fanout_id = ? AND r.notification_id IS NULL ORDER BY r.position LIMIT ?
                    """), arguments: [fanout, FanOut.chunkSize + 1])
        let mark = try db.cachedStatement(sql: "UPDATE fanout_recipient SET notification_id = ? WHERE fanout_id = ? AND position = ?")
        // Each content is opened once.
        var opened: [Int: NotificationItem] = [:]
        var written: [NotificationItem] = []
        for row in pending.prefix(FanOut.chunkSize) {
            let record = NotificationRecord(row: row)
            let variant: Int = row["variant"]
            var item = try opened[variant] ?? record.item(sealer: sealer, decoder: Self.decoder)
            opened[variant] = item
            item.recipientID = record.recipientID
            item = try insert(record, as: item, db: db)
            try mark.execute(arguments: [item.id, fanout, row["position"]])
            written.append(item)
        }
        try appendUnreadCounts(for: written.map(\.recipientID), at: date, db: db)
        guard pending.count <= FanOut.chunkSize else { return FanOutChunk(written: written, isLast: false) }
        let ids = try NotificationID.fetchAll(
            db, sql: "SELECT notification_id FROM fanout_recipient WHERE fanout_id = ? ORDER BY position",
            arguments: [fanout])
        let json = String(decoding: try Self.encoder.encode(ids), as: UTF8.self)
        try db.execute(sql: "UPDATE fanout SET notification_ids = ? WHERE id = ?", arguments: [json, fanout])
        try db.execute(sql: "UPDATE idempotency_key SET notification_ids = ?, fanout_id = NULL WHERE fanout_id = ?", arguments: [json, fanout])
        try db.execute(sql: "DELETE FROM fanout_recipient WHERE fanout_id = ?", arguments: [fanout])
        try db.execute(sql: "DELETE FROM fanout_variant WHERE fanout_id = ?", arguments: [fanout])
        return FanOutChunk(written: written, isLast: true, finished: ids)
    }

    public func unfinishedFanOuts(startedBefore date: Date) async throws -> [Int64] {
        // Finished ones are kept a while for their other finishers to read their ids, then forgotten here.
        try await commits.write { db in
            try db.execute(sql: "DELETE FROM fanout WHERE created_at < ? AND notification_ids IS NOT NULL", arguments: [date.timeIntervalSince1970])
            return try Int64.fetchAll(db, sql: "SELECT id FROM fanout WHERE created_at < ?", arguments: [date.timeIntervalSince1970])
        }
    }
}
