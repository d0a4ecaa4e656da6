import Foundation
import Synchronization
import VarselStore

/// A message for one live stream.
public enum StreamMessage: Sendable {
    case event(StoredEvent)
    case heartbeat
    /// The user changed their preferences: streams re-read them before the next announcement text.
    case preferencesChanged
}

/// Fans events out to the live streams of the user they belong to.
///
/// Each stream has a bounded buffer. A client too slow to keep up is not allowed to slow the others or to grow
/// the server's memory: when its buffer is full its stream is ended, and the client reconnects with
/// `Last-Event-ID` and is replayed from the store, losing nothing.
public final class EventBroker: Sendable {
    public typealias Subscription = (id: UInt64, messages: AsyncStream<StreamMessage>)

    private struct State {
        var nextID: UInt64 = 0
        var subscribers: [Int64: [UInt64: AsyncStream<StreamMessage>.Continuation]] = [:]
        var isShutDown = false
    }

    private let state = Mutex(State())
    private let bufferLimit: Int
    private let metrics: ServiceMetrics

    public init(bufferLimit: Int, metrics: ServiceMetrics) {
        self.bufferLimit = bufferLimit
        self.metrics = metrics
    }

    /// Attaches a stream for `userID`. Attach before replaying from the store, so nothing falls in between.
    public func subscribe(userID: Int64) -> Subscription {
        let (stream, continuation) = AsyncStream<StreamMessage>.makeStream(bufferingPolicy: .bufferingOldest(bufferLimit))
        let id: UInt64? = state.withLock { state in
            guard !state.isShutDown else { return nil }
            state.nextID += 1
            state.subscribers[userID, default: [:]][state.nextID] = continuation
            return state.nextID
        }
        guard let id else {
            continuation.finish()
            return (0, stream)
        }
        continuation.onTermination = { [weak self] _ in self?.remove(userID: userID, id: id) }
        return (id, stream)
    }

    /// Ends one stream, as graceful shutdown does for every stream still open.
    public func end(userID: Int64, id: UInt64) {
        let continuation = state.withLock { $0.subscribers[userID]?[id] }
        continuation?.finish()
    }

    private func remove(userID: Int64, id: UInt64) {
        state.withLock { state in
            state.subscribers[userID]?[id] = nil
            if state.subscribers[userID]?.isEmpty == true { state.subscribers[userID] = nil }
        }
    }

    /// Delivers `event` to every stream of its user.
    public func publish(_ event: StoredEvent) {
        let targets = state.withLock { Array(($0.subscribers[event.userID] ?? [:]).values) }
        for continuation in targets { deliver(.event(event), to: continuation) }
    }

    /// Tells `userID`'s streams that their preferences changed.
    public func preferencesChanged(userID: Int64) {
        let targets = state.withLock { Array(($0.subscribers[userID] ?? [:]).values) }
        for continuation in targets { deliver(.preferencesChanged, to: continuation) }
    }

    /// Sends a heartbeat to every stream.
    public func heartbeat() {
        let targets = state.withLock { $0.subscribers.values.flatMap(\.values) }
        for continuation in targets { deliver(.heartbeat, to: continuation) }
    }

    private func deliver(_ message: StreamMessage, to continuation: AsyncStream<StreamMessage>.Continuation) {
        if case .dropped = continuation.yield(message) {
            metrics.streamDroppedAsSlow()
            continuation.finish()
        }
    }

    /// How many streams are attached.
    public var subscriberCount: Int { state.withLock { $0.subscribers.values.reduce(0) { $0 + $1.count } } }

    /// Ends every stream (graceful shutdown) and refuses new ones.
    public func shutDown() {
        let all = state.withLock { state in
            state.isShutDown = true
            return state.subscribers.values.flatMap(\.values)
        }
        all.forEach { $0.finish() }
    }
}
