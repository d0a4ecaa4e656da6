import Foundation
import Hummingbird
import VarselService

/// The operator's routes: `/healthz` (the process runs: liveness, for systemd and restarts), `/readyz` (it can use
/// its store now: readiness, for the load balancer) and `/metrics` for the scraper.
struct OperationsController {
    let configuration: VarselServices.Configuration
    let metrics: ServiceMetrics
    let readiness: Readiness

    func addRoutes(to router: Router<VarselContext>) {
        router.get("healthz") { _, _ in
            Response(status: .ok, headers: [.contentType: "text/plain; charset=utf-8"], body: .init(byteBuffer: ByteBuffer(string: "ok\n")))
        }
        router.get("readyz") { _, _ in
            let report = await readiness.check()
            guard let problem = report.problem else {
                return Response(
                    status: .ok, headers: [.contentType: "text/plain; charset=utf-8"], body: .init(byteBuffer: ByteBuffer(string: "ready\n")))
            }
            return Response(
                status: .serviceUnavailable,
                headers: [.contentType: "text/plain; charset=utf-8", .retryAfter: "\(Problem.retryAfterSeconds)", .cacheControl: "no-store"],
                body: .init(byteBuffer: ByteBuffer(string: "not ready: \(problem.description)\n")))
        }
        router.get("metrics") { request, _ in
            try MetricsAccess(token: configuration.metricsToken).check(request)
            let text = metrics.render() + (await readiness.metricsText())
            return Response(
                status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
                body: .init(byteBuffer: ByteBuffer(string: text)))
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

/// `/metrics` is for the operator's scraper: it needs its own bearer token (`--metrics-token` or
/// `VARSEL_METRICS_TOKEN`), and without one configured it is not served at all. A request without a bearer token is
/// 401 either way, as for every route that needs one.
struct MetricsAccess {
    let token: String?

    func check(_ request: Request) throws {
        let unauthorized = Problem.unauthorized("Metrics need 'Authorization: Bearer <metrics token>'.")
        let presented = request.headers[.authorization].flatMap { header -> String? in
            let parts = header.split(separator: " ", maxSplits: 1)
            return parts.count == 2 && parts[0].lowercased() == "bearer" ? String(parts[1]) : nil
        }
        guard let presented else { throw unauthorized }
        guard let token, !token.isEmpty else {
            throw Problem.notFound("Metrics are off. Start the server with --metrics-token (or VARSEL_METRICS_TOKEN) to serve them.")
        }
        guard Tokens.constantTimeEquals(presented, token) else { throw unauthorized }
    }
}
