import VarselCore
import VarselService

/// What tests ask of the event broker beyond what the server uses: streams read from an `AsyncStream`, ending one
/// stream, and counting a user's streams.
extension EventBroker {
    public typealias Subscription = (id: UInt64, messages: AsyncStream<StreamMessage>)

    /// Attaches a stream whose messages are read from an `AsyncStream`; it detaches when its reader stops.
    public func subscribe(userID: UserID, session: String = "") -> Subscription {
        let (messages, continuation) = AsyncStream<StreamMessage>.makeStream(bufferingPolicy: .bufferingOldest(bufferLimit))
        guard let id = subscribe(userID: userID, session: session, stream: AsyncStreamSubscriber(continuation)) else {
            return (0, messages)
        }
        continuation.onTermination = { [weak self] _ in self?.remove(userID: userID, id: id) }
        return (id, messages)
    }

    /// Ends one stream, as graceful shutdown does for every stream still open.
    public func end(userID: UserID, id: UInt64) {
        let stream = state.withLock { $0.subscribers[userID]?[id]?.stream }
        stream?.finish()
    }

    /// How many streams `userID` holds.
    public func streamCount(userID: UserID) -> Int { state.withLock { $0.subscribers[userID]?.count ?? 0 } }
}

/// A stream whose messages wait in an `AsyncStream` until its reader takes them; its buffer is the stream's.
final class AsyncStreamSubscriber: StreamSubscriber {
    private let continuation: AsyncStream<StreamMessage>.Continuation

    init(_ continuation: AsyncStream<StreamMessage>.Continuation) { self.continuation = continuation }

    func receive(_ message: StreamMessage) -> Bool {
        if case .dropped = continuation.yield(message) { return false }
        return true
    }

    func finish() { continuation.finish() }
}
