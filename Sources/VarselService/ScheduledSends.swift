import Foundation
import VarselCore
import VarselStore

/// Notifications their senders scheduled for later: scheduled, changed and cancelled while they wait, and each sent
/// once when its time comes, across restarts and instances.
///
/// A send is taken for sending before its notifications are made, and they are made under an idempotency key of the
/// send's own: a send taken again after an instance stopped mid-way, or by two instances at once, makes them once. A
/// send whose time passed while Varsel was stopped goes at the next start, and says in its body when it was meant for.
/// A send may also publish a training scenario (``scheduleScenario(title:body:from:to:at:)``): the store publishes a
/// send's scenario once, however often the send is taken.
public struct ScheduledSends: Sendable {
    /// Why a change to a scheduled send was refused.
    public enum Refusal: Error, Sendable, Equatable {
        /// No scheduled send with that id that this person may see.
        case unknown
        /// It has gone (or is going), or was cancelled: it can no longer be changed.
        case noLongerWaiting

        public var sentence: String {
            switch self {
            case .unknown: "No such scheduled send."
            case .noLongerWaiting: "This scheduled send has already gone or was cancelled, so it can no longer be changed."
            }
        }
    }

    /// A scheduled send that went, and how late.
    public struct Sent: Sendable, Equatable {
        public var send: ScheduledSend
        public var notificationCount: Int
        /// How long after its time it went: seconds in a running server, longer when it was stopped at the time.
        public var lateBy: TimeInterval
    }

    /// How far ahead a send may be scheduled.
    public static let furthestAhead: TimeInterval = 366 * 86400

    /// A send that goes this much later than its time says so in its body.
    public static let saysItsTimeAfter: TimeInterval = 5 * 60

    /// The stores scheduled sends read and write.
    public typealias Store = ScheduledSendStore & NotificationStore & UserStore & TrainingStore

    let repository: any Store
    let now: @Sendable () -> Date

    public init(repository: any Store, now: @escaping @Sendable () -> Date) {
        self.repository = repository
        self.now = now
    }

    /// Schedules `message` from `senderID` to `recipientIDs` for `sendAt`, which must be in the future and within
    /// ``furthestAhead``. A scheduled notification carries no personal details: they are sent at once or not at all.
    public func schedule(
        _ message: Validation.ValidNotification, from senderID: UserID, to recipientIDs: [UserID], at sendAt: Date
    ) async throws -> ScheduledSend {
        try await schedule(message, from: senderID, to: recipientIDs, at: sendAt, idempotencyKey: nil).send
    }

    /// Schedules as above; a retry with the same idempotency key and request schedules nothing new and is answered
    /// with the send made the first time (a replay); the same key with another request is refused.
    public func schedule(
        _ message: Validation.ValidNotification, from senderID: UserID, to recipientIDs: [UserID], at sendAt: Date,
        idempotencyKey: IdempotencyKey?
    ) async throws -> ScheduledSendCreated {
        let new = NewScheduledSend(
            senderID: senderID, recipientIDs: recipientIDs, kind: message.kind, title: message.title, body: message.body,
            urgency: message.urgency, sendAt: sendAt)
        return try await store(new, idempotencyKey: idempotencyKey) { try check(message, sendAt: sendAt) }
    }

    /// Stores `new` once `checks` pass; a retry of a request that was scheduled is answered with its send, also once
    /// its time has passed (when the checks would refuse it).
    private func store(_ new: NewScheduledSend, idempotencyKey: IdempotencyKey?, checks: () throws -> Void) async throws -> ScheduledSendCreated {
        do {
            try checks()
        } catch {
            guard let idempotencyKey, let replay = try await repository.scheduledSend(requestedWith: idempotencyKey) else { throw error }
            return replay
        }
        return try await repository.scheduleSend(new, idempotencyKey: idempotencyKey, at: now())
    }

    /// Schedules a training scenario, validated as the Scenarios page and the API take one, to be published to
    /// `mentorIDs` at `sendAt` (in the future, within ``furthestAhead``); each mentor is told then by a scenario prompt.
    public func scheduleScenario(
        title: String, body: String, from senderID: UserID, to mentorIDs: [UserID], at sendAt: Date, idempotencyKey: IdempotencyKey? = nil
    ) async throws -> ScheduledSendCreated {
        let new = NewScheduledSend(
            senderID: senderID, recipientIDs: mentorIDs, kind: .scenarioPrompt, title: title, body: body, urgency: .normal, sendAt: sendAt,
            publishesScenario: true)
        return try await store(new, idempotencyKey: idempotencyKey) { try check(sendAt: sendAt) }
    }

    /// The sends still waiting that `person` may see: an administrator's view is everyone's, a coordinator's their own.
    public func waiting(for person: User) async throws -> [ScheduledSend] {
        try await repository.waitingScheduledSends(senderID: person.role == .admin ? nil : person.id)
    }

    /// The send `id`, when `person` may see it.
    public func send(_ id: ScheduledSendID, for person: User) async throws -> ScheduledSend {
        guard let send = try await repository.scheduledSend(id: id), person.role == .admin || send.senderID == person.id else {
            throw Refusal.unknown
        }
        return send
    }

    /// Gives a waiting send a new time and words.
    public func change(_ id: ScheduledSendID, by person: User, to message: Validation.ValidNotification, at sendAt: Date) async throws
        -> ScheduledSend
    {
        let current = try await send(id, for: person)
        guard current.state == .waiting else { throw Refusal.noLongerWaiting }
        try check(message, sendAt: sendAt)
        // A scenario keeps a scenario's rules: a text it cannot be published without, and no urgency.
        if current.publishesScenario { _ = try Validation.scenario(title: message.title, body: message.body) }
        guard
            let changed = try await repository.changeScheduledSend(
                id: id, sendAt: sendAt, title: message.title, body: message.body, urgency: current.publishesScenario ? .normal : message.urgency,
                at: now())
        else { throw Refusal.noLongerWaiting }
        return changed
    }

    /// Cancels a waiting send: it never goes.
    public func cancel(_ id: ScheduledSendID, by person: User) async throws -> ScheduledSend {
        let current = try await send(id, for: person)
        let date = now()
        guard try await repository.cancelScheduledSend(id: id, at: date) else { throw Refusal.noLongerWaiting }
        var cancelled = current
        cancelled.state = .cancelled
        cancelled.endedAt = date
        return cancelled
    }

    /// The idempotency key a send's notifications are made under. It holds a control character, which no HTTP
    /// header can carry, so no client's `Idempotency-Key` can ever be it.
    public static func idempotencyKey(of send: ScheduledSend) -> String {
        "scheduled-send\u{1F}\(send.id)"
    }

    /// Sends each send whose time has come, once: its notifications, in each recipient's words for a late one.
    ///
    /// A send that fails is told to `failed` and left to the next round; the sends after it still go.
    public func sendDue(limit: Int = 20, failed: @Sendable (ScheduledSend, any Error) -> Void = { _, _ in }) async throws -> [Sent] {
        let current = now()
        var sent: [Sent] = []
        for send in try await repository.takeDueScheduledSends(at: current, limit: limit) {
            do {
                sent.append(try await deliver(send, at: current))
            } catch {
                failed(send, error)
            }
        }
        return sent
    }

    /// Makes one taken send's notifications (or publishes its scenario), once, and marks it sent.
    private func deliver(_ send: ScheduledSend, at current: Date) async throws -> Sent {
        let lateBy = max(0, current.timeIntervalSince(send.sendAt))
        if send.publishesScenario { return try await publish(send, lateBy: lateBy, at: current) }
        var news: [NewNotification] = []
        for recipientID in send.recipientIDs {
            var body = send.body
            if lateBy >= Self.saysItsTimeAfter, let recipient = try await repository.user(id: recipientID) {
                let words = Strings(recipient.language)
                let note = words.scheduledFor(send.sendAt, timeZone: osloTimeZone)
                body = body.isEmpty ? note : body + "\n\n" + note
            }
            news.append(
                NewNotification(
                    recipientID: recipientID, senderID: send.senderID, kind: send.kind, title: send.title, body: body,
                    urgency: send.urgency, deepLink: Validation.deepLink(for: send.kind)))
        }
        let key = Self.idempotencyKey(of: send)
        let created = try await repository.createNotifications(
            news, idempotencyKey: IdempotencyKey(senderID: send.senderID, key: key, fingerprint: key), at: current)
        try await repository.finishScheduledSend(id: send.id, at: current)
        return Sent(send: send, notificationCount: created.items.count, lateBy: lateBy)
    }

    /// Publishes a taken send's scenario, once, each mentor told in their language, and marks the send sent. A
    /// recipient deactivated (or no longer a mentor) since is left out; with none left, nothing is published.
    private func publish(_ send: ScheduledSend, lateBy: TimeInterval, at current: Date) async throws -> Sent {
        var languages: [UserID: Language] = [:]
        for mentorID in send.recipientIDs {
            if let mentor = try await repository.user(id: mentorID), mentor.isActive, mentor.role == .mentor { languages[mentorID] = mentor.language }
        }
        let mentors = send.recipientIDs.filter { languages[$0] != nil }
        guard !mentors.isEmpty else {
            try await repository.finishScheduledSend(id: send.id, at: current)
            return Sent(send: send, notificationCount: 0, lateBy: lateBy)
        }
        let (title, sendAt, known) = (send.title, send.sendAt, languages)
        let (_, made) = try await repository.publishScenario(
            title: send.title, body: send.body, coordinatorID: send.senderID, mentorIDs: mentors, scheduledSendID: send.id, at: current
        ) { scenarioID, mentorID in
            let strings = Strings(known[mentorID] ?? .norwegianBokmal)
            let late = lateBy >= Self.saysItsTimeAfter ? "\n\n" + strings.scheduledFor(sendAt, timeZone: osloTimeZone) : ""
            return NewNotification(
                recipientID: mentorID, senderID: send.senderID, kind: .scenarioPrompt, title: strings.scenarioNotificationTitle(title),
                body: strings.scenarioNotificationBody + late, deepLink: .scenario(scenarioID: scenarioID))
        }
        try await repository.finishScheduledSend(id: send.id, at: current)
        return Sent(send: send, notificationCount: made.count, lateBy: lateBy)
    }

    private func check(sendAt: Date) throws(InvalidInput) {
        let current = now()
        if sendAt <= current { throw InvalidInput([.init(field: "sendAt", rule: .notInFuture)]) }
        if sendAt.timeIntervalSince(current) > Self.furthestAhead { throw InvalidInput([.init(field: "sendAt", rule: .tooFarAhead)]) }
    }

    private func check(_ message: Validation.ValidNotification, sendAt: Date) throws {
        var issues: [Validation.Issue] = []
        let current = now()
        if sendAt <= current {
            issues.append(.init(field: "sendAt", rule: .notInFuture))
        } else if sendAt.timeIntervalSince(current) > Self.furthestAhead {
            issues.append(.init(field: "sendAt", rule: .tooFarAhead))
        }
        if !message.personalDetails.isEmpty {
            issues.append(.init(field: "personalDetails", rule: .personalDetailsNotScheduled))
        }
        guard issues.isEmpty else { throw InvalidInput(issues) }
    }
}
