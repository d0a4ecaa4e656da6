import Foundation
import GRDB
import VarselCore
import VarselStore

extension SQLiteRepository {
    public func createWebhookEndpoint(_ endpoint: NewWebhookEndpoint, at date: Date) async throws -> WebhookEndpoint {
        let sealed = sealer.seal(endpoint.secret.base64EncodedString(), field: .webhookSecret)
        return try await commits.write { db in
            try db.execute(
                sql: """
                    INSERT INTO webhook_endpoint (integration_id, url, events, secret, created_by, created_at) VALUES (?, ?, ?, ?, ?, ?)
                    """,
                arguments: [
                    endpoint.integrationID, endpoint.url, WebhookEndpoint.storedEvents(endpoint.events), sealed, endpoint.createdBy,
                    date.timeIntervalSince1970,
                ])
            return WebhookEndpoint(
                id: db.lastInsertedRowID, integrationID: endpoint.integrationID, url: endpoint.url, events: endpoint.events,
                createdBy: endpoint.createdBy, createdAt: date, failingSince: nil, disabledAt: nil)
        }
    }

    public func webhookEndpoints(integrationID: UserID?) async throws -> [WebhookEndpoint] {
        try read { db in
            try Row.fetchAll(
                db, sql: "SELECT * FROM webhook_endpoint WHERE ? IS NULL OR integration_id = ? ORDER BY id",
                arguments: [integrationID, integrationID]
            ).map(self.webhookEndpoint)
        }
    }

    public func webhookEndpoint(id: Int64) async throws -> WebhookEndpoint? {
        try read { db in
            try Row.fetchOne(db, sql: "SELECT * FROM webhook_endpoint WHERE id = ?", arguments: [id]).map(self.webhookEndpoint)
        }
    }

    public func deleteWebhookEndpoint(id: Int64) async throws -> Bool {
        try await commits.write { db in
            try db.execute(sql: "DELETE FROM webhook_endpoint WHERE id = ?", arguments: [id])
            return db.changesCount > 0
        }
    }

    public func queueWebhookEvents(_ events: [NewWebhookEvent], at date: Date) async throws {
        guard !events.isEmpty else { return }
        try await commits.write { db in try self.queueWebhookEvents(events, at: date, db: db) }
    }

    /// The endpoints new events are queued for: on, of an integration whose token is not revoked.
    static let listeningEndpoints =
        "webhook_endpoint e JOIN user u ON u.id = e.integration_id WHERE e.disabled_at IS NULL AND u.deactivated_at IS NULL"

    /// Queues `events` inside the caller's transaction, one delivery per endpoint that is on and wants each type.
    /// One small read when no endpoint wants any of them.
    func queueWebhookEvents(_ events: [NewWebhookEvent], at date: Date, db: Database) throws {
        guard !events.isEmpty else { return }
        let endpoints = try Row.fetchAll(db, sql: "SELECT e.id, e.events FROM \(Self.listeningEndpoints) ORDER BY e.id")
        guard !endpoints.isEmpty else { return }
        let wanted = endpoints.map { (id: $0["id"] as Int64, events: WebhookEndpoint.events(stored: $0["events"])) }
        for event in events {
            let takers = wanted.filter { $0.events.contains(event.type) }
            guard !takers.isEmpty else { continue }
            let messageID = event.messageID ?? NewWebhookEvent.newMessageID()
            let body = String(decoding: event.body(at: date), as: UTF8.self)
            for taker in takers {
                try db.execute(
                    sql: """
                        INSERT INTO webhook_delivery (endpoint_id, message_id, type, contact_id, body, created_at, next_attempt_at)
                        VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (endpoint_id, message_id) DO NOTHING
                        """,
                    arguments: [
                        taker.id, messageID, event.type.rawValue, event.contactID, body, date.timeIntervalSince1970,
                        date.timeIntervalSince1970,
                    ])
            }
        }
    }

    /// Whether an endpoint that is on wants `type`: a change that would have to read more to describe its event
    /// asks first.
    func wantsWebhookEvent(_ type: WebhookEventType, db: Database) throws -> Bool {
        try Row.fetchAll(db, sql: "SELECT e.events FROM \(Self.listeningEndpoints)").contains {
            WebhookEndpoint.events(stored: $0["events"]).contains(type)
        }
    }

    public func claimDueWebhookDeliveries(at date: Date, limit: Int, leaseUntil: Date) async throws -> [ClaimedWebhook] {
        // Most rounds find nothing: a read says so without a write transaction, which every second would cost a
        // commit, and which on a full disk would commit (it changes nothing) and so end the outage it is in.
        let anyDue = try read { db in
            try Bool.fetchOne(
                db, sql: "SELECT EXISTS (SELECT 1 FROM webhook_delivery WHERE ended_at IS NULL AND next_attempt_at <= ?)",
                arguments: [date.timeIntervalSince1970]) ?? false
        }
        guard anyDue else { return [] }
        return try await commits.write { db in
            // An assignment's later event waits while an earlier one to the same endpoint is unfinished.
            let rows = try Row.fetchAll(
                db,
                sql: """
                    SELECT d.* FROM webhook_delivery d JOIN webhook_endpoint e ON e.id = d.endpoint_id
                    WHERE d.ended_at IS NULL AND d.next_attempt_at <= ? AND e.disabled_at IS NULL
                      AND (d.contact_id IS NULL OR NOT EXISTS (
                          SELECT 1 FROM webhook_delivery p WHERE p.endpoint_id = d.endpoint_id AND p.contact_id = d.contact_id
                             AND p.id < d.id AND p.ended_at IS NULL))
                    ORDER BY d.next_attempt_at, d.id LIMIT ?
                    """, arguments: [date.timeIntervalSince1970, limit])
            var claimed: [ClaimedWebhook] = []
            var endpoints: [Int64: (WebhookEndpoint, Data)] = [:]
            for row in rows {
                let delivery = try Self.webhookDelivery(row)
                try db.execute(
                    sql: "UPDATE webhook_delivery SET next_attempt_at = ? WHERE id = ?", arguments: [leaseUntil.timeIntervalSince1970, delivery.id])
                if endpoints[delivery.endpointID] == nil,
                    let row = try Row.fetchOne(db, sql: "SELECT * FROM webhook_endpoint WHERE id = ?", arguments: [delivery.endpointID])
                {
                    endpoints[delivery.endpointID] = (try self.webhookEndpoint(row), try self.webhookSecret(row["secret"]))
                }
                if let (endpoint, secret) = endpoints[delivery.endpointID] {
                    claimed.append(ClaimedWebhook(delivery: delivery, endpoint: endpoint, secret: secret))
                }
            }
            return claimed
        }
    }

    public func recordWebhookAttempt(id: Int64, _ record: WebhookAttemptRecord, at date: Date) async throws {
        try await commits.write { db in
            let seconds = date.timeIntervalSince1970
            switch record {
            case let .delivered(status):
                try db.execute(
                    sql: """
                        UPDATE webhook_delivery SET attempts = attempts + 1, ended_at = ?, outcome = ?, last_status = ?, last_error = NULL
                        WHERE id = ? AND ended_at IS NULL
                        """, arguments: [seconds, WebhookDeliveryOutcome.delivered.rawValue, status, id])
                guard db.changesCount > 0 else { return }
                try db.execute(
                    sql: "UPDATE webhook_endpoint SET failing_since = NULL WHERE id = (SELECT endpoint_id FROM webhook_delivery WHERE id = ?)",
                    arguments: [id])
            case let .failed(status, error, next):
                try db.execute(
                    sql: """
                        UPDATE webhook_delivery SET attempts = attempts + 1, next_attempt_at = ?, last_status = ?, last_error = ?
                        WHERE id = ? AND ended_at IS NULL
                        """, arguments: [next.timeIntervalSince1970, status, error, id])
                guard db.changesCount > 0 else { return }
                try db.execute(
                    sql: """
                        UPDATE webhook_endpoint SET failing_since = coalesce(failing_since, ?)
                        WHERE id = (SELECT endpoint_id FROM webhook_delivery WHERE id = ?)
                        """, arguments: [seconds, id])
            case let .released(next):
                try db.execute(
                    sql: "UPDATE webhook_delivery SET next_attempt_at = ? WHERE id = ? AND ended_at IS NULL",
                    arguments: [next.timeIntervalSince1970, id])
            }
        }
    }

    public func disableWebhookEndpoint(id: Int64, at date: Date) async throws -> Bool {
        try await commits.write { db in
            try db.execute(
                sql: "UPDATE webhook_endpoint SET disabled_at = ? WHERE id = ? AND disabled_at IS NULL", arguments: [date.timeIntervalSince1970, id])
            guard db.changesCount > 0 else { return false }
            try db.execute(
                sql: "UPDATE webhook_delivery SET ended_at = ?, outcome = ? WHERE endpoint_id = ? AND ended_at IS NULL",
                arguments: [date.timeIntervalSince1970, WebhookDeliveryOutcome.dropped.rawValue, id])
            return true
        }
    }

    public func webhookDeliveries(endpointID: Int64, limit: Int) async throws -> [WebhookDelivery] {
        try read { db in
            try Row.fetchAll(
                db, sql: "SELECT * FROM webhook_delivery WHERE endpoint_id = ? ORDER BY id DESC LIMIT ?", arguments: [endpointID, limit]
            ).map(Self.webhookDelivery)
        }
    }

    public func pruneWebhookDeliveries(before date: Date) async throws -> Int {
        try await commits.write { db in
            try db.execute(sql: "DELETE FROM webhook_delivery WHERE ended_at < ?", arguments: [date.timeIntervalSince1970])
            return db.changesCount
        }
    }

    private func webhookSecret(_ stored: String) throws -> Data {
        guard let secret = Data(base64Encoded: try sealer.open(stored, field: .webhookSecret)) else {
            throw StoreError.unknownStoredValue(column: "webhook_endpoint.secret")
        }
        return secret
    }

    private func webhookEndpoint(_ row: Row) throws -> WebhookEndpoint {
        WebhookEndpoint(
            id: row["id"], integrationID: row["integration_id"], url: row["url"], events: WebhookEndpoint.events(stored: row["events"]),
            createdBy: row["created_by"], createdAt: Self.date(row["created_at"]),
            failingSince: (row["failing_since"] as Double?).map(Self.date), disabledAt: (row["disabled_at"] as Double?).map(Self.date))
    }

    private static func webhookDelivery(_ row: Row) throws -> WebhookDelivery {
        guard let type = WebhookEventType(rawValue: row["type"]) else { throw StoreError.unknownStoredValue(column: "webhook_delivery.type") }
        return WebhookDelivery(
            id: row["id"], endpointID: row["endpoint_id"], messageID: row["message_id"], type: type, contactID: row["contact_id"],
            body: Data((row["body"] as String).utf8), createdAt: date(row["created_at"]), attempts: row["attempts"],
            nextAttemptAt: date(row["next_attempt_at"]), endedAt: (row["ended_at"] as Double?).map(date),
            outcome: (row["outcome"] as String?).flatMap(WebhookDeliveryOutcome.init(rawValue:)), lastStatus: row["last_status"],
            lastError: row["last_error"])
    }
}
