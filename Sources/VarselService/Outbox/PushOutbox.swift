import Foundation
import Logging
import VarselCore
import VarselPush
import VarselStore

/// The push outbox: one delivery per subscription of each new notification's person, sent by Web Push.
///
/// Each push is encrypted for the device (RFC 8291), signed with VAPID (RFC 8292) and sent with `TTL`, `Urgency`
/// and `Topic` (RFC 8030). 429 and 5xx are retried with backoff, honouring `Retry-After`; 404 and 410 mark the
/// subscription revoked. Each accepted push is recorded, so the device's receipt (its service worker's report that
/// it showed the push) tells whether the device shows them.
struct PushOutbox: OutboxChannel {
    /// The stores a push reads and writes.
    typealias Store = PushStore & EventLogStore & UserStore & NotificationStore & AssignmentStore & WebhookStore

    /// What one attempt came to.
    enum Outcome: Equatable {
        case sent(latency: TimeInterval)
        /// The push service says the subscription is gone (404, 410), or its endpoint is refused.
        case gone
        case retry(after: TimeInterval?)
        case failed
        /// Nothing to send: the notification was deleted, or the mentor does not want it as a system notification.
        case skipped
        /// A non-urgent push in its person's quiet hours: it waits until they end, with no attempt counted.
        case held(until: Date)
        /// Nothing was sent (the store failed meanwhile): tried again at once, with no attempt counted.
        case released
    }

    let store: any Store
    /// Records that a push carried a contact's personal details to a device.
    let contactReads: any ContactReadRecorder
    let transport: any PushTransport
    let vapid: VAPIDKey
    let configuration: PushDeliveryWorker.Configuration
    let metrics: PushMetrics
    let now: @Sendable () -> Date
    let logger: Logger

    func cursor() async throws -> Int64? { try await store.pushOutboxCursor() }

    /// Queues one delivery per subscription of each created notification's person.
    func enqueue(_ events: [StoredEvent], after cursor: Int64?, through last: Int64) async throws -> Bool {
        let created = events.compactMap { event -> NotificationItem? in
            guard case let .notificationCreated(item) = event.payload else { return nil }
            return item
        }
        // One read for the whole batch's recipients (a burst to a thousand mentors is one query, not a thousand).
        let subscriptions =
            created.isEmpty
            ? [:]
            : Dictionary(grouping: try await store.pushSubscriptions(forAnyOf: Set(created.map(\.recipientID))), by: \.userID)
        let deliveries = created.flatMap { item in
            (subscriptions[item.recipientID] ?? []).map { NewPushDelivery(subscriptionID: $0.id, notificationID: item.id) }
        }
        return try await store.enqueuePushDeliveries(deliveries, after: cursor, through: last, at: now())
    }

    func claimDue(at date: Date, limit: Int, leaseUntil: Date) async throws -> [PushDelivery] {
        try await store.claimDuePushDeliveries(at: date, limit: limit, leaseUntil: leaseUntil)
    }

    func failedAttempt(_ delivery: PushDelivery) -> Outcome { .retry(after: nil) }

    func released(_ delivery: PushDelivery) -> Outcome { .released }

    func wentOut(_ outcome: Outcome) -> Bool {
        if case .sent = outcome { return true }
        return false
    }

    func metadata(for delivery: PushDelivery) -> Logger.Metadata {
        ["push.subscription.id": "\(delivery.subscription.id)", "notification.id": "\(delivery.notificationID)"]
    }

    /// The message `encode` makes of `lockScreen`, its body shortened (ending "…") until the message fits in one
    /// push: a coordinator's message may be longer than a push carries, and is read whole in Varsel.
    static func fitted(_ lockScreen: LockScreenNotification, encode: (LockScreenNotification) throws -> Data) throws -> Data {
        var shown = lockScreen
        var message = try encode(shown)
        var body = Substring(lockScreen.body)
        while message.count > WebPushEncryption.maximumPlaintextBytes, !body.isEmpty {
            // Characters are dropped from the end until their UTF-8 bytes cover the excess and the ellipsis; in the
            // message each takes at least those bytes (more when escaped), so a step or two comes within the limit.
            var excess = message.count - WebPushEncryption.maximumPlaintextBytes + "…".utf8.count
            while excess > 0, let last = body.last {
                excess -= String(last).utf8.count
                body = body.dropLast()
            }
            shown.body = body.trimmingCharacters(in: .whitespacesAndNewlines) + "…"
            message = try encode(shown)
        }
        return message
    }

    func attempt(_ delivery: PushDelivery) async throws -> Outcome {
        let subscription = delivery.subscription
        guard let user = try await store.user(id: subscription.userID) else { return .skipped }
        let describer = Describer(language: user.language)
        let start = now()
        // What to show, since when it may be delivered, and whether it names the person visited (a read of them).
        let lockScreen: LockScreenNotification
        let since: Date
        var urgency = Urgency.normal
        var readContact: ContactID?
        if delivery.isWithdrawal {
            lockScreen = describer.withdrawnLockScreenNotification(notificationID: delivery.notificationID)
            since = delivery.enqueuedAt
        } else {
            guard let item = try await store.notification(id: delivery.notificationID) else { return .skipped }
            let preferences = try await store.preferences(for: user.id)
            if let until = preferences.heldUntil(urgency: item.urgency, at: start) { return .held(until: until) }
            // A push tells of something not yet seen: one read meanwhile (on another device, or before quiet hours
            // ended), or an assignment already answered, is not sent.
            guard item.isUnread else { return .skipped }
            // Only the assignment's own mentor may acknowledge it, while it waits for an answer (a coordinator told of
            // an unanswered one may not).
            var mayAcknowledge = true
            if item.kind == .assignment, case let .contact(_, assignmentID?) = item.deepLink,
                let assignment = try await store.assignment(id: assignmentID)
            {
                let isTheirs = assignment.mentorID == user.id
                guard !isTheirs || assignment.isLive else { return .skipped }
                mayAcknowledge = isTheirs && assignment.status == .pending
            }
            guard let shown = describer.lockScreenNotification(for: item, preferences: preferences, mayAcknowledge: mayAcknowledge) else {
                return .skipped
            }
            lockScreen = shown
            since = item.createdAt
            urgency = item.urgency
            // A lock screen allowed to show the details of the person to visit is a read of them, recorded as such.
            if preferences.isShowingDetailsOnLockScreen, item.containsPersonalDetails(item.title) || item.containsPersonalDetails(item.body),
                case let .contact(contactID, _) = item.deepLink
            {
                readContact = contactID
            }
        }
        let timeToLive = Int(configuration.timeToLive - start.timeIntervalSince(since))
        guard timeToLive > 0 else { return .failed }
        let endpoint: URL
        do {
            endpoint = try configuration.endpointPolicy.check(subscription.endpoint)
            try await configuration.endpointPolicy.checkResolved(endpoint)
        } catch {
            logger.warning(
                "push endpoint refused; subscription revoked", metadata: ["push.subscription.id": "\(subscription.id)", "reason": "\(error)"])
            return .gone
        }
        let unread = try await store.unreadCount(for: user.id)
        let message = try Self.fitted(lockScreen) { shown in
            try JSONEncoder().encode(
                PushMessage(
                    shown, notificationID: delivery.notificationID, subscription: subscription,
                    origin: configuration.origin(), unreadCount: unread, asksForReceipt: !delivery.isWithdrawal))
        }
        if let readContact {
            try await contactReads.recordRead(contactID: readContact, by: user.id, through: .push)
        }
        let body = try WebPushEncryption.encrypt(message, p256dh: subscription.p256dh, auth: subscription.auth)
        let authorization = try vapid.authorization(
            audience: Self.origin(of: endpoint), subject: configuration.subject,
            expiresAt: start.addingTimeInterval(12 * 3600))
        let request = PushRequest(
            endpoint: endpoint,
            headers: [
                ("TTL", "\(timeToLive)"),
                ("Urgency", urgency == .urgent ? "high" : "normal"),
                // A repeat of the same notification (a retry the service already took) replaces it, not doubles it; a
                // withdrawal replaces the notification itself at a push service still holding it for an offline phone.
                ("Topic", "varsel-\(delivery.notificationID)"),
                ("Content-Encoding", "aes128gcm"),
                ("Content-Type", "application/octet-stream"),
                ("Authorization", authorization),
            ], body: body)
        let response: PushResponse
        do {
            response = try await transport.send(request)
        } catch {
            logger.info(
                "push service unreachable; will retry", metadata: ["push.subscription.id": "\(subscription.id)", "error.type": "\(type(of: error))"])
            return .retry(after: nil)
        }
        switch response.status {
        case 200..<300: return .sent(latency: now().timeIntervalSince(since))
        case 404, 410: return .gone
        case 429, 500...599: return .retry(after: response.retryAfter)
        default:
            logger.warning(
                "push refused by the push service", metadata: ["push.subscription.id": "\(subscription.id)", "http.status": "\(response.status)"])
            return .failed
        }
    }

    func record(_ outcome: Outcome, for delivery: PushDelivery) async throws {
        // Integrations' event first, under an id the attempt fixes: a crash before the outcome is recorded makes the
        // attempt again, which queues the same id, and the store takes it once.
        if let event = webhookEvent(outcome, for: delivery) { try await store.queueWebhookEvents([event], at: now()) }
        try await recordInStore(outcome, for: delivery)
    }

    /// What an integration is told of `outcome`: a push sent or failed (with the attempt), or a device gone.
    func webhookEvent(_ outcome: Outcome, for delivery: PushDelivery) -> NewWebhookEvent? {
        guard !delivery.isWithdrawal else { return nil }
        let subscription = delivery.subscription
        let attempt = delivery.attempts + 1
        switch outcome {
        case .sent:
            return .message(
                sent: true, channel: "push", notificationID: delivery.notificationID, recipientID: subscription.userID,
                deliveryID: delivery.id, attempt: attempt)
        case .retry:
            return .message(
                sent: false, channel: "push", notificationID: delivery.notificationID, recipientID: subscription.userID,
                deliveryID: delivery.id, attempt: attempt,
                willRetry: attempt < configuration.maximumAttempts)
        case .failed:
            return .message(
                sent: false, channel: "push", notificationID: delivery.notificationID, recipientID: subscription.userID,
                deliveryID: delivery.id, attempt: attempt)
        case .gone:
            return .deviceStopped(subscriptionID: subscription.id, userID: subscription.userID)
        case .skipped, .held, .released:
            return nil
        }
    }

    private func recordInStore(_ outcome: Outcome, for delivery: PushDelivery) async throws {
        switch outcome {
        case let .sent(latency):
            try await store.finishPushDelivery(id: delivery.id)
            // A withdrawal asks for no receipt, so it does not count towards the device's unconfirmed pushes.
            if !delivery.isWithdrawal {
                try await store.recordPushAccepted(subscriptionID: delivery.subscription.id, notificationID: delivery.notificationID, at: now())
            }
            metrics.sent(latency: latency)
        case .gone:
            try await store.revokePushSubscription(id: delivery.subscription.id, at: now())
            metrics.removed()
        case let .retry(after):
            let attempts = delivery.attempts + 1
            guard attempts < configuration.maximumAttempts else {
                try await store.finishPushDelivery(id: delivery.id)
                metrics.failed()
                return
            }
            let delay = after ?? retryDelay(afterAttempt: attempts, initial: configuration.initialBackoff, maximum: configuration.maximumBackoff)
            try await store.reschedulePushDelivery(id: delivery.id, attempts: attempts, at: now().addingTimeInterval(delay))
            metrics.retried()
        case .failed:
            try await store.finishPushDelivery(id: delivery.id)
            metrics.failed()
        case .skipped:
            try await store.finishPushDelivery(id: delivery.id)
            metrics.skipped()
        case let .held(until):
            try await store.reschedulePushDelivery(id: delivery.id, attempts: delivery.attempts, at: until)
        case .released:
            try await store.reschedulePushDelivery(id: delivery.id, attempts: delivery.attempts, at: now())
        }
    }

    /// The push service's origin, the VAPID audience: `https://push.example.net`.
    static func origin(of url: URL) -> String {
        let scheme = url.scheme?.lowercased() ?? "https"
        let host = url.host ?? ""
        let bracketed = host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
        return "\(scheme)://\(bracketed)\(url.port.map { ":\($0)" } ?? "")"
    }
}
