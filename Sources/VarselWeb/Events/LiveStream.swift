import Foundation
import Hummingbird
import NIOCore
import ServiceLifecycle
import VarselCore
import VarselService
import VarselStore

/// One open event stream: what it has sent, what it will announce, and how it answers each message.
///
/// A stream spends nearly all its life waiting for its next message, and while an async function waits, Swift keeps
/// its locals (and those of every async function inlined into it) in the task's memory. So the waiting loop,
/// ``follow(_:writer:onShutdown:)``, holds only this object and the message; each message is handled in
/// ``handle(_:writer:)``, never inlined, whose frame exists only while it runs. The frames of a message's work are
/// gathered in one buffer and leave in one write. (What the request itself left in the task's memory is kept out
/// by ``StreamRequestMiddleware``.)
final class LiveStream {
    private let services: VarselServices
    private let userID: Int64
    private let subscriptionID: UInt64
    private let describer: Describer
    /// Whether the page's script asked to be told what to announce and cue (`?player=web`).
    private let isPlayer: Bool
    /// When the current write started, for the watchdog.
    let progress = EventsController.WriteProgress()
    /// Read once, and again whenever the user changes them (privacy: the announcement text depends on them).
    private var preferences: NotificationPreferences
    /// The core decides what is said and when, on the server's clock; the browser plays it.
    private var announcer: Announcer
    private var ticker: Task<Void, Never>?
    private var armedDeadline: Date?
    /// The frames for the next write.
    private var pending = ByteBuffer()
    /// The id of the last logged event this stream sent; a live event at or below it was sent by the replay.
    private(set) var lastSent: Int64

    init(services: VarselServices, user: User, subscriptionID: UInt64, isPlayer: Bool, preferences: NotificationPreferences,
         lastSent: Int64) {
        self.services = services
        userID = user.id
        self.subscriptionID = subscriptionID
        describer = services.describer(user.language)
        self.isPlayer = isPlayer
        self.preferences = preferences
        announcer = Announcer(language: user.language, preferences: preferences)
        self.lastSent = lastSent
    }

    deinit { ticker?.cancel() }

    /// Writes the stream's opening: the retry interval, then a `reset` or the replay after the resume point.
    @inline(never)
    func open(resumeFrom: Int64?, latest: Int64, prunedThrough: Int64, writer: inout any ResponseBodyWriter) async throws {
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
                    for event in batch { try await add(event, live: false) }
                    try await flush(to: &writer)
                    if batch.count < 500 { break }
                }
            }
        }
        try await flush(to: &writer)
    }

    /// Answers each message from the broker until the stream ends; when the server shuts down, `onShutdown` ends it.
    @inline(never)
    func follow(_ messages: AsyncStream<StreamMessage>, writer: inout any ResponseBodyWriter,
                onShutdown: @escaping @Sendable () -> Void) async throws {
        // The server waits for open responses when it shuts down, so each stream ends itself then.
        try await withGracefulShutdownHandler {
            for await message in messages {
                try await handle(message, writer: &writer)
            }
        } onGracefulShutdown: {
            onShutdown()
        }
    }

    /// Answers one message from the broker, in one write.
    @inline(never)
    func handle(_ message: StreamMessage, writer: inout any ResponseBodyWriter) async throws {
        switch message {
        case .heartbeat:
            pending.writeString(": heartbeat\n\n")
        case .preferencesChanged:
            preferences = try await services.repository.preferences(for: userID)
            announcer.preferences = preferences
        case .announcementsDue:
            // The timer fired; if the wall clock has not quite reached the deadline, it is set again.
            armedDeadline = nil
            try addDueAnnouncements()
        case let .closing(reason):
            // The last word: why the server ends this stream (sign-out, too many streams).
            pending.writeImmutableBuffer(try EventsController.Frame.reset(reason: reason.rawValue, lastEventId: lastSent))
        case let .event(event):
            guard event.id > lastSent else { break }
            try await add(event, live: true)
        }
        try await flush(to: &writer)
    }

    /// Adds one logged event to the next write, then plays its arrival.
    private func add(_ event: StoredEvent, live: Bool) async throws {
        pending.writeImmutableBuffer(
            try EventsController.frame(for: event, describer: describer, preferences: preferences, live: live, services: services))
        lastSent = event.id
        guard case let .notificationCreated(item) = event.payload else { return }
        // The coordinator's history says when an assignment reached the mentor's open page or app.
        if item.kind == .assignment { try await services.repository.recordLiveDelivery(notificationID: item.id, at: services.now()) }
        guard isPlayer else { return }
        // An arrival: its cues now; its announcement when the announcer says (alone, urgent, or in a burst).
        announcer.notificationArrived(item, at: services.now())
        pending.writeImmutableBuffer(try EventsController.Frame.cue(for: item, announcer: announcer))
        try addDueAnnouncements()
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
        let (userID, subscriptionID) = (self.userID, self.subscriptionID)
        ticker = Task {
            try? await Task.sleep(for: .milliseconds(Int((delay * 1000).rounded(.up)) + 1))
            guard !Task.isCancelled else { return }
            broker.announcementsDue(userID: userID, id: subscriptionID)
        }
    }

    /// Writes what is pending, telling the watchdog while the write waits.
    private func flush(to writer: inout any ResponseBodyWriter) async throws {
        guard pending.readableBytes > 0 else { return }
        let buffer = pending
        pending = ByteBuffer()
        progress.begin()
        defer { progress.end() }
        try await writer.write(buffer)
    }
}
