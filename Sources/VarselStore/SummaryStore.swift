import Foundation
import VarselCore

/// A person's next summary: when it is due, and since when it gathers.
public struct DueSummary: Sendable, Hashable {
    public var userID: UserID
    /// The summary moment it waits for.
    public var dueAt: Date
    /// The end of the window the last summary covered (or when the person chose summaries): it gathers what came later.
    public var since: Date

    public init(userID: UserID, dueAt: Date, since: Date) {
        self.userID = userID
        self.dueAt = dueAt
        self.since = since
    }
}

/// When each person who gathers notifications into a summary gets their next one.
public protocol SummaryStore: Sendable {
    /// Sets when `userID`'s next summary is due, or, with nil, that they have none. A person who had none gathers
    /// from `date` on; one who had one keeps gathering from where their last summary ended.
    func scheduleSummary(for userID: UserID, dueAt: Date?, at date: Date) async throws
    /// The summaries due at `date`, earliest first.
    func dueSummaries(at date: Date, limit: Int) async throws -> [DueSummary]
    /// Moves `summary` on, when the end of the last summary is still as read (another instance may have moved it; a
    /// new time the person saved meanwhile does not stop it): next due at `nextDueAt`, gathering from `since`.
    /// Returns whether it moved.
    func advanceSummary(_ summary: DueSummary, to nextDueAt: Date, since: Date) async throws -> Bool
}
