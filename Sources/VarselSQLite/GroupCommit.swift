import GRDB
import Synchronization

/// Runs the store's writes that arrive together in one transaction, each in a savepoint of its own: group commit.
///
/// With `synchronous = FULL` every commit waits for the disk, and every write is a hand-off to the writer's
/// thread; a burst of writes shares one of each instead. A write that arrives while a transaction is running
/// waits for it to end and goes with the next one, so nothing waits when writes do not overlap. Each write is
/// still all or nothing: one that throws rolls back its own savepoint and its caller gets the error, while the
/// others commit; if the transaction as a whole fails, every write in it fails. Writes commit in arrival order,
/// so event ids still grow in commit order.
final class GroupCommit: Sendable {
    /// One waiting write: runs it in its savepoint, returning how to answer its caller once the commit is known,
    /// or answers it with the error that ended the whole transaction.
    private struct Job: Sendable {
        var run: @Sendable (Database) throws -> @Sendable () -> Void
        var fail: @Sendable (any Error) -> Void
    }

    private struct State {
        var waiting: [Job] = []
        var isCommitting = false
    }

    private let writer: any DatabaseWriter
    private let state = Mutex(State())

    init(writer: any DatabaseWriter) {
        self.writer = writer
    }

    /// Runs `body` in the next transaction, in a savepoint of its own, and returns its result once committed.
    func write<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            let job = Job(
                run: { db in
                    var outcome: Result<T, any Error>?
                    try db.inSavepoint {
                        do {
                            outcome = .success(try body(db))
                            return .commit
                        } catch {
                            outcome = .failure(error)
                            return .rollback
                        }
                    }
                    // An error that made SQLite abandon the transaction takes the whole batch with it.
                    guard db.isInsideTransaction, let outcome else { throw outcome?.failure ?? CancellationError() }
                    return { continuation.resume(with: outcome) }
                },
                fail: { continuation.resume(throwing: $0) })
            let startsCommitting = state.withLock { state in
                state.waiting.append(job)
                defer { state.isCommitting = true }
                return !state.isCommitting
            }
            if startsCommitting { Task { await commitWhileWaiting() } }
        }
    }

    /// Commits batches until no write is waiting.
    private func commitWhileWaiting() async {
        while true {
            let batch = state.withLock { state in
                defer { state.waiting = [] }
                if state.waiting.isEmpty { state.isCommitting = false }
                return state.waiting
            }
            guard !batch.isEmpty else { return }
            do {
                let answers = try await writer.write { db in try batch.map { try $0.run(db) } }
                answers.forEach { $0() }
            } catch {
                batch.forEach { $0.fail(error) }
            }
        }
    }
}

private extension Result {
    var failure: Failure? {
        if case let .failure(error) = self { error } else { nil }
    }
}
