import Foundation
import HTTPTypes
import Hummingbird
import VarselCore
import VarselService
import VarselStore

/// Signing in and out, for API clients (bearer tokens) and the web client (cookies).
struct SessionController {
    let configuration: VarselServices.Configuration
    let directory: Directory
    let export: DataExport
    let settings: AccountSettings
    let sessions: Sessions

    func addRoutes(to router: some RouterMethods<VarselContext>) {
        router.post("session", use: signIn)
        router.delete("session", use: signOut)
        router.get("me", use: me)
        router.get("me/export", use: export)
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

    /// `POST /api/v1/session`: signs in and answers with the session's bearer token and CSRF token.
    func signIn(_ request: Request, context: VarselContext) async throws -> Response {
        let body = try await JSONCoding.decode(SignInRequest.self, from: request)
        let started = try await startSession(username: body.username, password: body.password, request: request, context: context)
        return try JSONCoding.response(
            SignInResponse(
                token: started.token, expiresAt: started.session.expiresAt, csrfToken: started.session.csrfToken,
                user: UserResource(started.user)),
            status: .created, headers: [.cacheControl: "no-store"])
    }

    /// Signs in through ``Sessions``, answering its refusals as problems. Shared by the API and the web sign-in form.
    func startSession(username: String, password: String, request: Request, context: VarselContext) async throws -> Sessions.Started {
        let client = ClientAddress.resolve(
            peer: context.peerAddress, forwardedFor: request.headers[.forwardedFor],
            trustedProxies: configuration.trustedProxies)
        do {
            return try await sessions.signIn(username: username, password: password, client: client)
        } catch let refusal as Sessions.Refusal {
            throw Self.problem(refusal)
        }
    }

    /// The HTTP answer to a refused sign-in, or (`isPasswordChange`) a refused password change.
    static func problem(_ refusal: Sessions.Refusal, isPasswordChange: Bool = false) -> Problem {
        switch refusal {
        case let .missing(field):
            Problem.badRequest("Both username and password are required.", errors: [.init(field: field, message: "required")])
        case let .tooManyAttempts(seconds):
            Problem(
                .tooManyRequests,
                isPasswordChange
                    ? "Too many wrong passwords. Try again in \(seconds) seconds."
                    : "Too many sign-in attempts. Try again in \(seconds) seconds.",
                headers: [.retryAfter: String(seconds)])
        case .wrongCredentials:
            Problem.unauthorized("The username or password is wrong.")
        case .deactivated:
            Problem.forbidden("This account is deactivated. Ask your coordinator.")
        }
    }

    func signOut(_ request: Request, context: VarselContext) async throws -> Response {
        let identity = try context.requirePerson()
        try await sessions.signOut(identity.session)
        return Response(status: .noContent)
    }

    struct PasswordChangeRequest: Decodable {
        var currentPassword: String
        var newPassword: String
    }

    /// Changes the signed-in user's password: every other session of theirs is signed out and its live streams
    /// end; this session stays. A wrong current password counts against the sign-in throttle.
    func changePassword(_ request: Request, context: VarselContext) async throws -> Response {
        let identity = try context.requirePerson()
        let body = try await JSONCoding.decode(PasswordChangeRequest.self, from: request)
        let client = ClientAddress.resolve(
            peer: context.peerAddress, forwardedFor: request.headers[.forwardedFor],
            trustedProxies: configuration.trustedProxies)
        let ended: Int
        do {
            ended = try await sessions.changePassword(
                of: identity.user, keeping: identity.session, current: body.currentPassword,
                new: body.newPassword, client: client)
        } catch let refusal as Sessions.Refusal {
            throw Self.problem(refusal, isPasswordChange: true)
        } catch let invalid as InvalidInput where invalid.issues.map(\.field) == ["currentPassword"] {
            // A well-formed request refused for what it proves, not for its form.
            throw Problem(.forbidden, invalid.summary, errors: invalid.issues.map { .init(field: $0.field, message: $0.message) })
        }
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
        try await settings.setLanguage(language, for: identity.user.id)
        guard let user = try await directory.person(identity.user.id) else { throw Problem.notFound("No such user.") }
        return try JSONCoding.response(UserResource(user))
    }

    /// `GET /api/v1/me/export`: everything Varsel stores about the signed-in user, as a download.
    func export(_ request: Request, context: VarselContext) async throws -> Response {
        let identity = try context.requireUser()
        let data = try await export.personalData(of: identity.user)
        return try JSONCoding.response(
            data, headers: [.cacheControl: "no-store", .contentDisposition: "attachment; filename=\"varsel-my-data.json\""])
    }

    func me(_ request: Request, context: VarselContext) async throws -> Response {
        try JSONCoding.response(UserResource(try context.requireUser().user))
    }
}
