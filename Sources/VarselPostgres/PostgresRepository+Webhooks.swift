import Foundation
import PostgresNIO
import VarselCore
import VarselStore

/// Integrations' webhook endpoints and the outbox of their deliveries.
extension PostgresRepository {
    static let webhookEndpointColumns = "id, integration_id, url, events, secret, created_by, created_at, failing_since, disabled_at"
    static let webhookDeliveryColumns = """
        id, endpoint_id, message_id, type, contact_id, body, created_at, attempts, next_attempt_at, ended_at, outcome, last_status, last_error
        """

    public func createWebhookEndpoint(_ endpoint: NewWebhookEndpoint, at date: Date) async throws -> WebhookEndpoint {
        let sealed = sealer.seal(endpoint.secret.base64EncodedString(), field: .webhookSecret)
        let id = try await write { c in
            try await Self.one(
                c.query(
                    """
                    INSERT INTO webhook_endpoint (integration_id, url, events, secret, created_by, created_at)
                    VALUES (\(endpoint.integrationID), \(endpoint.url), \(WebhookEndpoint.storedEvents(endpoint.events)), \(sealed),
                            \(endpoint.createdBy), \(date.timeIntervalSince1970))
                    RETURNING id
                    """, logger: self.logger)
            ).decode(Int64.self)
        }
        return WebhookEndpoint(
            id: id, integrationID: endpoint.integrationID, url: endpoint.url, events: endpoint.events, createdBy: endpoint.createdBy, createdAt: date,
            failingSince: nil, disabledAt: nil)
    }

    public func webhookEndpoints(integrationID: UserID?) async throws -> [WebhookEndpoint] {
        try await read { c in
            try await c.query(
                """
                SELECT \(unescaped: Self.webhookEndpointColumns) FROM webhook_endpoint
                WHERE \(integrationID)::BIGINT IS NULL OR integration_id = \(integrationID) ORDER BY id
                """, logger: self.logger
            ).collect().map(self.webhookEndpoint)
        }
    }

    public func webhookEndpoint(id: Int64) async throws -> WebhookEndpoint? {
        try await read { c in
            try await Self.first(
                c.query("SELECT \(unescaped: Self.webhookEndpointColumns) FROM webhook_endpoint WHERE id = \(id)", logger: self.logger)
            ).map(self.webhookEndpoint)
        }
    }

    public func deleteWebhookEndpoint(id: Int64) async throws -> Bool {
        try await write { c in
            try await !c.query("DELETE FROM webhook_endpoint WHERE id = \(id) RETURNING id", logger: self.logger).collect().isEmpty
        }
    }

    public func queueWebhookEvents(_ events: [NewWebhookEvent], at date: Date) async throws {
        guard !events.isEmpty else { return }
        try await write { c in try await self.queueWebhookEvents(events, at: date, c) }
    }

    /// The endpoints new events are queued for: on, of an integration whose token is not revoked.
    static let listeningEndpoints =
        "webhook_endpoint e JOIN users u ON u.id = e.integration_id WHERE e.disabled_at IS NULL AND u.deactivated_at IS NULL"

    /// Queues `events` inside the caller's transaction, one delivery per endpoint that is on and wants each type.
    /// One small read when no endpoint wants any of them.
    func queueWebhookEvents(_ events: [NewWebhookEvent], at date: Date, _ c: PostgresConnection) async throws {
        guard !events.isEmpty else { return }
        let wanted = try await c.query("SELECT e.id, e.events FROM \(unescaped: Self.listeningEndpoints) ORDER BY e.id", logger: logger)
            .collect().map { row in
                let (id, events) = try row.decode((Int64, String).self)
                return (id: id, events: WebhookEndpoint.events(stored: events))
            }
        guard !wanted.isEmpty else { return }
        for event in events {
            let takers = wanted.filter { $0.events.contains(event.type) }.map(\.id)
            guard !takers.isEmpty else { continue }
            let body = String(decoding: event.body(at: date), as: UTF8.self)
            try await c.query(
                """
                INSERT INTO webhook_delivery (endpoint_id, message_id, type, contact_id, body, created_at, next_attempt_at)
                SELECT endpoint, \(event.messageID ?? NewWebhookEvent.newMessageID()), \(event.type.rawValue), \(event.contactID), \(body),
                       \(date.timeIntervalSince1970), \(date.timeIntervalSince1970)
                FROM unnest(\(takers)::BIGINT[]) AS endpoint
                ON CONFLICT (endpoint_id, message_id) DO NOTHING
                """, logger: logger)
        }
    }

    /// Whether an endpoint that is on wants `type`: a change that would have to read more to describe its event
    /// asks first.
    func wantsWebhookEvent(_ type: WebhookEventType, _ c: PostgresConnection) async throws -> Bool {
        try await c.query("SELECT e.events FROM \(unescaped: Self.listeningEndpoints)", logger: logger).collect().contains {
            WebhookEndpoint.events(stored: try $0.decode(String.self)).contains(type)
        }
    }

    public func claimDueWebhookDeliveries(at date: Date, limit: Int, leaseUntil: Date) async throws -> [ClaimedWebhook] {
        // Most rounds find nothing: a read says so without a write transaction (and without ending an outage that a
        // write which changes nothing would get through).
        let anyDue = try await read { c in
            try await Self.one(
                c.query(
                    "SELECT EXISTS (SELECT 1 FROM webhook_delivery WHERE ended_at IS NULL AND next_attempt_at <= \(date.timeIntervalSince1970))",
                    logger: self.logger)
            ).decode(Bool.self)
        }
        guard anyDue else { return [] }
        let claimed: [ClaimedWebhook] = try await write { c in
            // A contact's later event waits while an earlier one to the same endpoint is unfinished (or claimed by
            // another instance: its row is locked, and it is still unfinished).
            let deliveries = try await c.query(
                """
                WITH due AS (
                    SELECT d.id FROM webhook_delivery d JOIN webhook_endpoint e ON e.id = d.endpoint_id
                    WHERE d.ended_at IS NULL AND d.next_attempt_at <= \(date.timeIntervalSince1970) AND e.disabled_at IS NULL
                      AND (d.contact_id IS NULL OR NOT EXISTS (
                          SELECT 1 FROM webhook_delivery p WHERE p.endpoint_id = d.endpoint_id AND p.contact_id = d.contact_id
                             AND p.id < d.id AND p.ended_at IS NULL))
                    ORDER BY d.next_attempt_at, d.id LIMIT \(Int64(limit)) FOR UPDATE OF d SKIP LOCKED
                )
                UPDATE webhook_delivery w SET next_attempt_at = \(leaseUntil.timeIntervalSince1970) FROM due WHERE w.id = due.id
                RETURNING \(unescaped: Self.webhookDeliveryColumns.split(separator: ",").map { "w." + $0.trimmingCharacters(in: .whitespacesAndNewlines) }.joined(separator: ", "))
                """, logger: self.logger
            ).collect().map(Self.webhookDelivery)
            guard !deliveries.isEmpty else { return [] }
            let endpointIDs = Array(Set(deliveries.map(\.endpointID)))
            let endpoints = Dictionary(
                uniqueKeysWithValues: try await c.query(
                    "SELECT \(unescaped: Self.webhookEndpointColumns) FROM webhook_endpoint WHERE id = ANY(\(endpointIDs))", logger: self.logger
                ).collect().map { row in
                    let endpoint = try self.webhookEndpoint(row)
                    return (endpoint.id, (endpoint, try self.webhookSecret(row)))
                })
            return deliveries.compactMap { delivery in
                endpoints[delivery.endpointID].map { ClaimedWebhook(delivery: delivery, endpoint: $0.0, secret: $0.1) }
            }
        }
        return claimed.sorted { $0.delivery.id < $1.delivery.id }
    }

    public func recordWebhookAttempt(id: Int64, _ record: WebhookAttemptRecord, at date: Date) async throws {
        try await write { c in
            let seconds = date.timeIntervalSince1970
            switch record {
            case let .delivered(status):
                let ended = try await c.query(
                    """
                    UPDATE webhook_delivery SET attempts = attempts + 1, ended_at = \(seconds), outcome = \(WebhookDeliveryOutcome.delivered.rawValue),
                        last_status = \(Int32(status)), last_error = NULL
                    WHERE id = \(id) AND ended_at IS NULL RETURNING endpoint_id
                    """, logger: self.logger
                ).collect()
                guard let endpoint = try ended.first?.decode(Int64.self) else { return }
                try await c.query("UPDATE webhook_endpoint SET failing_since = NULL WHERE id = \(endpoint)", logger: self.logger)
            case let .failed(status, error, next):
                let failed = try await c.query(
                    """
                    UPDATE webhook_delivery SET attempts = attempts + 1, next_attempt_at = \(next.timeIntervalSince1970),
                        last_status = \(status.map(Int32.init)), last_error = \(error)
                    WHERE id = \(id) AND ended_at IS NULL RETURNING endpoint_id
                    """, logger: self.logger
                ).collect()
                guard let endpoint = try failed.first?.decode(Int64.self) else { return }
                try await c.query(
                    "UPDATE webhook_endpoint SET failing_since = coalesce(failing_since, \(seconds)) WHERE id = \(endpoint)", logger: self.logger)
            case let .released(next):
                try await c.query(
                    "UPDATE webhook_delivery SET next_attempt_at = \(next.timeIntervalSince1970) WHERE id = \(id) AND ended_at IS NULL",
                    logger: self.logger)
            }
        }
    }

    public func disableWebhookEndpoint(id: Int64, at date: Date) async throws -> Bool {
        try await write { c in
            let disabled = try await c.query(
                "UPDATE webhook_endpoint SET disabled_at = \(date.timeIntervalSince1970) WHERE id = \(id) AND disabled_at IS NULL RETURNING id",
                logger: self.logger
            ).collect()
            guard !disabled.isEmpty else { return false }
            try await c.query(
                """
                UPDATE webhook_delivery SET ended_at = \(date.timeIntervalSince1970), outcome = \(WebhookDeliveryOutcome.dropped.rawValue)
                WHERE endpoint_id = \(id) AND ended_at IS NULL
                """, logger: self.logger)
            return true
        }
    }

    public func webhookDeliveries(endpointID: Int64, limit: Int) async throws -> [WebhookDelivery] {
        try await read { c in
            try await c.query(
                """
                SELECT \(unescaped: Self.webhookDeliveryColumns) FROM webhook_delivery WHERE endpoint_id = \(endpointID)
                ORDER BY id DESC LIMIT \(Int64(limit))
                """, logger: self.logger
            ).collect().map(Self.webhookDelivery)
        }
    }

    public func pruneWebhookDeliveries(before date: Date) async throws -> Int {
        try await write { c in
            try await c.query("DELETE FROM webhook_delivery WHERE ended_at < \(date.timeIntervalSince1970) RETURNING id", logger: self.logger)
                .collect().count
        }
    }

    func webhookEndpoint(_ row: PostgresRow) throws -> WebhookEndpoint {
        let (id, integration, url, events, _, createdBy, createdAt, failingSince, disabledAt) = try row.decode(
            (Int64, UserID, String, String, String, UserID?, Double, Double?, Double?).self)
        return WebhookEndpoint(
            id: id, integrationID: integration, url: url, events: WebhookEndpoint.events(stored: events), createdBy: createdBy,
            createdAt: Self.date(createdAt), failingSince: failingSince.map(Self.date), disabledAt: disabledAt.map(Self.date))
    }

    /// The signing key of an endpoint row (``webhookEndpointColumns``), opened with the data key.
    func webhookSecret(_ row: PostgresRow) throws -> Data {
        let sealed = try row.decode((Int64, UserID, String, String, String, UserID?, Double, Double?, Double?).self).4
        guard let secret = Data(base64Encoded: try sealer.open(sealed, field: .webhookSecret)) else {
            throw StoreError.unknownStoredValue(column: "webhook_endpoint.secret")
        }
        return secret
    }

    static func webhookDelivery(_ row: PostgresRow) throws -> WebhookDelivery {
        let (id, endpoint, message, type, contact, body, created, attempts, next, ended, outcome, status, error) = try row.decode(
            (Int64, Int64, String, String, ContactID?, String, Double, Int32, Double, Double?, String?, Int32?, String?).self)
        guard let type = WebhookEventType(rawValue: type) else { throw StoreError.unknownStoredValue(column: "webhook_delivery.type") }
        return WebhookDelivery(
            id: id, endpointID: endpoint, messageID: message, type: type, contactID: contact, body: Data(body.utf8), createdAt: date(created),
            attempts: Int(attempts), nextAttemptAt: date(next), endedAt: ended.map(date),
            outcome: outcome.flatMap(WebhookDeliveryOutcome.init(rawValue:)), lastStatus: status.map(Int.init), lastError: error)
    }
}
