import Foundation
import HTTPTypes
import Hummingbird
import VarselCore
import VarselService
import VarselStore

/// Signing in and out, for API clients (bearer tokens) and the web client (cookies).
struct SessionController {
    let services: VarselServices

    func addRoutes(to router: some RouterMethods<VarselContext>) {
        router.post("session", use: signIn)
        router.delete("session", use: signOut)
        router.get("me", use: me)
        router.put("me/password", use: changePassword)
        router.put("me/language", use: setLanguage)
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
        let started = try await startSession(username: body.username, password: body.password, request: request, context: context)
        return try JSONCoding.response(
            SignInResponse(token: started.token, expiresAt: started.session.expiresAt, csrfToken: started.session.csrfToken,
                           user: UserResource(started.user)),
            status: .created, headers: [.cacheControl: "no-store"])
    }

    /// Checks the password, slowing down repeated failures, and stores a new session.
    /// Shared by the API and the web sign-in form.
    func startSession(username: String, password: String, request: Request, context: VarselContext) async throws -> NewSession {
        let trimmed = username.trimmingCharacters(in: .whitespaces)
        guard !trimmed.isEmpty, !password.isEmpty else {
            throw Problem.badRequest("Both username and password are required.", errors: [
                .init(field: trimmed.isEmpty ? "username" : "password", message: "required"),
            ])
        }
        let client = ClientAddress.resolve(peer: context.peerAddress, forwardedFor: request.headers[.forwardedFor],
                                           trustedProxies: services.configuration.trustedProxies)
        let attempt: LoginThrottle.Attempt
        switch await services.throttle.reserve(account: trimmed, client: client) {
        case let .proceed(reserved):
            attempt = reserved
        case let .retry(after: wait):
            let seconds = max(1, Int(wait.rounded(.up)))
            throw Problem(.tooManyRequests, "Too many sign-in attempts. Try again in \(seconds) seconds.",
                          headers: [.retryAfter: String(seconds)])
        }
        let user: User?
        let matches: Bool
        do {
            user = try await services.repository.user(username: trimmed)
            matches = try await services.passwords.verify(password, hashIfAccountExists: user?.passwordHash)
        } catch {
            await services.throttle.failed(attempt)
            throw error
        }
        guard let user, matches else {
            await services.throttle.failed(attempt)
            throw Problem.unauthorized("The username or password is wrong.")
        }
        await services.throttle.succeeded(attempt)
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
        services.broker.endStreams(ofSession: identity.session.tokenHash)
        return Response(status: .noContent)
    }

    struct PasswordChangeRequest: Decodable {
        var currentPassword: String
        var newPassword: String
    }

    /// Changes the signed-in user's password: every other session of theirs is signed out and its live streams
    /// end; this session stays. A wrong current password counts against the sign-in throttle.
    func changePassword(_ request: Request, context: VarselContext) async throws -> Response {
        let identity = try context.requireUser()
        let body = try await JSONCoding.decode(PasswordChangeRequest.self, from: request)
        let client = ClientAddress.resolve(peer: context.peerAddress, forwardedFor: request.headers[.forwardedFor],
                                           trustedProxies: services.configuration.trustedProxies)
        let ended = try await services.changePassword(of: identity, current: body.currentPassword, new: body.newPassword, client: client)
        context.logger.info("password changed", metadata: ["sessions.ended": "\(ended)"])
        return Response(status: .noContent)
    }

    struct LanguageRequest: Decodable { var language: String }

    /// `PUT /api/v1/me/language`: the language the user reads Varsel in (`en` or `nb`).
    func setLanguage(_ request: Request, context: VarselContext) async throws -> Response {
        let identity = try context.requireUser()
        let body = try await JSONCoding.decode(LanguageRequest.self, from: request)
        guard let language = Language(rawValue: body.language) else {
            throw InvalidInput([.init(field: "language", rule: .other("must be en or nb"))])
        }
        try await services.settings.setLanguage(language, for: identity.user.id)
        guard let user = try await services.repository.user(id: identity.user.id) else { throw Problem.notFound("No such user.") }
        return try JSONCoding.response(UserResource(user))
    }

    func me(_ request: Request, context: VarselContext) async throws -> Response {
        try JSONCoding.response(UserResource(try context.requireUser().user))
    }
}
