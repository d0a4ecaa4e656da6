import Foundation
import PostgresNIO
import VarselCore
import VarselStore

/// Notifications their senders scheduled for later.
extension PostgresRepository: ScheduledSendStore {
    static let scheduledSendColumns =
        "id, sender_id, recipients, kind, title, body, urgency, send_at, created_at, state, ended_at, publishes_scenario"

    public func scheduleSend(_ new: NewScheduledSend, idempotencyKey: IdempotencyKey?, at date: Date) async throws -> ScheduledSendCreated {
        let recipients = Array(Set(new.recipientIDs))
        let (key, fingerprint) = (idempotencyKey?.key, idempotencyKey?.fingerprint)
        return try await write { c in
            // A key used before: its send is the answer. (Two requests with one key at once both pass here; the
            // second's insert then waits for the first's, and finds its row below.)
            if let idempotencyKey, let found = try await self.scheduledSend(requestedWith: idempotencyKey, on: c) { return found }
            var existing = Set<UserID>()
            for try await id in try await c.query("SELECT id FROM users WHERE id = ANY(\(recipients))", logger: self.logger).decode(UserID.self) {
                existing.insert(id)
            }
            if let unknown = new.recipientIDs.first(where: { !existing.contains($0) }) { throw StoreError.unknownRecipient(unknown) }
            let inserted = try await Self.first(
                c.query(
                    """
                    INSERT INTO scheduled_send
                        (sender_id, recipients, kind, title, body, urgency, send_at, created_at, state, request_key, request_fingerprint,
                         publishes_scenario)
                    VALUES (\(new.senderID), \(ScheduledSend.storedRecipients(new.recipientIDs)), \(new.kind.rawValue), \(new.title),
                            \(new.body), \(new.urgency.rawValue), \(new.sendAt.timeIntervalSince1970), \(date.timeIntervalSince1970), 'waiting',
                            \(key), \(fingerprint), \(new.publishesScenario))
                    ON CONFLICT (sender_id, request_key) WHERE request_key IS NOT NULL DO NOTHING
                    RETURNING id
                    """, logger: self.logger))
            guard let inserted else {
                // Another transaction stored the key's send after this one began: its row is the answer.
                guard let idempotencyKey, let found = try await self.scheduledSend(requestedWith: idempotencyKey, on: c) else {
                    throw StoreError.idempotencyKeyReused
                }
                return found
            }
            let send = ScheduledSend(
                id: try inserted.decode(ScheduledSendID.self), senderID: new.senderID, recipientIDs: new.recipientIDs, kind: new.kind,
                title: new.title, body: new.body, urgency: new.urgency, sendAt: new.sendAt, createdAt: date, state: .waiting, endedAt: nil,
                publishesScenario: new.publishesScenario)
            return ScheduledSendCreated(send: send, isReplay: false)
        }
    }

    public func scheduledSend(requestedWith idempotencyKey: IdempotencyKey) async throws -> ScheduledSendCreated? {
        try await read { c in try await self.scheduledSend(requestedWith: idempotencyKey, on: c) }
    }

    /// The send an earlier request with this idempotency key made, as a replay; ``StoreError/idempotencyKeyReused``
    /// when that request's fingerprint was another; nil when the key is new.
    private func scheduledSend(requestedWith idempotencyKey: IdempotencyKey, on c: PostgresConnection) async throws -> ScheduledSendCreated? {
        guard
            let found = try await Self.first(
                c.query(
                    """
                    SELECT id, request_fingerprint FROM scheduled_send
                    WHERE sender_id = \(idempotencyKey.senderID) AND request_key = \(idempotencyKey.key)
                    """, logger: self.logger))
        else { return nil }
        let (id, fingerprint) = try found.decode((ScheduledSendID, String?).self)
        guard fingerprint == idempotencyKey.fingerprint else { throw StoreError.idempotencyKeyReused }
        guard
            let send = try await Self.first(
                c.query("SELECT \(unescaped: Self.scheduledSendColumns) FROM scheduled_send WHERE id = \(id)", logger: self.logger)
            ).map(Self.scheduledSend)
        else { return nil }
        return ScheduledSendCreated(send: send, isReplay: true)
    }

    public func scheduledSend(id: ScheduledSendID) async throws -> ScheduledSend? {
        try await read { c in
            try await Self.first(
                c.query("SELECT \(unescaped: Self.scheduledSendColumns) FROM scheduled_send WHERE id = \(id)", logger: self.logger)
            ).map(Self.scheduledSend)
        }
    }

    public func waitingScheduledSends(senderID: UserID?) async throws -> [ScheduledSend] {
        try await read { c in
            try await c.query(
                """
                SELECT \(unescaped: Self.scheduledSendColumns) FROM scheduled_send
                WHERE state = 'waiting' AND (\(senderID)::BIGINT IS NULL OR sender_id = \(senderID)) ORDER BY send_at, id
                """, logger: self.logger
            ).collect().map(Self.scheduledSend)
        }
    }

    public func changeScheduledSend(
        id: ScheduledSendID, sendAt: Date, title: String, body: String, urgency: Urgency, at date: Date
    ) async throws -> ScheduledSend? {
        try await write { c in
            try await Self.first(
                c.query(
                    """
                    UPDATE scheduled_send SET send_at = \(sendAt.timeIntervalSince1970), title = \(title), body = \(body),
                        urgency = \(urgency.rawValue)
                    WHERE id = \(id) AND state = 'waiting' RETURNING \(unescaped: Self.scheduledSendColumns)
                    """, logger: self.logger)
            ).map(Self.scheduledSend)
        }
    }

    public func cancelScheduledSend(id: ScheduledSendID, at date: Date) async throws -> Bool {
        try await write { c in
            try await !c.query(
                """
                UPDATE scheduled_send SET state = 'cancelled', ended_at = \(date.timeIntervalSince1970)
                WHERE id = \(id) AND state = 'waiting' RETURNING id
                """, logger: self.logger
            ).collect().isEmpty
        }
    }

    public func takeDueScheduledSends(at date: Date, limit: Int) async throws -> [ScheduledSend] {
        let now = date.timeIntervalSince1970
        // Most rounds find nothing: a read says so without a write transaction.
        let anyDue = try await read { c in
            try await Self.one(
                c.query(
                    "SELECT EXISTS (SELECT 1 FROM scheduled_send WHERE state IN ('waiting', 'sending') AND send_at <= \(now))",
                    logger: self.logger)
            ).decode(Bool.self)
        }
        guard anyDue else { return [] }
        return try await write { c in
            try await c.query("UPDATE scheduled_send SET state = 'sending' WHERE state = 'waiting' AND send_at <= \(now)", logger: self.logger)
            return try await c.query(
                """
                SELECT \(unescaped: Self.scheduledSendColumns) FROM scheduled_send WHERE state = 'sending' ORDER BY send_at, id LIMIT \(limit)
                """, logger: self.logger
            ).collect().map(Self.scheduledSend)
        }
    }

    public func finishScheduledSend(id: ScheduledSendID, at date: Date) async throws {
        try await write { c in
            try await c.query(
                "UPDATE scheduled_send SET state = 'sent', ended_at = \(date.timeIntervalSince1970) WHERE id = \(id) AND state = 'sending'",
                logger: self.logger)
        }
    }

    static func scheduledSend(_ row: PostgresRow) throws -> ScheduledSend {
        let (id, sender, recipients, kind, title, body, urgency, sendAt, createdAt, state, endedAt, publishesScenario) = try row.decode(
            (ScheduledSendID, UserID, String, String, String, String, String, Double, Double, String, Double?, Bool).self)
        guard let kind = NotificationKind(rawValue: kind) else { throw StoreError.unknownStoredValue(column: "scheduled_send.kind") }
        guard let urgency = Urgency(rawValue: urgency) else { throw StoreError.unknownStoredValue(column: "scheduled_send.urgency") }
        guard let state = ScheduledSendState(rawValue: state) else { throw StoreError.unknownStoredValue(column: "scheduled_send.state") }
        return ScheduledSend(
            id: id, senderID: sender, recipientIDs: ScheduledSend.recipients(stored: recipients), kind: kind, title: title, body: body,
            urgency: urgency, sendAt: date(sendAt), createdAt: date(createdAt), state: state, endedAt: endedAt.map(date),
            publishesScenario: publishesScenario)
    }
}
