import GRDB
import Synchronization
import VarselStore

/// Hands the events each write transaction appended to whoever follows the log, the moment it commits.
///
/// The event pump used to be woken after every write and read back, from the file, the events that write had just
/// appended: a thread hand-off and a read transaction per notification. The writer already holds them, typed. So
/// each event the store appends is kept here until its transaction ends: on commit they go to the followers, in
/// the order they were appended, which is commit order and id order (SQLite has one writer); on rollback, or the
/// rollback of the savepoint they were appended in, they are dropped. The pump still reads the log when a batch
/// does not follow on from what it has published (another process wrote in between) and once a second.
final class CommittedEvents: TransactionObserver, Sendable {
    private struct State {
        var pending: [StoredEvent] = []
        var followers: [@Sendable ([StoredEvent]) -> Void] = []
    }

    private let state = Mutex(State())

    /// The collector of each writer connection, so the store's static helpers find it from the `Database` they
    /// are given.
    private static let byConnection = Mutex<[ObjectIdentifier: CommittedEvents]>([:])

    /// Collects the events appended through the writer connection `db`.
    func collect(on db: Database) {
        Self.byConnection.withLock { $0[ObjectIdentifier(db)] = self }
    }

    /// Stops collecting on the connection known by `id` (its store is gone).
    static func stopCollecting(on id: ObjectIdentifier) {
        _ = byConnection.withLock { $0.removeValue(forKey: id) }
    }

    /// Calls `follower` with each committed transaction's events.
    func follow(_ follower: @escaping @Sendable ([StoredEvent]) -> Void) {
        state.withLock { $0.followers.append(follower) }
    }

    /// Notes that `event` was appended in the current transaction of `db`.
    static func appended(_ event: StoredEvent, db: Database) {
        byConnection.withLock { $0[ObjectIdentifier(db)] }?.state.withLock { $0.pending.append(event) }
    }

    /// How many events the current transaction of `db` has appended: the mark to roll a savepoint back to.
    static func mark(db: Database) -> Int {
        byConnection.withLock { $0[ObjectIdentifier(db)] }?.state.withLock { $0.pending.count } ?? 0
    }

    /// Drops the events appended after `mark`: their savepoint rolled back.
    static func rollBack(to mark: Int, db: Database) {
        byConnection.withLock { $0[ObjectIdentifier(db)] }?.state.withLock { state in
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
