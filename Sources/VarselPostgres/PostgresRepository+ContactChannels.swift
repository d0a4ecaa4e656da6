import Foundation
import PostgresNIO
import VarselCore
import VarselStore

/// Mobile numbers and email addresses, and the outbox of the text messages and emails that follow up.
extension PostgresRepository {
    static let channelColumns = "user_id, channel, address, verified_at, code_hash, code_sent_at, code_expires_at, wrong_codes"
    static let messageColumns = "id, notification_id, user_id, channel, attempts, enqueued_at, next_attempt_at"

    public func contactChannels(of userID: UserID) async throws -> [StoredContactChannel] {
        try await read { c in
            try await c.query(
                "SELECT \(unescaped: Self.channelColumns) FROM contact_channel WHERE user_id = \(userID) ORDER BY channel DESC",
                logger: self.logger
            ).collect().compactMap { try self.contactChannel($0) }
        }
    }

    public func verifiedContactChannels(forAnyOf userIDs: Set<UserID>) async throws -> [StoredContactChannel] {
        guard !userIDs.isEmpty else { return [] }
        let ids = Array(userIDs)
        return try await read { c in
            try await c.query(
                """
                SELECT \(unescaped: Self.channelColumns) FROM contact_channel WHERE verified_at IS NOT NULL AND user_id = ANY(\(ids))
                """, logger: self.logger
            ).collect().compactMap { try self.contactChannel($0) }
        }
    }

    public func saveContactChannel(userID: UserID, channel: OutsideChannel, address: String, codeHash: String, expiresAt: Date, at date: Date)
        async throws
    {
        let current = try await contactChannels(of: userID).first { $0.channel == channel }
        let keepsVerification = current?.address == address && current?.verifiedAt != nil
        let sealed = sealer.seal(address, field: .channelAddress)
        try await write { c in
            try await c.query(
                """
                INSERT INTO contact_channel (user_id, channel, address, verified_at, code_hash, code_sent_at, code_expires_at, wrong_codes)
                VALUES (\(userID), \(channel.rawValue), \(sealed), NULL, \(codeHash), \(date.timeIntervalSince1970), \(expiresAt.timeIntervalSince1970), 0)
                ON CONFLICT (user_id, channel) DO UPDATE SET address = excluded.address,
                    verified_at = CASE WHEN \(keepsVerification) THEN contact_channel.verified_at ELSE NULL END,
                    code_hash = excluded.code_hash, code_sent_at = excluded.code_sent_at, code_expires_at = excluded.code_expires_at, wrong_codes = 0
                """, logger: self.logger)
        }
    }

    public func recordWrongCode(userID: UserID, channel: OutsideChannel) async throws -> Int {
        try await write { c in
            let row = try await Self.first(
                c.query(
                    """
                    UPDATE contact_channel SET wrong_codes = wrong_codes + 1 WHERE user_id = \(userID) AND channel = \(channel.rawValue) RETURNING wrong_codes
                    """, logger: self.logger))
            return Int(try row?.decode(Int32.self) ?? 0)
        }
    }

    public func markContactChannelVerified(userID: UserID, channel: OutsideChannel, codeHash: String, at date: Date) async throws -> Bool {
        try await write { c in
            try await !c.query(
                """
                UPDATE contact_channel SET verified_at = \(date.timeIntervalSince1970), code_hash = NULL, code_expires_at = NULL, wrong_codes = 0
                WHERE user_id = \(userID) AND channel = \(channel.rawValue) AND code_hash = \(codeHash) RETURNING user_id
                """, logger: self.logger
            ).collect().isEmpty
        }
    }

    public func deleteContactChannel(userID: UserID, channel: OutsideChannel) async throws -> Bool {
        try await write { c in
            try await c.query(
                "DELETE FROM message_delivery WHERE user_id = \(userID) AND channel = \(channel.rawValue) AND ended_at IS NULL",
                logger: self.logger)
            return try await !c.query(
                "DELETE FROM contact_channel WHERE user_id = \(userID) AND channel = \(channel.rawValue) RETURNING user_id",
                logger: self.logger
            ).collect().isEmpty
        }
    }

    public func messageOutboxCursor() async throws -> Int64? {
        try await read { c in
            try await Self.first(c.query("SELECT value FROM meta WHERE key = 'message_outbox_cursor'", logger: self.logger))?.decode(Int64.self)
        }
    }

    /// The advisory lock that orders moves of the message outbox's cursor.
    static let messageOutboxLock: Int64 = 0x7661_7273_656C_0004

    public func enqueueMessages(_ messages: [NewMessageDelivery], after expectedCursor: Int64?, through eventID: Int64, at date: Date) async throws
        -> Bool
    {
        try await write { c in
            try await c.query("SELECT pg_advisory_xact_lock(\(Self.messageOutboxLock))", logger: self.logger)
            let cursor = try await Self.first(c.query("SELECT value FROM meta WHERE key = 'message_outbox_cursor'", logger: self.logger))?
                .decode(Int64.self)
            guard cursor == expectedCursor else { return false }
            for message in messages {
                try await c.query(
                    """
                    INSERT INTO message_delivery (notification_id, user_id, channel, enqueued_at, next_attempt_at)
                    VALUES (\(message.notificationID), \(message.userID), \(message.channel.rawValue), \(date.timeIntervalSince1970),
                            \(message.dueAt.timeIntervalSince1970))
                    ON CONFLICT (notification_id, channel) DO NOTHING
                    """, logger: self.logger)
            }
            try await c.query(
                """
                INSERT INTO meta (key, value) VALUES ('message_outbox_cursor', \(eventID))
                ON CONFLICT (key) DO UPDATE SET value = GREATEST(meta.value, excluded.value)
                """, logger: self.logger)
            return true
        }
    }

    public func isUnseen(notificationID: NotificationID) async throws -> Bool {
        try await read { c in
            try await Self.one(
                c.query(
                    """
                    SELECT EXISTS (SELECT 1 FROM notification n WHERE n.id = \(notificationID) AND n.read_at IS NULL)
                       AND NOT EXISTS (SELECT 1 FROM push_sent WHERE notification_id = \(notificationID) AND shown_at IS NOT NULL)
                       AND NOT EXISTS (SELECT 1 FROM assignment WHERE notification_id = \(notificationID)
                                       AND (status <> 'pending' OR reassigned_at IS NOT NULL))
                    """, logger: self.logger)
            ).decode(Bool.self)
        }
    }

    public func claimDueMessages(at date: Date, limit: Int, leaseUntil: Date) async throws -> [MessageDelivery] {
        try await write { c in
            try await c.query(
                """
                WITH due AS (
                    SELECT id FROM message_delivery WHERE ended_at IS NULL AND next_attempt_at <= \(date.timeIntervalSince1970)
                    ORDER BY next_attempt_at, id LIMIT \(Int64(limit)) FOR UPDATE SKIP LOCKED
                )
                UPDATE message_delivery m SET next_attempt_at = \(leaseUntil.timeIntervalSince1970) FROM due WHERE m.id = due.id
                RETURNING m.id, m.notification_id, m.user_id, m.channel, m.attempts, m.enqueued_at, m.next_attempt_at
                """, logger: self.logger
            ).collect().compactMap(Self.messageDelivery).sorted { $0.id < $1.id }
        }
    }

    public func rescheduleMessage(id: Int64, attempts: Int, at date: Date) async throws {
        try await write { c in
            try await c.query(
                """
                UPDATE message_delivery SET attempts = \(Int32(attempts)), next_attempt_at = \(date.timeIntervalSince1970) WHERE id = \(id) AND ended_at IS NULL
                """, logger: self.logger)
        }
    }

    public func finishMessage(id: Int64, outcome: MessageOutcome, at date: Date) async throws {
        try await write { c in
            let ended = try await c.query(
                """
                UPDATE message_delivery SET ended_at = \(date.timeIntervalSince1970), outcome = \(outcome.rawValue) WHERE id = \(id) AND ended_at IS NULL
                RETURNING id
                """, logger: self.logger
            ).collect()
            guard !ended.isEmpty, outcome == .sent else { return }
            try await c.query(
                """
                INSERT INTO assignment_escalation (assignment_id, step, at)
                SELECT a.id, CASE m.channel WHEN 'sms' THEN \(EscalationStep.textMessageSent.rawValue) ELSE \(EscalationStep.emailSent.rawValue) END,
                       \(date.timeIntervalSince1970)
                FROM message_delivery m JOIN assignment a ON a.notification_id = m.notification_id WHERE m.id = \(id)
                ON CONFLICT DO NOTHING
                """, logger: self.logger)
        }
    }

    public func queuedMessages(notificationID: NotificationID) async throws -> [MessageDelivery] {
        try await read { c in
            try await c.query(
                """
                SELECT \(unescaped: Self.messageColumns) FROM message_delivery WHERE notification_id = \(notificationID) AND ended_at IS NULL ORDER BY id
                """, logger: self.logger
            ).collect().compactMap(Self.messageDelivery)
        }
    }

    public func pruneMessages(before date: Date) async throws -> Int {
        try await write { c in
            try await c.query("DELETE FROM message_delivery WHERE ended_at < \(date.timeIntervalSince1970) RETURNING id", logger: self.logger)
                .collect().count
        }
    }

    private func contactChannel(_ row: PostgresRow) throws -> StoredContactChannel? {
        let columns = try row.decode((UserID, String, String, Double?, String?, Double?, Double?, Int32).self)
        guard let channel = OutsideChannel(rawValue: columns.1) else { return nil }
        return StoredContactChannel(
            userID: columns.0, channel: channel, address: try sealer.open(columns.2, field: .channelAddress),
            verifiedAt: columns.3.map(Self.date), codeHash: columns.4, codeSentAt: columns.5.map(Self.date),
            codeExpiresAt: columns.6.map(Self.date), wrongCodes: Int(columns.7))
    }

    private static func messageDelivery(_ row: PostgresRow) throws -> MessageDelivery? {
        let columns = try row.decode((Int64, NotificationID, UserID, String, Int32, Double, Double).self)
        guard let channel = OutsideChannel(rawValue: columns.3) else { return nil }
        return MessageDelivery(
            id: columns.0, notificationID: columns.1, userID: columns.2, channel: channel, attempts: Int(columns.4),
            enqueuedAt: date(columns.5), nextAttemptAt: date(columns.6))
    }
}
