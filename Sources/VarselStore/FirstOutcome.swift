import Synchronization

/// The first of an operation's possible outcomes (its own answer, a deadline, its connection closing), handed to the
/// one continuation that waits for it; the ones after are dropped.
package final class FirstOutcome<T: Sendable>: Sendable {
    private struct State {
        var continuation: CheckedContinuation<T, any Error>?
        var early: Result<T, any Error>?
        var done = false
        var work: Task<Void, Never>?
        var cancelled = false
    }

    private let state = Mutex(State())

    package init() {}

    /// Hands the outcome to `continuation`, at once when it came already.
    package func start(_ continuation: CheckedContinuation<T, any Error>) {
        let early: Result<T, any Error>? = state.withLock { state in
            if let early = state.early { return early }
            state.continuation = continuation
            return nil
        }
        if let early { continuation.resume(with: early) }
    }

    /// Whether the operation has its outcome.
    package var isFinished: Bool { state.withLock { $0.done } }

    /// Hands `result` on if nothing came first; true when it did.
    @discardableResult
    package func finish(_ result: Result<T, any Error>) -> Bool {
        let (won, continuation): (Bool, CheckedContinuation<T, any Error>?) = state.withLock { state in
            guard !state.done else { return (false, nil) }
            state.done = true
            guard let continuation = state.continuation else {
                state.early = result
                return (true, nil)
            }
            state.continuation = nil
            return (true, continuation)
        }
        continuation?.resume(with: result)
        return won
    }

    /// The task that runs the operation; set after a cancellation, it is cancelled at once.
    package var work: Task<Void, Never>? {
        get { state.withLock { $0.work } }
        set {
            let cancelled = state.withLock { state in
                state.work = newValue
                return state.cancelled
            }
            if cancelled { newValue?.cancel() }
        }
    }

    /// Passes a cancellation of the caller on to the operation, which decides how it ends.
    package func cancelWork() {
        let work = state.withLock { state in
            state.cancelled = true
            return state.work
        }
        work?.cancel()
    }
}
