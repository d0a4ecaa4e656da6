import Foundation
import Hummingbird
import VarselCore
import VarselService
import VarselStore

/// `POST /api/v1/pause`: a mentor pauses new assignments until a date, and is told it took effect.
struct PauseController {
    let services: VarselServices

    func addRoutes(to router: some RouterMethods<VarselContext>) {
        router.post("pause", use: pause)
    }

    struct PauseRequest: Decodable { var until: String }

    struct PauseResponse: Encodable {
        var pausedUntil: Date
        var notificationId: Int64
    }

    func pause(_ request: Request, context: VarselContext) async throws -> Response {
        let identity = try context.require(.mentor)
        let body = try await JSONCoding.decode(PauseRequest.self, from: request)
        let until = try Validation.day(body.until, field: "until")
        let confirmation = try await services.sender.pause(identity.user, until: until)
        return try JSONCoding.response(PauseResponse(pausedUntil: until, notificationId: confirmation.id), status: .created)
    }
}
