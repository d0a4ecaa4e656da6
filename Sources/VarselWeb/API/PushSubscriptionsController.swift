import Foundation
import Hummingbird
import VarselCore
import VarselPush
import VarselService
import VarselStore

/// Web Push on the API: the VAPID public key, a device's subscriptions, and the "Acknowledge" button's post.
struct PushSubscriptionsController {
    let answers: AssignmentAnswers
    let now: @Sendable () -> Date
    let pushSubscriptions: PushSubscriptions
    let webPush: WebPushSettings

    func addRoutes(to router: some RouterMethods<VarselContext>) {
        router.get("push/public-key", use: publicKey)
        router.get("push-subscriptions", use: list)
        router.post("push-subscriptions", use: create)
        router.delete("push-subscriptions/:id", use: delete)
        router.post("push-subscriptions/:id/acknowledge", use: acknowledge)
        router.post("push-subscriptions/:id/receipts", use: receipt)
    }

    struct PublicKeyResource: Encodable {
        /// The VAPID public key for `PushManager.subscribe({applicationServerKey})`.
        var publicKey: String
    }

    func publicKey(_ request: Request, context: VarselContext) async throws -> Response {
        try JSONCoding.response(PublicKeyResource(publicKey: webPush.publicKey))
    }

    /// A subscription as `PushSubscription.toJSON()` gives it.
    struct CreateRequest: Decodable {
        var endpoint: String
        var keys: Keys
        /// Accepted and ignored: push services end subscriptions with 404/410, which the worker acts on.
        var expirationTime: Double?

        struct Keys: Decodable {
            var p256dh: String
            var auth: String
        }
    }

    /// A device's subscription on the wire, with how its delivery stands; its keys stay on the server.
    struct SubscriptionResource: Encodable {
        var id: Int64
        var endpoint: String
        var createdAt: Date
        /// Whether this session made it (this device, in this browser).
        var isThisSession: Bool
        var deviceName: String
        /// `waiting`, `shows`, `notConfirmed` or `revoked`.
        var health: String
        /// When its push service last accepted a push for it.
        var lastAcceptedAt: Date?
        var lastShownAt: Date?
        var revokedAt: Date?
        /// The device list's line: `iPhone (Safari), last notification shown today at 2:02 PM`.
        var description: String

        init(_ subscription: PushSubscription, session: String, device: PushDeviceStatus, health: PushDeviceStatus.Health, description: String) {
            id = subscription.id
            endpoint = subscription.endpoint
            createdAt = subscription.createdAt
            isThisSession = subscription.sessionTokenHash == session
            deviceName = device.name
            self.health =
                switch health {
                case .waiting: "waiting"
                case .shows: "shows"
                case .notConfirmed: "notConfirmed"
                case .revoked: "revoked"
                }
            lastAcceptedAt = device.lastAcceptedAt
            lastShownAt = device.lastShownAt
            revokedAt = device.revokedAt
            self.description = description
        }
    }

    /// The user's subscriptions as the wire shows them, each with its health now, oldest first.
    func resources(of identity: Identity) async throws -> [SubscriptionResource] {
        let strings = Strings(identity.user.language)
        let now = now()
        let devices = Dictionary(try await pushSubscriptions.devices(of: [identity.user.id]).map { ($0.device.id, $0) }) { $1 }
        return try await pushSubscriptions.subscriptions(of: identity.user.id).compactMap { subscription -> SubscriptionResource? in
            guard let (device, health) = devices[subscription.id] else { return nil }
            return SubscriptionResource(
                subscription, session: identity.session.tokenHash, device: device.status, health: health,
                description: strings.deviceLine(device.status, health: health, now: now, timeZone: osloTimeZone))
        }
    }

    func list(_ request: Request, context: VarselContext) async throws -> Response {
        try JSONCoding.response(try await resources(of: context.requireUser()))
    }

    func create(_ request: Request, context: VarselContext) async throws -> Response {
        let identity = try context.requirePerson()
        let body = try await JSONCoding.decode(CreateRequest.self, from: request)
        let saved = try await pushSubscriptions.subscribe(
            userID: identity.user.id, session: identity.session, endpoint: body.endpoint,
            p256dh: body.keys.p256dh, auth: body.keys.auth,
            userAgent: request.headers[.userAgent] ?? "")
        context.logger.info("push subscription saved", metadata: ["push.subscription.id": "\(saved.id)"])
        // Listed as every other; a subscription its session's end removed meanwhile is answered as just made.
        let fresh = PushDeviceStatus(name: "", createdAt: saved.createdAt)
        let resource =
            try await resources(of: identity).first { $0.id == saved.id }
            ?? SubscriptionResource(
                saved, session: identity.session.tokenHash, device: fresh, health: .waiting,
                description: Strings(identity.user.language).deviceLine(fresh, health: .waiting, now: now(), timeZone: osloTimeZone))
        return try JSONCoding.response(resource, status: .created)
    }

    func delete(_ request: Request, context: VarselContext) async throws -> Response {
        let identity = try context.requireUser()
        let id = try PathID.of(context)
        guard try await pushSubscriptions.unsubscribe(id: id, userID: identity.user.id) else {
            throw Problem.notFound("You have no push subscription with that id.")
        }
        return Response(status: .noContent)
    }

    struct AcknowledgeRequest: Decodable {
        var assignmentID: AssignmentID
        var token: String
    }

    /// The "Acknowledge" button of a push notification: the service worker posts the token the push carried,
    /// without a session (a locked phone's service worker has none it may use). The token acknowledges that one
    /// assignment, for the subscription's user, and nothing else.
    func acknowledge(_ request: Request, context: VarselContext) async throws -> Response {
        let id = try PathID.of(context)
        let body = try await JSONCoding.decode(AcknowledgeRequest.self, from: request)
        let invalid = Problem.notFound("This acknowledgement is not valid any more. Open Varsel to answer the assignment.")
        guard
            let subscription = try await pushSubscriptions.acknowledging(
                subscriptionID: id, assignmentID: body.assignmentID,
                token: body.token)
        else { throw invalid }
        let answered: Assignment
        do {
            answered = try await answers.answer(body.assignmentID, with: .acknowledged, by: subscription.userID)
        } catch is AssignmentAnswers.Refusal {
            throw invalid
        }
        context.logger.info(
            "assignment answered from a push notification",
            metadata: ["assignment.id": "\(answered.id)", "push.subscription.id": "\(subscription.id)"])
        return try JSONCoding.response(AssignmentResource(answered, contact: nil))
    }

    struct ReceiptRequest: Decodable {
        var notificationID: NotificationID
        var token: String
    }

    /// A shown receipt: the service worker reports that it showed a push, with the token that push carried for it
    /// (no session: the phone may be locked; no content). Once per push; a replayed or unknown one changes nothing.
    func receipt(_ request: Request, context: VarselContext) async throws -> Response {
        let id = try PathID.of(context)
        let body = try await JSONCoding.decode(ReceiptRequest.self, from: request)
        do {
            try await pushSubscriptions.receipt(subscriptionID: id, notificationID: body.notificationID, token: body.token)
        } catch PushSubscriptions.ReceiptRefusal.unknown {
            throw Problem.notFound("This receipt does not match a push sent to this device.")
        } catch PushSubscriptions.ReceiptRefusal.repeated {
            throw Problem.conflict("This push was reported shown before.")
        } catch PushSubscriptions.ReceiptRefusal.tooMany {
            throw Problem(.tooManyRequests, "Too many receipts from this device; try again in a minute.", headers: [.retryAfter: "60"])
        }
        return Response(status: .noContent)
    }
}
