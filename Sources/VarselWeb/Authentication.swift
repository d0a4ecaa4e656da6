import Foundation
import HTTPTypes
import Hummingbird
import VarselService
import VarselStore

/// The name of the web client's session cookie.
public let sessionCookieName = "varsel_session"

extension VarselServices.Configuration {
    /// The cookie that carries a new session's token to the web client: every way of signing in sets this one.
    func sessionCookie(_ token: String) -> Cookie {
        Cookie(
            name: sessionCookieName, value: token, maxAge: Int(sessionLifetime), path: "/", secure: usesSecureCookies, httpOnly: true,
            sameSite: .lax)
    }
}

extension HTTPField.Name {
    static let csrfToken = Self("X-CSRF-Token")!
    static let idempotencyKey = Self("Idempotency-Key")!
    static let lastEventID = Self("Last-Event-ID")!
}

/// Finds who is signed in, from a bearer token or the session cookie, and checks CSRF for cookie requests.
///
/// It never rejects a request for being anonymous; routes that need a user call ``VarselContext/requireUser()``.
public struct AuthenticationMiddleware: RouterMiddleware {
    let sessions: Sessions
    let integrations: Integrations

    public init(sessions: Sessions, integrations: Integrations) {
        self.sessions = sessions
        self.integrations = integrations
    }

    public func handle(_ request: Request, context: VarselContext, next: (Request, VarselContext) async throws -> Response) async throws -> Response {
        var context = context
        var request = request
        if let identity = try await identify(request) {
            if identity.method == .cookie, Self.isUnsafe(request.method) {
                // One rule for every path: a browser request that changes something proves it came from our own
                // page by echoing the session's CSRF token, in the header (scripts) or the form (plain forms).
                guard Tokens.constantTimeEquals(try await Self.echoedCSRFToken(&request), identity.session.csrfToken) else {
                    throw Problem.forbidden(
                        "Requests signed in by cookie must send the session's CSRF token (the X-CSRF-Token header, or the _csrf form field).")
                }
            }
            context.identity = identity
            context.logger[metadataKey: "user.id"] = "\(identity.user.id)"
        }
        return try await next(request, context)
    }

    /// The CSRF token a request echoes: the `X-CSRF-Token` header, else the `_csrf` field of a form body.
    /// Reading the form keeps the body for the handler.
    static func echoedCSRFToken(_ request: inout Request) async throws -> String {
        if let header = request.headers[.csrfToken] { return header }
        guard PageForm.isForm(request) else { return "" }
        let buffer = try await request.collectBody(upTo: Limits.maxBodyBytes)
        // A body that is not a well-formed form echoes no token.
        return (try? URLEncodedFormDecoder().decode(PageForm.CSRFField.self, from: String(buffer: buffer)))?.token ?? ""
    }

    /// The paths that prove who someone is rather than act as them: a session cookie is not used there.
    static func isAnonymousCeremony(_ path: String) -> Bool {
        path == "/signin" || path.hasPrefix("/password") || path.hasPrefix("/api/v1/session/passkey") || path.hasPrefix("/api/v1/password")
    }

    static func isUnsafe(_ method: HTTPRequest.Method) -> Bool {
        ![.get, .head, .options].contains(method)
    }

    func identify(_ request: Request) async throws -> Identity? {
        // `/metrics` carries its own bearer token (``MetricsAccess``), not a session's.
        if let header = request.headers[.authorization], request.uri.path != "/metrics" {
            let parts = header.split(separator: " ", maxSplits: 1)
            guard parts.count == 2, parts[0].lowercased() == "bearer" else {
                throw Problem.unauthorized("The Authorization header must be 'Bearer <token>'.")
            }
            guard let identity = try await lookUp(token: String(parts[1]), method: .bearer) else {
                throw Problem.unauthorized(
                    "The bearer token is unknown, expired or revoked. Sign in again with POST /api/v1/session, or ask an administrator for a new integration token."
                )
            }
            return identity
        }
        // Signing in never acts with the session the browser may already hold (and the form has no token for
        // it): the sign-in post is anonymous, guarded by the same-origin check instead.
        // Choosing a password (or a passkey) through a one-time link, and signing in with a passkey, are anonymous in
        // the same way.
        if let token = request.cookies[sessionCookieName]?.value, !token.isEmpty, !Self.isAnonymousCeremony(request.uri.path) {
            return try await lookUp(token: token, method: .cookie)
        }
        return nil
    }

    func lookUp(token: String, method: Identity.Method) async throws -> Identity? {
        if method == .bearer, token.hasPrefix(Integrations.tokenPrefix) {
            guard let (session, user) = try await integrations.identify(token: token) else { return nil }
            return Identity(user: user, session: session, method: .integration)
        }
        guard let (session, user) = try await sessions.identify(token: token) else { return nil }
        return Identity(user: user, session: session, method: method)
    }
}

extension VarselContext {
    /// The signed-in user, or a 401 problem.
    public func requireUser() throws -> Identity {
        guard let identity else {
            throw Problem.unauthorized("Sign in first: POST /api/v1/session with a username and password, then send 'Authorization: Bearer <token>'.")
        }
        return identity
    }

    /// The signed-in user if their role is one of `roles`, else a 401 or 403 problem.
    public func require(_ roles: Role...) throws -> Identity {
        try requireUser().require(roles)
    }

    /// The signed-in person: a 403 problem for a system's integration token, which has no session, password,
    /// passkeys or devices of its own.
    public func requirePerson() throws -> Identity {
        let identity = try requireUser()
        guard identity.method != .integration else {
            throw Problem.forbidden("An integration token acts for a system, not a person: this needs a person signed in.")
        }
        return identity
    }
}

extension Identity {
    /// Whether the user's role is one of `roles`.
    public func holds(_ roles: Role...) -> Bool { roles.contains(user.role) }

    /// This identity if the user's role is one of `roles`, else a 403 problem: the one role gate of the API and the pages.
    public func require(_ roles: Role...) throws -> Identity {
        try require(roles)
    }

    func require(_ roles: [Role]) throws -> Identity {
        guard roles.contains(user.role) else {
            let names = roles.map(\.rawValue).joined(separator: " or ")
            throw Problem.forbidden("This needs the \(names) role; you are signed in as a \(user.role.rawValue).")
        }
        return self
    }
}
