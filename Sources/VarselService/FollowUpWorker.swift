import Foundation
import Logging
import ServiceLifecycle
import Synchronization
import VarselCore
import VarselMessaging
import VarselStore

/// Follows up notifications their person has not seen in time: a text message and an email to their verified
/// channels after ``Configuration/delay``, then, for an unanswered assignment, the reminder and the coordinator at
/// their deadlines — each step when it is due, not at the next upkeep.
///
/// It reads created notifications from the event log after its cursor and queues one message per verified channel
/// the notification's kind may use, in the message outbox (``ContactChannelStore``), due after the delay; a restart
/// resumes from the store, and several instances queue and send each message once. When a message comes due it is
/// sent only while the notification is still unseen (unread, no push shown, an assignment unanswered); a
/// non-urgent one waits out its person's quiet hours, and then the delay again, so the push held with it reaches
/// them first and has its time to be seen. Sent messages of an assignment enter its history.
public final class FollowUpWorker: Service, Sendable {
    /// How the worker paces its work.
    public struct Configuration: Sendable {
        /// How long a notification may go unseen before a text message and an email follow it (`--message-after`).
        public var delay: TimeInterval = 15 * 60
        /// The assignment reminder and the coordinator's notice (`--escalate-after`).
        public var escalation = EscalationDeadlines()
        /// How often it looks for due messages.
        public var pollInterval: Duration = .seconds(1)
        /// How often it looks for due reminders and notices: each read of the unanswered assignments costs more than
        /// one of the outbox.
        public var escalationInterval: TimeInterval = 10
        /// A message that came due longer ago than this is not queued (the worker was stopped, or text messages
        /// and email were just set up): nobody wants last week's follow-ups at once.
        public var staleAfter: TimeInterval = 6 * 3600
        /// Attempts before a message is given up.
        public var maximumAttempts = 8
        /// The first retry's delay; each further retry doubles it, up to ``maximumBackoff``.
        public var initialBackoff: TimeInterval = 10
        public var maximumBackoff: TimeInterval = 1800
        /// How long a claimed message stays this instance's; if it dies meanwhile, another sends it after.
        public var lease: TimeInterval = 120

        public init(delay: TimeInterval = 15 * 60, escalation: EscalationDeadlines = .init()) {
            self.delay = delay
            self.escalation = escalation
        }
    }

    private let store: any VarselRepository
    private let sender: NotificationSender
    private let messaging: OutsideMessaging
    private let configuration: Configuration
    private let now: @Sendable () -> Date
    private let logger: Logger
    private static let batchSize = 32
    /// When the last round of reminders and notices ran.
    private let lastEscalationRound = Mutex<Date?>(nil)

    public init(store: any VarselRepository, sender: NotificationSender, messaging: OutsideMessaging, configuration: Configuration,
                now: @escaping @Sendable () -> Date, logger: Logger) {
        self.store = store
        self.sender = sender
        self.messaging = messaging
        self.configuration = configuration
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
                    self.logger.error("follow-ups could not read or write the store", metadata: ["error.type": "\(type(of: error))"])
                }
                try await Task.sleep(for: self.configuration.pollInterval)
            }
        }
        try? await messaging.textMessages?.shutdown()
    }

    /// One round: queue the messages of new notifications, send those due, and send the reminders and notices due.
    public func step() async throws {
        if messaging.offers(.textMessage) || messaging.offers(.email) {
            try await enqueueNewNotifications()
            while try await sendDue() == Self.batchSize {}
        }
        let current = now()
        let isDue = lastEscalationRound.withLock { last in
            guard last.map({ current.timeIntervalSince($0) >= configuration.escalationInterval || current < $0 }) ?? true else { return false }
            last = current
            return true
        }
        guard isDue else { return }
        let escalations = try await sender.sendDueEscalations(now: current, remindAfter: configuration.escalation.remindAfter,
                                                              escalateAfter: configuration.escalation.escalateAfter)
        if !escalations.isEmpty {
            logger.info("assignment reminders and escalations sent", metadata: ["notification.count": "\(escalations.count)"])
        }
    }

    /// Queues a message per verified channel, allowed for its kind, of each newly created notification's person.
    func enqueueNewNotifications() async throws {
        guard var cursor = try await store.messageOutboxCursor() else {
            // First start: follow-ups begin with the notifications created from now on.
            _ = try await store.enqueueMessages([], after: nil, through: try await store.latestEventID(), at: now())
            return
        }
        while true {
            let events = try await store.events(after: cursor, limit: 500)
            guard let last = events.last else { return }
            let created = events.compactMap { event -> NotificationItem? in
                guard case let .notificationCreated(item) = event.payload else { return nil }
                return item
            }
            // One read for the batch: most people have no verified channel, and their notifications cost nothing more.
            let channels = Dictionary(grouping: try await store.verifiedContactChannels(forAnyOf: Set(created.map(\.recipientID))), by: \.userID)
            var messages: [NewMessageDelivery] = []
            var preferences: [UserID: NotificationPreferences] = [:]
            let oldest = now().addingTimeInterval(-configuration.staleAfter - configuration.delay)
            for item in created where item.createdAt >= oldest {
                guard let theirs = channels[item.recipientID] else { continue }
                let wanted: NotificationPreferences
                if let known = preferences[item.recipientID] { wanted = known } else {
                    wanted = try await store.preferences(for: item.recipientID)
                    preferences[item.recipientID] = wanted
                }
                for channel in theirs.map(\.channel) where wanted.allows(channel, for: item.kind) && messaging.offers(channel) {
                    messages.append(NewMessageDelivery(notificationID: item.id, userID: item.recipientID, channel: channel,
                                                       dueAt: item.createdAt.addingTimeInterval(configuration.delay)))
                }
            }
            guard try await store.enqueueMessages(messages, after: cursor, through: last.id, at: now()) else {
                guard let moved = try await store.messageOutboxCursor() else { return }
                cursor = moved
                continue
            }
            cursor = last.id
            if events.count < 500 { return }
        }
    }

    /// Sends the messages due now; returns how many it took from the outbox.
    func sendDue() async throws -> Int {
        let start = now()
        let due = try await store.claimDueMessages(at: start, limit: Self.batchSize, leaseUntil: start.addingTimeInterval(configuration.lease))
        for message in due {
            await deliver(message)
        }
        return due.count
    }

    /// What one attempt came to.
    enum Outcome: Equatable {
        case sent
        /// Not to be sent: seen meanwhile, no longer wanted, or the channel is gone.
        case dropped
        /// Held by the quiet hours: due again at their end plus the delay.
        case held(until: Date)
        case retry
        case failed
    }

    func deliver(_ message: MessageDelivery) async {
        let metadata: Logger.Metadata = ["message.id": "\(message.id)", "notification.id": "\(message.notificationID)",
                                         "message.channel": "\(message.channel.rawValue)"]
        do {
            let outcome = try await attempt(message)
            try await record(outcome, for: message)
            logger.info("follow-up message", metadata: metadata.merging(["message.outcome": "\(outcome)"]) { $1 })
        } catch {
            logger.error("follow-up message failed to record", metadata: metadata.merging(["error.type": "\(type(of: error))"]) { $1 })
        }
    }

    func attempt(_ message: MessageDelivery) async throws -> Outcome {
        guard try await store.isUnseen(notificationID: message.notificationID),
              let item = try await store.notification(id: message.notificationID),
              let person = try await store.user(id: message.userID), person.isActive,
              let channel = try await store.verifiedContactChannels(forAnyOf: [person.id]).first(where: { $0.channel == message.channel })
        else { return .dropped }
        let preferences = try await store.preferences(for: person.id)
        guard preferences.allows(message.channel, for: item.kind) else { return .dropped }
        if let until = preferences.heldUntil(urgency: item.urgency, at: now()) {
            return .held(until: until.addingTimeInterval(configuration.delay))
        }
        let strings = Strings(person.language)
        let link = messaging.origin().absoluteString.trimmingCharacters(in: CharacterSet(charactersIn: "/")) + item.deepLink.path
        let subject = OutsideMessageText.emailSubject(kind: item.kind, title: item.title, strings: strings)
        let text = message.channel == .textMessage
            ? OutsideMessageText.textMessage(title: item.title, link: link, strings: strings)
            : OutsideMessageText.emailPlainText(name: person.displayName, title: item.title, link: link, strings: strings)
        do {
            try await messaging.send(message.channel, to: channel.address, name: person.displayName, subject: subject, text: text,
                                     html: OutsideMessageText.emailHTML(name: person.displayName, title: item.title, link: link, strings: strings),
                                     language: person.language)
            return .sent
        } catch OutsideSendError.permanent {
            return .failed
        } catch {
            return .retry
        }
    }

    func record(_ outcome: Outcome, for message: MessageDelivery) async throws {
        switch outcome {
        case .sent:
            try await store.finishMessage(id: message.id, outcome: .sent, at: now())
        case .dropped, .failed:
            try await store.finishMessage(id: message.id, outcome: .dropped, at: now())
        case let .held(until):
            try await store.rescheduleMessage(id: message.id, attempts: message.attempts, at: until)
        case .retry:
            let attempts = message.attempts + 1
            guard attempts < configuration.maximumAttempts else {
                try await store.finishMessage(id: message.id, outcome: .dropped, at: now())
                return
            }
            let backoff = min(configuration.maximumBackoff, configuration.initialBackoff * pow(2, Double(attempts - 1)))
            try await store.rescheduleMessage(id: message.id, attempts: attempts, at: now().addingTimeInterval(backoff * Double.random(in: 0.8...1.2)))
        }
    }
}
