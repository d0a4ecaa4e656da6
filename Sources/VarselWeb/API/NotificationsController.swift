import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import VarselCore
import VarselLive
import VarselService
import VarselStore

/// The notification routes: list, count, create, read/unread, mark all read, delete, bulk actions.
struct NotificationsController {
    let directory: Directory
    let now: @Sendable () -> Date
    let sender: NotificationSender
    let inbox: NotificationInbox
    let settings: AccountSettings
    let scheduledSends: ScheduledSends

    func addRoutes(to router: some RouterMethods<VarselContext>) {
        router.get("notifications", use: list)
        router.get("notifications/unread-count", use: unreadCount)
        router.post("notifications", use: create)
        router.post("notifications/read-all", use: readAll)
        router.post("notifications/bulk", use: bulk)
        router.get("notifications/:id", use: show)
        router.post("notifications/:id/read", use: { try await setRead(true, $0, $1) })
        router.post("notifications/:id/unread", use: { try await setRead(false, $0, $1) })
        router.delete("notifications/:id", use: delete)
    }

    struct ListResponse: Encodable {
        var items: [NotificationResource]
        var nextCursor: String?
        var unreadCount: Int
        var filter: String
    }

    func list(_ request: Request, context: VarselContext) async throws -> Response {
        let identity = try context.requireUser()
        let query = request.uri.queryParameters
        let filterName = query["filter"].map(String.init) ?? "all"
        guard let filter = NotificationFilter(wireName: filterName) else {
            let names = (NotificationFilter.allCases + [.kind(.summary), .kind(.serviceNotice)]).map(\.wireName).joined(separator: ", ")
            throw Problem.badRequest("Unknown filter. Use one of: \(names).", errors: [.init(field: "filter", message: "unknown")])
        }
        let limit = try Self.limit(query["limit"].map(String.init))
        let cursor = try query["cursor"].map { try Cursor.decode(String($0)) }
        let page = try await inbox.page(of: identity.user.id, filter: filter, after: cursor, limit: limit)
        let preferences = try await settings.preferences(of: identity.user.id)
        let describer = Describer.shared(identity.user.language)
        let now = now()
        return try JSONCoding.response(
            ListResponse(
                items: page.items.map { NotificationResource($0, describer: describer, preferences: preferences, now: now) },
                nextCursor: page.nextCursor.map(Cursor.encode),
                unreadCount: try await inbox.unreadCount(of: identity.user.id),
                filter: filter.wireName))
    }

    static func limit(_ raw: String?) throws -> Int {
        guard let raw else { return Limits.defaultPageSize }
        guard let limit = Int(raw), (1...Limits.maxPageSize).contains(limit) else {
            throw Problem.badRequest(
                "limit must be an integer from 1 to \(Limits.maxPageSize).", errors: [.init(field: "limit", message: "out of range")])
        }
        return limit
    }

    func unreadCount(_ request: Request, context: VarselContext) async throws -> Response {
        let identity = try context.requireUser()
        let count = try await inbox.unreadCount(of: identity.user.id)
        return try JSONCoding.response(UnreadCountResource(count: count, describer: Describer.shared(identity.user.language)))
    }

    func show(_ request: Request, context: VarselContext) async throws -> Response {
        let identity = try context.requireUser()
        let id = try PathID.of(context, as: NotificationID.self)
        guard let item = try await inbox.item(id, of: identity.user.id) else {
            throw Problem.notFound("You have no notification with that id.")
        }
        return try JSONCoding.response(try await resource(item, for: identity.user))
    }

    func resource(_ item: NotificationItem, for user: User) async throws -> NotificationResource {
        let preferences = try await settings.preferences(of: user.id)
        return NotificationResource(item, describer: Describer.shared(user.language), preferences: preferences, now: now())
    }

    // MARK: Create

    struct CreateRequest: Decodable {
        var recipients: [Recipient]
        var kind: String
        var title: String
        var body: String
        var urgency: String?
        var personalDetails: [String]?
        /// When to send it, instead of now.
        var sendAt: String?
    }

    /// The answer to a create, as ``HotJSON/createResponse(_:)`` writes it; its encoding is the reference in tests.
    struct CreateResponse: Encodable {
        var items: [CreatedNotification]
    }

    /// What the sender sees of a created notification: ids and recipients, not the recipient's accessibility block.

    func create(_ request: Request, context: VarselContext) async throws -> Response {
        let identity = try context.require(.coordinator, .admin)
        let key = try Self.idempotencyKey(request)
        let raw = try await JSONCoding.body(of: request)
        let body = try JSONCoding.decode(CreateRequest.self, from: raw)
        let validated = try Validation.notification(
            kind: body.kind, title: body.title, body: body.body, urgency: body.urgency,
            personalDetails: body.personalDetails ?? [], allowAssignment: false)
        let recipients = try await RecipientResolver(directory: directory).ids(body.recipients)
        let idempotency = key.map {
            IdempotencyKey(
                senderID: identity.user.id, key: $0, fingerprint: SHA256.hash(data: Data(buffer: raw)).map { String(format: "%02x", $0) }.joined())
        }
        if let sendAt = body.sendAt {
            return try await schedule(
                validated, from: identity.user.id, to: recipients, at: try ScheduledSendsController.sendAt(sendAt), idempotency, body, context)
        }
        let created: CreatedNotifications
        do {
            created = try await sender.send(validated, from: identity.user.id, to: recipients, idempotencyKey: idempotency)
        } catch let StoreError.unknownRecipient(id) {
            // The store checks ids in the create's own transaction and names the first unknown one; usernames were
            // resolved to existing people, so it is one given by id.
            throw RecipientResolver.unknownRecipient(given: id, in: body.recipients)
        }
        context.logger.info(
            "notifications created",
            metadata: [
                "notification.count": "\(created.items.count)", "notification.replay": "\(created.isReplay)",
            ])
        let items = created.items.map {
            CreatedNotification(id: $0.id, recipientId: $0.recipientID, kind: $0.kind, title: $0.title, urgency: $0.urgency, createdAt: $0.createdAt)
        }
        var headers: HTTPFields = [:]
        if created.isReplay { headers[.init("Idempotent-Replayed")!] = "true" }
        return JSONCoding.response(json: HotJSON.createResponse(items), status: created.isReplay ? .ok : .created, headers: headers)
    }

    /// A create with `sendAt`: scheduled, answered 202 with the scheduled send (with `Idempotent-Replayed: true` when
    /// its key's earlier request scheduled it).
    func schedule(
        _ message: Validation.ValidNotification, from senderID: UserID, to recipients: [UserID], at sendAt: Date,
        _ idempotency: IdempotencyKey?, _ body: CreateRequest, _ context: VarselContext
    ) async throws -> Response {
        let created: ScheduledSendCreated
        do {
            created = try await scheduledSends.schedule(message, from: senderID, to: recipients, at: sendAt, idempotencyKey: idempotency)
        } catch let StoreError.unknownRecipient(id) {
            throw RecipientResolver.unknownRecipient(given: id, in: body.recipients)
        }
        context.logger.info(
            "notification scheduled",
            metadata: [
                "scheduled_send.id": "\(created.send.id)", "notification.count": "\(recipients.count)", "notification.replay": "\(created.isReplay)",
            ])
        var response = try JSONCoding.response(ScheduledSendsController.Resource(created.send), status: .accepted)
        if created.isReplay { response.headers[.init("Idempotent-Replayed")!] = "true" }
        return response
    }

    static func idempotencyKey(_ request: Request) throws -> String? {
        guard let key = request.headers[.idempotencyKey] else { return nil }
        guard !key.isEmpty, key.unicodeScalars.count <= Limits.maxIdempotencyKeyLength else {
            throw Problem.badRequest("Idempotency-Key must be 1 to \(Limits.maxIdempotencyKeyLength) characters.")
        }
        return key
    }

    // MARK: Read state and deletion

    func setRead(_ isRead: Bool, _ request: Request, _ context: VarselContext) async throws -> Response {
        let identity = try context.requireUser()
        let id = try PathID.of(context, as: NotificationID.self)
        guard let item = try await inbox.setRead(isRead, notificationID: id, userID: identity.user.id) else {
            throw Problem.notFound("You have no notification with that id.")
        }
        return try JSONCoding.response(try await resource(item, for: identity.user))
    }

    /// The outcome of a bulk action: how many changed and what to announce (002: nothing-to-do is distinct).
    struct OutcomeResponse: Encodable {
        var count: Int
        var outcome: String
        var announcement: AnnouncementResource
        /// How long the client waits before announcing it: the core's delay for feedback on the user's own action.
        var feedbackDelayMs = Int(Announcer.Configuration().userActionDelay * 1000)
    }

    func readAll(_ request: Request, context: VarselContext) async throws -> Response {
        let identity = try context.requireUser()
        let count = try await inbox.markAllRead(userID: identity.user.id)
        return try JSONCoding.response(outcome(.markedAllRead(count: count), count: count, language: identity.user.language))
    }

    func outcome(_ outcome: ActionOutcome, count: Int, language: Language) -> OutcomeResponse {
        let text = Describer.shared(language).confirmation(of: outcome) ?? ""
        return OutcomeResponse(
            count: count, outcome: count == 0 ? "nothingToDo" : "done",
            announcement: AnnouncementResource(text: text, politeness: .polite))
    }

    struct BulkRequest: Decodable {
        var action: String
        var ids: [Int64]
    }

    func bulk(_ request: Request, context: VarselContext) async throws -> Response {
        let identity = try context.requireUser()
        let body = try await JSONCoding.decode(BulkRequest.self, from: request)
        guard body.ids.count <= Limits.maxPageSize * 10 else { throw Problem.unprocessable("At most \(Limits.maxPageSize * 10) ids at once.") }
        let result: OutcomeResponse
        switch body.action {
        case "read":
            let count = try await inbox.markRead(ids: body.ids.map(NotificationID.init), userID: identity.user.id)
            result = outcome(.markedAllRead(count: count), count: count, language: identity.user.language)
        case "delete":
            let count = try await inbox.delete(ids: body.ids.map(NotificationID.init), userID: identity.user.id)
            result = outcome(.deleted(count: count), count: count, language: identity.user.language)
        default:
            throw Problem.badRequest("action must be 'read' or 'delete'.", errors: [.init(field: "action", message: "unknown")])
        }
        return try JSONCoding.response(result)
    }

    func delete(_ request: Request, context: VarselContext) async throws -> Response {
        let identity = try context.requireUser()
        let id = try PathID.of(context, as: NotificationID.self)
        guard try await inbox.delete(ids: [id], userID: identity.user.id) == 1 else {
            throw Problem.notFound("You have no notification with that id.")
        }
        return Response(status: .noContent)
    }
}

/// Pagination cursors: opaque to clients, who pass `nextCursor` back as it is, and exactly as ``pattern`` (the OpenAPI
/// document's) describes, so that every cursor the document allows is one the server reads.
enum Cursor {
    /// `n` and the last id seen, in decimal without leading zeros (at most 18 digits, so it fits an Int64).
    static let pattern = "^n[1-9][0-9]{0,17}$"

    static func encode(_ id: NotificationID) -> String { "n\(id)" }

    static func decode(_ raw: String) throws -> NotificationID {
        let digits = raw.utf8.dropFirst()
        guard raw.utf8.first == UInt8(ascii: "n"), (1...18).contains(digits.count), digits.first != UInt8(ascii: "0"),
            digits.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }), let id = NotificationID(String(raw.dropFirst()))
        else {
            throw Problem.badRequest(
                "The cursor is not one this API gave out. Use nextCursor from the previous page.",
                errors: [.init(field: "cursor", message: "invalid")])
        }
        return id
    }
}
