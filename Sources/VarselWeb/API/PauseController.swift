import Foundation
import Hummingbird
import VarselCore
import VarselService
import VarselStore

/// `POST /api/v1/pause`: a mentor pauses new assignments (from a day, or now) until a day, and is told it took effect
/// or is booked; `DELETE /api/v1/pause` ends it early.
struct PauseController {
    let directory: Directory
    let sender: NotificationSender

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
        var notificationId: NotificationID
    }

    func pause(_ request: Request, context: VarselContext) async throws -> Response {
        let identity = try context.require(.mentor)
        let body = try await JSONCoding.decode(PauseRequest.self, from: request)
        let confirmation = try await sender.pause(identity.user, fromDay: body.from, untilDay: body.until)
        guard let paused = try await directory.person(identity.user.id), let until = paused.pausedUntil else {
            throw Problem.notFound("No such user.")
        }
        return try JSONCoding.response(
            PauseResponse(pausedFrom: paused.pausedFrom, pausedUntil: until, notificationId: confirmation.id),
            status: .created)
    }

    /// Ends the pause now: 204 with a confirmation notification, or 204 with nothing changed when there was none.
    func end(_ request: Request, context: VarselContext) async throws -> Response {
        let identity = try context.require(.mentor)
        _ = try await sender.endPause(identity.user)
        return Response(status: .noContent)
    }
}
