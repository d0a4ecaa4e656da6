import Foundation
import Hummingbird
import VarselCore

/// Builds the router: the JSON API under `/api/v1`, health and metrics, and the web pages.
public enum VarselRouter {
    /// The OpenAPI document, read at start-up so a missing resource fails then, not on the first request.
    public static func openAPIDocument() throws -> String {
        guard let url = Bundle.module.url(forResource: "openapi", withExtension: "yaml", subdirectory: "Resources") else {
            throw StartupError.missingResource("openapi.yaml")
        }
        return try String(contentsOf: url, encoding: .utf8)
    }

    public static func build(services: VarselServices) async throws -> Router<VarselContext> {
        let openAPI = try openAPIDocument()
        let renderer = try await PageRenderer.load()
        let router = Router(context: VarselContext.self)
        router.add(middleware: RequestMetricsMiddleware(metrics: services.metrics))
        router.add(middleware: ProblemMiddleware())
        router.add(middleware: AuthenticationMiddleware(services: services))

        router.get("healthz") { _, _ in
            Response(status: .ok, headers: [.contentType: "text/plain; charset=utf-8"], body: .init(byteBuffer: ByteBuffer(string: "ok\n")))
        }
        router.get("metrics") { _, _ in
            Response(status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
                     body: .init(byteBuffer: ByteBuffer(string: services.metrics.render())))
        }

        let api = router.group("api/v1")
        api.get("openapi.yaml") { _, _ in
            Response(status: .ok, headers: [.contentType: "application/yaml; charset=utf-8"], body: .init(byteBuffer: ByteBuffer(string: openAPI)))
        }
        SessionController(services: services).addRoutes(to: api)
        NotificationsController(services: services).addRoutes(to: api)
        PreferencesController(services: services).addRoutes(to: api)
        AssignmentsController(services: services).addRoutes(to: api)
        PauseController(services: services).addRoutes(to: api)
        CertificationsController(services: services).addRoutes(to: api)
        UsersController(services: services).addRoutes(to: api)
        EventsController(services: services).addRoutes(to: api)
        PagesController(services: services, renderer: renderer).addRoutes(to: router)
        return router
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

/// Counts responses by status class for `/metrics`.
struct RequestMetricsMiddleware<Context: RequestContext>: RouterMiddleware {
    let metrics: ServiceMetrics

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let response = try await next(request, context)
        metrics.recordRequest(status: response.status.code)
        return response
    }
}
