import Foundation
import Hummingbird
import NIOCore
import Synchronization
import VarselCore
import VarselService
import VarselStore

/// One open event stream: what it has sent, what it will announce, and how it answers each message.
///
/// A stream spends nearly all its life waiting, so it waits without a task: the broker puts each message in the
/// stream's mailbox, and whoever finds the mailbox idle answers it then, on its own thread (the event pump, a
/// heartbeat tick), and sends the frames to the stream's ``StreamOutput`` without waiting. Only a message that needs
/// the store (new preferences) continues in a short task. One drainer at a time, in arrival order, so the frames of
/// a stream never overtake each other. An idle stream is this object and its connection, nothing more.
///
/// Its life: attached to the broker (messages wait in the mailbox), ``open(resumeFrom:latest:prunedThrough:writer:)``
/// writes the opening and the replay in the response, ``start(output:)`` makes it live, and it ends once: when the
/// broker finishes it, when its connection closes, or when the store fails it.
final class LiveStream: StreamSubscriber, @unchecked Sendable {
    // `@unchecked`: the mailbox is behind its lock; every other mutable field is touched by the one drainer the
    // mailbox admits at a time (or by the opening, before any drainer may run).

    let services: VarselServices
    private let userID: Int64
    private let describer: Describer
    /// Whether the page's script asked to be told what to announce and cue (`?player=web`).
    private let isPlayer: Bool
    /// Read once, and again whenever the user changes them (privacy: the announcement text depends on them).
    private var preferences: NotificationPreferences
    /// The core decides what is said and when, on the server's clock; the browser plays it.
    private var announcer: Announcer
    private var ticker: Task<Void, Never>?
    private var armedDeadline: Date?
    /// The frames for the next write.
    private var pending = ByteBuffer()
    /// The id of the last logged event this stream sent; a live event at or below it was sent by the replay.
    private(set) var lastSent: Int64 = 0

    private enum Phase {
        /// Attached, writing the opening: messages wait.
        case opening
        case live(any StreamOutput, watch: Int)
        case ended
    }

    private struct Mailbox {
        var messages = CircularBuffer<StreamMessage>(initialCapacity: 4)
        var phase = Phase.opening
        var isDraining = false
        /// Asked to end once the waiting messages are sent.
        var isFinishing = false
        var subscriptionID: UInt64?

        /// Whether messages are answered: live, not ended.
        var isLive: Bool {
            if case .live = phase { return true }
            return false
        }
    }

    private let mailbox = Mutex(Mailbox())

    init(services: VarselServices, user: User, isPlayer: Bool, preferences: NotificationPreferences) {
        self.services = services
        userID = user.id
        describer = services.describer(user.language)
        self.isPlayer = isPlayer
        self.preferences = preferences
        announcer = Announcer(language: user.language, preferences: preferences)
    }

    deinit { ticker?.cancel() }

    /// Remembers the id the broker gave this stream, to detach it when it ends.
    func attached(as id: UInt64) {
        let ended = mailbox.withLock { mailbox in
            mailbox.subscriptionID = id
            if case .ended = mailbox.phase { return true }
            return false
        }
        if ended { services.broker.remove(userID: userID, id: id) }
    }

    // MARK: The opening

    /// Writes the stream's opening in the response: the retry interval, then a `reset` or the replay after the
    /// resume point. Live messages wait in the mailbox meanwhile.
    @inline(never)
    func open(resumeFrom: Int64?, latest: Int64, prunedThrough: Int64, writer: inout any ResponseBodyWriter) async throws {
        lastSent = latest
        pending.writeString("retry: \(services.configuration.streamRetryMilliseconds)\n: connected\n\n")
        if let point = resumeFrom {
            if point < prunedThrough || point > latest {
                // Too old to replay (or not an id this server gave out): the client must reload its list.
                let reason = point > latest ? "unknown-event-id" : "too-old"
                pending.writeImmutableBuffer(try EventsController.Frame.reset(reason: reason, lastEventId: latest))
            } else {
                lastSent = point
                while true {
                    let batch = try await services.repository.events(for: userID, after: lastSent, limit: 500)
                    for event in batch { try add(event, live: false) }
                    try await writer.write(takePending())
                    if batch.count < 500 { break }
                }
            }
        }
        if pending.readableBytes > 0 { try await writer.write(takePending()) }
    }

    /// Makes the stream live on `output`: the messages that waited are sent, and the next ones as they come.
    func start(output: any StreamOutput) {
        let watch = services.streamWatchdog.watch(output.progress) { output.abort() }
        enum Start { case drain, wait, ended }
        let start: Start = mailbox.withLock { mailbox in
            guard case .opening = mailbox.phase else { return .ended }
            mailbox.phase = .live(output, watch: watch)
            guard !mailbox.messages.isEmpty || mailbox.isFinishing else { return .wait }
            mailbox.isDraining = true
            return .drain
        }
        switch start {
        case .ended:
            // The connection closed while the stream was opening.
            services.streamWatchdog.stopWatching(watch)
            output.abort()
        case .wait:
            services.metrics.streamOpened()
        case .drain:
            services.metrics.streamOpened()
            drain(to: output)
        }
    }

    // MARK: The mailbox

    func receive(_ message: StreamMessage) -> Bool {
        receive(contentsOf: CollectionOfOne(message))
    }

    func receive(contentsOf messages: [StreamMessage]) -> Bool {
        receive(contentsOf: messages[...])
    }

    /// Puts `messages` in the mailbox together, so one drain answers them all and sends their frames in one write.
    private func receive(contentsOf messages: some Collection<StreamMessage>) -> Bool {
        let (accepted, output): (Bool, (any StreamOutput)?) = mailbox.withLock { mailbox in
            switch mailbox.phase {
            case .ended: return (true, nil)
            case .opening, .live: break
            }
            guard !mailbox.isFinishing else { return (true, nil) }
            guard mailbox.messages.count + messages.count <= services.broker.bufferLimit else { return (false, nil) }
            mailbox.messages.append(contentsOf: messages)
            guard case let .live(output, _) = mailbox.phase, !mailbox.isDraining else { return (true, nil) }
            mailbox.isDraining = true
            return (true, output)
        }
        if let output { drain(to: output) }
        return accepted
    }

    func finish() {
        let output: (any StreamOutput)? = mailbox.withLock { mailbox in
            mailbox.isFinishing = true
            guard case let .live(output, _) = mailbox.phase, !mailbox.isDraining else { return nil }
            mailbox.isDraining = true
            return output
        }
        if let output { drain(to: output) }
    }

    /// The connection closed (the client left, or the watchdog closed it): the stream ends without another word.
    func outputClosed() {
        end()
    }

    /// Answers the waiting messages in order, sends their frames in one write, and ends the stream if asked to.
    /// Returns early when a message needs the store: a task answers it and drains on.
    private func drain(to output: any StreamOutput) {
        while true {
            while let message = mailbox.withLock({ $0.isLive ? $0.messages.popFirst() : nil }) {
                do {
                    if let work = try handle(message) {
                        send(to: output)
                        Task {
                            do {
                                try await work()
                                self.drain(to: output)
                            } catch {
                                self.end(aborting: output)
                            }
                        }
                        return
                    }
                } catch {
                    end(aborting: output)
                    return
                }
            }
            send(to: output)
            enum Next { case more, idle, finish, gone }
            let next: Next = mailbox.withLock { mailbox in
                guard mailbox.isLive else { return .gone }
                if !mailbox.messages.isEmpty { return .more }
                if mailbox.isFinishing { return .finish }
                mailbox.isDraining = false
                return .idle
            }
            switch next {
            case .more: continue
            case .idle, .gone: return
            case .finish:
                if end() { output.finish() }
                return
            }
        }
    }

    /// Ends the stream now and closes its connection (the store failed it).
    private func end(aborting output: any StreamOutput) {
        if end() { output.abort() }
    }

    /// Marks the stream ended and detaches it, once; returns whether this call ended it.
    @discardableResult
    private func end() -> Bool {
        let ended: (id: UInt64?, watch: Int?)? = mailbox.withLock { mailbox in
            let watch: Int?
            switch mailbox.phase {
            case .ended: return nil
            case .opening: watch = nil
            case let .live(_, id): watch = id
            }
            mailbox.phase = .ended
            mailbox.messages.removeAll()
            return (mailbox.subscriptionID, watch)
        }
        guard let ended else { return false }
        // The announcement timer belongs to the drainer, which may be running now; it is cancelled when the stream
        // goes, and firing after the end it finds nobody in the broker.
        if let id = ended.id { services.broker.remove(userID: userID, id: id) }
        if let watch = ended.watch {
            services.streamWatchdog.stopWatching(watch)
            services.metrics.streamClosed()
        }
        return true
    }

    // MARK: Answering one message

    /// Answers one message into the pending frames; returns the work that must wait for the store, if any, which
    /// the caller runs before the next message.
    @inline(never)
    private func handle(_ message: StreamMessage) throws -> (@Sendable () async throws -> Void)? {
        switch message {
        case .heartbeat:
            pending.writeString(": heartbeat\n\n")
        case .preferencesChanged:
            return { [self] in
                preferences = try await services.repository.preferences(for: userID)
                announcer.preferences = preferences
            }
        case .announcementsDue:
            // The timer fired; if the wall clock has not quite reached the deadline, it is set again.
            armedDeadline = nil
            try addDueAnnouncements()
        case let .closing(reason):
            // The last word: why the server ends this stream (sign-out, too many streams).
            pending.writeImmutableBuffer(try EventsController.Frame.reset(reason: reason.rawValue, lastEventId: lastSent))
        case let .event(event):
            guard event.id > lastSent else { break }
            try add(event, live: true)
        }
        return nil
    }

    /// Adds one logged event to the next write, then plays its arrival.
    private func add(_ event: StoredEvent, live: Bool) throws {
        pending.writeImmutableBuffer(
            try EventsController.frame(for: event, describer: describer, preferences: preferences, live: live, services: services))
        lastSent = event.id
        guard case let .notificationCreated(item) = event.payload else { return }
        // The coordinator's history says when an assignment reached the mentor's open page or app.
        if item.kind == .assignment { recordLiveDelivery(of: item.id) }
        guard isPlayer else { return }
        // An arrival: its cues now; its announcement when the announcer says (alone, urgent, or in a burst).
        announcer.notificationArrived(item, at: services.now())
        pending.writeImmutableBuffer(try EventsController.Frame.cue(for: item, announcer: announcer))
        try addDueAnnouncements()
    }

    /// Notes in the store that an assignment reached this open stream; the stream does not wait for it.
    private func recordLiveDelivery(of notificationID: Int64) {
        let inbox = services.inbox
        Task { try? await inbox.recordLiveDelivery(of: notificationID) }
    }

    /// Adds the announcements due by now to the next write, and sets the stream's timer for the next one.
    private func addDueAnnouncements() throws {
        for announcement in announcer.announcements(dueBy: services.now()) {
            pending.writeImmutableBuffer(try EventsController.Frame.announcement(announcement))
        }
        guard let deadline = announcer.nextDeadline, deadline != armedDeadline else { return }
        armedDeadline = deadline
        ticker?.cancel()
        let delay = max(0, deadline.timeIntervalSince(services.now()))
        let broker = services.broker
        guard let id = mailbox.withLock({ $0.subscriptionID }) else { return }
        let userID = self.userID
        ticker = Task {
            try? await Task.sleep(for: .milliseconds(Int((delay * 1000).rounded(.up)) + 1))
            guard !Task.isCancelled else { return }
            broker.announcementsDue(userID: userID, id: id)
        }
    }

    /// Sends what is pending, if anything.
    private func send(to output: any StreamOutput) {
        guard pending.readableBytes > 0 else { return }
        output.write(takePending())
    }

    private func takePending() -> ByteBuffer {
        defer { pending = ByteBuffer() }
        return pending
    }
}

/// Where a live stream's frames go once it is live: a connection the stream owns, or the response body.
protocol StreamOutput: AnyObject, Sendable {
    /// When the current write started waiting for the client, for the watchdog.
    var progress: EventsController.WriteProgress { get }
    /// Sends `buffer` after what was sent before; never waits.
    func write(_ buffer: ByteBuffer)
    /// Ends the response after what was sent, and the connection with it.
    func finish()
    /// Closes the connection now: a client that does not read.
    func abort()
}
