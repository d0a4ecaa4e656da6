import Foundation
import HTTPTypes
import Hummingbird
import VarselCore
import VarselService
import VarselStore

/// Signing in and out, and what every page loads: the static files, the service worker and the offline page.
struct SignInPages: PageScreen {
    let frame: PageFrame
    let configuration: VarselServices.Configuration
    let directory: Directory
    let export: DataExport
    let settings: AccountSettings
    let passkeys: PasskeyCeremonies
    let sessions: Sessions
}

extension SignInPages {
    func addRoutes(to router: Router<VarselContext>) {
        router.get("static/:name") { _, context in
            guard let name = context.parameters.get("name"), let asset = renderer.asset(name) else { throw Problem.notFound("No such file.") }
            return asset
        }
        // The service worker is served from the root so that its scope is the whole site.
        router.get("sw.js") { _, _ in
            guard let worker = renderer.asset("sw.js") else { throw Problem.notFound("No such file.") }
            return worker
        }
        router.get("offline") { _, _ in try renderer.page("offline", OfflinePage()) }
        router.get("signin", use: signInPage)
        router.post("signin", use: signIn)
        router.post("signout", use: signOut)
    }

    // MARK: Sign-in

    func signInModel(_ request: Request, error: String?, username: String, next: String) -> SignInPage {
        let strings = Strings(Language.preferred(fromAcceptLanguage: request.headers[.acceptLanguage]))
        return SignInPage(
            lang: strings.language.tag, title: strings.signIn, usernameLabel: strings.username, passwordLabel: strings.password,
            submit: strings.signIn, error: error, username: username, next: next, haveCode: strings.haveCodeLink,
            passkey: passkeys.isAvailable
                ? PasskeySignInView(
                    button: strings.signInWithPasskey, orPassword: strings.orSignInWithPassword,
                    notAccepted: strings.passkeyNotAccepted) : nil)
    }

    func signInPage(_ request: Request, context: VarselContext) async throws -> Response {
        let next = request.uri.queryParameters["next"].map(String.init) ?? "/notifications"
        return try renderer.page("signin", signInModel(request, error: nil, username: "", next: Self.safeNext(next)))
    }

    /// Only same-site relative paths are followed after sign-in (``LocalRedirect``).
    static func safeNext(_ next: String) -> String {
        LocalRedirect.target(next)
    }

    func signIn(_ request: Request, context: VarselContext) async throws -> Response {
        let form = try await PageForm.decode(PageForm.SignIn.self, from: request)
        let username = form.username ?? ""
        let next = Self.safeNext(form.next ?? "/notifications")
        do {
            let started = try await SessionController(
                configuration: configuration, directory: directory, export: export, settings: settings,
                sessions: sessions
            ).startSession(username: username, password: form.password ?? "", request: request, context: context)
            var response = Response.redirect(to: next, type: .normal)
            response.setCookie(configuration.sessionCookie(started.token))
            return response
        } catch let problem as Problem {
            let strings = Strings(Language.preferred(fromAcceptLanguage: request.headers[.acceptLanguage]))
            let message =
                switch problem.status {
                case .tooManyRequests: strings.tooManySignInAttempts(seconds: problem.headers[.retryAfter].flatMap { Int($0) } ?? 60)
                case .forbidden: strings.accountDeactivated
                default: strings.signInFailed
                }
            return try renderer.page("signin", signInModel(request, error: message, username: username, next: next), status: problem.status)
        }
    }

    func signOut(_ request: Request, context: VarselContext) async throws -> Response {
        let identity = try signedIn(request, context)
        try await sessions.signOut(identity.session)
        var response = Response.redirect(to: "/signin", type: .normal)
        response.setCookie(
            Cookie(
                name: sessionCookieName, value: "", maxAge: 0, path: "/", secure: configuration.usesSecureCookies,
                httpOnly: true, sameSite: .lax))
        return response
    }

}

/// Sends an anonymous page request to the sign-in page.
struct RedirectError: HTTPResponseError {
    let location: String
    var status: HTTPResponse.Status { .seeOther }

    func response(from request: Request, context: some RequestContext) throws -> Response {
        .redirect(to: location, type: .normal)
    }
}
