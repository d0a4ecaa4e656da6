import Foundation

/// Why the store cannot serve right now: a condition of what it stands on that passes, not a fault in the request.
///
/// The HTTP layer answers it with 503 and `Retry-After` (507 for a full disk) instead of 500, so clients retry; a
/// write refused this way may or may not have committed, and a retry with the same `Idempotency-Key` stores it once.
public enum StoreUnavailable: Error, Sendable, Equatable, CustomStringConvertible {
    /// The database server refused or dropped the connection, is starting, stopping or read-only (a standby not yet
    /// promoted).
    case unreachable
    /// The database did not answer within the store's deadline (a hung server or a network partition).
    case timedOut
    /// The disk the database writes to is full.
    case diskFull

    /// The name of the condition in metrics and logs.
    public var name: String {
        switch self {
        case .unreachable: "unreachable"
        case .timedOut: "timeout"
        case .diskFull: "disk_full"
        }
    }

    /// One sentence for the operator and the client; it names no request data.
    public var description: String {
        switch self {
        case .unreachable: "The database cannot be reached."
        case .timedOut: "The database did not answer in time."
        case .diskFull: "The disk the database writes to is full."
        }
    }
}

/// How many items an outbox holds and how long the oldest due one has waited past its time.
public struct OutboxBacklog: Sendable, Equatable {
    /// Which outbox: `push`, `sms` or `email`.
    public var outbox: String
    /// Items not yet sent or given up, including those held for later (quiet hours, a retry's backoff).
    public var items: Int
    /// When the longest-waiting item that is due now became due; nil when none is due. An item held by quiet hours
    /// is not due until they end, so it never looks stuck.
    public var oldestDue: Date?

    public init(outbox: String, items: Int, oldestDue: Date?) {
        self.outbox = outbox
        self.items = items
        self.oldestDue = oldestDue
    }
}

/// What a store tells the operator about itself: whether it answers now, the outages it met, and its outboxes.
public protocol StoreCondition: Sendable {
    /// The outages this store met, as its operations saw them.
    var health: StoreHealth { get }
    /// A cheap read within a short deadline; throws ``StoreUnavailable`` when the store cannot answer.
    func ping() async throws
    /// Every outbox's backlog (push, sms, email), in that order.
    func outboxBacklog(at date: Date) async throws -> [OutboxBacklog]
}

/// Runs store operations with a deadline: the caller gets ``StoreUnavailable/timedOut`` once `limit` has passed,
/// even when the operation itself cannot be interrupted (a database that stopped answering).
public enum StoreDeadline {
    /// Runs `operation`, or throws ``StoreUnavailable/timedOut`` after `limit`. At the deadline the operation is
    /// cancelled (a wait for a pooled connection ends at once); one already in the database's hands finishes or fails
    /// on its own, unseen.
    public static func run<T: Sendable>(within limit: Duration, _ operation: @escaping @Sendable () async throws -> T) async throws -> T {
        let outcome = FirstOutcome<T>()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
                outcome.start(continuation)
                let timer = Task {
                    try await Task.sleep(for: limit)
                    if outcome.finish(.failure(StoreUnavailable.timedOut)) { outcome.cancelWork() }
                }
                outcome.work = Task {
                    let result: Result<T, any Error>
                    do { result = .success(try await operation()) } catch { result = .failure(error) }
                    // The timer is woken and ends: an operation that answered in time leaves nothing sleeping.
                    timer.cancel()
                    outcome.finish(result)
                }
            }
        } onCancel: {
            if outcome.finish(.failure(CancellationError())) { outcome.cancelWork() }
        }
    }
}
