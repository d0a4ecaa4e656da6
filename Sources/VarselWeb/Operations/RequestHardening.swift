import Foundation
import HTTPTypes
import Hummingbird
import VarselPush
import VarselService

#if canImport(Glibc)
    import Glibc
#endif

extension HTTPField.Name {
    static let contentTypeOptions = Self("X-Content-Type-Options")!
    static let secFetchSite = Self("Sec-Fetch-Site")!
    static let forwardedFor = Self("X-Forwarded-For")!
}

/// Puts the headers every response needs on every response, errors included: `nosniff`, and `no-store` unless
/// the handler chose its own caching.
///
/// It runs outside ``ProblemMiddleware``, so problem+json answers and the router's own errors get them too.
/// `no-store` is the default because most responses carry someone's notifications, contacts or session; only
/// the static assets say otherwise (`no-cache`, revalidated).
struct ResponseHeadersMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var response = try await next(request, context)
        Self.harden(&response.headers)
        return response
    }

    /// Adds the headers every response needs to `fields`.
    static func harden(_ fields: inout HTTPFields) {
        fields[.contentTypeOptions] = "nosniff"
        if fields[.cacheControl] == nil {
            fields[.cacheControl] = "no-store"
        }
    }
}

/// Refuses, before routing, requests whose path is not in normal form, so that each resource has exactly one
/// spelling and no check can be side-stepped by writing its path differently (`//api`, `/./api`, `%2F`).
///
/// Every path Varsel serves is plain ASCII segments: no empty segment, no `.` or `..`, no percent-encoding,
/// no backslash. Anything else is a 400 problem that names the rule, not the path.
struct CanonicalPathMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard Self.isCanonical(request.uri.path) else {
            throw Problem.badRequest(
                "The request path is not in normal form: use single slashes, no '.' or '..' segments, no percent-encoding and no backslashes.")
        }
        return try await next(request, context)
    }

    /// Whether `path` is `/` or `/segment(/segment)*`, each segment non-empty, neither `.` nor `..`, of plain
    /// characters only.
    static func isCanonical(_ path: String) -> Bool {
        guard path.hasPrefix("/") else { return false }
        if path == "/" { return true }
        let segments = path.dropFirst().split(separator: "/", omittingEmptySubsequences: false)
        return segments.allSatisfy { segment in
            !segment.isEmpty && segment != "." && segment != ".."
                && segment.unicodeScalars.allSatisfy(canonicalSegmentCharacters.contains)
        }
    }
}

/// The characters a canonical path segment may hold (RFC 3986 `pchar` without `%`).
private let canonicalSegmentCharacters = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~!$&'()*+,;=:@".unicodeScalars)

/// Refuses state-changing requests that a browser sent on behalf of another site.
///
/// Applies to every unsafe method on a request without a bearer token (cookie-signed-in or anonymous, such as
/// the sign-in form): when the browser says where the request came from (`Origin`, `Sec-Fetch-Site`), it must be
/// this site. Together with the session's CSRF token (checked in ``AuthenticationMiddleware``) and JSON bodies
/// only as `application/json`, this stops cross-site request forgery, login CSRF included.
struct SameOriginMiddleware: RouterMiddleware {
    /// The public origin (`https://varsel.example`) when configured; the request's own `Host` always counts.
    let publicOrigin: String?

    func handle(_ request: Request, context: VarselContext, next: (Request, VarselContext) async throws -> Response) async throws -> Response {
        if AuthenticationMiddleware.isUnsafe(request.method), request.headers[.authorization] == nil {
            try check(request)
        }
        return try await next(request, context)
    }

    /// `Sec-Fetch-Site`, when the browser sends it, decides; else a real `Origin` must name this site. Pages
    /// are served with `Referrer-Policy: no-referrer`, under which browsers send `Origin: null` even for their
    /// own forms, so `null` is accepted only together with `Sec-Fetch-Site: same-origin`.
    func check(_ request: Request) throws {
        if let site = request.headers[.secFetchSite]?.lowercased() {
            guard site == "same-origin" || site == "none" else {
                throw Problem.forbidden("Cross-site requests may not change anything here (Sec-Fetch-Site is not same-origin).")
            }
            return
        }
        guard let origin = request.headers[.origin] else { return }
        guard Self.origin(origin, matchesHost: request.head.authority) || origin.lowercased() == publicOrigin else {
            throw Problem.forbidden("Cross-site requests may not change anything here (the Origin header does not name this site).")
        }
    }

    /// Whether `origin` (`scheme://host[:port]`) names `host` (`host[:port]`, as in the Host header).
    static func origin(_ origin: String, matchesHost host: String?) -> Bool {
        guard let host, !host.isEmpty, let components = URLComponents(string: origin), let scheme = components.scheme?.lowercased(),
            scheme == "http" || scheme == "https", let originHost = components.host, components.path.isEmpty
        else { return false }
        let originAuthority = originHost.lowercased() + (components.port.map { ":\($0)" } ?? "")
        let defaultPort = scheme == "https" ? ":443" : ":80"
        let requestAuthority = host.lowercased()
        return originAuthority == requestAuthority || originAuthority + defaultPort == requestAuthority
            || originAuthority == requestAuthority.replacingOccurrences(of: defaultPort, with: "")
    }
}

/// The address a request came from: the socket's peer, or, only when that peer is a trusted proxy, the last
/// address in `X-Forwarded-For` that is not itself a trusted proxy.
///
/// `X-Forwarded-For` is written by the client unless a proxy rewrites it, so it is believed only from proxies the
/// operator named with `--trusted-proxy`.
public enum ClientAddress {
    public static func resolve(peer: String?, forwardedFor: String?, trustedProxies: [CIDR]) -> String {
        guard let peer else { return "unknown" }
        guard trustedProxies.contains(where: { $0.contains(peer) }), let forwardedFor else { return peer }
        let hops = forwardedFor.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        for hop in hops.reversed() {
            guard CIDR.parseAddress(hop) != nil else { return peer }
            if !trustedProxies.contains(where: { $0.contains(hop) }) { return hop }
        }
        return hops.first ?? peer
    }
}

/// Where to go after signing in: only a path on this site, never somewhere a crafted link chooses.
enum LocalRedirect {
    static let fallback = "/notifications"

    /// `next` when it is a same-site relative path (`/contacts/3?assignment=4`), else the notification centre.
    ///
    /// Browsers forgive a lot (`/\evil.example`, `/\t/evil.example`, `//evil.example` all leave the site), so
    /// anything but plain path characters is refused, in every percent-decoded form too.
    static func target(_ next: String) -> String {
        guard next.utf8.count <= 2048 else { return fallback }
        var form = next
        for _ in 0..<4 {
            guard isPlainLocalPath(form) else { return fallback }
            guard let decoded = form.removingPercentEncoding, decoded != form else { break }
            form = decoded
        }
        guard let components = URLComponents(string: next), components.scheme == nil, components.host == nil,
            components.path.hasPrefix("/")
        else { return fallback }
        return next
    }

    private static func isPlainLocalPath(_ path: String) -> Bool {
        let scalars = Array(path.unicodeScalars)
        guard scalars.first == "/" else { return false }
        if scalars.count > 1, scalars[1] == "/" || scalars[1] == "\\" { return false }
        return !scalars.contains { scalar in
            scalar == "\\" || scalar.properties.isWhitespace || scalar.value < 0x20 || scalar.value == 0x7f
                || scalar.properties.generalCategory == .control || scalar.properties.generalCategory == .format
        }
    }
}
