import GRDB
import Synchronization
import VarselStore

/// Runs the store's writes that arrive together in one transaction, each in a savepoint of its own: group commit.
///
/// With `synchronous = FULL` every commit waits for the disk, and every write is a hand-off to the writer's
/// thread; a burst of writes shares one of each instead. A write that arrives while a transaction is running
/// waits for it to end and goes with the next one, so nothing waits when writes do not overlap. Each write is
/// still all or nothing: one that throws rolls back its own savepoint and its caller gets the error, while the
/// others commit; if the transaction as a whole fails, every write in it fails. Writes commit in arrival order,
/// so event ids still grow in commit order.
///
/// Writes that come steadily but not together (one every millisecond, each committed before the next arrives) would
/// each pay for a commit of their own. With an ``interval``, a batch does not start sooner than that after the one
/// before it started, so such writes gather into one commit every `interval`; a write after a quiet spell still
/// starts at once.
final class GroupCommit: Sendable {
    /// One waiting write: runs it (in a savepoint of its own when it shares the transaction), returning how to
    /// answer its caller once the commit is known, or answers it with the error that ended the whole transaction.
    private struct Job: Sendable {
        var run: @Sendable (_ db: Database, _ isShared: Bool) throws -> @Sendable () -> Void
        var fail: @Sendable (any Error) -> Void
    }

    private let writer: any DatabaseWriter
    private let waiting = WaitingWrites<Job>()
    /// The least time from one batch's start to the next one's; zero commits each batch as soon as it can.
    let interval: Duration
    /// When the last batch started.
    private let lastStart = Mutex<ContinuousClock.Instant?>(nil)
    /// Waits until the given instant: a sleep, or in tests whatever they need.
    private let pause: @Sendable (ContinuousClock.Instant) async -> Void
    /// The store's collector of appended events, whose savepoints' events are dropped with them.
    private let events: CommittedEvents?
    /// Told of each write's outcome: a full disk begins an outage, a commit ends one.
    private let health: StoreHealth?
    /// Told of each commit, to copy the write-ahead log back in good time.
    private let checkpointer: WALCheckpointer?

    init(
        writer: any DatabaseWriter, interval: Duration = .zero, events: CommittedEvents? = nil, health: StoreHealth? = nil,
        checkpointer: WALCheckpointer? = nil,
        pause: @escaping @Sendable (ContinuousClock.Instant) async -> Void = { try? await Task.sleep(until: $0, clock: .continuous) }
    ) {
        self.writer = writer
        self.events = events
        self.health = health
        self.checkpointer = checkpointer
        self.interval = interval
        self.pause = pause
    }

    /// How many writes wait for the next batch.
    var waitingCount: Int { waiting.count }

    /// Runs `body` in the next transaction (in a savepoint of its own when others share it) and returns its result
    /// once committed.
    func write<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
        guard let health else { return try await enqueue(body) }
        return try await SQLiteRepository.observing(health) { try await self.enqueue(body) }
    }

    /// Runs `body` in the next transaction and returns its result once committed, as SQLite reports it.
    private func enqueue<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            let job = Job(
                run: { db, isShared in
                    // Alone in its transaction, a write needs no savepoint: if it throws, the transaction rolls back.
                    guard isShared else {
                        let value = try body(db)
                        return { continuation.resume(returning: value) }
                    }
                    let outcome = try Self.inSavepoint(db, events: self.events, body)
                    return { continuation.resume(with: outcome) }
                },
                fail: { continuation.resume(throwing: $0) })
            if waiting.add(job) { commitOnWriter() }
        }
    }

    /// Runs `body` in a savepoint, returning what it returned or threw, on statements prepared once (GRDB's
    /// `inSavepoint` parses its statements every time). An error that made SQLite abandon the whole transaction
    /// is thrown instead: it takes the batch with it.
    private static func inSavepoint<T>(_ db: Database, events: CommittedEvents?, _ body: (Database) throws -> T) throws -> Result<T, any Error> {
        try db.cachedStatement(sql: "SAVEPOINT group_commit").execute()
        let appended = events?.mark() ?? 0
        do {
            let value = try body(db)
            try db.cachedStatement(sql: "RELEASE group_commit").execute()
            return .success(value)
        } catch {
            guard db.isInsideTransaction else { throw error }
            try db.cachedStatement(sql: "ROLLBACK TO group_commit").execute()
            try db.cachedStatement(sql: "RELEASE group_commit").execute()
            // Its events are gone with it.
            events?.rollBack(to: appended)
            return .failure(error)
        }
    }

    /// Commits the waiting writes on the writer's thread, a batch at a time, until none is waiting.
    ///
    /// One hand-off to the writer's thread starts it; each batch commits there and answers its callers from there,
    /// then queues the next batch behind whatever else waits for the writer (a write outside group commit is not
    /// starved by a steady stream of batches). Only the pause of an ``interval`` leaves the writer's thread.
    private func commitOnWriter(intervalPassed: Bool = false) {
        writer.asyncWriteWithoutTransaction { db in self.commitNextBatch(db, intervalPassed: intervalPassed) }
    }

    /// `intervalPassed`: the pause before this batch was taken already.
    private func commitNextBatch(_ db: Database, intervalPassed: Bool) {
        // Only a write that is waiting waits for the interval: with none, committing stops at once below.
        if interval > .zero, !intervalPassed, waiting.hasWaiting, let last = lastStart.withLock({ $0 }) {
            let due = last.advanced(by: interval)
            if due > .now {
                Task {
                    await pause(due)
                    commitOnWriter(intervalPassed: true)
                }
                return
            }
        }
        let batch = waiting.nextBatch()
        guard !batch.isEmpty else { return }
        lastStart.withLock { $0 = .now }
        do {
            var answers: [@Sendable () -> Void] = []
            try db.inTransaction {
                answers = try batch.map { try $0.run(db, batch.count > 1) }
                return .commit
            }
            // Before the answers: a caller that goes on finds the checkpoint it started already queued.
            checkpointer?.committed()
            for answer in answers { answer() }
        } catch {
            for waiting in batch { waiting.fail(error) }
        }
        commitOnWriter()
    }
}
