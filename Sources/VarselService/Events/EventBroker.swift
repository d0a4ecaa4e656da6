import Foundation
import Synchronization
import VarselCore
import VarselStore

/// A message for one live stream.
public enum StreamMessage: Sendable {
    case event(StoredEvent)
    case heartbeat
    /// The user changed their preferences: streams re-read them before the next announcement text.
    case preferencesChanged
    /// The server is ending this stream; the client is told why (a `reset` event) and should not simply reconnect
    /// when the reason is that it signed out.
    case closing(StreamCloseReason)
    /// The stream's own timer: announcements it holds back (a burst's window, deferred feedback) fall due now.
    case announcementsDue
}

/// Why the server ended a live stream, as sent to the client in the last `reset` event.
public enum StreamCloseReason: String, Sendable {
    /// The user opened more streams than allowed; this was their oldest.
    case tooManyStreams = "too-many-streams"
    /// The session the stream was opened with signed out or changed its password.
    case signedOut = "signed-out"
    /// The account was deactivated.
    case deactivated = "account-deactivated"
}

/// One attached live stream, as the broker sees it: somewhere to put messages, which must not wait and should do no
/// more than take them (the broker may call from the thread that committed them).
public protocol StreamSubscriber: AnyObject, Sendable {
    /// Takes one message without waiting; false when the stream's buffer is full (the broker then ends it as slow).
    func receive(_ message: StreamMessage) -> Bool
    /// Takes several messages at once, in order, without waiting; false when they do not all fit in the buffer.
    /// A stream that can send them in one write does so (the default takes them one by one).
    func receive(contentsOf messages: [StreamMessage]) -> Bool
    /// Ends the stream once the messages it took are sent; no message follows.
    func finish()
}

extension StreamSubscriber {
    public func receive(contentsOf messages: [StreamMessage]) -> Bool {
        for message in messages where !receive(message) { return false }
        return true
    }
}

/// Fans events out to the live streams of the user they belong to.
///
/// Each stream has a bounded buffer. A client too slow to keep up is not allowed to slow the others or to grow
/// the server's memory: when its buffer is full its stream is ended, and the client reconnects with
/// `Last-Event-ID` and is replayed from the store, losing nothing.
public final class EventBroker: Sendable {
    /// One attached stream: where to send, and which session opened it.
    package struct Subscriber {
        package var stream: any StreamSubscriber
        var session: String
    }

    package struct State {
        var nextID: UInt64 = 0
        /// Per user, by subscription id; ids grow, so the smallest is the oldest.
        package var subscribers: [UserID: [UInt64: Subscriber]] = [:]
        /// The same streams by heartbeat slice (a stream's is its id modulo the slices), so a tick finds its own
        /// without going through all the others.
        var slices: [[UInt64: (userID: UserID, stream: any StreamSubscriber)]]
        var isShutDown = false

        init(heartbeatSlices: Int) { slices = Array(repeating: [:], count: heartbeatSlices) }

        mutating func attach(_ subscriber: Subscriber, userID: UserID, id: UInt64) {
            subscribers[userID, default: [:]][id] = subscriber
            slices[Int(id % UInt64(slices.count))][id] = (userID, subscriber.stream)
        }

        mutating func detach(userID: UserID, id: UInt64) -> Subscriber? {
            guard let removed = subscribers[userID]?.removeValue(forKey: id) else { return nil }
            if subscribers[userID]?.isEmpty == true { subscribers[userID] = nil }
            slices[Int(id % UInt64(slices.count))][id] = nil
            return removed
        }
    }

    /// Visible within the package, so that the test support (`VarselServiceTesting`) can look into it.
    package let state: Mutex<State>
    /// How many messages one stream may hold unsent.
    public let bufferLimit: Int
    /// How many parts the streams' heartbeats are spread over (``EventPump/heartbeatSlices(over:)``).
    public let heartbeatSlices: Int
    private let streamsPerUser: Int
    private let metrics: ServiceMetrics

    public init(bufferLimit: Int, streamsPerUser: Int = 8, heartbeatSlices: Int = 1, metrics: ServiceMetrics) {
        self.bufferLimit = bufferLimit
        self.heartbeatSlices = max(1, heartbeatSlices)
        state = Mutex(State(heartbeatSlices: self.heartbeatSlices))
        self.streamsPerUser = max(1, streamsPerUser)
        self.metrics = metrics
    }

    /// Attaches `stream` for `userID`, opened by the session whose token hash is `session`, and returns its id;
    /// nil (and the stream is finished) once the broker has shut down. Attach before replaying from the store, so
    /// nothing falls in between. When the user already holds the most streams allowed, their oldest is told why
    /// and closed. The stream calls ``remove(userID:id:)`` when it ends by itself.
    public func subscribe(userID: UserID, session: String, stream: any StreamSubscriber) -> UInt64? {
        let attached: (id: UInt64, evicted: [any StreamSubscriber])? = state.withLock { state in
            guard !state.isShutDown else { return nil }
            state.nextID += 1
            var evicted: [any StreamSubscriber] = []
            while let mine = state.subscribers[userID], mine.count >= streamsPerUser, let oldest = mine.keys.min(),
                let removed = state.detach(userID: userID, id: oldest)
            {
                evicted.append(removed.stream)
            }
            state.attach(Subscriber(stream: stream, session: session), userID: userID, id: state.nextID)
            return (state.nextID, evicted)
        }
        guard let attached else {
            stream.finish()
            return nil
        }
        for old in attached.evicted { close(old, reason: .tooManyStreams) }
        return attached.id
    }

    /// Ends every stream opened by the session whose token hash is `session` (sign-out), telling each why.
    public func endStreams(ofSession session: String) {
        let targets = state.withLock { state in
            state.subscribers.values.flatMap { $0.values.filter { $0.session == session }.map(\.stream) }
        }
        for stream in targets { close(stream, reason: .signedOut) }
    }

    /// Ends every stream of `userID`, whatever session opened it (a password change, a deactivation), telling each why.
    public func endStreams(ofUser userID: UserID, reason: StreamCloseReason = .signedOut) {
        let targets = state.withLock { ($0.subscribers[userID] ?? [:]).values.map(\.stream) }
        for stream in targets { close(stream, reason: reason) }
    }

    private func close(_ stream: any StreamSubscriber, reason: StreamCloseReason) {
        _ = stream.receive(.closing(reason))
        stream.finish()
    }

    /// Detaches the stream `id` of `userID`; it ended.
    public func remove(userID: UserID, id: UInt64) {
        _ = state.withLock { $0.detach(userID: userID, id: id) }
    }

    /// Delivers `event` to every stream of its user; a deactivation ends them instead.
    public func publish(_ event: StoredEvent) {
        if event.type == .accountDeactivated { return endStreams(ofUser: event.userID, reason: .deactivated) }
        let targets = state.withLock { ($0.subscribers[event.userID] ?? [:]).map { ($0.key, $0.value.stream) } }
        for (id, stream) in targets { deliver(.event(event), to: stream, userID: event.userID, id: id) }
    }

    /// Delivers `events`, in order, to the streams of the users they belong to; each stream gets its user's events
    /// together, so it can send them in one write (a new notification and the unread count it changes).
    public func publish(contentsOf events: [StoredEvent]) {
        guard events.count > 1 else {
            if let event = events.first { publish(event) }
            return
        }
        var byUser: [UserID: [StreamMessage]] = [:]
        var users: [UserID] = []
        var deactivated: [UserID] = []
        defer { for userID in deactivated { endStreams(ofUser: userID, reason: .deactivated) } }
        for event in events {
            if event.type == .accountDeactivated {
                deactivated.append(event.userID)
                continue
            }
            if byUser[event.userID] == nil { users.append(event.userID) }
            byUser[event.userID, default: []].append(.event(event))
        }
        let targets = state.withLock { state in
            users.flatMap { userID in (state.subscribers[userID] ?? [:]).map { (userID: userID, id: $0.key, stream: $0.value.stream) } }
        }
        for target in targets {
            guard let messages = byUser[target.userID], !target.stream.receive(contentsOf: messages) else { continue }
            dropAsSlow(target.stream, userID: target.userID, id: target.id)
        }
    }

    /// Tells `userID`'s streams that their preferences changed.
    public func preferencesChanged(userID: UserID) {
        let targets = state.withLock { ($0.subscribers[userID] ?? [:]).map { ($0.key, $0.value.stream) } }
        for (id, stream) in targets { deliver(.preferencesChanged, to: stream, userID: userID, id: id) }
    }

    /// Tells one stream that its held-back announcements fall due; like any message, it counts against the buffer.
    public func announcementsDue(userID: UserID, id: UInt64) {
        guard let stream = state.withLock({ $0.subscribers[userID]?[id]?.stream }) else { return }
        deliver(.announcementsDue, to: stream, userID: userID, id: id)
    }

    /// Sends a heartbeat to the streams in slice `slice` of ``heartbeatSlices`` (a stream's slice is its id modulo them).
    /// Calling it for each slice in turn over the heartbeat interval gives every stream one heartbeat per interval,
    /// spread out rather than all at once.
    public func heartbeat(slice: Int) {
        let targets = state.withLock { state in
            state.slices[slice % state.slices.count].map { (userID: $0.value.userID, id: $0.key, stream: $0.value.stream) }
        }
        for target in targets { deliver(.heartbeat, to: target.stream, userID: target.userID, id: target.id) }
    }

    /// Gives `message` to one stream; a stream whose buffer is full is detached, counted and ended.
    private func deliver(_ message: StreamMessage, to stream: any StreamSubscriber, userID: UserID, id: UInt64) {
        guard !stream.receive(message) else { return }
        dropAsSlow(stream, userID: userID, id: id)
    }

    /// Ends a stream whose buffer could not take what it was given, and counts it.
    private func dropAsSlow(_ stream: any StreamSubscriber, userID: UserID, id: UInt64) {
        remove(userID: userID, id: id)
        metrics.streamDroppedAsSlow()
        stream.finish()
    }

    /// How many streams are attached.
    public var subscriberCount: Int { state.withLock { $0.subscribers.values.reduce(0) { $0 + $1.count } } }

    /// Ends every stream (graceful shutdown) and refuses new ones.
    public func shutDown() {
        let all = state.withLock { state in
            state.isShutDown = true
            return state.subscribers.values.flatMap { $0.values.map(\.stream) }
        }
        for stream in all { stream.finish() }
    }
}
