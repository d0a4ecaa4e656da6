import Foundation
import VarselCore
import VarselService
import VarselStore

/// A user as the API shows them; never the password hash.
public struct UserResource: Codable, Sendable, Equatable {
    public var id: UserID
    public var username: String
    public var displayName: String
    public var role: Role
    public var locale: Language
    public var pausedUntil: Date?
    public var pausedFrom: Date?
    /// Whether the account may sign in.
    public var active: Bool
    public var deactivatedAt: Date?

    public init(_ user: User) {
        id = user.id
        username = user.username
        displayName = user.displayName
        role = user.role
        locale = user.language
        pausedUntil = user.pausedUntil
        pausedFrom = user.pausedFrom
        active = user.isActive
        deactivatedAt = user.deactivatedAt
    }
}

/// A mentor's notification preferences on the wire.
public struct PreferencesResource: Codable, Sendable, Equatable {
    public var enabledKinds: [NotificationKind]
    public var sound: Bool
    public var vibration: Bool
    public var systemNotifications: Bool
    public var speakPersonalDetails: Bool
    /// Optional on the way in (it came later): absent means off.
    public var lockScreenDetails: Bool?

    public init(_ preferences: NotificationPreferences) {
        enabledKinds = NotificationKind.allCases.filter(preferences.enabledKinds.contains)
        sound = preferences.isSoundEnabled
        vibration = preferences.isVibrationEnabled
        systemNotifications = preferences.isSystemNotificationEnabled
        speakPersonalDetails = preferences.isSpeakingPersonalDetails
        lockScreenDetails = preferences.isShowingDetailsOnLockScreen
    }

    public var preferences: NotificationPreferences {
        NotificationPreferences(enabledKinds: Set(enabledKinds), isSoundEnabled: sound, isVibrationEnabled: vibration,
                                isSystemNotificationEnabled: systemNotifications, isSpeakingPersonalDetails: speakPersonalDetails,
                                isShowingDetailsOnLockScreen: lockScreenDetails ?? false)
    }
}

/// An assignment, with its contact for those allowed to see it.
public struct AssignmentResource: Codable, Sendable, Equatable {
    public var id: AssignmentID
    public var status: AssignmentStatus
    public var mentorId: UserID
    public var contactId: ContactID
    public var notificationId: NotificationID?
    public var createdAt: Date
    public var respondedAt: Date?
    /// The assignment this one replaced, and when this one was given to another mentor.
    public var previousId: AssignmentID?
    public var reassignedAt: Date?
    public var doneAt: Date?
    public var visitNote: String?
    public var deliveredAt: Date?
    public var contact: ContactResource?
    /// Its history (on `GET /assignments/{id}`).
    public var trail: [AssignmentEvent]?

    public init(_ assignment: Assignment, contact: Contact?) {
        id = assignment.id
        status = assignment.status
        mentorId = assignment.mentorID
        contactId = assignment.contactID
        notificationId = assignment.notificationID
        createdAt = assignment.createdAt
        respondedAt = assignment.respondedAt
        previousId = assignment.previousID
        reassignedAt = assignment.reassignedAt
        doneAt = assignment.doneAt
        visitNote = assignment.visitNote
        deliveredAt = assignment.deliveredAt
        self.contact = contact.map(ContactResource.init)
    }
}

/// A contact's details on the wire (personal data: only to the assigned mentor and coordinators).
public struct ContactResource: Codable, Sendable, Equatable {
    public var id: ContactID
    public var name: String
    public var phone: String
    public var address: String
    public var notes: String
    /// When the details were erased (the fields are empty since); absent while they are kept.
    public var erasedAt: Date?

    public init(_ contact: Contact) {
        id = contact.id
        name = contact.name
        phone = contact.phone
        address = contact.address
        notes = contact.notes
        erasedAt = contact.erasedAt
    }
}
