import Foundation
import HTTPTypes
import OpenAPIRuntime

/// Sends the member system's token as `Authorization: Bearer <token>` on every request.
struct BearerTokenMiddleware: ClientMiddleware {
    /// The token Varsel gave the member system.
    let token: String

    func intercept(
        _ request: HTTPRequest,
        body: HTTPBody?,
        baseURL: URL,
        operationID: String,
        next: @Sendable (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?)
    ) async throws -> (HTTPResponse, HTTPBody?) {
        var request = request
        request.headerFields[.authorization] = "Bearer \(token)"
        return try await next(request, body, baseURL)
    }
}
