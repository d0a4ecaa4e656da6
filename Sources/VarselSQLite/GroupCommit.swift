import GRDB
import VarselStore

/// Runs the store's writes that arrive together in one transaction, each in a savepoint of its own: group commit.
///
/// With `synchronous = FULL` every commit waits for the disk, and every write is a hand-off to the writer's
/// thread; a burst of writes shares one of each instead. A write that arrives while a transaction is running
/// waits for it to end and goes with the next one, so nothing waits when writes do not overlap. Each write is
/// still all or nothing: one that throws rolls back its own savepoint and its caller gets the error, while the
/// others commit; if the transaction as a whole fails, every write in it fails. Writes commit in arrival order,
/// so event ids still grow in commit order.
final class GroupCommit: Sendable {
    /// One waiting write: runs it (in a savepoint of its own when it shares the transaction), returning how to
    /// answer its caller once the commit is known, or answers it with the error that ended the whole transaction.
    private struct Job: Sendable {
        var run: @Sendable (_ db: Database, _ isShared: Bool) throws -> @Sendable () -> Void
        var fail: @Sendable (any Error) -> Void
    }

    private let writer: any DatabaseWriter
    private let waiting = WaitingWrites<Job>()

    init(writer: any DatabaseWriter) {
        self.writer = writer
    }

    /// Runs `body` in the next transaction (in a savepoint of its own when others share it) and returns its result
    /// once committed.
    func write<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            let job = Job(
                run: { db, isShared in
                    // Alone in its transaction, a write needs no savepoint: if it throws, the transaction rolls back.
                    guard isShared else {
                        let value = try body(db)
                        return { continuation.resume(returning: value) }
                    }
                    let outcome = try Self.inSavepoint(db, body)
                    return { continuation.resume(with: outcome) }
                },
                fail: { continuation.resume(throwing: $0) })
            if waiting.add(job) { Task { await commitWhileWaiting() } }
        }
    }

    /// Runs `body` in a savepoint, returning what it returned or threw, on statements prepared once (GRDB's
    /// `inSavepoint` parses its statements every time). An error that made SQLite abandon the whole transaction
    /// is thrown instead: it takes the batch with it.
    private static func inSavepoint<T>(_ db: Database, _ body: (Database) throws -> T) throws -> Result<T, any Error> {
        try db.cachedStatement(sql: "SAVEPOINT group_commit").execute()
        let appended = CommittedEvents.mark(db: db)
        do {
            let value = try body(db)
            try db.cachedStatement(sql: "RELEASE group_commit").execute()
            return .success(value)
        } catch {
            guard db.isInsideTransaction else { throw error }
            try db.cachedStatement(sql: "ROLLBACK TO group_commit").execute()
            try db.cachedStatement(sql: "RELEASE group_commit").execute()
            // Its events are gone with it.
            CommittedEvents.rollBack(to: appended, db: db)
            return .failure(error)
        }
    }

    /// Commits batches until no write is waiting.
    private func commitWhileWaiting() async {
        while true {
            let batch = waiting.nextBatch()
            guard !batch.isEmpty else { return }
            do {
                let answers = try await writer.write { db in try batch.map { try $0.run(db, batch.count > 1) } }
                answers.forEach { $0() }
            } catch {
                batch.forEach { $0.fail(error) }
            }
        }
    }
}
