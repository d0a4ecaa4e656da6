import Foundation
import VarselCore

/// What a user may do: the core's ``PersonRole``, under the name the store's records use.
public typealias Role = PersonRole

/// A person who signs in to Varsel, or a system that acts through an integration token.
public struct User: Sendable, Codable, Hashable, Identifiable {
    public var id: UserID
    public var username: String
    public var displayName: String
    public var role: Role
    /// The bcrypt hash of the password; never the password.
    public var passwordHash: String
    public var language: Language
    public var createdAt: Date
    /// Until when a mentor has paused new assignments; nil when not paused.
    public var pausedUntil: Date?
    /// When a booked pause begins; nil when it began when it was asked for.
    public var pausedFrom: Date?
    /// When the account was deactivated (sign-in refused, data kept); nil while active.
    public var deactivatedAt: Date?
    /// Whether this account is a system's (a member or case system) that acts through an integration token; such an
    /// account has no password, is nobody's person to manage, and its display name is the system's name.
    public var isIntegration: Bool

    public init(
        id: UserID, username: String, displayName: String, role: Role, passwordHash: String,
        language: Language, createdAt: Date, pausedUntil: Date? = nil, pausedFrom: Date? = nil, deactivatedAt: Date? = nil,
        isIntegration: Bool = false
    ) {
        self.id = id
        self.username = username
        self.displayName = displayName
        self.role = role
        self.passwordHash = passwordHash
        self.language = language
        self.createdAt = createdAt
        self.pausedUntil = pausedUntil
        self.pausedFrom = pausedFrom
        self.deactivatedAt = deactivatedAt
        self.isIntegration = isIntegration
    }

    /// Whether the account may sign in.
    public var isActive: Bool { deactivatedAt == nil }

    /// Whether the mentor's pause is in force at `date`.
    public func isPaused(at date: Date) -> Bool {
        guard let pausedUntil, pausedUntil > date else { return false }
        return (pausedFrom ?? .distantPast) <= date
    }

    /// Whether the mentor has a pause in force or booked for later at `date`.
    public func hasPause(at date: Date) -> Bool { pausedUntil.map { $0 > date } ?? false }
}

/// The fields of a user about to be created.
public struct NewUser: Sendable, Hashable {
    public var username: String
    public var displayName: String
    public var role: Role
    public var passwordHash: String
    public var language: Language

    public init(username: String, displayName: String, role: Role, passwordHash: String, language: Language) {
        self.username = username
        self.displayName = displayName
        self.role = role
        self.passwordHash = passwordHash
        self.language = language
    }
}

/// A signed-in session: an API bearer token or a web cookie, stored only as a hash.
public struct Session: Sendable, Codable, Hashable {
    /// SHA-256 of the token, hex; the token itself is never stored.
    public var tokenHash: String
    public var userID: UserID
    /// The per-session secret that form posts and cookie-authenticated API calls must echo.
    public var csrfToken: String
    public var createdAt: Date
    public var expiresAt: Date

    public init(tokenHash: String, userID: UserID, csrfToken: String, createdAt: Date, expiresAt: Date) {
        self.tokenHash = tokenHash
        self.userID = userID
        self.csrfToken = csrfToken
        self.createdAt = createdAt
        self.expiresAt = expiresAt
    }
}

/// A notification about to be created for one recipient.
public struct NewNotification: Sendable, Hashable {
    public var recipientID: UserID
    public var senderID: UserID?
    public var kind: NotificationKind
    public var title: String
    public var body: String
    public var urgency: Urgency
    public var deepLink: DeepLinkTarget
    public var personalDetails: [String]

    public init(
        recipientID: UserID, senderID: UserID?, kind: NotificationKind, title: String, body: String,
        urgency: Urgency = .normal, deepLink: DeepLinkTarget, personalDetails: [String] = []
    ) {
        self.recipientID = recipientID
        self.senderID = senderID
        self.kind = kind
        self.title = title
        self.body = body
        self.urgency = urgency
        self.deepLink = deepLink
        self.personalDetails = personalDetails
    }
}

/// An idempotency key scoped to its sender, with a fingerprint of the request it first came with.
public struct IdempotencyKey: Sendable, Hashable {
    public var senderID: UserID
    public var key: String
    /// A hash of the request body; a retry with a different body is refused.
    public var fingerprint: String

    public init(senderID: UserID, key: String, fingerprint: String) {
        self.senderID = senderID
        self.key = key
        self.fingerprint = fingerprint
    }
}

/// The result of creating notifications: the items, and whether they were created earlier under the same key.
public struct CreatedNotifications: Sendable, Hashable {
    public var items: [NotificationItem]
    public var isReplay: Bool

    public init(items: [NotificationItem], isReplay: Bool) {
        self.items = items
        self.isReplay = isReplay
    }
}

/// A person a mentor visits. Every field but the id is personal data: never log it.
public struct Contact: Sendable, Codable, Hashable, Identifiable {
    public var id: ContactID
    public var name: String
    public var phone: String
    public var address: String
    public var notes: String
    /// When the details were erased (on request, or when kept long enough); the fields are empty since.
    public var erasedAt: Date?

    public init(id: ContactID, name: String, phone: String, address: String, notes: String, erasedAt: Date? = nil) {
        self.id = id
        self.name = name
        self.phone = phone
        self.address = address
        self.notes = notes
        self.erasedAt = erasedAt
    }
}

/// The personal details of a contact about to be created.
public struct NewContact: Sendable, Codable, Hashable {
    public var name: String
    public var phone: String
    public var address: String
    public var notes: String

    public init(name: String, phone: String, address: String, notes: String) {
        self.name = name
        self.phone = phone
        self.address = address
        self.notes = notes
    }
}

/// Where an assignment stands.
public enum AssignmentStatus: String, Sendable, Codable, Hashable, CaseIterable {
    case pending
    case acknowledged
    case declined
    /// The mentor made the visit and wrote a short note about it; the assignment is closed.
    case done
}

/// What is done about an assignment nobody answers: first an urgent reminder to the mentor, then the coordinator
/// who created it is told.
public enum EscalationStep: String, Sendable, Codable, Hashable, CaseIterable {
    case mentorReminded = "mentor-reminded"
    case coordinatorTold = "coordinator-told"
    /// A text message told the mentor, who had not seen the notification in time.
    case textMessageSent = "text-message-sent"
    /// An email told the mentor, who had not seen the notification in time.
    case emailSent = "email-sent"
}

/// A mentor's case: visit this contact.
public struct Assignment: Sendable, Codable, Hashable, Identifiable {
    public var id: AssignmentID
    public var mentorID: UserID
    public var contactID: ContactID
    public var coordinatorID: UserID?
    public var status: AssignmentStatus
    public var createdAt: Date
    public var respondedAt: Date?
    /// The notification that told the mentor.
    public var notificationID: NotificationID?
    /// The assignment this one replaces when a coordinator reassigned the contact to this mentor.
    public var previousID: AssignmentID?
    /// When a coordinator gave the contact to another mentor: this mentor's access ended then.
    public var reassignedAt: Date?
    /// When the mentor marked the visit done, and their short note about it.
    public var doneAt: Date?
    public var visitNote: String?
    /// When the assignment's notification first reached the mentor on a live event stream.
    public var deliveredAt: Date?

    public init(
        id: AssignmentID, mentorID: UserID, contactID: ContactID, coordinatorID: UserID?, status: AssignmentStatus,
        createdAt: Date, respondedAt: Date?, notificationID: NotificationID?, previousID: AssignmentID? = nil, reassignedAt: Date? = nil,
        doneAt: Date? = nil, visitNote: String? = nil, deliveredAt: Date? = nil
    ) {
        self.id = id
        self.mentorID = mentorID
        self.contactID = contactID
        self.coordinatorID = coordinatorID
        self.status = status
        self.createdAt = createdAt
        self.respondedAt = respondedAt
        self.notificationID = notificationID
        self.previousID = previousID
        self.reassignedAt = reassignedAt
        self.doneAt = doneAt
        self.visitNote = visitNote
        self.deliveredAt = deliveredAt
    }

    /// Whether the mentor still has this case: not declined, not done, not given to someone else. Only a live
    /// assignment gives its mentor access to the contact.
    public var isLive: Bool { reassignedAt == nil && (status == .pending || status == .acknowledged) }
}

/// Which assignments a list holds; the store filters them (every condition given must hold).
public struct AssignmentListing: Sendable, Hashable {
    /// How much of an assignment's life the list keeps.
    public enum Scope: String, Sendable, Hashable {
        /// Every assignment, reassigned and closed ones too.
        case all
        /// Those not given to another mentor.
        case current
        /// Those not given to another mentor and still waiting for an answer or acknowledged (``Assignment/isLive``).
        case live
    }

    public var scope: Scope
    public var mentorID: UserID?
    public var coordinatorID: UserID?
    public var contactID: ContactID?
    public var ids: [AssignmentID]?

    public init(scope: Scope = .all, mentorID: UserID? = nil, coordinatorID: UserID? = nil, contactID: ContactID? = nil, ids: [AssignmentID]? = nil) {
        self.scope = scope
        self.mentorID = mentorID
        self.coordinatorID = coordinatorID
        self.contactID = contactID
        self.ids = ids
    }

    /// Every assignment.
    public static let everything = AssignmentListing()

    /// A mentor's assignments.
    public static func mentor(_ mentorID: UserID, scope: Scope) -> AssignmentListing { .init(scope: scope, mentorID: mentorID) }

    /// These assignments, by id.
    public static func ids(_ ids: [AssignmentID]) -> AssignmentListing { .init(ids: ids) }
}

/// One assignment with what its summary needs from other tables, read with it.
public struct AssignmentReportRow: Sendable, Hashable {
    public var assignment: Assignment
    public var contactName: String
    public var contactAddress: String
    /// When the contact's personal details were erased.
    public var contactErasedAt: Date?
    /// The mentor's display name; empty when the mentor is gone.
    public var mentorName: String
    /// When the mentor read the assignment's notification.
    public var readAt: Date?
    public var escalations: [EscalationStep: Date]

    public init(
        assignment: Assignment, contactName: String, contactAddress: String, contactErasedAt: Date?, mentorName: String,
        readAt: Date?, escalations: [EscalationStep: Date]
    ) {
        self.assignment = assignment
        self.contactName = contactName
        self.contactAddress = contactAddress
        self.contactErasedAt = contactErasedAt
        self.mentorName = mentorName
        self.readAt = readAt
        self.escalations = escalations
    }
}

/// The rules of an assignment's life, in one place: every store asks them inside its transaction.
extension Assignment {
    /// Why the mentor cannot answer now, or nil when they can.
    public var refusalToRespond: StoreError? {
        if reassignedAt != nil { return .notAllowed("The assignment was given to another mentor.") }
        return status == .pending ? nil : .alreadyResponded(status)
    }

    /// Why the visit cannot be marked done now, or nil when it can.
    public var refusalToComplete: StoreError? {
        if reassignedAt != nil { return .notAllowed("The assignment was given to another mentor.") }
        return status == .acknowledged ? nil : .notAllowed("A visit can be marked done only once the assignment is acknowledged.")
    }

    /// Why the contact cannot be given to another mentor now, or nil when it can.
    public var refusalToReassign: StoreError? {
        if reassignedAt != nil { return .notAllowed("The assignment was already given to another mentor.") }
        return status == .done ? .notAllowed("A done assignment is not reassigned.") : nil
    }
}

/// The failed sign-ins counted under one throttle key: how many, and when the last was.
public struct SignInFailures: Sendable, Hashable {
    public var count: Int
    public var last: Date

    public init(count: Int, last: Date) {
        self.count = count
        self.last = last
    }
}

/// A training scenario a coordinator publishes to mentors.
public struct Scenario: Sendable, Codable, Hashable, Identifiable {
    public var id: Int64
    public var title: String
    public var body: String
    public var coordinatorID: UserID?
    public var createdAt: Date

    public init(id: Int64, title: String, body: String, coordinatorID: UserID?, createdAt: Date) {
        self.id = id
        self.title = title
        self.body = body
        self.coordinatorID = coordinatorID
        self.createdAt = createdAt
    }
}

/// One mentor's copy of a scenario: when they marked it done and what they wrote about it.
public struct MentorScenario: Sendable, Codable, Hashable {
    public var scenario: Scenario
    public var mentorID: UserID
    public var doneAt: Date?
    public var reflection: String

    public init(scenario: Scenario, mentorID: UserID, doneAt: Date?, reflection: String) {
        self.scenario = scenario
        self.mentorID = mentorID
        self.doneAt = doneAt
        self.reflection = reflection
    }
}

/// A mentor's certification and when it expires.
public struct Certification: Sendable, Codable, Hashable, Identifiable {
    public var id: Int64
    public var mentorID: UserID
    public var name: String
    public var expiresAt: Date

    public init(id: Int64, mentorID: UserID, name: String, expiresAt: Date) {
        self.id = id
        self.mentorID = mentorID
        self.name = name
        self.expiresAt = expiresAt
    }
}

/// A certification to record: its name and expiry.
public struct NewCertification: Sendable, Codable, Hashable {
    public var name: String
    public var expiresAt: Date

    public init(name: String, expiresAt: Date) {
        self.name = name
        self.expiresAt = expiresAt
    }
}

/// What happened, as the live stream tells it.
public enum EventType: String, Sendable, Codable, Hashable {
    case notificationCreated = "notification.created"
    case notificationUpdated = "notification.updated"
    case notificationDeleted = "notification.deleted"
    case unreadCount = "unread-count"
    /// The user's account was deactivated: every instance ends their live streams.
    case accountDeactivated = "account.deactivated"
}

/// What an event says happened, with exactly the data that kind of event carries.
public enum EventPayload: Sendable, Hashable {
    /// A notification arrived; as it was then.
    case notificationCreated(NotificationItem)
    /// A notification changed (read, unread); as it is now.
    case notificationUpdated(NotificationItem)
    case notificationDeleted(notificationID: NotificationID)
    /// The user's unread count after a change.
    case unreadCount(Int)
    /// The user's account was deactivated; never sent to a client, it ends their streams on every instance.
    case accountDeactivated

    public var type: EventType {
        switch self {
        case .notificationCreated: .notificationCreated
        case .notificationUpdated: .notificationUpdated
        case .notificationDeleted: .notificationDeleted
        case .unreadCount: .unreadCount
        case .accountDeactivated: .accountDeactivated
        }
    }

    /// The id of the notification concerned; nil for an unread count.
    public var notificationID: NotificationID? {
        switch self {
        case let .notificationCreated(item), let .notificationUpdated(item): item.id
        case let .notificationDeleted(id): id
        case .unreadCount, .accountDeactivated: nil
        }
    }
}

extension EventPayload {
    /// The payload an event-log row holds, from its columns as every store keeps them: the type's name, the
    /// notification as JSON, its id, the unread count. A type this version does not know, or a column its type
    /// needs that is empty, is ``StoreError/unknownStoredValue(column:)`` — never a default.
    /// A notification whose JSON `cache` holds is not decoded again.
    public static func stored(
        type: String, notificationJSON: String?, notificationID: NotificationID?, unreadCount: Int?,
        decoder: JSONDecoder, cache: NotificationJSONCache
    ) throws -> EventPayload {
        func item() throws -> NotificationItem {
            guard let notificationJSON else { throw StoreError.unknownStoredValue(column: "event.notification") }
            return try cache.item(json: notificationJSON, decoder: decoder)
        }
        // A copy sealed under a person's key that erasure destroyed opens empty: it names someone who is forgotten, and
        // its notification was deleted (an erasure rewrites the copies of those it finds), so that is what it says.
        if notificationJSON == "", let notificationID,
            type == EventType.notificationCreated.rawValue || type == EventType.notificationUpdated.rawValue
        {
            return .notificationDeleted(notificationID: notificationID)
        }
        switch EventType(rawValue: type) {
        case .notificationCreated: return .notificationCreated(try item())
        case .notificationUpdated: return .notificationUpdated(try item())
        case .notificationDeleted:
            guard let notificationID else { throw StoreError.unknownStoredValue(column: "event.notification_id") }
            return .notificationDeleted(notificationID: notificationID)
        case .unreadCount:
            guard let unreadCount else { throw StoreError.unknownStoredValue(column: "event.unread_count") }
            return .unreadCount(unreadCount)
        case .accountDeactivated: return .accountDeactivated
        case nil: throw StoreError.unknownStoredValue(column: "event.type")
        }
    }
}

/// One entry of the event log: a monotonic id the live stream resumes from, for one user.
public struct StoredEvent: Sendable, Hashable, Identifiable {
    public var id: Int64
    public var userID: UserID
    public var payload: EventPayload
    public var createdAt: Date

    public init(id: Int64, userID: UserID, payload: EventPayload, createdAt: Date) {
        self.id = id
        self.userID = userID
        self.payload = payload
        self.createdAt = createdAt
    }

    public var type: EventType { payload.type }
    public var notificationID: NotificationID? { payload.notificationID }
}

/// A page of a user's notifications, newest first.
public struct NotificationPage: Sendable, Hashable {
    public var items: [NotificationItem]
    /// The id to continue after (exclusive), or nil on the last page.
    public var nextCursor: NotificationID?

    public init(items: [NotificationItem], nextCursor: NotificationID?) {
        self.items = items
        self.nextCursor = nextCursor
    }
}
