import GRDB
import Synchronization
import VarselStore

/// Hands the events each write transaction appended to whoever follows the log, the moment it commits.
///
/// The writer already holds each event it appends, typed, so the pump need not read it back from the file (a thread
/// hand-off and a read transaction per notification). Each event the store appends is kept here until its
/// transaction ends: on commit they go to the followers, in
/// the order they were appended, which is commit order and id order (SQLite has one writer); on rollback, or the
/// rollback of the savepoint they were appended in, they are dropped. The pump still reads the log when a batch
/// does not follow on from what it has published (another process wrote in between) and once a second.
final class CommittedEvents: TransactionObserver, Sendable {
    private struct State {
        var pending: [StoredEvent] = []
        var followers: [@Sendable ([StoredEvent]) -> Void] = []
    }

    private let state = Mutex(State())

    /// Calls `follower` with each committed transaction's events.
    func follow(_ follower: @escaping @Sendable ([StoredEvent]) -> Void) {
        state.withLock { $0.followers.append(follower) }
    }

    /// Notes that `event` was appended in the current write transaction (the store has one writer connection).
    func appended(_ event: StoredEvent) {
        state.withLock { $0.pending.append(event) }
    }

    /// How many events the current transaction has appended: the mark to roll a savepoint back to.
    func mark() -> Int {
        state.withLock { $0.pending.count }
    }

    /// Drops the events appended after `mark`: their savepoint rolled back.
    func rollBack(to mark: Int) {
        state.withLock { state in
            state.pending.removeLast(max(0, state.pending.count - mark))
        }
    }

    // MARK: TransactionObserver

    func observes(eventsOfKind eventKind: DatabaseEventKind) -> Bool {
        if case .insert(tableName: "event") = eventKind { return true }
        return false
    }

    func databaseDidChange(with event: DatabaseEvent) {}

    func databaseDidCommit(_ db: Database) {
        let (events, followers) = state.withLock { state in
            defer { state.pending.removeAll(keepingCapacity: true) }
            return (state.pending, state.followers)
        }
        guard !events.isEmpty else { return }
        for follower in followers { follower(events) }
    }

    func databaseDidRollback(_ db: Database) {
        state.withLock { $0.pending.removeAll(keepingCapacity: true) }
    }
}
