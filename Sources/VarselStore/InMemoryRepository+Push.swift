import Foundation

/// Web Push's tables in memory, with the SQLite store's foreign keys played by hand.
struct InMemoryPushTables: Sendable {
    var vapidKey: Data?
    var subscriptions: [Int64: PushSubscription] = [:]
    var deliveries: [Int64: PushDelivery] = [:]
    var cursor: Int64?
    var nextSubscriptionID: Int64 = 0
    var nextDeliveryID: Int64 = 0

    /// Removes the subscriptions of ended sessions, and their deliveries.
    mutating func sessionsEnded(_ tokenHashes: [String]) {
        let ended = Set(tokenHashes)
        for subscription in subscriptions.values where ended.contains(subscription.sessionTokenHash) {
            remove(subscription.id)
        }
    }

    mutating func remove(_ subscriptionID: Int64) {
        subscriptions[subscriptionID] = nil
        deliveries = deliveries.filter { $0.value.subscription.id != subscriptionID }
    }
}

extension InMemoryRepository {
    public func vapidPrivateKey(orStore candidate: Data) -> Data {
        if push.vapidKey == nil { push.vapidKey = candidate }
        return push.vapidKey ?? candidate
    }

    public func savePushSubscription(_ new: NewPushSubscription, at date: Date) -> PushSubscription {
        if let earlier = push.subscriptions.values.first(where: { $0.endpoint == new.endpoint }) { push.remove(earlier.id) }
        push.nextSubscriptionID += 1
        let saved = PushSubscription(id: push.nextSubscriptionID, userID: new.userID, sessionTokenHash: new.sessionTokenHash,
                                     endpoint: new.endpoint, p256dh: new.p256dh, auth: new.auth, actionSecret: new.actionSecret,
                                     createdAt: date)
        push.subscriptions[saved.id] = saved
        return saved
    }

    public func pushSubscription(id: Int64) -> PushSubscription? { push.subscriptions[id] }

    public func pushSubscriptions(for userID: Int64) -> [PushSubscription] {
        push.subscriptions.values.filter { $0.userID == userID }.sorted { $0.id < $1.id }
    }

    public func pushSubscriptions(forAnyOf userIDs: Set<Int64>) -> [PushSubscription] {
        push.subscriptions.values.filter { userIDs.contains($0.userID) }.sorted { $0.id < $1.id }
    }

    public func deletePushSubscription(id: Int64, userID: Int64?) -> Bool {
        guard let subscription = push.subscriptions[id], userID == nil || subscription.userID == userID else { return false }
        push.remove(id)
        return true
    }

    public func pushOutboxCursor() -> Int64? { push.cursor }

    public func enqueuePushDeliveries(_ deliveries: [NewPushDelivery], after expectedCursor: Int64?, through eventID: Int64, at date: Date) -> Bool {
        guard push.cursor == expectedCursor else { return false }
        for delivery in deliveries {
            guard let subscription = push.subscriptions[delivery.subscriptionID] else { continue }
            push.nextDeliveryID += 1
            push.deliveries[push.nextDeliveryID] = PushDelivery(
                id: push.nextDeliveryID, subscription: subscription, notificationID: delivery.notificationID, attempts: 0,
                enqueuedAt: date, nextAttemptAt: date)
        }
        push.cursor = max(push.cursor ?? eventID, eventID)
        return true
    }

    public func claimDuePushDeliveries(at date: Date, limit: Int, leaseUntil: Date) -> [PushDelivery] {
        let due = Array(push.deliveries.values.filter { $0.nextAttemptAt <= date }
            .sorted { ($0.nextAttemptAt, $0.id) < ($1.nextAttemptAt, $1.id) }.prefix(limit))
        for delivery in due { push.deliveries[delivery.id]?.nextAttemptAt = leaseUntil }
        return due
    }

    public func nextPushDeliveryDate() -> Date? { push.deliveries.values.map(\.nextAttemptAt).min() }

    public func reschedulePushDelivery(id: Int64, attempts: Int, at date: Date) {
        push.deliveries[id]?.attempts = attempts
        push.deliveries[id]?.nextAttemptAt = date
    }

    public func finishPushDelivery(id: Int64) { push.deliveries[id] = nil }
}
