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
/// The summary is made under an idempotency key of the person and its moment, then its time moved on: a restart or a
/// second instance between the two makes the same summary again, which the store takes once. A summary that fell due
/// while Varsel was stopped goes at start, covering everything since the last one.
public struct Summaries: Sendable {
    let repository: any SummaryStore & NotificationStore & UserStore
    let now: @Sendable () -> Date

    public init(repository: any SummaryStore & NotificationStore & UserStore, now: @escaping @Sendable () -> Date) {
        self.repository = repository
        self.now = now
    }

    /// A summary that went.
    public struct Sent: Sendable, Hashable {
        public var userID: UserID
        public var notificationID: NotificationID
        /// How many notifications it gathered.
        public var gathered: Int
    }

    /// Keeps `userID`'s next summary in step with their `preferences`: due at their next summary time while they
    /// gather any kind, none otherwise.
    public func schedule(for userID: UserID, preferences: NotificationPreferences) async throws {
        let current = now()
        let gathers = !preferences.summaryKinds.isDisjoint(with: NotificationKind.summarisable)
        try await repository.scheduleSummary(
            for: userID, dueAt: gathers ? preferences.summaryTime.next(after: current) : nil, at: current)
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
        guard let person = try await repository.user(id: due.userID), person.isActive else {
            try await repository.scheduleSummary(for: due.userID, dueAt: nil, at: current)
            return nil
        }
        let preferences = try await repository.preferences(for: person.id)
        // The moment this summary stands for: the last summary time that has come (a later one than `dueAt` when
        // Varsel was stopped through several).
        let moment = max(due.dueAt, preferences.summaryTime.latest(atOrBefore: current))
        let gathered = try await gathered(for: person.id, preferences: preferences, after: due.since, through: moment)
        var made: Sent?
        if !gathered.isEmpty {
            let strings = Strings(person.language)
            let counts = Dictionary(grouping: gathered, by: \.kind).mapValues(\.count)
            let summary = NewNotification(
                recipientID: person.id, senderID: nil, kind: .summary, title: strings.summaryTitle(counts),
                body: gathered.reversed().map(\.title).joined(separator: "\n"), deepLink: .notifications)
            let key = Self.idempotencyKey(moment: moment)
            let created = try await repository.createNotifications(
                [summary], idempotencyKey: IdempotencyKey(senderID: person.id, key: key, fingerprint: key), at: current)
            made = created.items.first.map { Sent(userID: person.id, notificationID: $0.id, gathered: gathered.count) }
        }
        _ = try await repository.advanceSummary(due, to: preferences.summaryTime.next(after: max(current, moment)), since: moment)
        return made
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
