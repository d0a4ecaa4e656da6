import Foundation
import VarselCore

/// What an integration's webhook endpoint can be told of: an assignment's life, a notification read, a message sent
/// or failed on a channel, a device that stopped taking pushes.
public enum WebhookEventType: String, Sendable, Hashable, CaseIterable, Codable, Comparable {
    case assignmentCreated = "assignment.created"
    case assignmentAcknowledged = "assignment.acknowledged"
    case assignmentDeclined = "assignment.declined"
    /// A coordinator gave the contact to another mentor: the old assignment ended, a new one began.
    case assignmentReassigned = "assignment.reassigned"
    /// The mentor made the visit.
    case assignmentDone = "assignment.done"
    /// Nobody answered in time: the mentor was reminded, or the coordinator told.
    case assignmentEscalated = "assignment.escalated"
    /// The contact's details were erased while the assignment was live: it can no longer be carried out.
    case assignmentWithdrawn = "assignment.withdrawn"
    case notificationRead = "notification.read"
    /// A message reached a push service, an SMTP server or a text-message gateway.
    case messageSent = "message.sent"
    /// A message failed on its channel; `willRetry` says whether it is tried again.
    case messageFailed = "message.failed"
    /// A device's push subscription ended: the push service said it is gone.
    case deviceStopped = "device.stopped"

    /// The event a mentor's answer is: acknowledged or declined.
    public init?(answer: AssignmentStatus) {
        switch answer {
        case .acknowledged: self = .assignmentAcknowledged
        case .declined: self = .assignmentDeclined
        case .pending, .done: return nil
        }
    }

    public static func < (lhs: Self, rhs: Self) -> Bool {
        allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
    }
}

/// What a webhook event says: ids, kinds, states and times — never a visited person's details.
///
/// Each event fills the members that concern it; the others are left out of the JSON.
public struct WebhookEventData: Sendable, Hashable, Codable {
    public var assignmentId: Int64?
    /// For `assignment.reassigned`: the assignment that ended.
    public var previousAssignmentId: Int64?
    public var contactId: Int64?
    public var mentorId: Int64?
    public var coordinatorId: Int64?
    /// The assignment's state after the event: pending, acknowledged, declined, done, reassigned or withdrawn.
    public var status: String?
    /// For `assignment.escalated`: mentor-reminded or coordinator-told.
    public var step: String?
    public var notificationId: Int64?
    public var recipientId: Int64?
    /// The notification's kind: assignment, certificationExpiry, pauseConfirmation or scenarioPrompt.
    public var kind: String?
    /// For messages: push, text-message or email.
    public var channel: String?
    /// For messages: which attempt this was, from 1.
    public var attempt: Int?
    /// For `message.failed`: whether it is tried again.
    public var willRetry: Bool?
    /// For `device.stopped`: the push subscription.
    public var subscriptionId: Int64?
    public var userId: Int64?

    public init() {}
}

/// One event about to be queued to every endpoint that wants its type.
public struct NewWebhookEvent: Sendable, Hashable {
    public var type: WebhookEventType
    public var data: WebhookEventData
    /// The contact the event concerns: an endpoint receives one contact's events (of each of its assignments, a
    /// reassignment's too) in the order they happened.
    public var contactID: ContactID?
    /// Its `webhook-id` when what it reports fixes one (an outbox's attempt, which a crash may make it queue again):
    /// queued again, it is taken once. Nil for an event queued in the transaction of its change, which gets a new id.
    public var messageID: String?

    public init(type: WebhookEventType, data: WebhookEventData, contactID: ContactID? = nil, messageID: String? = nil) {
        self.type = type
        self.data = data
        self.contactID = contactID
        self.messageID = messageID
    }

    /// An event of `assignment`'s life, with its state after it.
    public static func assignment(_ type: WebhookEventType, _ assignment: Assignment, step: EscalationStep? = nil) -> NewWebhookEvent {
        var data = WebhookEventData()
        data.assignmentId = assignment.id.rawValue
        data.previousAssignmentId = type == .assignmentReassigned ? assignment.previousID?.rawValue : nil
        data.contactId = assignment.contactID.rawValue
        data.mentorId = assignment.mentorID.rawValue
        data.coordinatorId = assignment.coordinatorID?.rawValue
        data.notificationId = assignment.notificationID?.rawValue
        data.status =
            switch type {
            case .assignmentWithdrawn: "withdrawn"
            default: assignment.status.rawValue
            }
        data.step = step?.rawValue
        return NewWebhookEvent(type: type, data: data, contactID: assignment.contactID)
    }

    /// `item` was read by its recipient.
    public static func notificationRead(_ item: NotificationItem) -> NewWebhookEvent {
        var data = WebhookEventData()
        data.notificationId = item.id.rawValue
        data.recipientId = item.recipientID.rawValue
        data.kind = item.kind.rawValue
        var contactID: ContactID?
        if case let .contact(id, assignmentID) = item.deepLink {
            contactID = id
            data.contactId = id.rawValue
            data.assignmentId = assignmentID?.rawValue
        }
        return NewWebhookEvent(type: .notificationRead, data: data, contactID: contactID)
    }

    /// A message about notification `notificationID` went out on `channel` (push, text-message, email), or failed, at
    /// `attempt` of the outbox's delivery `deliveryID`, which fixes its `webhook-id`.
    public static func message(
        sent: Bool, channel: String, notificationID: NotificationID, recipientID: UserID, deliveryID: Int64, attempt: Int,
        willRetry: Bool = false
    ) -> NewWebhookEvent {
        var data = WebhookEventData()
        data.notificationId = notificationID.rawValue
        data.recipientId = recipientID.rawValue
        data.channel = channel
        data.attempt = attempt
        data.willRetry = sent ? nil : willRetry
        return NewWebhookEvent(
            type: sent ? .messageSent : .messageFailed, data: data, messageID: "msg_\(channel)_\(deliveryID)_\(attempt)")
    }

    /// Push subscription `subscriptionID` of `userID` ended.
    public static func deviceStopped(subscriptionID: Int64, userID: UserID) -> NewWebhookEvent {
        var data = WebhookEventData()
        data.subscriptionId = subscriptionID
        data.userId = userID.rawValue
        return NewWebhookEvent(type: .deviceStopped, data: data, messageID: "msg_device_\(subscriptionID)_stopped")
    }

    /// The body of the request that carries it, by the Standard Webhooks specification: `type`, `timestamp` and
    /// `data`. Made once, at queueing, so every retry sends the same bytes.
    public func body(at date: Date) -> Data {
        struct Body: Encodable {
            var type: String
            var timestamp: String
            var data: WebhookEventData
        }
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // Encoding strings, numbers and booleans cannot fail.
        return try! encoder.encode(Body(type: type.rawValue, timestamp: formatter.string(from: date), data: data))
    }

    /// A new message id (`webhook-id`): the same on every retry, so a receiver drops what it already took.
    public static func newMessageID() -> String {
        "msg_" + (0..<24).map { _ in String("0123456789abcdefghijklmnopqrstuvwxyz".randomElement()!) }.joined()
    }
}

/// An endpoint an integration's system receives webhooks at.
public struct WebhookEndpoint: Sendable, Hashable, Identifiable {
    public var id: Int64
    /// The integration whose system it is.
    public var integrationID: UserID
    public var url: String
    public var events: Set<WebhookEventType>
    /// The administrator who added it; nil for the command line.
    public var createdBy: UserID?
    public var createdAt: Date
    /// Since when every delivery to it has failed; nil while it takes them.
    public var failingSince: Date?
    /// When it was turned off, after failing too long.
    public var disabledAt: Date?

    public init(
        id: Int64, integrationID: UserID, url: String, events: Set<WebhookEventType>, createdBy: UserID?, createdAt: Date,
        failingSince: Date?, disabledAt: Date?
    ) {
        self.id = id
        self.integrationID = integrationID
        self.url = url
        self.events = events
        self.createdBy = createdBy
        self.createdAt = createdAt
        self.failingSince = failingSince
        self.disabledAt = disabledAt
    }

    /// The events as stored: their names, space-separated, in a fixed order.
    public static func storedEvents(_ events: Set<WebhookEventType>) -> String {
        events.sorted().map(\.rawValue).joined(separator: " ")
    }

    public static func events(stored: String) -> Set<WebhookEventType> {
        Set(stored.split(separator: " ").compactMap { WebhookEventType(rawValue: String($0)) })
    }
}

/// A delivery claimed to be sent: with its endpoint and the key it is signed with (opened only here, so that
/// listing endpoints needs no data key).
public struct ClaimedWebhook: Sendable, Hashable {
    public var delivery: WebhookDelivery
    public var endpoint: WebhookEndpoint
    public var secret: Data

    public init(delivery: WebhookDelivery, endpoint: WebhookEndpoint, secret: Data) {
        self.delivery = delivery
        self.endpoint = endpoint
        self.secret = secret
    }
}

/// An endpoint about to be added.
public struct NewWebhookEndpoint: Sendable, Hashable {
    public var integrationID: UserID
    public var url: String
    public var events: Set<WebhookEventType>
    public var secret: Data
    public var createdBy: UserID?

    public init(integrationID: UserID, url: String, events: Set<WebhookEventType>, secret: Data, createdBy: UserID?) {
        self.integrationID = integrationID
        self.url = url
        self.events = events
        self.secret = secret
        self.createdBy = createdBy
    }
}

/// How a delivery ended.
public enum WebhookDeliveryOutcome: String, Sendable, Hashable {
    /// The endpoint answered 2xx.
    case delivered
    /// Its endpoint was turned off or removed before it went.
    case dropped
}

/// One event on its way to one endpoint.
public struct WebhookDelivery: Sendable, Hashable, Identifiable {
    public var id: Int64
    public var endpointID: Int64
    /// The `webhook-id`: the same on every attempt.
    public var messageID: String
    public var type: WebhookEventType
    public var contactID: ContactID?
    /// The request's body, as queued.
    public var body: Data
    public var createdAt: Date
    public var attempts: Int
    public var nextAttemptAt: Date
    public var endedAt: Date?
    public var outcome: WebhookDeliveryOutcome?
    /// The last attempt's HTTP status; nil when it got no answer.
    public var lastStatus: Int?
    /// Why the last attempt failed, in words that name no value sent (a timeout, a refused address).
    public var lastError: String?

    public init(
        id: Int64, endpointID: Int64, messageID: String, type: WebhookEventType, contactID: ContactID?, body: Data, createdAt: Date,
        attempts: Int, nextAttemptAt: Date, endedAt: Date?, outcome: WebhookDeliveryOutcome?, lastStatus: Int?, lastError: String?
    ) {
        self.id = id
        self.endpointID = endpointID
        self.messageID = messageID
        self.type = type
        self.contactID = contactID
        self.body = body
        self.createdAt = createdAt
        self.attempts = attempts
        self.nextAttemptAt = nextAttemptAt
        self.endedAt = endedAt
        self.outcome = outcome
        self.lastStatus = lastStatus
        self.lastError = lastError
    }
}

/// What one attempt at a delivery came to, as the store records it.
public enum WebhookAttemptRecord: Sendable, Hashable {
    /// 2xx: the delivery ends, and the endpoint is no longer failing.
    case delivered(status: Int)
    /// Tried again at `next`; `status` is the answer's, nil when none came.
    case failed(status: Int?, error: String, next: Date)
    /// Nothing was sent: due again at `next` with its attempts unchanged.
    case released(next: Date)
}

/// Integrations' webhook endpoints and the durable outbox of their deliveries.
///
/// Events are queued in the same transaction as the change they tell of, one delivery per endpoint that wants
/// the event's type, so none is lost to a crash and none is told of a change that did not commit.
public protocol WebhookStore: Sendable {
    func createWebhookEndpoint(_ endpoint: NewWebhookEndpoint, at date: Date) async throws -> WebhookEndpoint
    /// Integration `integrationID`'s endpoints, oldest first; every endpoint when nil.
    func webhookEndpoints(integrationID: UserID?) async throws -> [WebhookEndpoint]
    func webhookEndpoint(id: Int64) async throws -> WebhookEndpoint?
    /// Removes the endpoint and its deliveries; false when there was none.
    func deleteWebhookEndpoint(id: Int64) async throws -> Bool
    /// Queues `events` to every endpoint on that wants each one's type, in their order; what a change does in its
    /// own transaction, and what an outbox does for what it learns after the fact.
    func queueWebhookEvents(_ events: [NewWebhookEvent], at date: Date) async throws
    /// Takes up to `limit` deliveries due at `date` to endpoints that are on, each the oldest unfinished one of its
    /// contact for its endpoint, this instance's until `leaseUntil`; with each, its endpoint and signing key.
    func claimDueWebhookDeliveries(at date: Date, limit: Int, leaseUntil: Date) async throws -> [ClaimedWebhook]
    /// Records one attempt at delivery `id` and what it says of its endpoint (taking, or failing since `date`).
    func recordWebhookAttempt(id: Int64, _ record: WebhookAttemptRecord, at date: Date) async throws
    /// Turns endpoint `id` off at `date` and drops its unfinished deliveries; false when it was off already.
    func disableWebhookEndpoint(id: Int64, at date: Date) async throws -> Bool
    /// The endpoint's most recent deliveries, newest first.
    func webhookDeliveries(endpointID: Int64, limit: Int) async throws -> [WebhookDelivery]
    /// Deletes finished deliveries that ended before `date`; returns how many.
    func pruneWebhookDeliveries(before date: Date) async throws -> Int
}
