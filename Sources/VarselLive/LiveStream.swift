import Foundation
import Hummingbird
import NIOCore
import VarselCore
import VarselService
import VarselStore

/// One open event stream: what it has sent, what it will announce, and how it answers each message.
///
/// A stream belongs to its connection's event loop. Everything it keeps — what it sent, the ``Announcer``, the frames
/// for the next write, its announcement timer — lives in its ``Keeper`` and is touched only on that loop. The broker
/// hands it messages from any thread (the event pump's task, a heartbeat tick); the stream counts them against its
/// ``StreamPace`` and passes them to the loop, which answers them in arrival order and writes their frames to the
/// connection in one write. So no thread that commits to the store renders a frame, and nothing here needs a lock.
/// An idle stream is this object and its socket (``StreamSocket``), nothing more.
///
/// Its life: attached to the broker (messages wait on the loop), ``open(resumeFrom:latest:prunedThrough:writer:)``
/// writes the opening and the replay in the response, ``start(writingTo:)`` makes it live on its connection, and it
/// ends once: when the broker finishes it, when its connection closes, or when it falls too far behind.
public final class LiveStream: StreamSubscriber, Sendable {
    let services: LiveStreamServices
    let eventLoop: any EventLoop
    /// Whether the client keeps up; shared with the connection and the watchdog.
    let pace: StreamPace
    private let userID: UserID
    private let keeper: NIOLoopBoundBox<Keeper>

    public init(
        services: LiveStreamServices, watchdog: StreamWatchdog, user: User, isPlayer: Bool, preferences: NotificationPreferences,
        eventLoop: any EventLoop
    ) {
        self.services = services
        self.eventLoop = eventLoop
        pace = StreamPace(limit: services.broker.bufferLimit)
        userID = user.id
        // Made here, then only ever touched on the loop.
        keeper = .makeBoxSendingValue(
            Keeper(
                services: services, watchdog: watchdog, user: user, isPlayer: isPlayer, preferences: preferences,
                pace: pace, eventLoop: eventLoop), eventLoop: eventLoop)
    }

    // MARK: From any thread

    /// Remembers the id the broker gave this stream, to detach it when it ends.
    public func attached(as id: UInt64) { onLoop { $0.attached(as: id) } }

    public func receive(_ message: StreamMessage) -> Bool { receive(contentsOf: [message]) }

    /// Takes `messages` together, so the loop answers them at once and sends their frames in one write; false when the
    /// client is too far behind to take them (the stream then closes its connection).
    public func receive(contentsOf messages: [StreamMessage]) -> Bool {
        guard pace.admit(messages.count) else {
            onLoop { $0.end(closingConnection: true) }
            return false
        }
        onLoop { $0.take(messages) }
        return true
    }

    public func finish() { onLoop { $0.finish() } }

    /// The connection closed (the client left): the stream ends without another word.
    public func outputClosed() { onLoop { $0.end(closingConnection: false) } }

    /// Runs `body` on the stream's loop, after whatever was handed to it before.
    private func onLoop(_ body: @escaping @Sendable (Keeper) -> Void) {
        eventLoop.execute { [keeper] in body(keeper.value) }
    }

    // MARK: The opening, from the request's task

    /// Writes the stream's opening in the response: the retry interval, then a `reset` or the replay after the
    /// resume point. The frames are made on the stream's loop; live messages wait there meanwhile.
    public func open(resumeFrom: Int64?, latest: Int64, prunedThrough: Int64, writer: inout any ResponseBodyWriter) async throws {
        let keeper = self.keeper
        let (opening, replayAfter) = try await eventLoop.submit {
            try keeper.value.opening(resumeFrom: resumeFrom, latest: latest, prunedThrough: prunedThrough)
        }.get()
        try await writer.write(opening)
        guard var after = replayAfter else { return }
        while true {
            let batch = try await services.pump.replay(for: userID, after: after, limit: 500)
            guard let last = batch.last else { break }
            let frames = try await eventLoop.submit { try keeper.value.replay(batch) }.get()
            try await writer.write(frames)
            after = last.id
            if batch.count < 500 { break }
        }
    }

    // MARK: On the loop

    /// Makes the stream live on its connection: the messages that waited are sent, and the next ones as they come.
    func start(writingTo connection: any StreamConnection) {
        keeper.value.start(writingTo: connection)
    }
}

extension LiveStream {
    /// What one stream keeps, touched only on its event loop.
    final class Keeper {
        let services: LiveStreamServices
        /// Closes the stream when its client stops reading.
        let watchdog: StreamWatchdog
        let userID: UserID
        private let describer: Describer
        /// Whether the page's script asked to be told what to announce and cue (`?player=web`).
        private let isPlayer: Bool
        private let pace: StreamPace
        private let eventLoop: any EventLoop
        /// Read once, and again whenever the user changes them (privacy: the announcement text depends on them).
        private var preferences: NotificationPreferences
        /// The core decides what is said and when, on the server's clock; the browser plays it.
        private var announcer: Announcer
        private var timer: Scheduled<Void>?
        private var armedDeadline: Date?
        /// The frames for the next write.
        private var pending = ByteBuffer()
        /// The id of the last logged event this stream sent; a live event at or below it was sent by the replay.
        private var lastSent: Int64 = 0
        /// Messages taken and not yet answered: while opening, and while new preferences are read.
        private var waiting = WaitingMessages()
        private var phase = Phase.opening
        /// Asked to end once the waiting messages are sent.
        private var isFinishing = false
        /// New preferences are being read: messages wait, since what they say may depend on them.
        private var isReadingPreferences = false
        private var subscriptionID: UInt64?

        private enum Phase {
            /// Attached, writing the opening: messages wait.
            case opening
            case live(any StreamConnection, watch: Int)
            case ended
        }

        init(
            services: LiveStreamServices, watchdog: StreamWatchdog, user: User, isPlayer: Bool, preferences: NotificationPreferences,
            pace: StreamPace, eventLoop: any EventLoop
        ) {
            self.services = services
            self.watchdog = watchdog
            userID = user.id
            describer = Describer.shared(user.language)
            self.isPlayer = isPlayer
            self.pace = pace
            self.eventLoop = eventLoop
            self.preferences = preferences
            announcer = Announcer(describer: describer, preferences: preferences)
        }

        func attached(as id: UInt64) {
            subscriptionID = id
            if case .ended = phase { services.broker.remove(userID: userID, id: id) }
        }

        // MARK: Opening

        /// The retry interval and, when the resume point is out of reach, a `reset`; and where a replay starts, if one does.
        func opening(resumeFrom: Int64?, latest: Int64, prunedThrough: Int64) throws -> (ByteBuffer, replayAfter: Int64?) {
            lastSent = latest
            pending.writeString("retry: \(services.retryMilliseconds)\n: connected\n\n")
            guard let point = resumeFrom else { return (takePending(), nil) }
            guard point >= prunedThrough, point <= latest else {
                // Too old to replay (or not an id this server gave out): the client must reload its list.
                let reason = point > latest ? "unknown-event-id" : "too-old"
                pending.writeImmutableBuffer(try LiveFrames.Frame.reset(reason: reason, lastEventId: latest))
                return (takePending(), nil)
            }
            lastSent = point
            return (takePending(), point < latest ? point : nil)
        }

        /// The frames of a batch of replayed events.
        func replay(_ batch: [StoredEvent]) throws -> ByteBuffer {
            for event in batch { try add(event, live: false) }
            return takePending()
        }

        func start(writingTo connection: any StreamConnection) {
            guard case .opening = phase else {
                // The stream ended while its response was being written.
                connection.abort()
                return
            }
            let stream = LiveStream.Closer(eventLoop: eventLoop, keeper: NIOLoopBound(self, eventLoop: eventLoop))
            let watch = watchdog.watch(pace) { stream.close() }
            phase = .live(connection, watch: watch)
            services.metrics.streamOpened()
            answerWaiting()
        }

        // MARK: Messages

        func take(_ messages: [StreamMessage]) {
            guard !isEnded, !isFinishing else {
                pace.done(messages.count)
                return
            }
            waiting.append(messages)
            answerWaiting()
        }

        func finish() {
            isFinishing = true
            answerWaiting()
        }

        private var isEnded: Bool {
            if case .ended = phase { return true }
            return false
        }

        /// Answers the waiting messages in order and sends their frames in one write; ends the stream if asked to.
        /// Stops at a message that needs the store, and goes on once the store has answered.
        private func answerWaiting() {
            guard case let .live(connection, _) = phase, !isReadingPreferences else { return }
            while let message = waiting.popFirst() {
                pace.done(1)
                do {
                    if case .preferencesChanged = message {
                        send(to: connection)
                        return readPreferences()
                    }
                    try answer(message)
                } catch {
                    end(closingConnection: true)
                    return
                }
            }
            send(to: connection)
            if isFinishing, end(closingConnection: false) { connection.finish() }
        }

        /// Reads the user's new preferences, then answers what waited meanwhile.
        private func readPreferences() {
            isReadingPreferences = true
            let keeper = NIOLoopBound(self, eventLoop: eventLoop)
            let (settings, userID, eventLoop) = (services.settings, userID, eventLoop)
            Task {
                let read: Result<NotificationPreferences, any Error>
                do { read = .success(try await settings.preferences(of: userID)) } catch { read = .failure(error) }
                eventLoop.execute {
                    let keeper = keeper.value
                    keeper.isReadingPreferences = false
                    switch read {
                    case let .success(preferences):
                        keeper.preferences = preferences
                        keeper.announcer.preferences = preferences
                        keeper.answerWaiting()
                    case .failure:
                        keeper.end(closingConnection: true)
                    }
                }
            }
        }

        /// Answers one message into the pending frames.
        private func answer(_ message: StreamMessage) throws {
            switch message {
            case .heartbeat:
                pending.writeString(": heartbeat\n\n")
            case .preferencesChanged:
                break
            case .announcementsDue:
                armedDeadline = nil
                addDueAnnouncements()
            case let .closing(reason):
                // The last word: why the server ends this stream (sign-out, too many streams).
                pending.writeImmutableBuffer(try LiveFrames.Frame.reset(reason: reason.rawValue, lastEventId: lastSent))
            case let .event(event):
                guard event.id > lastSent else { break }
                try add(event, live: true)
            }
        }

        /// Adds one logged event to the next write, then plays its arrival.
        private func add(_ event: StoredEvent, live: Bool) throws {
            try LiveFrames.writeFrame(
                for: event, describer: describer, preferences: preferences, live: live, services: services,
                into: &pending)
            lastSent = event.id
            guard case let .notificationCreated(item) = event.payload else { return }
            // The coordinator's history says when an assignment reached the mentor's open page or app.
            if item.kind == .assignment {
                let inbox = services.inbox
                Task { try? await inbox.recordLiveDelivery(of: item.id) }
            }
            guard isPlayer else { return }
            // An arrival: its cues now; its announcement when the announcer says (alone, urgent, or in a burst).
            announcer.notificationArrived(item, at: services.now())
            LiveFrames.Frame.writeCue(for: item, announcer: announcer, into: &pending)
            addDueAnnouncements()
        }

        /// Adds the announcements due by now to the next write, and sets the stream's timer for the next one.
        private func addDueAnnouncements() {
            for announcement in announcer.announcements(dueBy: services.now()) {
                LiveFrames.Frame.writeAnnouncement(announcement, into: &pending)
            }
            guard let deadline = announcer.nextDeadline, deadline != armedDeadline, !isEnded else { return }
            armedDeadline = deadline
            timer?.cancel()
            let delay = max(0, deadline.timeIntervalSince(services.now()))
            let keeper = NIOLoopBound(self, eventLoop: eventLoop)
            // A little after the deadline; if the wall clock has not quite reached it, the timer is set again.
            timer = eventLoop.scheduleTask(in: .milliseconds(Int64((delay * 1000).rounded(.up)) + 1)) {
                // Counted like any message, so the pace stays true.
                let keeper = keeper.value
                if keeper.pace.admit(1) { keeper.take([.announcementsDue]) } else { keeper.end(closingConnection: true) }
            }
        }

        /// Sends what is pending, if anything.
        private func send(to connection: any StreamConnection) {
            guard pending.readableBytes > 0 else { return }
            connection.send(takePending())
        }

        private func takePending() -> ByteBuffer {
            defer { pending = ByteBuffer() }
            return pending
        }

        // MARK: The end

        /// Marks the stream ended and detaches it, once; closes the connection now when asked to (a client too slow,
        /// a store that failed). Returns whether this call ended it.
        @discardableResult
        func end(closingConnection: Bool) -> Bool {
            let connection: (any StreamConnection)?
            switch phase {
            case .ended: return false
            case .opening: connection = nil
            case let .live(live, watch):
                connection = live
                watchdog.stopWatching(watch)
                services.metrics.streamClosed()
            }
            phase = .ended
            pace.done(waiting.count)
            waiting.removeAll()
            timer?.cancel()
            timer = nil
            if let subscriptionID { services.broker.remove(userID: userID, id: subscriptionID) }
            if closingConnection { connection?.abort() }
            return true
        }
    }

    /// Closes a stream's connection from the watchdog's sweep, on the stream's loop.
    struct Closer: Sendable {
        let eventLoop: any EventLoop
        let keeper: NIOLoopBound<Keeper>

        func close() { eventLoop.execute { [keeper] in keeper.value.end(closingConnection: true) } }
    }
}
