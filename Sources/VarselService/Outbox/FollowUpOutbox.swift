import Foundation
import Logging
import VarselCore
import VarselMessaging
import VarselStore

/// The message outbox: a text message and an email to each verified channel of a notification's person, due after
/// the delay, sent only while the notification is still unseen.
///
/// A non-urgent message waits out its person's quiet hours, and then the delay again, so the push held with it
/// reaches them first and has its time to be seen. Sent messages of an assignment enter its history.
struct FollowUpOutbox: OutboxChannel {
    /// The stores a follow-up reads and writes.
    typealias Store = ContactChannelStore & EventLogStore & UserStore & NotificationStore & WebhookStore

    /// What one attempt came to.
    enum Outcome: Equatable {
        case sent
        /// Not to be sent: seen meanwhile, no longer wanted, or the channel is gone.
        case dropped
        /// Held by the quiet hours: due again at their end plus the delay.
        case held(until: Date)
        case retry
        case failed
        /// Nothing was sent (the store failed meanwhile): tried again at once, with no attempt counted.
        case released
    }

    let store: any Store
    let messaging: OutsideMessaging
    let configuration: FollowUpWorker.Configuration
    let now: @Sendable () -> Date

    func cursor() async throws -> Int64? { try await store.messageOutboxCursor() }

    /// Queues a message per verified channel, allowed for its kind, of each created notification's person.
    func enqueue(_ events: [StoredEvent], after cursor: Int64?, through last: Int64) async throws -> Bool {
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
            if let known = preferences[item.recipientID] {
                wanted = known
            } else {
                wanted = try await store.preferences(for: item.recipientID)
                preferences[item.recipientID] = wanted
            }
            for channel in theirs.map(\.channel) where wanted.allows(channel, for: item.kind) && messaging.offers(channel) {
                messages.append(
                    NewMessageDelivery(
                        notificationID: item.id, userID: item.recipientID, channel: channel,
                        dueAt: item.createdAt.addingTimeInterval(configuration.delay)))
            }
        }
        return try await store.enqueueMessages(messages, after: cursor, through: last, at: now())
    }

    func claimDue(at date: Date, limit: Int, leaseUntil: Date) async throws -> [MessageDelivery] {
        try await store.claimDueMessages(at: date, limit: limit, leaseUntil: leaseUntil)
    }

    func failedAttempt(_ message: MessageDelivery) -> Outcome { .retry }

    func released(_ message: MessageDelivery) -> Outcome { .released }

    func wentOut(_ outcome: Outcome) -> Bool { outcome == .sent }

    func metadata(for message: MessageDelivery) -> Logger.Metadata {
        ["message.id": "\(message.id)", "notification.id": "\(message.notificationID)", "message.channel": "\(message.channel.rawValue)"]
    }

    func attempt(_ message: MessageDelivery) async throws -> Outcome {
        guard try await store.isUnseen(notificationID: message.notificationID),
            let item = try await store.notification(id: message.notificationID),
            let person = try await store.user(id: message.userID), person.isActive,
            let channel = try await store.verifiedContactChannels(forAnyOf: [person.id]).first(where: { $0.channel == message.channel })
        else { return .dropped }
        let preferences = try await store.preferences(for: person.id)
        guard preferences.allows(message.channel, for: item.kind), !preferences.isSummarised(item.kind, urgency: item.urgency) else {
            return .dropped
        }
        if let until = preferences.heldUntil(urgency: item.urgency, at: now()) {
            return .held(until: until.addingTimeInterval(configuration.delay))
        }
        let strings = Strings(person.language)
        let link = messaging.link(to: item.deepLink.path)
        let title = strings.titleWithKind(item)
        let subject = OutsideMessageText.emailSubject(kind: item.kind, title: title, strings: strings)
        let text =
            message.channel == .textMessage
            ? OutsideMessageText.textMessage(title: title, link: link, strings: strings)
            : OutsideMessageText.emailPlainText(name: person.displayName, title: title, link: link, strings: strings)
        do {
            try await messaging.send(
                message.channel, to: channel.address, name: person.displayName, subject: subject, text: text,
                html: OutsideMessageText.emailHTML(name: person.displayName, title: title, link: link, strings: strings),
                language: person.language)
            return .sent
        } catch OutsideSendError.permanent {
            return .failed
        } catch {
            return .retry
        }
    }

    func record(_ outcome: Outcome, for message: MessageDelivery) async throws {
        // Integrations' event first, under an id the attempt fixes: a crash before the outcome is recorded makes the
        // attempt again, which queues the same id, and the store takes it once.
        let channel = message.channel == .textMessage ? "text-message" : "email"
        let attempt = message.attempts + 1
        let event: NewWebhookEvent? =
            switch outcome {
            case .sent:
                .message(
                    sent: true, channel: channel, notificationID: message.notificationID, recipientID: message.userID,
                    deliveryID: message.id, attempt: attempt)
            case .failed:
                .message(
                    sent: false, channel: channel, notificationID: message.notificationID, recipientID: message.userID,
                    deliveryID: message.id, attempt: attempt)
            case .retry:
                .message(
                    sent: false, channel: channel, notificationID: message.notificationID, recipientID: message.userID,
                    deliveryID: message.id, attempt: attempt,
                    willRetry: attempt < configuration.maximumAttempts)
            case .dropped, .held, .released: nil
            }
        if let event { try await store.queueWebhookEvents([event], at: now()) }
        try await recordInStore(outcome, for: message)
    }

    private func recordInStore(_ outcome: Outcome, for message: MessageDelivery) async throws {
        switch outcome {
        case .sent:
            try await store.finishMessage(id: message.id, outcome: .sent, at: now())
        case .dropped, .failed:
            try await store.finishMessage(id: message.id, outcome: .dropped, at: now())
        case let .held(until):
            try await store.rescheduleMessage(id: message.id, attempts: message.attempts, at: until)
        case .released:
            try await store.rescheduleMessage(id: message.id, attempts: message.attempts, at: now())
        case .retry:
            let attempts = message.attempts + 1
            guard attempts < configuration.maximumAttempts else {
                try await store.finishMessage(id: message.id, outcome: .dropped, at: now())
                return
            }
            let delay = retryDelay(afterAttempt: attempts, initial: configuration.initialBackoff, maximum: configuration.maximumBackoff)
            try await store.rescheduleMessage(id: message.id, attempts: attempts, at: now().addingTimeInterval(delay))
        }
    }
}
