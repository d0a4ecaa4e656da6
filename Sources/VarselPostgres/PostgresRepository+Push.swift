import Foundation
import PostgresNIO
import VarselCore
import VarselStore

/// Web Push in the PostgreSQL store. Claiming due pushes uses `FOR UPDATE SKIP LOCKED`, so instances sharing the
/// database never take the same one; the outbox cursor moves by compare-and-set, so each event is queued once.
extension PostgresRepository {
    public func vapidPrivateKey(orStore candidate: Data) async throws -> Data {
        try await write { c in
            try await c.query("INSERT INTO vapid_key (id, private_key) VALUES (1, \(candidate)) ON CONFLICT (id) DO NOTHING", logger: self.logger)
            return try await Self.one(c.query("SELECT private_key FROM vapid_key WHERE id = 1", logger: self.logger)).decode(Data.self)
        }
    }

    public func savePushSubscription(_ new: NewPushSubscription, at date: Date) async throws -> PushSubscription {
        try await write { c in
            try await c.query("DELETE FROM push_subscription WHERE endpoint = \(new.endpoint)", logger: self.logger)
            let id = try await Self.one(
                c.query(
                    """
                    INSERT INTO push_subscription (user_id, session_token_hash, endpoint, p256dh, auth, action_secret, created_at, device_name)
                    VALUES (\(new.userID), \(new.sessionTokenHash), \(new.endpoint), \(new.p256dh), \(new.auth), \(new.actionSecret),
                            \(date.timeIntervalSince1970), \(new.deviceName))
                    RETURNING id
                    """, logger: self.logger)
            ).decode(Int64.self)
            return PushSubscription(
                id: id, userID: new.userID, sessionTokenHash: new.sessionTokenHash, endpoint: new.endpoint,
                p256dh: new.p256dh, auth: new.auth, actionSecret: new.actionSecret, createdAt: date)
        }
    }

    static let subscriptionColumns = "s.id, s.user_id, s.session_token_hash, s.endpoint, s.p256dh, s.auth, s.action_secret, s.created_at"

    static func subscription(_ row: PostgresRow) throws -> PushSubscription {
        let (id, userID, session, endpoint, p256dh, auth, secret, created) =
            try row.decode((Int64, UserID, String, String, Data, Data, Data, Double).self)
        return PushSubscription(
            id: id, userID: userID, sessionTokenHash: session, endpoint: endpoint, p256dh: p256dh, auth: auth,
            actionSecret: secret, createdAt: date(created))
    }

    public func pushSubscription(id: Int64) async throws -> PushSubscription? {
        try await read { c in
            try await Self.first(
                c.query(
                    "SELECT \(unescaped: Self.subscriptionColumns) FROM push_subscription s WHERE s.id = \(id)",
                    logger: self.logger)
            ).map(Self.subscription)
        }
    }

    public func pushSubscriptions(for userID: UserID) async throws -> [PushSubscription] {
        try await read { c in
            try await c.query(
                "SELECT \(unescaped: Self.subscriptionColumns) FROM push_subscription s WHERE s.user_id = \(userID) ORDER BY s.id",
                logger: self.logger
            ).collect().map(Self.subscription)
        }
    }

    public func pushSubscriptions(forAnyOf userIDs: Set<UserID>) async throws -> [PushSubscription] {
        guard !userIDs.isEmpty else { return [] }
        let ids = Array(userIDs)
        return try await read { c in
            try await c.query(
                "SELECT \(unescaped: Self.subscriptionColumns) FROM push_subscription s WHERE s.user_id = ANY(\(ids)) AND s.revoked_at IS NULL ORDER BY s.id",
                logger: self.logger
            ).collect().map(Self.subscription)
        }
    }

    public func deletePushSubscription(id: Int64, userID: UserID?) async throws -> Bool {
        try await write { c in
            try await !c.query(
                """
                DELETE FROM push_subscription WHERE id = \(id) AND (\(userID)::BIGINT IS NULL OR user_id = \(userID)) RETURNING id
                """, logger: self.logger
            ).collect().isEmpty
        }
    }

    public func pushOutboxCursor() async throws -> Int64? {
        try await read { c in
            try await Self.first(c.query("SELECT value FROM meta WHERE key = 'push_outbox_cursor'", logger: self.logger))?.decode(Int64.self)
        }
    }

    public func enqueuePushDeliveries(_ deliveries: [NewPushDelivery], after expectedCursor: Int64?, through eventID: Int64, at date: Date)
        async throws -> Bool
    {
        try await write { c in
            // Serializes instances moving the cursor: the second finds it moved and queues nothing.
            try await c.query("SELECT pg_advisory_xact_lock(\(Self.outboxLock))", logger: self.logger)
            let cursor = try await Self.first(c.query("SELECT value FROM meta WHERE key = 'push_outbox_cursor'", logger: self.logger))?
                .decode(Int64.self)
            guard cursor == expectedCursor else { return false }
            for delivery in deliveries {
                try await c.query(
                    """
                    INSERT INTO push_delivery (subscription_id, notification_id, enqueued_at, next_attempt_at)
                    SELECT id, \(delivery.notificationID), \(date.timeIntervalSince1970), \(date.timeIntervalSince1970)
                    FROM push_subscription WHERE id = \(delivery.subscriptionID)
                    """, logger: self.logger)
            }
            try await c.query(
                """
                INSERT INTO meta (key, value) VALUES ('push_outbox_cursor', \(eventID))
                ON CONFLICT (key) DO UPDATE SET value = GREATEST(meta.value, excluded.value)
                """, logger: self.logger)
            return true
        }
    }

    /// The advisory lock that orders moves of the push outbox's cursor.
    static let outboxLock: Int64 = 0x7661_7273_656C_0003

    public func claimDuePushDeliveries(at date: Date, limit: Int, leaseUntil: Date) async throws -> [PushDelivery] {
        try await write { c in
            try await c.query(
                """
                WITH due AS (
                    SELECT id FROM push_delivery WHERE next_attempt_at <= \(date.timeIntervalSince1970)
                    ORDER BY next_attempt_at, id LIMIT \(Int64(limit)) FOR UPDATE SKIP LOCKED
                ), claimed AS (
                    UPDATE push_delivery d SET next_attempt_at = \(leaseUntil.timeIntervalSince1970) FROM due WHERE d.id = due.id
                    RETURNING d.id, d.subscription_id, d.notification_id, d.attempts, d.enqueued_at, d.kind
                )
                SELECT \(unescaped: Self.subscriptionColumns), claimed.id, claimed.notification_id, claimed.attempts, claimed.enqueued_at,
                       claimed.kind
                FROM claimed JOIN push_subscription s ON s.id = claimed.subscription_id
                WHERE s.revoked_at IS NULL
                ORDER BY claimed.id
                """, logger: self.logger
            ).collect().map { row in
                let columns = try row.decode(
                    (Int64, UserID, String, String, Data, Data, Data, Double, Int64, NotificationID, Int32, Double, String).self)
                let subscription = PushSubscription(
                    id: columns.0, userID: columns.1, sessionTokenHash: columns.2, endpoint: columns.3,
                    p256dh: columns.4, auth: columns.5, actionSecret: columns.6, createdAt: Self.date(columns.7))
                return PushDelivery(
                    id: columns.8, subscription: subscription, notificationID: columns.9, attempts: Int(columns.10),
                    enqueuedAt: Self.date(columns.11), nextAttemptAt: leaseUntil, isWithdrawal: columns.12 == "withdraw")
            }
        }
    }

    public func nextPushDeliveryDate() async throws -> Date? {
        try await read { c in
            try await Self.one(c.query("SELECT MIN(next_attempt_at) FROM push_delivery", logger: self.logger)).decode(Double?.self).map(Self.date)
        }
    }

    public func reschedulePushDelivery(id: Int64, attempts: Int, at date: Date) async throws {
        try await write { c in
            try await c.query(
                """
                UPDATE push_delivery SET attempts = \(Int32(attempts)), next_attempt_at = \(date.timeIntervalSince1970) WHERE id = \(id)
                """, logger: self.logger)
        }
    }

    public func finishPushDelivery(id: Int64) async throws {
        try await write { c in try await c.query("DELETE FROM push_delivery WHERE id = \(id)", logger: self.logger) }
    }

    /// Queues the withdrawal of `notificationID` to every device its push was accepted for, and drops its pushes not
    /// sent yet: part of the transaction that took the notification from its person.
    func queuePushWithdrawal(notificationID: NotificationID, at date: Date, _ c: PostgresConnection) async throws {
        try await c.query("DELETE FROM push_delivery WHERE notification_id = \(notificationID)", logger: self.logger)
        try await c.query(
            """
            INSERT INTO push_delivery (subscription_id, notification_id, enqueued_at, next_attempt_at, kind)
            SELECT p.subscription_id, p.notification_id, \(date.timeIntervalSince1970), \(date.timeIntervalSince1970), 'withdraw'
            FROM push_sent p JOIN push_subscription s ON s.id = p.subscription_id
            WHERE p.notification_id = \(notificationID) AND s.revoked_at IS NULL
            """, logger: self.logger)
    }

    public func recordPushAccepted(subscriptionID: Int64, notificationID: NotificationID, at date: Date) async throws {
        try await write { c in
            let inserted = try await c.query(
                """
                INSERT INTO push_sent (subscription_id, notification_id, accepted_at)
                SELECT id, \(notificationID), \(date.timeIntervalSince1970) FROM push_subscription WHERE id = \(subscriptionID)
                ON CONFLICT DO NOTHING RETURNING subscription_id
                """, logger: self.logger
            ).collect()
            guard !inserted.isEmpty else { return }
            try await c.query(
                """
                UPDATE push_subscription SET last_accepted_at = \(date.timeIntervalSince1970), unshown_count = unshown_count + 1,
                    first_unshown_at = COALESCE(first_unshown_at, \(date.timeIntervalSince1970))
                WHERE id = \(subscriptionID)
                """, logger: self.logger)
        }
    }

    public func recordPushShown(subscriptionID: Int64, notificationID: NotificationID, at date: Date) async throws -> PushReceiptOutcome {
        try await write { c in
            let time = date.timeIntervalSince1970
            // Shown now unless shown before. Where the device's report came before the push service's answer, the
            // push was accepted, at the latest now, and its acceptance recorded afterwards changes nothing.
            let recorded = try await c.query(
                """
                INSERT INTO push_sent (subscription_id, notification_id, accepted_at, shown_at)
                SELECT id, \(notificationID), \(time), \(time) FROM push_subscription WHERE id = \(subscriptionID)
                ON CONFLICT (subscription_id, notification_id) DO UPDATE SET shown_at = excluded.shown_at
                WHERE push_sent.shown_at IS NULL
                RETURNING accepted_at
                """, logger: self.logger
            ).collect()
            guard let row = recorded.first else {
                let sent = try await Self.first(
                    c.query(
                        "SELECT 1 FROM push_sent WHERE subscription_id = \(subscriptionID) AND notification_id = \(notificationID)",
                        logger: self.logger))
                return sent == nil ? .unknown : .repeated
            }
            let acceptedAt = try row.decode(Double.self)
            // Shown: every push before it counts as delivered, so nothing is unconfirmed any more.
            try await c.query(
                """
                UPDATE push_subscription SET last_shown_at = GREATEST(COALESCE(last_shown_at, 0), \(time)),
                    last_accepted_at = GREATEST(COALESCE(last_accepted_at, 0), \(acceptedAt)), unshown_count = 0, first_unshown_at = NULL
                WHERE id = \(subscriptionID)
                """, logger: self.logger)
            return .recorded
        }
    }

    public func revokePushSubscription(id: Int64, at date: Date) async throws {
        try await write { c in
            try await c.query(
                "UPDATE push_subscription SET revoked_at = COALESCE(revoked_at, \(date.timeIntervalSince1970)) WHERE id = \(id)",
                logger: self.logger)
            try await c.query("DELETE FROM push_delivery WHERE subscription_id = \(id)", logger: self.logger)
        }
    }

    public func pushDevices(forAnyOf userIDs: Set<UserID>) async throws -> [PushDevice] {
        guard !userIDs.isEmpty else { return [] }
        let ids = Array(userIDs)
        return try await read { c in
            try await c.query(
                """
                SELECT id, user_id, device_name, created_at, last_accepted_at, last_shown_at, first_unshown_at, unshown_count, revoked_at
                FROM push_subscription WHERE user_id = ANY(\(ids)) ORDER BY id
                """, logger: self.logger
            ).collect().map { row in
                let (id, userID, name, created, accepted, shown, firstUnshown, unshown, revoked) =
                    try row.decode((Int64, UserID, String, Double, Double?, Double?, Double?, Int32, Double?).self)
                return PushDevice(
                    id: id, userID: userID,
                    status: PushDeviceStatus(
                        name: name, createdAt: Self.date(created), lastAcceptedAt: accepted.map(Self.date), lastShownAt: shown.map(Self.date),
                        firstUnshownAt: firstUnshown.map(Self.date), unshownCount: Int(unshown), revokedAt: revoked.map(Self.date)))
            }
        }
    }
}
