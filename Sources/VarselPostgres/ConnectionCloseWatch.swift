import NIOCore
import PostgresNIO
import Synchronization
import VarselStore

/// Ends an operation on a pooled connection the moment that connection closes under it.
///
/// PostgresNIO never answers a statement sent on a connection the server has already closed: a transaction the
/// server ended while it sat idle (`idle_in_transaction_session_timeout`, which a slow or starved instance meets),
/// an administrator's `pg_terminate_backend`, a restart between two statements. Waiting for it would keep the
/// caller past its deadline and hold the pooled connection for good; a few of those and the pool has none left. An
/// operation run here ends as ``StoreUnavailable/unreachable`` instead, and its connection goes back to the pool,
/// which drops it. The statement left waiting is abandoned, with the rest of the operation.
///
/// The other way round too: PostgresNIO does not stop a statement already sent when its caller is cancelled (at its
/// deadline), so one the server has not answered ``closesAfterCancel`` later (a server that hangs, a network cut
/// that leaves no trace) is stopped by closing its connection. Without that, the caller is answered at its deadline
/// but the connection stays taken until the server answers, or for good.
final class ConnectionCloseWatch: Sendable {
    private struct State {
        var nextKey: UInt64 = 0
        /// Per connection, what to call when it closes: one entry for each operation running on it.
        var waiters: [PostgresConnection.ID: [UInt64: @Sendable () -> Void]] = [:]
    }

    private let state = Mutex(State())

    /// How long an operation whose caller was cancelled may go on before its connection is closed.
    let closesAfterCancel: Duration

    init(closesAfterCancel: Duration = .seconds(2)) {
        self.closesAfterCancel = closesAfterCancel
    }

    /// The pool handed over a connection that had already closed; nothing was sent on it.
    ///
    /// The pool learns of a close a moment after the connection's last lease ends, so a caller waiting at that moment
    /// can be given it. Nothing of the operation began, so it is safe to ask the pool again.
    struct ClosedBeforeUse: Error {}

    /// Runs `operation` on `connection`, or throws ``StoreUnavailable/unreachable`` once the connection closes
    /// (``ClosedBeforeUse`` when it was closed already).
    func run<T: Sendable>(on connection: PostgresConnection, _ operation: @escaping @Sendable () async throws -> T) async throws -> T {
        guard !connection.isClosed else { throw ClosedBeforeUse() }
        let outcome = FirstOutcome<T>()
        do {
            return try await watched(connection, outcome, operation)
        } catch  where !connection.isClosed && Self.lostConnection(error) {
            // The connection failed under the operation and is closing: it goes back to the pool only once closed,
            // or the pool could hand it to the next caller in the meantime. (Other refusals, such as a standby's
            // read-only answer or a cancelled statement, leave the connection open and usable: no wait for those.)
            _ = try? await connection.closeFuture.get()
            throw error
        }
    }

    /// Whether `error` says the connection itself was lost (closed by either side, or broken), not only refused.
    static func lostConnection(_ error: any Error) -> Bool {
        switch error {
        case let transaction as PostgresTransactionError:
            [transaction.beginError, transaction.closureError, transaction.commitError, transaction.rollbackError]
                .contains { $0.map(lostConnection) ?? false }
        case let error as PSQLError:
            [.connectionError, .serverClosedConnection, .clientClosedConnection, .uncleanShutdown].contains(error.code)
        default:
            false
        }
    }

    private func watched<T: Sendable>(
        _ connection: PostgresConnection, _ outcome: FirstOutcome<T>, _ operation: @escaping @Sendable () async throws -> T
    ) async throws -> T {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
                outcome.start(continuation)
                let key = watch(connection) { outcome.finish(.failure(StoreUnavailable.unreachable)) }
                let work = Task {
                    let result: Result<T, any Error>
                    do { result = .success(try await operation()) } catch { result = .failure(error) }
                    self.unwatch(connection.id, key)
                    outcome.finish(result)
                }
                outcome.work = work
            }
        } onCancel: {
            outcome.cancelWork()
            let grace = closesAfterCancel
            Task {
                try? await Task.sleep(for: grace)
                if !outcome.isFinished { try? await connection.close() }
            }
        }
    }

    /// How many connections are watched now (each until it closes).
    var watchedConnections: Int { state.withLock { $0.waiters.count } }

    /// Registers `closed` for `connection`; the first operation on a connection hooks its close once.
    private func watch(_ connection: PostgresConnection, _ closed: @escaping @Sendable () -> Void) -> UInt64 {
        let id = connection.id
        let (key, isNew) = state.withLock { state in
            state.nextKey += 1
            let isNew = state.waiters[id] == nil
            state.waiters[id, default: [:]][state.nextKey] = closed
            return (state.nextKey, isNew)
        }
        // Outside the lock: a future already complete calls back at once.
        if isNew { connection.closeFuture.whenComplete { _ in self.closed(id) } }
        return key
    }

    private func unwatch(_ id: PostgresConnection.ID, _ key: UInt64) {
        state.withLock { state in _ = state.waiters[id]?.removeValue(forKey: key) }
    }

    private func closed(_ id: PostgresConnection.ID) {
        let waiters = state.withLock { state in state.waiters.removeValue(forKey: id) }
        for waiter in (waiters ?? [:]).values { waiter() }
    }
}
