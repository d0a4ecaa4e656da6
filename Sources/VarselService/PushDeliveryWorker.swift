import Foundation
import Logging
import ServiceLifecycle
import VarselCore
import VarselPush
import VarselStore

/// Sends each new notification to each of its recipient's devices by Web Push, durably.
///
/// It reads created notifications from the event log after its cursor and queues one delivery per subscription
/// in the push outbox (``PushStore``), then sends what is due: encrypted for the device (RFC 8291), signed with
/// VAPID (RFC 8292), with `TTL`, `Urgency` and `Topic` (RFC 8030). 429 and 5xx are retried with backoff,
/// honouring `Retry-After`; 404 and 410 mark the subscription revoked. Each accepted push is recorded, so the
/// device's receipt (its service worker's report that it showed the push) tells whether the device shows them. Everything it has not finished is in the
/// store, so a restart resumes where it stopped.
public final class PushDeliveryWorker: Service, Sendable {
    /// How the worker paces and bounds its work.
    public struct Configuration: Sendable {
        /// The VAPID `sub` claim: a `mailto:` or https URL where the push service can reach the operator.
        public var subject: String
        public var endpointPolicy: PushEndpointPolicy
        /// Varsel's public origin: where a notification's tap goes (`navigate` is absolute in a declarative push).
        /// Asked at each push: without a public URL it is the address the server listens on, known once it does.
        public var origin: @Sendable () -> URL = { URL(string: "http://localhost:8080")! }
        /// How often it looks for new notifications and due retries.
        public var pollInterval: Duration = .milliseconds(500)
        /// How long a push service should keep a push for a device that is offline, counted from the
        /// notification's creation; a push not accepted by then is given up.
        public var timeToLive: TimeInterval = 24 * 3600
        /// Attempts before a push is given up.
        public var maximumAttempts = 10
        /// The first retry's delay; each further retry doubles it, up to ``maximumBackoff``.
        public var initialBackoff: TimeInterval = 5
        public var maximumBackoff: TimeInterval = 1800
        /// Pushes in flight at once.
        public var concurrency = 8
        /// How long a claimed push stays this worker's; if the instance dies meanwhile, another sends it after.
        public var lease: TimeInterval = 120

        public init(subject: String, endpointPolicy: PushEndpointPolicy = PushEndpointPolicy()) {
            self.subject = subject
            self.endpointPolicy = endpointPolicy
        }
    }

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
    }

    private let store: any VarselRepository
    /// Records that a push carried a contact's personal details to a device.
    private let contactReads: any ContactReadRecorder
    private let transport: any PushTransport
    private let vapid: VAPIDKey
    private let configuration: Configuration
    private let metrics: PushMetrics
    private let now: @Sendable () -> Date
    private let logger: Logger
    private static let batchSize = 64

    public init(store: any VarselRepository, contactReads: any ContactReadRecorder, transport: any PushTransport, vapid: VAPIDKey,
                configuration: Configuration, metrics: PushMetrics, now: @escaping @Sendable () -> Date, logger: Logger) {
        self.store = store
        self.contactReads = contactReads
        self.transport = transport
        self.vapid = vapid
        self.configuration = configuration
        self.metrics = metrics
        self.now = now
        self.logger = logger
    }

    public func run() async throws {
        try? await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                do {
                    try await self.step()
                } catch is StoreUnavailable {
                    // Said once per outage by the store's health; tried again next round.
                } catch {
                    self.logger.error("push delivery could not read or write the store", metadata: ["error.type": "\(type(of: error))"])
                }
                try await Task.sleep(for: self.configuration.pollInterval)
            }
        }
        try? await transport.shutdown()
    }

    /// One round: queue the notifications created since the last round, then send every push that is due.
    public func step() async throws {
        try await enqueueNewNotifications()
        while try await sendDue() == Self.batchSize {}
    }

    /// Queues one delivery per subscription of each newly created notification's recipient.
    func enqueueNewNotifications() async throws {
        guard var cursor = try await store.pushOutboxCursor() else {
            // First start: pushes begin with the notifications created from now on.
            _ = try await store.enqueuePushDeliveries([], after: nil, through: try await store.latestEventID(), at: now())
            return
        }
        while true {
            let events = try await store.events(after: cursor, limit: 500)
            guard let last = events.last else { return }
            // One read for the whole batch's recipients (a burst to a thousand mentors is one query, not a thousand).
            let created = events.compactMap { event -> NotificationItem? in
                guard case let .notificationCreated(item) = event.payload else { return nil }
                return item
            }
            let subscriptions = Dictionary(grouping: try await store.pushSubscriptions(forAnyOf: Set(created.map(\.recipientID))), by: \.userID)
            let deliveries = created.flatMap { item in
                (subscriptions[item.recipientID] ?? []).map { NewPushDelivery(subscriptionID: $0.id, notificationID: item.id) }
            }
            // Another instance on the same database may have queued these first; then read on from where it got.
            guard try await store.enqueuePushDeliveries(deliveries, after: cursor, through: last.id, at: now()) else {
                guard let moved = try await store.pushOutboxCursor() else { return }
                cursor = moved
                continue
            }
            cursor = last.id
            if events.count < 500 { return }
        }
    }

    /// Sends the pushes due now, a few at a time; returns how many it took from the outbox.
    func sendDue() async throws -> Int {
        let start = now()
        let due = try await store.claimDuePushDeliveries(at: start, limit: Self.batchSize, leaseUntil: start.addingTimeInterval(configuration.lease))
        await withTaskGroup(of: Void.self) { group in
            var running = 0
            for delivery in due {
                if running >= configuration.concurrency {
                    await group.next()
                    running -= 1
                }
                group.addTask { await self.deliver(delivery) }
                running += 1
            }
        }
        return due.count
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

    /// Tries one delivery and records what came of it.
    func deliver(_ delivery: PushDelivery) async {
        let metadata: Logger.Metadata = ["push.subscription.id": "\(delivery.subscription.id)", "notification.id": "\(delivery.notificationID)"]
        do {
            let outcome = try await attempt(delivery)
            try await record(outcome, for: delivery)
            logger.debug("push attempt", metadata: metadata.merging(["push.outcome": "\(outcome)"]) { $1 })
        } catch {
            logger.error("push delivery failed to record", metadata: metadata.merging(["error.type": "\(type(of: error))"]) { $1 })
        }
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
               let assignment = try await store.assignment(id: assignmentID) {
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
               case let .contact(contactID, _) = item.deepLink {
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
            logger.warning("push endpoint refused; subscription revoked", metadata: ["push.subscription.id": "\(subscription.id)", "reason": "\(error)"])
            return .gone
        }
        let unread = try await store.unreadCount(for: user.id)
        let message = try Self.fitted(lockScreen) { shown in
            try JSONEncoder().encode(PushMessage(shown, notificationID: delivery.notificationID, subscription: subscription,
                                                 origin: configuration.origin(), unreadCount: unread, asksForReceipt: !delivery.isWithdrawal))
        }
        if let readContact {
            try await contactReads.recordRead(contactID: readContact, by: user.id, through: .push)
        }
        let body = try WebPushEncryption.encrypt(message, p256dh: subscription.p256dh, auth: subscription.auth)
        let authorization = try vapid.authorization(audience: Self.origin(of: endpoint), subject: configuration.subject,
                                                    expiresAt: start.addingTimeInterval(12 * 3600))
        let request = PushRequest(endpoint: endpoint, headers: [
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
            logger.info("push service unreachable; will retry", metadata: ["push.subscription.id": "\(subscription.id)", "error.type": "\(type(of: error))"])
            return .retry(after: nil)
        }
        switch response.status {
        case 200..<300: return .sent(latency: now().timeIntervalSince(since))
        case 404, 410: return .gone
        case 429, 500...599: return .retry(after: response.retryAfter)
        default:
            logger.warning("push refused by the push service", metadata: ["push.subscription.id": "\(subscription.id)", "http.status": "\(response.status)"])
            return .failed
        }
    }

    func record(_ outcome: Outcome, for delivery: PushDelivery) async throws {
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
            let backoff = min(configuration.maximumBackoff, configuration.initialBackoff * pow(2, Double(attempts - 1)))
            let delay = after ?? backoff * Double.random(in: 0.8...1.2)
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
