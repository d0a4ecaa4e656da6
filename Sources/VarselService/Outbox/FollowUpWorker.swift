import Foundation
import Logging
import ServiceLifecycle
import Synchronization
import VarselCore
import VarselMessaging
import VarselStore

/// Follows up notifications their person has not seen in time: a text message and an email to their verified
/// channels after ``Configuration/delay``, then, for an unanswered assignment, the reminder and the coordinator at
/// their deadlines — each step when it is due, not at the next upkeep. Scheduled sends and summaries go from here
/// too, each in the round its time comes (``ScheduledSends``, ``Summaries``).
///
/// It runs the message outbox (``FollowUpOutbox``): reads created notifications from the event log after its cursor
/// and queues one message per verified channel the notification's kind may use, due after the delay; a message that
/// comes due is sent only while the notification is still unseen (unread, no push shown, an assignment unanswered).
/// A restart resumes from the store, and several instances queue and send each message once.
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

    private let outbox: OutboxLoop<FollowUpOutbox>
    private let sender: NotificationSender
    private let scheduledSends: ScheduledSends
    private let summaries: Summaries
    private let messaging: OutsideMessaging
    private let configuration: Configuration
    private let now: @Sendable () -> Date
    private let logger: Logger
    /// When the last round of reminders and notices ran.
    private let lastEscalationRound = Mutex<Date?>(nil)

    init(
        store: any FollowUpOutbox.Store, sender: NotificationSender, scheduledSends: ScheduledSends, summaries: Summaries,
        messaging: OutsideMessaging,
        configuration: Configuration,
        now: @escaping @Sendable () -> Date, logger: Logger
    ) {
        outbox = OutboxLoop(
            channel: FollowUpOutbox(store: store, messaging: messaging, configuration: configuration, now: now),
            events: store, pace: .init(batchSize: 32, concurrency: 1, lease: configuration.lease), now: now, logger: logger)
        self.sender = sender
        self.scheduledSends = scheduledSends
        self.summaries = summaries
        self.messaging = messaging
        self.configuration = configuration
        self.now = now
        self.logger = logger
    }

    public func run() async throws {
        await outbox.repeatRounds(every: configuration.pollInterval, failure: "follow-ups could not read or write the store") {
            try await self.step()
        }
        try? await messaging.textMessages?.shutdown()
    }

    /// One round: queue the messages of new notifications, send those due, the scheduled sends and summaries due,
    /// and the reminders and notices due.
    public func step() async throws {
        if messaging.offers(.textMessage) || messaging.offers(.email) {
            try await outbox.step()
        }
        // A round of scheduled sends that fails (the store out, one send refused) leaves the reminders below to go.
        let logger = logger
        do {
            let sent = try await scheduledSends.sendDue { send, error in
                logger.error(
                    "scheduled send failed; it is tried again next round",
                    metadata: ["scheduled_send.id": "\(send.id)", "error.type": "\(type(of: error))"])
            }
            for sent in sent {
                logger.info(
                    sent.lateBy >= ScheduledSends.saysItsTimeAfter ? "scheduled send went late, saying its time" : "scheduled send went",
                    metadata: [
                        "scheduled_send.id": "\(sent.send.id)", "notification.count": "\(sent.notificationCount)",
                        "scheduled_send.due": "\(sent.send.sendAt.formatted(.iso8601))", "scheduled_send.late_seconds": "\(Int(sent.lateBy))",
                    ])
            }
        } catch {
            logger.error("scheduled sends could not be read; they are tried again next round", metadata: ["error.type": "\(type(of: error))"])
        }
        do {
            let sent = try await summaries.sendDue { due, error in
                logger.error(
                    "summary failed; it is tried again next round", metadata: ["user.id": "\(due.userID)", "error.type": "\(type(of: error))"])
            }
            for sent in sent {
                if let notificationID = sent.notificationID {
                    logger.info("summary sent", metadata: ["notification.id": "\(notificationID)", "notification.gathered": "\(sent.gathered)"])
                }
                if let email = sent.email {
                    let metadata: Logger.Metadata = ["user.id": "\(sent.userID)", "email.outcome": "\(email.rawValue)"]
                    if email == .failed {
                        logger.warning("daily email of open assignments failed; the next one goes tomorrow", metadata: metadata)
                    } else {
                        logger.info("daily email of open assignments", metadata: metadata)
                    }
                }
            }
        } catch {
            logger.error("summaries could not be read; they are tried again next round", metadata: ["error.type": "\(type(of: error))"])
        }
        let current = now()
        let isDue = lastEscalationRound.withLock { last in
            guard last.map({ current.timeIntervalSince($0) >= configuration.escalationInterval || current < $0 }) ?? true else { return false }
            last = current
            return true
        }
        guard isDue else { return }
        let escalations = try await sender.sendDueEscalations(
            now: current, remindAfter: configuration.escalation.remindAfter,
            escalateAfter: configuration.escalation.escalateAfter)
        if !escalations.isEmpty {
            logger.info("assignment reminders and escalations sent", metadata: ["notification.count": "\(escalations.count)"])
        }
    }
}
