import Foundation
import HTTPTypes
import Hummingbird
import VarselCore
import VarselService

/// The page a browser gets for an address that is no page, instead of the API's problem+json: its heading, why,
/// and the way home, with the tab bar for a signed-in person, in their language (the browser's when signed out).
struct NotFoundPage {
    var chrome: PageChrome?
    var lang: String
    var heading: String
    var explanation: String
    var home: String
    var homeHref: String
}

struct NotFoundPages: PageScreen {
    let frame: PageFrame
}

extension NotFoundPages {
    /// The 404 page for `request`, framed for whoever is signed in.
    func notFoundPage(_ request: Request, _ context: VarselContext) async throws -> Response {
        guard let identity = context.identity else {
            let strings = Strings(Language.preferred(fromAcceptLanguage: request.headers[.acceptLanguage]))
            return try renderer.page(
                "not-found",
                NotFoundPage(
                    chrome: nil, lang: strings.language.tag, heading: strings.pageNotFound, explanation: strings.pageNotFoundExplanation,
                    home: strings.goToSignIn, homeHref: "/signin"), status: .notFound)
        }
        let strings = Strings(identity.user.language)
        let chrome = try await self.chrome(identity, resumePoint: try await resumePoint(), title: strings.pageNotFound, tab: nil, flash: nil)
        return try renderer.page(
            "not-found",
            NotFoundPage(
                chrome: chrome, lang: strings.language.tag, heading: strings.pageNotFound, explanation: strings.pageNotFoundExplanation,
                home: strings.goToNotifications, homeHref: "/notifications"), status: .notFound)
    }
}

/// Answers a browser's request for a page that does not exist with ``NotFoundPage``: a GET or HEAD that accepts
/// HTML, outside the API and the static files. Everything else keeps its problem+json 404.
struct NotFoundPageMiddleware: RouterMiddleware {
    let pages: NotFoundPages

    func handle(_ request: Request, context: VarselContext, next: (Request, VarselContext) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error where Self.isNotFound(error) && Self.wantsPage(request) {
            return try await pages.notFoundPage(request, context)
        }
    }

    static func isNotFound(_ error: any Error) -> Bool {
        switch error {
        case let problem as Problem: problem.status == .notFound
        case let response as any HTTPResponseError: response.status == .notFound
        default: false
        }
    }

    /// Whether `request` is a browser asking for a page: what it would show the person is HTML, not JSON.
    static func wantsPage(_ request: Request) -> Bool {
        guard request.method == .get || request.method == .head else { return false }
        let path = request.uri.path
        guard !path.hasPrefix("/api/"), !path.hasPrefix("/static/"), path != "/sw.js" else { return false }
        return request.headers[.accept]?.lowercased().contains("text/html") == true
    }
}
