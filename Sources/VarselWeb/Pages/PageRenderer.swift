import Foundation
import Hummingbird
import Mustache
import VarselService

/// Renders the Mustache templates and serves the static assets, all loaded at start-up.
public struct PageRenderer: Sendable {
    let library: MustacheLibrary
    let assets: [String: (contentType: String, body: ByteBuffer)]

    /// The templates every page needs; start-up fails if one is missing.
    static let templateNames = [
        "notifications", "settings", "detail", "signin", "coordinator", "header", "footer", "switch", "notification-row", "offline", "list",
        "dashboard", "profile", "errors", "scenarios", "scenario", "list-groups", "people", "person-new", "person", "link", "password",
        "add-passkey-form",
        "integrations", "integration-token", "not-found",
    ]
    static let assetNames = [
        "varsel.js": "text/javascript; charset=utf-8", "varsel.css": "text/css; charset=utf-8", "noscript.css": "text/css; charset=utf-8",
        "push.js": "text/javascript; charset=utf-8", "sw.js": "text/javascript; charset=utf-8", "passkeys.js": "text/javascript; charset=utf-8",
        "manifest.webmanifest": "application/manifest+json",
        "icon-192.png": "image/png", "icon-512.png": "image/png", "icon-maskable-512.png": "image/png", "apple-touch-icon.png": "image/png",
    ]

    public static func load() async throws -> PageRenderer {
        guard let templates = Bundle.module.url(forResource: "templates", withExtension: nil, subdirectory: "Resources"),
            let statics = Bundle.module.url(forResource: "static", withExtension: nil, subdirectory: "Resources")
        else {
            throw StartupError.missingResource("templates or static")
        }
        let library = try await MustacheLibrary(directory: templates.path)
        for name in templateNames where library.getTemplate(named: name) == nil {
            throw StartupError.missingResource("templates/\(name).mustache")
        }
        var assets: [String: (String, ByteBuffer)] = [:]
        for (name, type) in assetNames {
            let data = try Data(contentsOf: statics.appendingPathComponent(name))
            assets[name] = (type, ByteBuffer(bytes: data))
        }
        return PageRenderer(library: library, assets: assets)
    }

    /// A template that could not be rendered: the request fails with a 500 problem rather than an empty page.
    struct RenderFailure: Error, Equatable {
        var template: String
    }

    /// An HTML response from `template` with `model`; throws ``RenderFailure`` when the template does not render.
    func page(_ template: String, _ model: Any, status: HTTPResponse.Status = .ok) throws -> Response {
        guard let html = library.render(model, withTemplate: template) else { throw RenderFailure(template: template) }
        return Response(
            status: status,
            headers: [
                .contentType: "text/html; charset=utf-8",
                .cacheControl: "no-store",
                .contentSecurityPolicy:
                    "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; connect-src 'self'; frame-ancestors 'none'",
                .init("X-Content-Type-Options")!: "nosniff",
                .init("Referrer-Policy")!: "no-referrer",
            ], body: .init(byteBuffer: ByteBuffer(string: html)))
    }

    func asset(_ name: String) -> Response? {
        guard let asset = assets[name] else { return nil }
        return Response(status: .ok, headers: [.contentType: asset.contentType, .cacheControl: "no-cache"], body: .init(byteBuffer: asset.body))
    }
}
