import Foundation
import Hummingbird
import VarselCore
import VarselService
import VarselStore

/// `POST /api/v1/pause`: a mentor pauses new assignments (from a day, or now) until a day, and is told it took effect
/// or is booked; `DELETE /api/v1/pause` ends it early.
struct PauseController {
    let services: VarselServices

    func addRoutes(to router: some RouterMethods<VarselContext>) {
        router.post("pause", use: pause)
        router.delete("pause", use: end)
    }

    struct PauseRequest: Decodable {
        var from: String?
        var until: String
    }

    struct PauseResponse: Encodable {
        var pausedFrom: Date?
        var pausedUntil: Date
        var notificationId: Int64
    }

    func pause(_ request: Request, context: VarselContext) async throws -> Response {
        let identity = try context.require(.mentor)
        let body = try await JSONCoding.decode(PauseRequest.self, from: request)
        var issues: [Validation.Issue] = []
        var from: Date?
        var until: Date?
        if let raw = body.from { do { from = try Validation.day(raw, field: "from") } catch { issues += error.issues } }
        do { until = try Validation.day(body.until, field: "until") } catch { issues += error.issues }
        guard issues.isEmpty, let until else { throw InvalidInput(issues) }
        let confirmation = try await services.sender.pause(identity.user, from: from, until: until)
        let paused = try await services.repository.user(id: identity.user.id)
        return try JSONCoding.response(PauseResponse(pausedFrom: paused?.pausedFrom, pausedUntil: until, notificationId: confirmation.id),
                                       status: .created)
    }

    /// Ends the pause now: 204 with a confirmation notification, or 204 with nothing changed when there was none.
    func end(_ request: Request, context: VarselContext) async throws -> Response {
        let identity = try context.require(.mentor)
        _ = try await services.sender.endPause(identity.user)
        return Response(status: .noContent)
    }
}
