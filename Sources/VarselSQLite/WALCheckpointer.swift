import GRDB
import Synchronization

/// Copies the write-ahead log back into the database file on a connection of its own, so no commit waits for it.
///
/// SQLite otherwise checkpoints on the connection that commits, once the log passes 1,000 pages: that commit, and
/// every write queued behind it, waits while the pages are copied and the database file is synced. With this, the
/// writer's automatic checkpoint is off (`wal_autocheckpoint = 0`) and, after a commit, a passive checkpoint runs
/// on this connection's thread when none is running and the last one started at least ``interval`` ago. A passive
/// checkpoint never blocks the writer; once it has copied everything, the writer starts the log from its beginning
/// again, so the log stays about as long as ``interval``'s commits. Durability is unchanged: every commit is synced
/// to the log before it returns, as before.
final class WALCheckpointer: Sendable {
    private let connection: DatabaseQueue
    /// The least time between the starts of two checkpoints.
    let interval: Duration
    private let state = Mutex<(isRunning: Bool, lastStart: ContinuousClock.Instant?)>((false, nil))

    /// A checkpointer for the database at `path`, on a connection of its own; turns off the automatic checkpoint on
    /// `writer`, the connection that commits.
    init(path: String, writer: DatabasePool, configuration: Configuration, interval: Duration = .milliseconds(100)) throws {
        connection = try DatabaseQueue(path: path, configuration: configuration)
        self.interval = interval
        try writer.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA wal_autocheckpoint = 0") }
    }

    /// Called after each commit: starts a checkpoint when it is time for one.
    func committed() {
        let now = ContinuousClock.now
        let starts = state.withLock { state in
            guard !state.isRunning else { return false }
            if let last = state.lastStart, now < last.advanced(by: interval) { return false }
            state = (true, now)
            return true
        }
        guard starts else { return }
        connection.asyncWriteWithoutTransaction { db in
            // A failure (a full disk) leaves the pages in the log, where they are safe; the next commit tries again.
            _ = try? db.execute(sql: "PRAGMA wal_checkpoint(PASSIVE)")
            self.state.withLock { $0.isRunning = false }
        }
    }

    /// Runs `body` on the checkpointer's connection once the checkpoint under way, if any, has finished: for tests.
    func afterCheckpoint<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
        try await connection.writeWithoutTransaction(body)
    }
}
