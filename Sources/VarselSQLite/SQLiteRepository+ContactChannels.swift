import Foundation
import GRDB
import VarselCore
import VarselStore

/// Mobile numbers and email addresses, and the outbox of the text messages and emails that follow up.
extension SQLiteRepository {
    public func contactChannels(of userID: UserID) async throws -> [StoredContactChannel] {
        try read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM contact_channel WHERE user_id = ? ORDER BY channel DESC", arguments: [userID]).compactMap {
                try self.contactChannel($0)
            }
        }
    }

    public func verifiedContactChannels(forAnyOf userIDs: Set<UserID>) async throws -> [StoredContactChannel] {
        guard !userIDs.isEmpty else { return [] }
        return try read { db in
            let marks = Array(repeating: "?", count: userIDs.count).joined(separator: ", ")
            return try Row.fetchAll(
                db, sql: "SELECT * FROM contact_channel WHERE verified_at IS NOT NULL AND user_id IN (\(marks))",
                arguments: StatementArguments(Array(userIDs))
            ).compactMap { try self.contactChannel($0) }
        }
    }

    public func saveContactChannel(userID: UserID, channel: OutsideChannel, address: String, codeHash: String, expiresAt: Date, at date: Date)
        async throws
    {
        let current = try await contactChannels(of: userID).first { $0.channel == channel }
        let keepsVerification = current?.address == address && current?.verifiedAt != nil
        let sealed = sealer.seal(address, field: .channelAddress)
        try await commits.write { db in
            try db.execute(
                sql: """
                    INSERT INTO contact_channel (user_id, channel, address, verified_at, code_hash, code_sent_at, code_expires_at, wrong_codes)
                    VALUES (?, ?, ?, NULL, ?, ?, ?, 0)
                    ON CONFLICT (user_id, channel) DO UPDATE SET address = excluded.address,
                        verified_at = CASE WHEN ? THEN contact_channel.verified_at ELSE NULL END,
                        code_hash = excluded.code_hash, code_sent_at = excluded.code_sent_at, code_expires_at = excluded.code_expires_at, wrong_codes = 0
                    """,
                arguments: [
                    userID, channel.rawValue, sealed, codeHash, date.timeIntervalSince1970, expiresAt.timeIntervalSince1970, keepsVerification,
                ])
        }
    }

    public func recordWrongCode(userID: UserID, channel: OutsideChannel) async throws -> Int {
        try await commits.write { db in
            try db.execute(
                sql: "UPDATE contact_channel SET wrong_codes = wrong_codes + 1 WHERE user_id = ? AND channel = ?",
                arguments: [userID, channel.rawValue])
            return try Int.fetchOne(
                db, sql: "SELECT wrong_codes FROM contact_channel WHERE user_id = ? AND channel = ?",
                arguments: [userID, channel.rawValue]) ?? 0
        }
    }

    public func markContactChannelVerified(userID: UserID, channel: OutsideChannel, codeHash: String, at date: Date) async throws -> Bool {
        try await commits.write { db in
            try db.execute(
                sql: """
                    UPDATE contact_channel SET verified_at = ?, code_hash = NULL, code_expires_at = NULL, wrong_codes = 0
                    WHERE user_id = ? AND channel = ? AND code_hash = ?
                    """, arguments: [date.timeIntervalSince1970, userID, channel.rawValue, codeHash])
            return db.changesCount > 0
        }
    }

    public func deleteContactChannel(userID: UserID, channel: OutsideChannel) async throws -> Bool {
        try await commits.write { db in
            try db.execute(
                sql: "DELETE FROM message_delivery WHERE user_id = ? AND channel = ? AND ended_at IS NULL",
                arguments: [userID, channel.rawValue])
            try db.execute(sql: "DELETE FROM contact_channel WHERE user_id = ? AND channel = ?", arguments: [userID, channel.rawValue])
            return db.changesCount > 0
        }
    }

    public func messageOutboxCursor() async throws -> Int64? {
        try read { db in try Int64.fetchOne(db, sql: "SELECT value FROM meta WHERE key = 'message_outbox_cursor'") }
    }

    public func enqueueMessages(_ messages: [NewMessageDelivery], after expectedCursor: Int64?, through eventID: Int64, at date: Date) async throws
        -> Bool
    {
        try await commits.write { db in
            let cursor = try Int64.fetchOne(db, sql: "SELECT value FROM meta WHERE key = 'message_outbox_cursor'")
            guard cursor == expectedCursor else { return false }
            for message in messages {
                try db.execute(
                    sql: """
                        INSERT INTO message_delivery (notification_id, user_id, channel, enqueued_at, next_attempt_at) VALUES (?, ?, ?, ?, ?)
                        ON CONFLICT (notification_id, channel) DO NOTHING
                        """,
                    arguments: [
                        message.notificationID, message.userID, message.channel.rawValue, date.timeIntervalSince1970,
                        message.dueAt.timeIntervalSince1970,
                    ])
            }
            try db.execute(
                sql: """
                    INSERT INTO meta (key, value) VALUES ('message_outbox_cursor', ?)
                    ON CONFLICT(key) DO UPDATE SET value = MAX(value, excluded.value)
                    """, arguments: [eventID])
            return true
        }
    }

    public func isUnseen(notificationID: NotificationID) async throws -> Bool {
        try read { db in
            try Bool.fetchOne(
                db,
                sql: """
                    SELECT EXISTS (SELECT 1 FROM notification n WHERE n.id = ? AND n.read_at IS NULL)
                       AND NOT EXISTS (SELECT 1 FROM push_sent WHERE notification_id = ? AND shown_at IS NOT NULL)
                       AND NOT EXISTS (SELECT 1 FROM assignment WHERE notification_id = ? AND (status <> 'pending' OR reassigned_at IS NOT NULL))
                    """, arguments: [notificationID, notificationID, notificationID]) ?? false
        }
    }

    public func claimDueMessages(at date: Date, limit: Int, leaseUntil: Date) async throws -> [MessageDelivery] {
        try await commits.write { db in
            let due = try Row.fetchAll(
                db,
                sql: """
                    SELECT * FROM message_delivery WHERE ended_at IS NULL AND next_attempt_at <= ? ORDER BY next_attempt_at, id LIMIT ?
                    """, arguments: [date.timeIntervalSince1970, limit]
            ).compactMap(Self.messageDelivery)
            for message in due {
                try db.execute(
                    sql: "UPDATE message_delivery SET next_attempt_at = ? WHERE id = ?", arguments: [leaseUntil.timeIntervalSince1970, message.id])
            }
            return due
        }
    }

    public func rescheduleMessage(id: Int64, attempts: Int, at date: Date) async throws {
        try await commits.write { db in
            try db.execute(
                sql: "UPDATE message_delivery SET attempts = ?, next_attempt_at = ? WHERE id = ? AND ended_at IS NULL",
                arguments: [attempts, date.timeIntervalSince1970, id])
        }
    }

    public func finishMessage(id: Int64, outcome: MessageOutcome, at date: Date) async throws {
        try await commits.write { db in
            try db.execute(
                sql: "UPDATE message_delivery SET ended_at = ?, outcome = ? WHERE id = ? AND ended_at IS NULL",
                arguments: [date.timeIntervalSince1970, outcome.rawValue, id])
            guard db.changesCount > 0, outcome == .sent else { return }
            try db.execute(
                sql: """
                    INSERT INTO assignment_escalation (assignment_id, step, at)
                    SELECT a.id, CASE m.channel WHEN 'sms' THEN ? ELSE ? END, ? FROM message_delivery m JOIN assignment a ON a.notification_id = m.notification_id
                    WHERE m.id = ?
                    ON CONFLICT DO NOTHING
                    """, arguments: [EscalationStep.textMessageSent.rawValue, EscalationStep.emailSent.rawValue, date.timeIntervalSince1970, id])
        }
    }

    public func queuedMessages(notificationID: NotificationID) async throws -> [MessageDelivery] {
        try read { db in
            try Row.fetchAll(
                db, sql: "SELECT * FROM message_delivery WHERE notification_id = ? AND ended_at IS NULL ORDER BY id",
                arguments: [notificationID]
            ).compactMap(Self.messageDelivery)
        }
    }

    public func pruneMessages(before date: Date) async throws -> Int {
        try await commits.write { db in
            try db.execute(sql: "DELETE FROM message_delivery WHERE ended_at < ?", arguments: [date.timeIntervalSince1970])
            return db.changesCount
        }
    }

    private func contactChannel(_ row: Row) throws -> StoredContactChannel? {
        guard let channel = OutsideChannel(rawValue: row["channel"]) else { return nil }
        return StoredContactChannel(
            userID: row["user_id"], channel: channel, address: try sealer.open(row["address"] as String, field: .channelAddress),
            verifiedAt: (row["verified_at"] as Double?).map(Self.date), codeHash: row["code_hash"],
            codeSentAt: (row["code_sent_at"] as Double?).map(Self.date), codeExpiresAt: (row["code_expires_at"] as Double?).map(Self.date),
            wrongCodes: row["wrong_codes"])
    }

    private static func messageDelivery(_ row: Row) -> MessageDelivery? {
        guard let channel = OutsideChannel(rawValue: row["channel"]) else { return nil }
        return MessageDelivery(
            id: row["id"], notificationID: row["notification_id"], userID: row["user_id"], channel: channel,
            attempts: row["attempts"], enqueuedAt: date(row["enqueued_at"]), nextAttemptAt: date(row["next_attempt_at"]))
    }
}
