import Foundation
import HTTPTypes
import Hummingbird
import Synchronization
import VarselCore
import VarselLive
import VarselService

/// Builds the router: the JSON API under `/api/v1`, health and metrics, and the web pages.
public enum VarselRouter {
    /// The OpenAPI document, read at start-up so a missing resource fails then, not on the first request.
    public static func openAPIDocument() throws -> String {
        guard let url = Bundle.module.url(forResource: "openapi", withExtension: "yaml", subdirectory: "Resources") else {
            throw StartupError.missingResource("openapi.yaml")
        }
        return try String(contentsOf: url, encoding: .utf8)
    }

    /// Varsel's routes over `services`; open live streams' sockets go to `streamSockets` (nil keeps them on their
    /// SwiftNIO channels).
    public static func build(services: VarselServices, streamSockets: StreamSockets? = .shared) async throws -> Router<VarselContext> {
        let openAPI = try openAPIDocument()
        // The fields checked for repeats in request bodies come from the same document: read now, so a document
        // without them fails the start instead of switching the check off.
        guard !JSONCoding.fieldNames.isEmpty else { throw StartupError.missingResource("openapi.yaml") }
        let renderer = try await PageRenderer.load()
        // HEAD is answered wherever GET is, with the GET's status and headers and no body (RFC 9110 §9.3.2): uptime
        // monitors and link checkers ask with it.
        let router = Router(context: VarselContext.self, options: .autoGenerateHeadEndpoints)
        let routeTable = RouteTable()
        router.add(middleware: RequestMetricsMiddleware(metrics: services.metrics))
        router.add(middleware: ResponseHeadersMiddleware())
        router.add(middleware: ProblemMiddleware())
        router.add(middleware: CanonicalPathMiddleware())
        router.add(middleware: MethodNotAllowedMiddleware(routes: routeTable))
        router.add(middleware: HeadMiddleware())
        router.add(middleware: SameOriginMiddleware(publicOrigin: services.configuration.publicOrigin))
        router.add(middleware: AuthenticationMiddleware(sessions: services.sessions, integrations: services.integrations))
        let frame = PageFrame(renderer: renderer, pump: services.pump, inbox: services.inbox)
        router.add(middleware: NotFoundPageMiddleware(pages: NotFoundPages(frame: frame)))

        OperationsController(configuration: services.configuration, metrics: services.metrics, readiness: services.readiness).addRoutes(to: router)

        let api = router.group("api/v1")
        api.get("openapi.yaml") { _, _ in
            Response(status: .ok, headers: [.contentType: "application/yaml; charset=utf-8"], body: .init(byteBuffer: ByteBuffer(string: openAPI)))
        }
        SessionController(
            configuration: services.configuration, directory: services.directory, export: services.export, settings: services.settings,
            sessions: services.sessions
        ).addRoutes(to: api)
        PasskeysController(configuration: services.configuration, passkeys: services.passkeys).addRoutes(to: api)
        NotificationsController(
            directory: services.directory, now: services.now, sender: services.sender, inbox: services.inbox, settings: services.settings,
            scheduledSends: services.scheduledSends
        ).addRoutes(to: api)
        ScheduledSendsController(scheduledSends: services.scheduledSends).addRoutes(to: api)
        PreferencesController(settings: services.settings).addRoutes(to: api)
        AssignmentsController(
            answers: services.answers, configuration: services.configuration, contactAccess: services.contactAccess, directory: services.directory,
            erasure: services.erasure, export: services.export, now: services.now, reports: services.reports, sender: services.sender
        ).addRoutes(to: api)
        PauseController(directory: services.directory, sender: services.sender).addRoutes(to: api)
        ScenariosController(
            directory: services.directory, sender: services.sender, scenarios: services.scenarios, scheduledSends: services.scheduledSends
        ).addRoutes(to: api)
        CertificationsController(directory: services.directory, users: services.users).addRoutes(to: api)
        UsersController(
            configuration: services.configuration, now: services.now, users: services.users, pushSubscriptions: services.pushSubscriptions
        ).addRoutes(to: api)
        ChannelsController(users: services.users, channels: services.channels).addRoutes(to: api)
        EventsController(services: LiveStreamServices(services, sockets: streamSockets), writeTimeout: services.configuration.streamWriteTimeout)
            .addRoutes(to: api)
        PushSubscriptionsController(
            answers: services.answers, now: services.now, pushSubscriptions: services.pushSubscriptions, webPush: services.webPush
        ).addRoutes(to: api)
        addPages(to: router, frame: frame, services: services)
        routeTable.set(router.routes.map { RouteTable.Route(method: $0.method, pattern: $0.path.description) })
        return router
    }
}

extension VarselRouter {
    /// The web client's screens, each given its frame and the few services it uses.
    static func addPages(to router: Router<VarselContext>, frame: PageFrame, services: VarselServices) {
        let s = services
        SignInPages(
            frame: frame, configuration: s.configuration, directory: s.directory, export: s.export, settings: s.settings, passkeys: s.passkeys,
            sessions: s.sessions
        ).addRoutes(to: router)
        CentrePages(frame: frame, now: s.now, settings: s.settings).addRoutes(to: router)
        SettingsPages(frame: frame, channels: s.channels, settings: s.settings, webPush: s.webPush).addRoutes(to: router)
        ContactPages(
            frame: frame, answers: s.answers, configuration: s.configuration, contactAccess: s.contactAccess, directory: s.directory,
            erasure: s.erasure, now: s.now, reports: s.reports, sender: s.sender, channels: s.channels
        ).addRoutes(to: router)
        CoordinatorPages(frame: frame, directory: s.directory, sender: s.sender, scheduledSends: s.scheduledSends, now: s.now)
            .addRoutes(to: router)
        ScheduledSendPages(frame: frame, directory: s.directory, scheduledSends: s.scheduledSends, now: s.now).addRoutes(to: router)
        WorkPages(
            frame: frame, configuration: s.configuration, directory: s.directory, now: s.now, reports: s.reports, users: s.users,
            pushSubscriptions: s.pushSubscriptions, scenarios: s.scenarios
        ).addRoutes(to: router)
        ProfilePages(
            frame: frame, configuration: s.configuration, now: s.now, sender: s.sender, users: s.users, channels: s.channels, settings: s.settings,
            passkeys: s.passkeys, pushSubscriptions: s.pushSubscriptions, sessions: s.sessions
        ).addRoutes(to: router)
        ScenarioPages(frame: frame, directory: s.directory, sender: s.sender, scenarios: s.scenarios, scheduledSends: s.scheduledSends, now: s.now)
            .addRoutes(to: router)
        PeoplePages(
            frame: frame, configuration: s.configuration, directory: s.directory, now: s.now, reports: s.reports, users: s.users,
            channels: s.channels, passkeys: s.passkeys, pushSubscriptions: s.pushSubscriptions, sessions: s.sessions
        ).addRoutes(to: router)
        IntegrationPages(frame: frame, configuration: s.configuration, directory: s.directory, now: s.now, integrations: s.integrations)
            .addRoutes(to: router)
        WebhookPages(frame: frame, configuration: s.configuration, now: s.now, integrations: s.integrations, webhooks: s.webhooks)
            .addRoutes(to: router)
    }
}

/// Something the server needs at start-up is missing.
public enum StartupError: Error, CustomStringConvertible {
    case missingResource(String)

    public var description: String {
        switch self {
        case let .missingResource(name): "The bundled resource \(name) is missing; the build is incomplete."
        }
    }
}

/// The router's routes, as method and pattern (`/api/v1/notifications/:id`), for answering 405 with `Allow`.
final class RouteTable: Sendable {
    struct Route: Sendable {
        var method: HTTPRequest.Method
        var pattern: String
    }

    private let routes = Mutex<[Route]>([])

    func set(_ routes: [Route]) { self.routes.withLock { $0 = routes } }

    /// The methods served at `path`, sorted, HEAD wherever GET is; empty when no route matches it.
    ///
    /// Only the most specific matching pattern counts, as the router picks it: a literal segment wins over a
    /// parameter (`/api/v1/me/passkeys/options` is not `/api/v1/me/passkeys/:id`).
    func methods(for path: String) -> [String] {
        let segments = path.split(separator: "/")
        let matching = routes.withLock { $0 }.map { ($0, $0.pattern.split(separator: "/")) }.filter { _, pattern in
            pattern.count == segments.count && zip(pattern, segments).allSatisfy { Self.isParameter($0) || $0 == $1 }
        }
        guard let chosen = matching.map(\.1).max(by: Self.isLessSpecific) else { return [] }
        var methods = Set(matching.filter { $0.1 == chosen }.map(\.0.method.rawValue))
        if methods.contains(HTTPRequest.Method.get.rawValue) { methods.insert(HTTPRequest.Method.head.rawValue) }
        return methods.sorted()
    }

    private static func isParameter(_ segment: Substring) -> Bool { segment.hasPrefix("{") || segment.hasPrefix(":") }

    /// Whether `first` yields to `second`: at the first segment where one is literal and the other a parameter.
    private static func isLessSpecific(_ first: [Substring], _ second: [Substring]) -> Bool {
        for (left, right) in zip(first, second) where isParameter(left) != isParameter(right) {
            return isParameter(left)
        }
        return false
    }
}

/// Keeps a `HEAD` a look: its answer sets no cookie, so a page that clears a cookie once it has shown what the cookie
/// carried (a one-time link, a new token) still shows it to the GET that follows. (The handlers themselves record no
/// read and mark nothing read for a `HEAD`.)
struct HeadMiddleware: RouterMiddleware {
    func handle(_ request: Request, context: VarselContext, next: (Request, VarselContext) async throws -> Response) async throws -> Response {
        var response = try await next(request, context)
        if request.method == .head { response.headers[values: .setCookie] = [] }
        return response
    }
}

/// Turns the router's 404 for a known path with another method into 405 with an `Allow` header that lists exactly
/// the methods the path answers (as the OpenAPI document declares them).
struct MethodNotAllowedMiddleware: RouterMiddleware {
    let routes: RouteTable

    func handle(_ request: Request, context: VarselContext, next: (Request, VarselContext) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as HTTPError where error.status == .notFound {
            let allowed = routes.methods(for: request.uri.path)
            guard !allowed.isEmpty, !allowed.contains(request.method.rawValue) else { throw error }
            throw Problem(
                .methodNotAllowed, "This resource does not answer \(request.method.rawValue); it answers \(allowed.joined(separator: ", ")).",
                headers: [.allow: allowed.joined(separator: ", ")])
        }
    }
}
