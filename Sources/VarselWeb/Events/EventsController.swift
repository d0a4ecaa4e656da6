import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import NIOPosix
import ServiceLifecycle
import Synchronization
import VarselCore
import VarselService
import VarselStore

/// `GET /api/v1/events`: the signed-in user's live event stream (Server-Sent Events) with gap-free resume.
///
/// The stream attaches to the broker first, then replays from the store everything after `Last-Event-ID`
/// (or `?since=`), then follows the live events, skipping any id it already sent: no gap, no duplicate.
/// A resume point older than the pruned log gets a `reset` event instead. With `?player=web` (the page's script) the
/// stream also carries what to play: an `announcement` (text, politeness) when the core's ``Announcer`` says, and a
/// `cue` (earcon, vibration, system notification) for each arrival; neither has an id, so resuming is unchanged.
struct EventsController {
    let services: VarselServices
    /// Closes the streams whose clients stopped reading.
    let watchdog: StreamWatchdog

    init(services: VarselServices) {
        self.services = services
        watchdog = StreamWatchdog(timeout: services.configuration.streamWriteTimeout, metrics: services.metrics)
    }

    func addRoutes(to router: some RouterMethods<VarselContext>) {
        router.get("events", use: stream)
    }

    /// Event-stream framing.
    ///
    /// The builders that encode JSON are never inlined into the stream's body: an async function keeps every
    /// local of everything inlined into it in its task's frame for the stream's whole life, and the encoders'
    /// working state made that frame 23 KiB per idle stream. Called, they use the thread's stack and give it back.
    struct Frame {
        static func event(id: Int64, name: String, json: Data) -> ByteBuffer {
            var buffer = ByteBuffer()
            writeEvent(id: id, name: name, into: &buffer) { $0.writeBytes(json) }
            return buffer
        }

        /// Appends an event with an id to `buffer`; `data` appends its JSON, which has no raw newlines (the encoders
        /// escape them), so one data line suffices.
        static func writeEvent(id: Int64, name: String, into buffer: inout ByteBuffer, data: (inout ByteBuffer) -> Void) {
            buffer.writeString("id: \(id)\nevent: \(name)\ndata: ")
            data(&buffer)
            buffer.writeString("\n\n")
        }

        /// An event without an id (an announcement, a cue): the client's resume point stays on the last logged event.
        static func unlogged(name: String, json: Data) -> ByteBuffer {
            ByteBuffer(string: "event: \(name)\ndata: " + String(decoding: json, as: UTF8.self) + "\n\n")
        }

        /// The `cue` for one arrival: what the browser plays, as the core plans it.
        @inline(never)
        static func cue(for item: NotificationItem, announcer: Announcer) throws -> ByteBuffer {
            unlogged(name: "cue", json: try JSONCoding.encoder.encode(CuePayload(item, announcer: announcer)))
        }

        /// An `announcement` for the page's live region.
        @inline(never)
        static func announcement(_ announcement: Announcement) throws -> ByteBuffer {
            unlogged(name: "announcement",
                     json: try JSONCoding.encoder.encode(AnnouncementResource(text: announcement.text, politeness: announcement.politeness)))
        }

        /// A `reset`: the client must reload its list (`reason`), resuming after `lastEventId`.
        @inline(never)
        static func reset(reason: String, lastEventId: Int64) throws -> ByteBuffer {
            event(id: lastEventId, name: "reset", json: try JSONCoding.encoder.encode(ResetPayload(reason: reason, lastEventId: lastEventId)))
        }
    }

    /// Unread-count events as JSON, shared by every stream.
    static let unreadCounts = UnreadCountJSON()

    /// A `notification.created` event's data, as ``HotJSON/notificationEvent(_:)`` writes it; its encoding is the
    /// reference in tests.
    struct CreatedPayload: Encodable { var notification: NotificationResource }
    struct DeletedPayload: Encodable { var id: NotificationID }
    struct ResetPayload: Encodable { var reason: String; var lastEventId: Int64 }

    /// How the browser should make one arrival perceived, as the core's ``CuePlan`` decides it. The browser adds
    /// only what it alone knows: a system notification is shown only while the page is hidden.
    struct CuePayload: Encodable {
        var notificationId: NotificationID
        var earcon: CuePlan.Earcon?
        /// The earcon as the browser plays it: tones in hertz, each `toneMs` long, `spacingMs` apart.
        var tones: [Int]?
        var toneMs: Int?
        var spacingMs: Int?
        /// The `navigator.vibrate` pattern in milliseconds.
        var vibration: [Int]?
        var systemNotification: SystemNotice?

        struct SystemNotice: Encodable {
            var title: String
            var body: String
            var tag: String
            var lang: String
        }

        init(_ item: NotificationItem, announcer: Announcer) {
            let plan = CuePlan(for: item, preferences: announcer.preferences, isAppInForeground: false)
            notificationId = item.id
            earcon = plan.earcon
            tones = plan.earcon?.tones
            toneMs = plan.earcon.map { _ in CuePlan.Earcon.toneMilliseconds }
            spacingMs = plan.earcon.map { _ in CuePlan.Earcon.toneSpacingMilliseconds }
            vibration = plan.haptic?.pattern
            // What a Web Push shows for it, with the same tag, so a hidden page and a push never show it twice; no
            // personal details unless the mentor allowed them on the lock screen.
            systemNotification = announcer.describer.lockScreenNotification(for: item, preferences: announcer.preferences).map {
                SystemNotice(title: $0.title, body: $0.body, tag: $0.tag, lang: $0.language)
            }
        }
    }

    func stream(_ request: Request, context: VarselContext) async throws -> Response {
        let identity = try context.requireUser()
        let resumeFrom = try Self.resumePoint(request)
        // The page's script asks to be told what to announce and cue (`?player=web`); API clients get the data only.
        let isPlayer = request.uri.queryParameters["player"] == "web"
        let userID = identity.user.id
        let services = self.services
        // The stream lives on its connection's event loop (any loop, on a server that gives the handler no channel).
        let eventLoop = context.channel?.eventLoop ?? MultiThreadedEventLoopGroup.singleton.next()
        let stream = LiveStream(services: services, watchdog: watchdog, user: identity.user, isPlayer: isPlayer,
                                preferences: try await services.settings.preferences(of: userID), eventLoop: eventLoop)

        // Attach first, then find where to start: nothing committed in between can be missed. (After a shutdown
        // has begun the broker finishes the stream at once: it opens and ends.)
        if let id = services.broker.subscribe(userID: userID, session: identity.session.tokenHash, stream: stream) {
            stream.attached(as: id)
        }
        let latest: Int64, prunedThrough: Int64
        do {
            latest = try await services.pump.latestEventID()
            prunedThrough = try await services.pump.prunedThroughEventID()
        } catch {
            stream.outputClosed()
            throw error
        }

        // On Varsel's own server the connection takes the stream over once the response is open. A server without
        // that handoff (a plain Hummingbird server, the router-only test server) gets the opening and the replay and
        // the response ends there: the client resumes from its last event, as after any end.
        let handoff: StreamHandoff? = if let channel = context.channel { await StreamHandoff.of(channel) } else { nil }
        handoff?.leave(stream)
        let body = ResponseBody { (writer: inout any ResponseBodyWriter) in
            do {
                try await stream.open(resumeFrom: resumeFrom, latest: latest, prunedThrough: prunedThrough, writer: &writer)
            } catch {
                stream.outputClosed()
                throw error
            }
            if handoff == nil { stream.outputClosed() }
            try await writer.finish(nil)
        }
        var headers = HTTPFields()
        headers[.contentType] = "text/event-stream; charset=utf-8"
        headers[.cacheControl] = "no-store"
        headers[HTTPField.Name("X-Accel-Buffering")!] = "no"
        return Response(status: .ok, headers: headers, body: body)
    }

    /// The event to resume after, from `Last-Event-ID` or `?since=`; nil for a fresh stream.
    static func resumePoint(_ request: Request) throws -> Int64? {
        let raw = request.headers[.lastEventID] ?? request.uri.queryParameters["since"].map(String.init)
        guard let raw, !raw.isEmpty else { return nil }
        guard let id = Int64(raw), id >= 0 else {
            throw Problem.badRequest("Last-Event-ID (or ?since=) must be a non-negative integer event id.")
        }
        return id
    }

    /// Appends the frame for one stored event to `buffer`; never inlined, like ``Frame``'s encoding builders. A
    /// notification's JSON is written straight into the buffer (``HotJSON``).
    @inline(never)
    static func writeFrame(for event: StoredEvent, describer: Describer, preferences: NotificationPreferences, live: Bool,
                           services: VarselServices, into buffer: inout ByteBuffer) throws {
        let json: Data
        switch event.payload {
        case let .notificationCreated(item), let .notificationUpdated(item):
            let now = services.now()
            let resource = NotificationResource(item, describer: describer, preferences: preferences, now: now)
            Frame.writeEvent(id: event.id, name: event.type.rawValue, into: &buffer) { HotJSON.notificationEvent(resource, into: &$0) }
            if live, event.type == .notificationCreated {
                services.metrics.eventDelivered(latency: max(0, now.timeIntervalSince(item.createdAt)))
            } else {
                services.metrics.eventDelivered(latency: nil)
            }
            return
        case let .notificationDeleted(id):
            json = try JSONCoding.encoder.encode(DeletedPayload(id: id))
            services.metrics.eventDelivered(latency: nil)
        case let .unreadCount(count):
            json = try Self.unreadCounts.json(count: count, describer: describer)
            services.metrics.eventDelivered(latency: nil)
        case .accountDeactivated:
            // The broker ends the streams instead of sending it; a replay that meets it says so and nothing more.
            json = Data("{}".utf8)
        }
        Frame.writeEvent(id: event.id, name: event.type.rawValue, into: &buffer) { $0.writeBytes(json) }
    }
}
