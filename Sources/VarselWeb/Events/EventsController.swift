import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import NIOPosix
import ServiceLifecycle
import Synchronization
import VarselCore
import VarselLive
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
    let services: LiveStreamServices
    /// Closes the streams whose clients stopped reading.
    let watchdog: StreamWatchdog

    init(services: LiveStreamServices, writeTimeout: Duration) {
        self.services = services
        watchdog = StreamWatchdog(timeout: writeTimeout, metrics: services.metrics)
    }

    func addRoutes(to router: some RouterMethods<VarselContext>) {
        router.get("events", use: stream)
        // Not the router's HEAD made from the GET, which would say `Content-Length: 0` of a body that never ends.
        router.head("events", use: stream)
    }

    func stream(_ request: Request, context: VarselContext) async throws -> Response {
        let identity = try context.requireUser()
        let askedResumePoint = try Self.resumePoint(request)
        // The page's script asks to be told what to announce and cue (`?player=web`); API clients get the data only.
        let isPlayer = try Self.isPlayer(request)
        // HEAD gets the stream's status and headers, and no stream: it is not subscribed, so it closes none of the
        // user's streams and holds no connection.
        guard request.method != .head else {
            return Response(status: .ok, headers: Self.streamHeaders, body: ResponseBody { writer in try await writer.finish(nil) })
        }
        let userID = identity.user.id
        let services = self.services
        // The stream lives on its connection's event loop (any loop, on a server that gives the handler no channel).
        let eventLoop = context.channel?.eventLoop ?? MultiThreadedEventLoopGroup.singleton.next()
        // A fresh stream starts from the newest event before it attaches: what is committed while it attaches is then
        // replayed, not missed.
        let resumeFrom: Int64
        if let askedResumePoint { resumeFrom = askedResumePoint } else { resumeFrom = try await services.pump.latestEventID() }
        let stream = LiveStream(
            services: services, watchdog: watchdog, user: identity.user, isPlayer: isPlayer,
            preferences: try await services.settings.preferences(of: userID), eventLoop: eventLoop)

        // Attach first, then find where to start: nothing committed in between can be missed. (After a shutdown
        // has begun the broker finishes the stream at once: it opens and ends.)
        if let id = services.broker.subscribe(userID: userID, session: identity.session.tokenHash, stream: stream) {
            stream.attached(as: id)
        }
        let latest: Int64
        let prunedThrough: Int64
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
        return Response(status: .ok, headers: Self.streamHeaders, body: body)
    }

    /// A stream's headers: Server-Sent Events, never stored, never buffered by a proxy.
    static let streamHeaders: HTTPFields = {
        var headers = HTTPFields()
        headers[.contentType] = "text/event-stream; charset=utf-8"
        headers[.cacheControl] = "no-store"
        headers[HTTPField.Name("X-Accel-Buffering")!] = "no"
        return headers
    }()

    /// The event to resume after, from `Last-Event-ID` or `?since=` (digits only, as the document's pattern says);
    /// nil for a fresh stream.
    static func resumePoint(_ request: Request) throws -> Int64? {
        guard let raw = request.headers[.lastEventID] ?? request.uri.queryParameters["since"].map(String.init) else { return nil }
        guard !raw.isEmpty, raw.utf8.allSatisfy({ (0x30...0x39).contains($0) }), let id = Int64(raw) else {
            throw Problem.badRequest("Last-Event-ID (or ?since=) must be a non-negative integer event id.")
        }
        return id
    }

    /// Whether the stream is the web page's (`?player=web`), which also gets what to announce and cue; any other
    /// value is refused by name.
    static func isPlayer(_ request: Request) throws -> Bool {
        guard let player = request.uri.queryParameters["player"] else { return false }
        guard player == "web" else {
            throw Problem.badRequest("player must be web, or left out.").with(errors: [.init(field: "player", message: "must be web")])
        }
        return true
    }
}
