import Foundation
import Hummingbird
import VarselCore
import VarselService
import VarselStore

/// The routes of notifications scheduled for later: list the waiting ones, read, change and cancel one. A send is
/// scheduled by `POST /api/v1/notifications` with `sendAt`.
struct ScheduledSendsController {
    let scheduledSends: ScheduledSends

    func addRoutes(to router: some RouterMethods<VarselContext>) {
        router.get("scheduled-sends", use: list)
        router.get("scheduled-sends/:id", use: show)
        router.patch("scheduled-sends/:id", use: change)
        router.delete("scheduled-sends/:id", use: cancel)
    }

    /// A scheduled send as the API shows it.
    struct Resource: Encodable {
        var id: ScheduledSendID
        var recipientIds: [UserID]
        var kind: NotificationKind
        var title: String
        var body: String
        var urgency: Urgency
        var sendAt: Date
        var createdAt: Date
        var state: ScheduledSendState
        var endedAt: Date?
        /// It publishes a training scenario (its title and text) when it goes.
        var publishesScenario: Bool

        init(_ send: ScheduledSend) {
            publishesScenario = send.publishesScenario
            id = send.id
            recipientIds = send.recipientIDs
            kind = send.kind
            title = send.title
            body = send.body
            urgency = send.urgency
            sendAt = send.sendAt
            createdAt = send.createdAt
            state = send.state
            endedAt = send.endedAt
        }
    }

    struct ListResponse: Encodable {
        var items: [Resource]
    }

    /// A change: each field given replaces the send's; the kind and recipients stay.
    struct ChangeRequest: Decodable {
        var title: String?
        var body: String?
        var urgency: String?
        var sendAt: String?
    }

    func list(_ request: Request, context: VarselContext) async throws -> Response {
        let identity = try context.require(.coordinator, .admin)
        return try JSONCoding.response(ListResponse(items: try await scheduledSends.waiting(for: identity.user).map(Resource.init)))
    }

    func show(_ request: Request, context: VarselContext) async throws -> Response {
        let identity = try context.require(.coordinator, .admin)
        let id = try PathID.of(context, as: ScheduledSendID.self)
        return try JSONCoding.response(Resource(try await scheduledSends.send(id, for: identity.user)))
    }

    func change(_ request: Request, context: VarselContext) async throws -> Response {
        let identity = try context.require(.coordinator, .admin)
        let id = try PathID.of(context, as: ScheduledSendID.self)
        let body = try await JSONCoding.decode(ChangeRequest.self, from: request)
        let current = try await scheduledSends.send(id, for: identity.user)
        let sendAt = try body.sendAt.map { try Self.sendAt($0) } ?? current.sendAt
        let message = try Validation.notification(
            kind: current.kind.rawValue, title: body.title ?? current.title, body: body.body ?? current.body,
            urgency: body.urgency ?? current.urgency.rawValue, personalDetails: [], allowAssignment: false)
        let changed = try await scheduledSends.change(id, by: identity.user, to: message, at: sendAt)
        context.logger.info("scheduled send changed", metadata: ["scheduled_send.id": "\(id)"])
        return try JSONCoding.response(Resource(changed))
    }

    func cancel(_ request: Request, context: VarselContext) async throws -> Response {
        let identity = try context.require(.coordinator, .admin)
        let id = try PathID.of(context, as: ScheduledSendID.self)
        let cancelled = try await scheduledSends.cancel(id, by: identity.user)
        context.logger.info("scheduled send cancelled", metadata: ["scheduled_send.id": "\(id)"])
        return try JSONCoding.response(Resource(cancelled))
    }

    /// Reads `sendAt`: an RFC 3339 date and time with its offset, seconds' fractions allowed; a 422 naming the field
    /// otherwise, without the value.
    static func sendAt(_ text: String) throws -> Date {
        let plain = ISO8601DateFormatter()
        let fractional = ISO8601DateFormatter()
        fractional.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        // Only the form the API document's pattern states, as RFC 3339 writes it; then a real moment.
        guard text.wholeMatch(of: /[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]+)?(Z|[+-][0-9]{2}:[0-9]{2})/) != nil,
            let date = plain.date(from: text) ?? fractional.date(from: text)
        else {
            throw InvalidInput([.init(field: "sendAt", rule: .other("must be a date and time with its offset, as 2026-12-07T09:00:00+01:00"))])
        }
        return date
    }
}
