import Foundation
import VarselCore
import VarselStore

/// Summaries: the notifications a person gathers instead of hearing at once, told as one notification a day.
///
/// A person who switches a kind to the summary (``NotificationPreferences/summaryKinds``) still gets each notification
/// of it in their list, but no announcement, push or follow-up. At their ``NotificationPreferences/summaryTime`` the
/// unread ones that came since the last summary are counted into one notification of kind ``NotificationKind/summary``
/// ("Summary: 2 certification warnings, 1 scenario prompt"), which is told like any other: one announcement, one push
/// (held by quiet hours, as a non-urgent one is), and a text message or email where the person chose them for
/// summaries. Urgent notifications and assignments are never gathered.
///
/// A coordinator (or admin) may also choose a daily email at the same time, of the assignments they manage that are
/// unanswered, overdue or declined (``NotificationPreferences/isAssignmentDigestOn``), to their verified address. It
/// names assignments by number and mentor, never the person visited.
///
/// A summary stands for the moment it was due at and gathers what came after the last one up to it. It is made
/// under an idempotency key of the person and that moment, then its time moved on (only by the round that still
/// finds the last summary's end as it read it): a restart or a second instance between the two makes the same summary
/// again, which the store takes once, however late. The email goes from the round that moved the time on, so at most
/// once; one that fails is not sent again. A summary that fell due while Varsel was stopped goes at start; what came
/// after its moment waits for the next one. A person deactivated meanwhile is told nothing, and their time moves on.
public struct Summaries: Sendable {
    /// The stores summaries read and write.
    public typealias Store = SummaryStore & NotificationStore & UserStore & AssignmentStore & ContactChannelStore

    let repository: any Store
    let messaging: OutsideMessaging
    /// How long an assignment may wait for an answer before the daily email calls it overdue.
    let answerDeadline: TimeInterval
    let now: @Sendable () -> Date

    public init(
        repository: any Store, messaging: OutsideMessaging = OutsideMessaging(), answerDeadline: TimeInterval = 24 * 3600,
        now: @escaping @Sendable () -> Date
    ) {
        self.repository = repository
        self.messaging = messaging
        self.answerDeadline = answerDeadline
        self.now = now
    }

    /// A summary that went: its notification, or its email, or both.
    public struct Sent: Sendable, Hashable {
        public var userID: UserID
        public var notificationID: NotificationID?
        /// How many notifications it gathered.
        public var gathered: Int
        /// How the daily email of open assignments went, when the person has it.
        public var email: EmailOutcome?
    }

    /// What became of a daily email of open assignments.
    public enum EmailOutcome: String, Sendable, Hashable {
        case sent
        /// Nothing was open: no email.
        case nothingOpen
        /// The person has no verified address, or this Varsel sends no email.
        case noAddress
        /// The mail server refused it or could not be reached; it is not sent again.
        case failed
    }

    /// Keeps `userID`'s next summary in step with their `preferences`: due at their next summary time while they
    /// gather any kind, none otherwise.
    public func schedule(for userID: UserID, preferences: NotificationPreferences) async throws {
        let current = now()
        try await repository.scheduleSummary(
            for: userID, dueAt: preferences.hasSummaryTime ? preferences.summaryTime.next(after: current) : nil, at: current)
    }

    /// The idempotency key a summary is made under. It holds a control character, which no HTTP header can carry,
    /// so no client's `Idempotency-Key` can ever be it.
    static func idempotencyKey(moment: Date) -> String {
        "summary\u{1F}\(Int64(moment.timeIntervalSince1970.rounded()))"
    }

    /// Makes each summary that is due, once; a person with nothing gathered gets none, and their time moves on.
    ///
    /// A summary that fails is told to `failed` and left to the next round; the others still go.
    public func sendDue(limit: Int = 50, failed: @Sendable (DueSummary, any Error) -> Void = { _, _ in }) async throws -> [Sent] {
        var sent: [Sent] = []
        for due in try await repository.dueSummaries(at: now(), limit: limit) {
            do {
                if let summary = try await send(due) { sent.append(summary) }
            } catch {
                failed(due, error)
            }
        }
        return sent
    }

    private func send(_ due: DueSummary) async throws -> Sent? {
        let current = now()
        guard let person = try await repository.user(id: due.userID) else { return nil }
        let preferences = try await repository.preferences(for: person.id)
        let moment = due.dueAt
        let next = preferences.summaryTime.next(after: max(current, moment))
        guard person.isActive else {
            _ = try await repository.advanceSummary(due, to: next, since: moment)
            return nil
        }
        let gathered = try await gathered(for: person.id, preferences: preferences, after: due.since, through: moment)
        var made: NotificationID?
        if !gathered.isEmpty {
            let strings = Strings(person.language)
            let counts = Dictionary(grouping: gathered, by: \.kind).mapValues(\.count)
            let summary = NewNotification(
                recipientID: person.id, senderID: nil, kind: .summary, title: strings.summaryTitle(counts),
                body: strings.summaryBody(titles: gathered.reversed().map(\.title)), deepLink: .notifications)
            let key = Self.idempotencyKey(moment: moment)
            let created = try await repository.createNotifications(
                [summary], idempotencyKey: IdempotencyKey(senderID: person.id, key: key, fingerprint: key), at: current)
            made = created.items.first?.id
        }
        let moved = try await repository.advanceSummary(due, to: next, since: moment)
        let email = moved && preferences.isAssignmentDigestOn && person.role != .mentor ? await sendAssignmentDigest(to: person) : nil
        guard made != nil || email != nil else { return nil }
        return Sent(userID: person.id, notificationID: made, gathered: gathered.count, email: email)
    }

    /// Emails `person` the assignments they manage that are unanswered, overdue or declined, when there are any and
    /// they have a verified address.
    private func sendAssignmentDigest(to person: User) async -> EmailOutcome {
        do {
            guard messaging.offers(.email),
                let address = try await repository.verifiedContactChannels(forAnyOf: [person.id]).first(where: { $0.channel == .email })
            else { return .noAddress }
            let listing = AssignmentListing(scope: .current, coordinatorID: person.role == .admin ? nil : person.id)
            let open = try await repository.assignments(listing).filter { $0.status == .pending || $0.status == .declined }
                .sorted { $0.createdAt < $1.createdAt }
            guard !open.isEmpty else { return .nothingOpen }
            let current = now()
            let strings = Strings(person.language)
            var names: [UserID: String] = [:]
            var lines: [String] = []
            var (unanswered, overdue, declined) = (0, 0, 0)
            for assignment in open {
                if names[assignment.mentorID] == nil {
                    names[assignment.mentorID] = try await repository.user(id: assignment.mentorID)?.displayName ?? "—"
                }
                let isOverdue = assignment.status == .pending && current.timeIntervalSince(assignment.createdAt) > answerDeadline
                switch (assignment.status, isOverdue) {
                case (.declined, _): declined += 1
                case (_, true): overdue += 1
                default: unanswered += 1
                }
                lines.append(
                    strings.assignmentDigestLine(
                        id: assignment.id, mentorName: names[assignment.mentorID] ?? "—",
                        progress: assignment.status == .declined ? .declined : .waitingForAnswer,
                        waited: strings.waited(since: assignment.createdAt, until: assignment.respondedAt ?? current, answered: false),
                        isOverdue: isOverdue))
            }
            let subject = strings.assignmentDigestSubject(unanswered: unanswered, overdue: overdue, declined: declined)
            let link = messaging.link(to: "/coordinator/assignments")
            try await messaging.send(
                .email, to: address.address, name: person.displayName, subject: subject,
                text: OutsideMessageText.assignmentDigestPlainText(name: person.displayName, lines: lines, link: link, strings: strings),
                html: OutsideMessageText.assignmentDigestHTML(name: person.displayName, subject: subject, lines: lines, link: link, strings: strings),
                language: person.language)
            return .sent
        } catch {
            return .failed
        }
    }

    /// `userID`'s unread notifications that waited for the summary and came after `since` up to `moment`, newest
    /// first.
    private func gathered(
        for userID: UserID, preferences: NotificationPreferences, after since: Date, through moment: Date
    ) async throws -> [NotificationItem] {
        var found: [NotificationItem] = []
        var cursor: NotificationID?
        repeat {
            let page = try await repository.notifications(for: userID, filter: .unread, after: cursor, limit: 200)
            for item in page.items where item.createdAt > since && item.createdAt <= moment {
                if preferences.isSummarised(item.kind, urgency: item.urgency) { found.append(item) }
            }
            // Newest first: a page reaching back to the window's start ends the search.
            guard let last = page.items.last, last.createdAt > since else { break }
            cursor = page.nextCursor
        } while cursor != nil
        return found
    }
}
