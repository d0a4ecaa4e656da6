import Synchronization

/// The writes waiting to share the next transaction, and whether someone is committing them: the bookkeeping of
/// group commit, for every store that batches.
///
/// A write that arrives while a batch is being committed waits for the next one; the write that finds nobody
/// committing starts the committing, which takes batches until none is left.
public final class WaitingWrites<Job: Sendable>: Sendable {
    private struct State {
        var waiting: [Job] = []
        var isCommitting = false
    }

    private let state = Mutex(State())
    /// The most jobs one batch takes.
    private let limit: Int

    public init(limit: Int = .max) {
        self.limit = limit
    }

    /// Adds `job`; returns true when the caller must start committing (nobody is).
    public func add(_ job: Job) -> Bool {
        state.withLock { state in
            state.waiting.append(job)
            defer { state.isCommitting = true }
            return !state.isCommitting
        }
    }

    /// Whether any job is waiting (a glance: one may be added right after).
    public var hasWaiting: Bool { count > 0 }

    /// How many jobs are waiting (a glance).
    public var count: Int { state.withLock { $0.waiting.count } }

    /// The next batch, oldest first; empty when none is waiting, and then the committing has stopped.
    public func nextBatch() -> [Job] {
        state.withLock { state in
            let batch = Array(state.waiting.prefix(limit))
            state.waiting.removeFirst(batch.count)
            if batch.isEmpty { state.isCommitting = false }
            return batch
        }
    }
}
