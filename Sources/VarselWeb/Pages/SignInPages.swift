import Foundation
import HTTPTypes
import Hummingbird
import VarselCore
import VarselService
import VarselStore

/// The server-rendered web client: semantic HTML that works with a screen reader, a keyboard, and without
/// JavaScript (plain form posts and redirects). Every phrase comes from the core.
struct PagesController {
    let services: VarselServices
    let renderer: PageRenderer

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
        addWorkRoutes(to: router)
        addProfileRoutes(to: router)
        addScenarioRoutes(to: router)
        addPeopleRoutes(to: router)
        addIntegrationRoutes(to: router)
        router.get("notifications", use: centre)
        router.get("notifications/:id/open", use: open)
        router.post("notifications/read-all", use: readAll)
        router.post("notifications/bulk", use: bulk)
        router.get("settings", use: settings)
        router.post("settings", use: saveSettings)
        router.get("contacts/:id", use: contact)
        router.post("contacts/:id/erase", use: eraseContact)
        router.post("assignments/:id/acknowledge", use: { try await answer(.acknowledged, $0, $1) })
        router.post("assignments/:id/decline", use: { try await answer(.declined, $0, $1) })
        router.post("assignments/:id/done", use: visitDone)
        router.post("assignments/:id/reassign", use: reassign)
        router.get("coordinator", use: { try await coordinatorPage($0, $1, errors: [], values: nil) })
        router.post("coordinator/notifications", use: sendNotification)
        router.post("coordinator/assignments", use: createAssignment)
    }

    // MARK: Sign-in

    /// The signed-in user, or a redirect to the sign-in page that comes back here.
    func signedIn(_ request: Request, _ context: VarselContext) throws -> Identity {
        guard let identity = context.identity else {
            let next = request.uri.path + (request.uri.query.map { "?" + $0 } ?? "")
            throw RedirectError(location: "/signin?next=" + (next.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "/"))
        }
        return identity
    }

    func signInModel(_ request: Request, error: String?, username: String, next: String) -> SignInPage {
        let strings = Strings(Language.preferred(fromAcceptLanguage: request.headers[.acceptLanguage]))
        return SignInPage(
            lang: strings.language.tag, title: strings.signIn, usernameLabel: strings.username, passwordLabel: strings.password,
            submit: strings.signIn, error: error, username: username, next: next, haveCode: strings.haveCodeLink,
            passkey: services.passkeys.isAvailable
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
                configuration: services.configuration, directory: services.directory, export: services.export, settings: services.settings,
                sessions: services.sessions
            ).startSession(username: username, password: form.password ?? "", request: request, context: context)
            var response = Response.redirect(to: next, type: .normal)
            response.setCookie(services.configuration.sessionCookie(started.token))
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
        try await services.sessions.signOut(identity.session)
        var response = Response.redirect(to: "/signin", type: .normal)
        response.setCookie(
            Cookie(
                name: sessionCookieName, value: "", maxAge: 0, path: "/", secure: services.configuration.usesSecureCookies,
                httpOnly: true, sameSite: .lax))
        return response
    }

    // MARK: The frame

    /// The point the page's live stream resumes from: read before anything the page shows, so an event committed
    /// while the page is being read is either on the page or after this point, and so on the stream.
    func resumePoint() async throws -> Int64 {
        try await services.pump.latestEventID()
    }

    /// The page frame, with the tab bar of the user's workspace (a mentor's or a coordinator's) and `tab` selected
    /// when it is in that bar; pass `unread` when the page has counted already, so it is read once.
    func chrome(_ identity: Identity, resumePoint: Int64, title: String, tab: AppTab?, flash: String?, unread counted: Int? = nil) async throws
        -> PageChrome
    {
        let user = identity.user
        let describer = services.describer(user.language)
        let unread: Int
        if let counted { unread = counted } else { unread = try await services.inbox.unreadCount(of: user.id) }
        let workspace = Workspace(PersonRole(user.role))
        let selected = tab.flatMap { workspace.tabs.contains($0) ? $0 : nil }
        let tabs = zip(workspace.tabs, describer.tabBar(unreadCount: unread, selected: selected, in: workspace)).map { appTab, element -> TabView in
            let web = WebAccessibility(element)
            return TabView(
                id: element.id, href: appTab.path, label: element.label, name: web.name, ariaSelected: web[attribute: "aria-selected"] ?? "false",
                isSelected: element.state.isSelected, posinset: web[attribute: "aria-posinset"] ?? "",
                setsize: web[attribute: "aria-setsize"] ?? "",
                badgeCount: appTab == .notifications && unread > 0 ? String(unread) : nil, iconPath: appTab.iconPath)
        }
        let strings = describer.strings
        return PageChrome(
            lang: user.language.tag, title: title, csrfToken: identity.session.csrfToken, userName: user.displayName,
            isCoordinator: workspace == .coordinator, tabs: tabs, flash: flash, lastEventId: resumePoint,
            strings: ChromeStrings(
                skipToContent: strings.skipToContent, signOut: strings.signOut,
                mainNavigation: workspace == .coordinator ? strings.coordinatorNavigation : strings.mainNavigation,
                profile: strings.tabName(.profile), opensDialog: strings.opensDialog))
    }

    /// The confirmation for a finished form action, carried across the redirect as `?done=` (``Flash``).
    func flash(_ request: Request, language: Language) -> String? {
        request.uri.queryParameters["done"].flatMap { Flash(query: String($0)) }?.text(services.describer(language))
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
