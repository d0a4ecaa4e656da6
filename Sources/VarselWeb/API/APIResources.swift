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
    /// The kinds that follow up by text message and by email when not seen in time; absent on the way in: unchanged.
    public var textMessageKinds: [NotificationKind]?
    public var emailKinds: [NotificationKind]?
    /// When only urgent notifications leave the open page; null: none; absent on the way in: unchanged.
    public var quietHours: QuietHoursResource?
    /// Whether the request named `quietHours` (null included).
    var namesQuietHours = true
    /// The kinds gathered into one summary a day instead of told at once; absent on the way in: unchanged.
    public var summaryKinds: [NotificationKind]?
    /// When the summary comes, `HH:MM` in the quiet hours' time zone (Europe/Oslo without them); absent on the way
    /// in: unchanged.
    public var summaryTime: String?
    /// A coordinator's or admin's daily email of open assignments at `summaryTime` (a mentor's choice is kept, and
    /// sends nothing while they manage no assignments); absent on the way in: unchanged.
    public var assignmentDigest: Bool?

    private enum CodingKeys: String, CodingKey {
        case enabledKinds, sound, vibration, systemNotifications, speakPersonalDetails, lockScreenDetails, textMessageKinds, emailKinds, quietHours
        case summaryKinds, summaryTime, assignmentDigest
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        enabledKinds = try container.decode([NotificationKind].self, forKey: .enabledKinds)
        sound = try container.decode(Bool.self, forKey: .sound)
        vibration = try container.decode(Bool.self, forKey: .vibration)
        systemNotifications = try container.decode(Bool.self, forKey: .systemNotifications)
        speakPersonalDetails = try container.decode(Bool.self, forKey: .speakPersonalDetails)
        lockScreenDetails = try container.decodeIfPresent(Bool.self, forKey: .lockScreenDetails)
        textMessageKinds = try container.decodeIfPresent([NotificationKind].self, forKey: .textMessageKinds)
        emailKinds = try container.decodeIfPresent([NotificationKind].self, forKey: .emailKinds)
        quietHours = try container.decodeIfPresent(QuietHoursResource.self, forKey: .quietHours)
        namesQuietHours = container.contains(.quietHours)
        summaryKinds = try container.decodeIfPresent([NotificationKind].self, forKey: .summaryKinds)
        summaryTime = try container.decodeIfPresent(String.self, forKey: .summaryTime)
        assignmentDigest = try container.decodeIfPresent(Bool.self, forKey: .assignmentDigest)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(enabledKinds, forKey: .enabledKinds)
        try container.encode(sound, forKey: .sound)
        try container.encode(vibration, forKey: .vibration)
        try container.encode(systemNotifications, forKey: .systemNotifications)
        try container.encode(speakPersonalDetails, forKey: .speakPersonalDetails)
        try container.encodeIfPresent(lockScreenDetails, forKey: .lockScreenDetails)
        try container.encodeIfPresent(textMessageKinds, forKey: .textMessageKinds)
        try container.encodeIfPresent(emailKinds, forKey: .emailKinds)
        try container.encode(quietHours, forKey: .quietHours)
        try container.encodeIfPresent(summaryKinds, forKey: .summaryKinds)
        try container.encodeIfPresent(summaryTime, forKey: .summaryTime)
        try container.encodeIfPresent(assignmentDigest, forKey: .assignmentDigest)
    }

    /// Quiet hours as the API writes them: `{"start": "22:00", "end": "07:00", "timeZone": "Europe/Oslo"}`.
    public struct QuietHoursResource: Codable, Sendable, Equatable {
        public var start: String
        public var end: String
        /// Absent: Europe/Oslo.
        public var timeZone: String?
    }

    public init(_ preferences: NotificationPreferences) {
        enabledKinds = NotificationKind.allCases.filter(preferences.enabledKinds.contains)
        sound = preferences.isSoundEnabled
        vibration = preferences.isVibrationEnabled
        systemNotifications = preferences.isSystemNotificationEnabled
        speakPersonalDetails = preferences.isSpeakingPersonalDetails
        lockScreenDetails = preferences.isShowingDetailsOnLockScreen
        textMessageKinds = NotificationKind.allCases.filter(preferences.textMessageKinds.contains)
        emailKinds = NotificationKind.allCases.filter(preferences.emailKinds.contains)
        quietHours = preferences.quietHours.map {
            QuietHoursResource(start: QuietHours.clock($0.start), end: QuietHours.clock($0.end), timeZone: $0.timeZoneIdentifier)
        }
        summaryKinds = NotificationKind.summarisable.filter(preferences.summaryKinds.contains)
        summaryTime = preferences.summaryTime.clock
        assignmentDigest = preferences.isAssignmentDigestOn
    }

    /// The preferences it states, with what it leaves out as in `current`; or ``InvalidInput`` naming
    /// `quietHours.start`, `quietHours.end`, `quietHours.timeZone`, `summaryKinds` or `summaryTime`.
    public func preferences(current: NotificationPreferences) throws -> NotificationPreferences {
        var issues: [Validation.Issue] = []
        if let summaryKinds, summaryKinds.contains(where: { !NotificationKind.summarisable.contains($0) }) {
            issues.append(.init(field: "summaryKinds", rule: .other("may hold only certificationExpiry, pauseConfirmation and scenarioPrompt")))
        }
        let summaryMinute = summaryTime.map(QuietHours.minutes)
        if case .some(nil) = summaryMinute { issues.append(.init(field: "summaryTime", rule: .other("must be a time written HH:MM"))) }
        guard issues.isEmpty else { throw InvalidInput(issues) }
        var preferences = try statedPreferences(current: current)
        preferences.summaryKinds = summaryKinds.map(Set.init) ?? current.summaryKinds
        preferences.isAssignmentDigestOn = assignmentDigest ?? current.isAssignmentDigestOn
        preferences.summaryTime = SummaryTime(
            minute: summaryMinute.flatMap { $0 } ?? current.summaryTime.minute,
            timeZoneIdentifier: preferences.quietHours?.timeZoneIdentifier ?? QuietHours.defaultTimeZone)
        return preferences
    }

    private func statedPreferences(current: NotificationPreferences) throws -> NotificationPreferences {
        NotificationPreferences(
            enabledKinds: Set(enabledKinds), isSoundEnabled: sound, isVibrationEnabled: vibration,
            isSystemNotificationEnabled: systemNotifications, isSpeakingPersonalDetails: speakPersonalDetails,
            isShowingDetailsOnLockScreen: lockScreenDetails ?? false,
            textMessageKinds: textMessageKinds.map(Set.init) ?? current.textMessageKinds,
            emailKinds: emailKinds.map(Set.init) ?? current.emailKinds,
            quietHours: namesQuietHours
                ? try quietHours.flatMap {
                    try Validation.quietHours(
                        start: $0.start, end: $0.end, timeZone: $0.timeZone ?? QuietHours.defaultTimeZone,
                        field: "quietHours")
                } : current.quietHours)
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
