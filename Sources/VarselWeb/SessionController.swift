import Foundation
import HTTPTypes
import Hummingbird
import VarselCore
import VarselStore

/// Signing in and out, for API clients (bearer tokens) and the web client (cookies).
struct SessionController {
    let services: VarselServices

    func addRoutes(to router: some RouterMethods<VarselContext>) {
        router.post("session", use: signIn)
        router.delete("session", use: signOut)
        router.get("me", use: me)
    }

    struct SignInRequest: Decodable {
        var username: String
        var password: String
    }

    struct SignInResponse: Encodable {
        var token: String
        var tokenType = "Bearer"
        var expiresAt: Date
        var csrfToken: String
        var user: UserResource
    }

    /// A signed-in session, before it is turned into a token response or a cookie.
    struct NewSession {
        var token: String
        var session: Session
        var user: User
    }

    func signIn(_ request: Request, context: VarselContext) async throws -> Response {
        let body = try await JSONCoding.decode(SignInRequest.self, from: request)
        let started = try await startSession(username: body.username, password: body.password, request: request)
        return try JSONCoding.response(
            SignInResponse(token: started.token, expiresAt: started.session.expiresAt, csrfToken: started.session.csrfToken,
                           user: UserResource(started.user)),
            status: .created, headers: [.cacheControl: "no-store"])
    }

    /// Checks the password, slowing down repeated failures, and stores a new session.
    /// Shared by the API and the web sign-in form.
    func startSession(username: String, password: String, request: Request) async throws -> NewSession {
        let trimmed = username.trimmingCharacters(in: .whitespaces)
        guard !trimmed.isEmpty, !password.isEmpty else {
            throw Problem.badRequest("Both username and password are required.", errors: [
                .init(field: trimmed.isEmpty ? "username" : "password", message: "required"),
            ])
        }
        let keys = ["user:" + trimmed.lowercased()] + (request.headers[.init("X-Forwarded-For")!].map { ["address:" + $0] } ?? [])
        let wait = await services.throttle.retryAfter(keys)
        if wait > 0 {
            let seconds = Int(wait.rounded(.up))
            throw Problem(.tooManyRequests, "Too many failed sign-ins. Try again in \(seconds) seconds.",
                          headers: [.retryAfter: String(seconds)])
        }
        let user = try await services.repository.user(username: trimmed)
        let matches = try await services.passwords.verify(password, hash: user?.passwordHash ?? "")
        guard let user, matches else {
            await services.throttle.recordFailure(keys)
            throw Problem.unauthorized("The username or password is wrong.")
        }
        await services.throttle.recordSuccess(keys)
        let token = Tokens.random()
        let now = services.now()
        let session = Session(tokenHash: Tokens.hash(token), userID: user.id, csrfToken: Tokens.random(), createdAt: now,
                              expiresAt: now.addingTimeInterval(services.configuration.sessionLifetime))
        try await services.repository.createSession(session)
        return NewSession(token: token, session: session, user: user)
    }

    func signOut(_ request: Request, context: VarselContext) async throws -> Response {
        let identity = try context.requireUser()
        try await services.repository.deleteSession(tokenHash: identity.session.tokenHash)
        return Response(status: .noContent)
    }

    func me(_ request: Request, context: VarselContext) async throws -> Response {
        try JSONCoding.response(UserResource(try context.requireUser().user))
    }
}
