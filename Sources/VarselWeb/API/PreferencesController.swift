import Foundation
import Hummingbird
import VarselCore
import VarselService
import VarselStore

/// `GET`/`PUT /api/v1/preferences`: the signed-in user's own notification preferences.
struct PreferencesController {
    let settings: AccountSettings

    func addRoutes(to router: some RouterMethods<VarselContext>) {
        router.get("preferences", use: show)
        router.put("preferences", use: update)
    }

    func show(_ request: Request, context: VarselContext) async throws -> Response {
        let identity = try context.requireUser()
        return try JSONCoding.response(PreferencesResource(try await settings.preferences(of: identity.user.id)))
    }

    func update(_ request: Request, context: VarselContext) async throws -> Response {
        let identity = try context.requireUser()
        let body = try await JSONCoding.decode(PreferencesResource.self, from: request)
        try Validation.enabledKinds(body.enabledKinds)
        try Validation.enabledKinds(body.textMessageKinds ?? [], field: "textMessageKinds")
        try Validation.enabledKinds(body.emailKinds ?? [], field: "emailKinds")
        try Validation.enabledKinds(body.summaryKinds ?? [], field: "summaryKinds")
        let preferences = try body.preferences(current: try await settings.preferences(of: identity.user.id))
        try await settings.savePreferences(preferences, for: identity.user.id)
        return try JSONCoding.response(PreferencesResource(preferences))
    }
}
