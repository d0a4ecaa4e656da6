import Foundation
import Hummingbird
import VarselCore
import VarselService
import VarselStore

/// `GET`/`POST /api/v1/users`: user administration, for admins.
struct UsersController {
    let services: VarselServices

    func addRoutes(to router: some RouterMethods<VarselContext>) {
        router.get("users", use: list)
        router.post("users", use: create)
    }

    struct CreateRequest: Decodable {
        var username: String
        var password: String
        var role: String
        var displayName: String?
        var locale: String?
    }

    func list(_ request: Request, context: VarselContext) async throws -> Response {
        _ = try context.require(.admin, .coordinator)
        return try JSONCoding.response(try await services.repository.users().map(UserResource.init))
    }

    func create(_ request: Request, context: VarselContext) async throws -> Response {
        _ = try context.require(.admin)
        let body = try await JSONCoding.decode(CreateRequest.self, from: request)
        let user = try await services.users.add(username: body.username, password: body.password, role: body.role, displayName: body.displayName,
                 locale: body.locale, at: services.now())
        return try JSONCoding.response(UserResource(user), status: .created)
    }
}
