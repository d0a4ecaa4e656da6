import Foundation
import VarselCore

/// The event log the live stream reads and a reconnecting client resumes from.
public protocol EventLogStore: Sendable {
    /// Events after `id` for every user, oldest first (the live stream's source).
    func events(after id: Int64, limit: Int) async throws -> [StoredEvent]
    /// Events after `id` for one user, oldest first (a reconnecting client's replay).
    func events(for userID: UserID, after id: Int64, limit: Int) async throws -> [StoredEvent]
    /// The newest event id, 0 when there is none.
    func latestEventID() async throws -> Int64
    /// The highest event id pruned so far; a client resuming from below it must reset.
    func prunedThroughEventID() async throws -> Int64
    /// Deletes events created before `date`; returns how many.
    func pruneEvents(before date: Date) async throws -> Int
    /// Whether every event this process appends reaches ``followCommittedEvents(_:)``'s followers as it commits, so
    /// that nobody need read it back. A store that says no tells its followers that it committed, and they read the log.
    var publishesCommittedEvents: Bool { get }
    /// Calls `follower` right after each transaction of this process that appended events commits, in commit order:
    /// with its events when ``publishesCommittedEvents``, else with none (read the log). So the store itself, not its
    /// callers, tells the live stream that something happened.
    func followCommittedEvents(_ follower: @escaping @Sendable ([StoredEvent]) -> Void)
}

extension EventLogStore {
    public var publishesCommittedEvents: Bool { false }
    public func followCommittedEvents(_ follower: @escaping @Sendable ([StoredEvent]) -> Void) {}
}
