import Foundation
import GRDB
import VarselCore
import VarselStore

/// Web Push in the SQLite store: the VAPID key, subscriptions (deleted with their session by a foreign key),
/// and the push outbox with its cursor in `meta`.
extension SQLiteRepository {
    public func vapidPrivateKey(orStore candidate: Data) async throws -> Data {
        try await commits.write { db in
            try db.execute(sql: "INSERT OR IGNORE INTO vapid_key (id, private_key) VALUES (1, ?)", arguments: [candidate])
            guard let kept = try Data.fetchOne(db, sql: "SELECT private_key FROM vapid_key WHERE id = 1") else {
                throw StoreError.unknownStoredValue(column: "vapid_key.private_key")
            }
            return kept
        }
    }

    public func savePushSubscription(_ new: NewPushSubscription, at date: Date) async throws -> PushSubscription {
        try await commits.write { db in
            try db.execute(sql: "DELETE FROM push_subscription WHERE endpoint = ?", arguments: [new.endpoint])
            try db.execute(
                sql: """
                    INSERT INTO push_subscription (user_id, session_token_hash, endpoint, p256dh, auth, action_secret, created_at, device_name)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: [
                    new.userID, new.sessionTokenHash, new.endpoint, new.p256dh, new.auth, new.actionSecret,
                    date.timeIntervalSince1970, new.deviceName,
                ])
            return PushSubscription(
                id: db.lastInsertedRowID, userID: new.userID, sessionTokenHash: new.sessionTokenHash,
                endpoint: new.endpoint, p256dh: new.p256dh, auth: new.auth, actionSecret: new.actionSecret,
                createdAt: date)
        }
    }

    public func pushSubscription(id: Int64) async throws -> PushSubscription? {
        try read { db in
            try Row.fetchOne(db, sql: "SELECT * FROM push_subscription WHERE id = ?", arguments: [id]).map(Self.pushSubscription)
        }
    }

    public func pushSubscriptions(for userID: UserID) async throws -> [PushSubscription] {
        try read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM push_subscription WHERE user_id = ? ORDER BY id", arguments: [userID])
                .map(Self.pushSubscription)
        }
    }

    public func pushSubscriptions(forAnyOf userIDs: Set<UserID>) async throws -> [PushSubscription] {
        guard !userIDs.isEmpty else { return [] }
        return try read { db in
            let placeholders = Array(repeating: "?", count: userIDs.count).joined(separator: ",")
            return try Row.fetchAll(
                db,
                sql: """
                    SELECT * FROM push_subscription WHERE user_id IN (\(placeholders)) AND revoked_at IS NULL ORDER BY id
                    """,
                arguments: StatementArguments(Array(userIDs))
            ).map(Self.pushSubscription)
        }
    }

    public func deletePushSubscription(id: Int64, userID: UserID?) async throws -> Bool {
        try await commits.write { db in
            if let userID {
                try db.execute(sql: "DELETE FROM push_subscription WHERE id = ? AND user_id = ?", arguments: [id, userID])
            } else {
                try db.execute(sql: "DELETE FROM push_subscription WHERE id = ?", arguments: [id])
            }
            return db.changesCount > 0
        }
    }

    public func pushOutboxCursor() async throws -> Int64? {
        try read { db in try Int64.fetchOne(db, sql: "SELECT value FROM meta WHERE key = 'push_outbox_cursor'") }
    }

    public func enqueuePushDeliveries(_ deliveries: [NewPushDelivery], after expectedCursor: Int64?, through eventID: Int64, at date: Date)
        async throws -> Bool
    {
        try await commits.write { db in
            let cursor = try Int64.fetchOne(db, sql: "SELECT value FROM meta WHERE key = 'push_outbox_cursor'")
            guard cursor == expectedCursor else { return false }
            for delivery in deliveries {
                try db.execute(
                    sql: """
                        INSERT INTO push_delivery (subscription_id, notification_id, enqueued_at, next_attempt_at)
                        SELECT id, ?, ?, ? FROM push_subscription WHERE id = ?
                        """, arguments: [delivery.notificationID, date.timeIntervalSince1970, date.timeIntervalSince1970, delivery.subscriptionID])
            }
            try db.execute(
                sql: """
                    INSERT INTO meta (key, value) VALUES ('push_outbox_cursor', ?)
                    ON CONFLICT(key) DO UPDATE SET value = MAX(value, excluded.value)
                    """, arguments: [eventID])
            return true
        }
    }

    public func claimDuePushDeliveries(at date: Date, limit: Int, leaseUntil: Date) async throws -> [PushDelivery] {
        try await commits.write { db in
            let due = try Row.fetchAll(
                db,
                sql: """
                    SELECT d.id AS delivery_id, d.notification_id, d.attempts, d.enqueued_at, d.next_attempt_at, d.kind, s.*
                    FROM push_delivery d JOIN push_subscription s ON s.id = d.subscription_id
                    WHERE d.next_attempt_at <= ? AND s.revoked_at IS NULL ORDER BY d.next_attempt_at, d.id LIMIT ?
                    """, arguments: [date.timeIntervalSince1970, limit]
            ).map { row in
                PushDelivery(
                    id: row["delivery_id"], subscription: Self.pushSubscription(row), notificationID: row["notification_id"],
                    attempts: row["attempts"], enqueuedAt: Self.date(row["enqueued_at"]),
                    nextAttemptAt: Self.date(row["next_attempt_at"]), isWithdrawal: (row["kind"] as String) == "withdraw")
            }
            for delivery in due {
                try db.execute(
                    sql: "UPDATE push_delivery SET next_attempt_at = ? WHERE id = ?",
                    arguments: [leaseUntil.timeIntervalSince1970, delivery.id])
            }
            return due
        }
    }

    public func nextPushDeliveryDate() async throws -> Date? {
        try read { db in
            try Double.fetchOne(db, sql: "SELECT MIN(next_attempt_at) FROM push_delivery").map(Self.date)
        }
    }

    public func reschedulePushDelivery(id: Int64, attempts: Int, at date: Date) async throws {
        try await commits.write { db in
            try db.execute(
                sql: "UPDATE push_delivery SET attempts = ?, next_attempt_at = ? WHERE id = ?",
                arguments: [attempts, date.timeIntervalSince1970, id])
        }
    }

    public func finishPushDelivery(id: Int64) async throws {
        try await commits.write { db in try db.execute(sql: "DELETE FROM push_delivery WHERE id = ?", arguments: [id]) }
    }

    public func recordPushAccepted(subscriptionID: Int64, notificationID: NotificationID, at date: Date) async throws {
        try await commits.write { db in
            try db.execute(
                sql: """
                    INSERT OR IGNORE INTO push_sent (subscription_id, notification_id, accepted_at)
                    SELECT id, ?, ? FROM push_subscription WHERE id = ?
                    """, arguments: [notificationID, date.timeIntervalSince1970, subscriptionID])
            guard db.changesCount > 0 else { return }
            try db.execute(
                sql: """
                    UPDATE push_subscription SET last_accepted_at = ?1, unshown_count = unshown_count + 1,
                        first_unshown_at = COALESCE(first_unshown_at, ?1)
                    WHERE id = ?2
                    """, arguments: [date.timeIntervalSince1970, subscriptionID])
        }
    }

    public func recordPushShown(subscriptionID: Int64, notificationID: NotificationID, at date: Date) async throws -> PushReceiptOutcome {
        try await commits.write { db in
            let time = date.timeIntervalSince1970
            if let shown = try Row.fetchOne(
                db, sql: "SELECT shown_at FROM push_sent WHERE subscription_id = ? AND notification_id = ?",
                arguments: [subscriptionID, notificationID])
            {
                guard (shown["shown_at"] as Double?) == nil else { return .repeated }
                try db.execute(
                    sql: "UPDATE push_sent SET shown_at = ? WHERE subscription_id = ? AND notification_id = ?",
                    arguments: [time, subscriptionID, notificationID])
            } else {
                // The device's report came before the push service's answer: the push was accepted, at the latest
                // now, and its acceptance recorded afterwards changes nothing.
                try db.execute(
                    sql: """
                        INSERT INTO push_sent (subscription_id, notification_id, accepted_at, shown_at)
                        SELECT id, ?2, ?3, ?3 FROM push_subscription WHERE id = ?1
                        """, arguments: [subscriptionID, notificationID, time])
                guard db.changesCount > 0 else { return .unknown }
                try db.execute(
                    sql: "UPDATE push_subscription SET last_accepted_at = MAX(COALESCE(last_accepted_at, 0), ?) WHERE id = ?",
                    arguments: [time, subscriptionID])
            }
            // Shown: every push before it counts as delivered, so nothing is unconfirmed any more.
            try db.execute(
                sql: """
                    UPDATE push_subscription SET last_shown_at = MAX(COALESCE(last_shown_at, 0), ?), unshown_count = 0, first_unshown_at = NULL
                    WHERE id = ?
                    """, arguments: [time, subscriptionID])
            return .recorded
        }
    }

    public func revokePushSubscription(id: Int64, at date: Date) async throws {
        try await commits.write { db in
            try db.execute(
                sql: "UPDATE push_subscription SET revoked_at = COALESCE(revoked_at, ?) WHERE id = ?",
                arguments: [date.timeIntervalSince1970, id])
            try db.execute(sql: "DELETE FROM push_delivery WHERE subscription_id = ?", arguments: [id])
        }
    }

    public func pushDevices(forAnyOf userIDs: Set<UserID>) async throws -> [PushDevice] {
        guard !userIDs.isEmpty else { return [] }
        return try read { db in
            let placeholders = Array(repeating: "?", count: userIDs.count).joined(separator: ",")
            return try Row.fetchAll(
                db, sql: "SELECT * FROM push_subscription WHERE user_id IN (\(placeholders)) ORDER BY id",
                arguments: StatementArguments(Array(userIDs))
            ).map { row in
                PushDevice(
                    id: row["id"], userID: row["user_id"],
                    status: PushDeviceStatus(
                        name: row["device_name"], createdAt: Self.date(row["created_at"]),
                        lastAcceptedAt: (row["last_accepted_at"] as Double?).map(Self.date),
                        lastShownAt: (row["last_shown_at"] as Double?).map(Self.date),
                        firstUnshownAt: (row["first_unshown_at"] as Double?).map(Self.date), unshownCount: row["unshown_count"],
                        revokedAt: (row["revoked_at"] as Double?).map(Self.date)))
            }
        }
    }

    /// Queues the withdrawal of `notificationID` to every device its push was accepted for, and drops its pushes not
    /// sent yet: part of the transaction that took the notification from its person.
    func queuePushWithdrawal(notificationID: NotificationID, at date: Date, db: Database) throws {
        try db.execute(sql: "DELETE FROM push_delivery WHERE notification_id = ?", arguments: [notificationID])
        try db.execute(
            sql: """
                INSERT INTO push_delivery (subscription_id, notification_id, enqueued_at, next_attempt_at, kind)
                SELECT p.subscription_id, p.notification_id, ?1, ?1, 'withdraw'
                FROM push_sent p JOIN push_subscription s ON s.id = p.subscription_id
                WHERE p.notification_id = ?2 AND s.revoked_at IS NULL
                """, arguments: [date.timeIntervalSince1970, notificationID])
    }

    private static func pushSubscription(_ row: Row) -> PushSubscription {
        PushSubscription(
            id: row["id"], userID: row["user_id"], sessionTokenHash: row["session_token_hash"], endpoint: row["endpoint"],
            p256dh: row["p256dh"], auth: row["auth"], actionSecret: row["action_secret"], createdAt: date(row["created_at"]))
    }
}
