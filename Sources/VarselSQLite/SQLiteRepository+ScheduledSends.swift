import Foundation
import GRDB
import VarselCore
import VarselStore

extension SQLiteRepository: ScheduledSendStore {
    public func scheduleSend(_ new: NewScheduledSend, idempotencyKey: IdempotencyKey?, at date: Date) async throws -> ScheduledSendCreated {
        try await commits.write { db in
            if let idempotencyKey, let replay = try Self.scheduledSend(db, requestedWith: idempotencyKey) { return replay }
            for recipient in Set(new.recipientIDs) {
                guard try Bool.fetchOne(db, sql: "SELECT 1 FROM user WHERE id = ?", arguments: [recipient]) == true else {
                    throw StoreError.unknownRecipient(recipient)
                }
            }
            try db.execute(
                sql: """
                    INSERT INTO scheduled_send
                        (sender_id, recipients, kind, title, body, urgency, send_at, created_at, state, request_key, request_fingerprint,
                         publishes_scenario)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'waiting', ?, ?, ?)
                    """,
                arguments: [
                    new.senderID, ScheduledSend.storedRecipients(new.recipientIDs), new.kind.rawValue, new.title, new.body,
                    new.urgency.rawValue, new.sendAt.timeIntervalSince1970, date.timeIntervalSince1970, idempotencyKey?.key,
                    idempotencyKey?.fingerprint, new.publishesScenario,
                ])
            let send = ScheduledSend(
                id: ScheduledSendID(db.lastInsertedRowID), senderID: new.senderID, recipientIDs: new.recipientIDs, kind: new.kind,
                title: new.title, body: new.body, urgency: new.urgency, sendAt: new.sendAt, createdAt: date, state: .waiting, endedAt: nil,
                publishesScenario: new.publishesScenario)
            return ScheduledSendCreated(send: send, isReplay: false)
        }
    }

    public func scheduledSend(requestedWith idempotencyKey: IdempotencyKey) async throws -> ScheduledSendCreated? {
        try read { db in try Self.scheduledSend(db, requestedWith: idempotencyKey) }
    }

    /// The send stored under `idempotencyKey`, as a replay; ``StoreError/idempotencyKeyReused`` when its request was
    /// another.
    static func scheduledSend(_ db: Database, requestedWith idempotencyKey: IdempotencyKey) throws -> ScheduledSendCreated? {
        guard
            let row = try Row.fetchOne(
                db, sql: "SELECT * FROM scheduled_send WHERE sender_id = ? AND request_key = ?",
                arguments: [idempotencyKey.senderID, idempotencyKey.key])
        else { return nil }
        guard row["request_fingerprint"] == idempotencyKey.fingerprint else { throw StoreError.idempotencyKeyReused }
        return ScheduledSendCreated(send: try Self.scheduledSend(row), isReplay: true)
    }

    public func scheduledSend(id: ScheduledSendID) async throws -> ScheduledSend? {
        try read { db in try self.fetchScheduledSend(db, id: id) }
    }

    public func waitingScheduledSends(senderID: UserID?) async throws -> [ScheduledSend] {
        try read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT * FROM scheduled_send WHERE state = 'waiting' AND (? IS NULL OR sender_id = ?) ORDER BY send_at, id
                    """, arguments: [senderID, senderID]
            ).map(Self.scheduledSend)
        }
    }

    public func changeScheduledSend(
        id: ScheduledSendID, sendAt: Date, title: String, body: String, urgency: Urgency, at date: Date
    ) async throws -> ScheduledSend? {
        try await commits.write { db in
            try db.execute(
                sql: "UPDATE scheduled_send SET send_at = ?, title = ?, body = ?, urgency = ? WHERE id = ? AND state = 'waiting'",
                arguments: [sendAt.timeIntervalSince1970, title, body, urgency.rawValue, id])
            guard db.changesCount > 0 else { return nil }
            return try self.fetchScheduledSend(db, id: id)
        }
    }

    public func cancelScheduledSend(id: ScheduledSendID, at date: Date) async throws -> Bool {
        try await commits.write { db in
            try db.execute(
                sql: "UPDATE scheduled_send SET state = 'cancelled', ended_at = ? WHERE id = ? AND state = 'waiting'",
                arguments: [date.timeIntervalSince1970, id])
            return db.changesCount > 0
        }
    }

    public func takeDueScheduledSends(at date: Date, limit: Int) async throws -> [ScheduledSend] {
        // Most rounds find nothing: a read says so without a write transaction.
        let anyDue = try read { db in
            try Bool.fetchOne(
                db,
                sql: """
                    SELECT EXISTS (SELECT 1 FROM scheduled_send WHERE state IN ('waiting', 'sending') AND send_at <= ?)
                    """, arguments: [date.timeIntervalSince1970]) ?? false
        }
        guard anyDue else { return [] }
        return try await commits.write { db in
            try db.execute(
                sql: "UPDATE scheduled_send SET state = 'sending' WHERE state = 'waiting' AND send_at <= ?",
                arguments: [date.timeIntervalSince1970])
            return try Row.fetchAll(
                db, sql: "SELECT * FROM scheduled_send WHERE state = 'sending' ORDER BY send_at, id LIMIT ?", arguments: [limit]
            ).map(Self.scheduledSend)
        }
    }

    public func finishScheduledSend(id: ScheduledSendID, at date: Date) async throws {
        try await commits.write { db in
            try db.execute(
                sql: "UPDATE scheduled_send SET state = 'sent', ended_at = ? WHERE id = ? AND state = 'sending'",
                arguments: [date.timeIntervalSince1970, id])
        }
    }

    func fetchScheduledSend(_ db: Database, id: ScheduledSendID) throws -> ScheduledSend? {
        try Row.fetchOne(db, sql: "SELECT * FROM scheduled_send WHERE id = ?", arguments: [id]).map(Self.scheduledSend)
    }

    static func scheduledSend(_ row: Row) throws -> ScheduledSend {
        guard let kind = NotificationKind(rawValue: row["kind"]) else { throw StoreError.unknownStoredValue(column: "scheduled_send.kind") }
        guard let urgency = Urgency(rawValue: row["urgency"]) else { throw StoreError.unknownStoredValue(column: "scheduled_send.urgency") }
        guard let state = ScheduledSendState(rawValue: row["state"]) else {
            throw StoreError.unknownStoredValue(column: "scheduled_send.state")
        }
        return ScheduledSend(
            id: row["id"], senderID: row["sender_id"], recipientIDs: ScheduledSend.recipients(stored: row["recipients"]), kind: kind,
            title: row["title"], body: row["body"], urgency: urgency, sendAt: Date(timeIntervalSince1970: row["send_at"]),
            createdAt: Date(timeIntervalSince1970: row["created_at"]), state: state,
            endedAt: (row["ended_at"] as Double?).map(Date.init(timeIntervalSince1970:)), publishesScenario: row["publishes_scenario"])
    }
}
