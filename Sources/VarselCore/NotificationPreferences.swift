import Foundation

/// What a mentor wants to be told, and how.
public struct NotificationPreferences: Sendable, Codable, Hashable {
    /// The kinds the mentor receives cues for; a kind left out is still listed, but not announced or sounded.
    public var enabledKinds: Set<NotificationKind>
    /// Play an earcon when a notification arrives.
    public var isSoundEnabled: Bool
    /// Vibrate when a notification arrives, where the device can.
    public var isVibrationEnabled: Bool
    /// Show an operating-system notification when the app is not in front.
    public var isSystemNotificationEnabled: Bool
    /// Speak personal details (a visited person's name, address) in announcements. Off by default:
    /// announcements are spoken aloud, often in public.
    public var isSpeakingPersonalDetails: Bool
    /// Show a notification's full text on the lock screen, personal details included. Off by default: a lock
    /// screen is seen by anyone near the phone.
    public var isShowingDetailsOnLockScreen: Bool
    /// The kinds that may follow up by text message, to a verified number, when a notification is not seen in time.
    public var textMessageKinds: Set<NotificationKind>
    /// The kinds that may follow up by email, to a verified address, when a notification is not seen in time.
    public var emailKinds: Set<NotificationKind>
    /// When only urgent notifications reach the person outside the open page; nil for none.
    public var quietHours: QuietHours?
    /// The kinds gathered into one summary a day instead of told at once (only ``NotificationKind/summarisable``
    /// ones); none unless the person chooses.
    public var summaryKinds: Set<NotificationKind>
    /// When the summary comes, and a coordinator's daily email of open assignments.
    public var summaryTime: SummaryTime
    /// A coordinator's (or admin's) daily email, at the summary time, of the assignments they manage that are
    /// unanswered, overdue or declined. Off unless they choose it.
    public var isAssignmentDigestOn: Bool

    /// The kinds that follow up by text message and by email unless the person chooses otherwise.
    public static let standardFollowUpKinds: Set<NotificationKind> = [.assignment]

    public init(
        enabledKinds: Set<NotificationKind> = Set(NotificationKind.allCases),
        isSoundEnabled: Bool = true,
        isVibrationEnabled: Bool = true,
        isSystemNotificationEnabled: Bool = true,
        isSpeakingPersonalDetails: Bool = false,
        isShowingDetailsOnLockScreen: Bool = false,
        textMessageKinds: Set<NotificationKind> = NotificationPreferences.standardFollowUpKinds,
        emailKinds: Set<NotificationKind> = NotificationPreferences.standardFollowUpKinds,
        quietHours: QuietHours? = nil,
        summaryKinds: Set<NotificationKind> = [],
        summaryTime: SummaryTime = .standard,
        isAssignmentDigestOn: Bool = false
    ) {
        self.isAssignmentDigestOn = isAssignmentDigestOn
        self.summaryKinds = summaryKinds
        self.summaryTime = summaryTime
        self.textMessageKinds = textMessageKinds
        self.emailKinds = emailKinds
        self.quietHours = quietHours
        self.enabledKinds = enabledKinds
        self.isSoundEnabled = isSoundEnabled
        self.isVibrationEnabled = isVibrationEnabled
        self.isSystemNotificationEnabled = isSystemNotificationEnabled
        self.isSpeakingPersonalDetails = isSpeakingPersonalDetails
        self.isShowingDetailsOnLockScreen = isShowingDetailsOnLockScreen
    }

    private enum CodingKeys: String, CodingKey {
        case enabledKinds, isSoundEnabled, isVibrationEnabled, isSystemNotificationEnabled, isSpeakingPersonalDetails
        case isShowingDetailsOnLockScreen, textMessageKinds, emailKinds, quietHours, summaryKinds, summaryTime
        case isAssignmentDigestOn
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(enabledKinds, forKey: .enabledKinds)
        try container.encode(isSoundEnabled, forKey: .isSoundEnabled)
        try container.encode(isVibrationEnabled, forKey: .isVibrationEnabled)
        try container.encode(isSystemNotificationEnabled, forKey: .isSystemNotificationEnabled)
        try container.encode(isSpeakingPersonalDetails, forKey: .isSpeakingPersonalDetails)
        try container.encode(isShowingDetailsOnLockScreen, forKey: .isShowingDetailsOnLockScreen)
        try container.encode(textMessageKinds, forKey: .textMessageKinds)
        try container.encode(emailKinds, forKey: .emailKinds)
        try container.encodeIfPresent(quietHours, forKey: .quietHours)
        try container.encode(summaryKinds, forKey: .summaryKinds)
        try container.encode(summaryTime, forKey: .summaryTime)
        try container.encode(isAssignmentDigestOn, forKey: .isAssignmentDigestOn)
    }

    /// Reads stored preferences; a setting added after they were stored takes its default.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        enabledKinds = try container.decode(Set<NotificationKind>.self, forKey: .enabledKinds)
        isSoundEnabled = try container.decode(Bool.self, forKey: .isSoundEnabled)
        isVibrationEnabled = try container.decode(Bool.self, forKey: .isVibrationEnabled)
        isSystemNotificationEnabled = try container.decode(Bool.self, forKey: .isSystemNotificationEnabled)
        isSpeakingPersonalDetails = try container.decode(Bool.self, forKey: .isSpeakingPersonalDetails)
        isShowingDetailsOnLockScreen = try container.decodeIfPresent(Bool.self, forKey: .isShowingDetailsOnLockScreen) ?? false
        textMessageKinds = try container.decodeIfPresent(Set<NotificationKind>.self, forKey: .textMessageKinds) ?? Self.standardFollowUpKinds
        emailKinds = try container.decodeIfPresent(Set<NotificationKind>.self, forKey: .emailKinds) ?? Self.standardFollowUpKinds
        quietHours = try container.decodeIfPresent(QuietHours.self, forKey: .quietHours)
        summaryKinds = try container.decodeIfPresent(Set<NotificationKind>.self, forKey: .summaryKinds) ?? []
        // Stored before summaries existed: their switch takes its default, on.
        if !container.contains(.summaryKinds) { enabledKinds.insert(.summary) }
        summaryTime = try container.decodeIfPresent(SummaryTime.self, forKey: .summaryTime) ?? .standard
        isAssignmentDigestOn = try container.decodeIfPresent(Bool.self, forKey: .isAssignmentDigestOn) ?? false
    }

    /// The defaults every new mentor starts with.
    public static let standard = NotificationPreferences()

    /// Whether notifications of `kind` get cues.
    public func isEnabled(_ kind: NotificationKind) -> Bool { kind == .serviceNotice || enabledKinds.contains(kind) }

    /// Whether a notification of `kind` and `urgency` waits for the person's summary instead of being told at once:
    /// a kind they gather, and never an urgent one.
    public func isSummarised(_ kind: NotificationKind, urgency: Urgency) -> Bool {
        urgency != .urgent && NotificationKind.summarisable.contains(kind) && summaryKinds.contains(kind)
    }

    /// Whether anything comes at the summary time: a kind gathered, or the daily email of open assignments.
    public var hasSummaryTime: Bool {
        !summaryKinds.isDisjoint(with: NotificationKind.summarisable) || isAssignmentDigestOn
    }

    /// Whether `item` gets cues when it arrives: its kind is on, and it does not wait for the summary (which is told
    /// instead). It is listed either way.
    public func cuesOnArrival(_ item: NotificationItem) -> Bool {
        isEnabled(item.kind) && !isSummarised(item.kind, urgency: item.urgency)
    }

    /// Whether a notification of `kind` may follow up through `channel` (once the channel is verified).
    public func allows(_ channel: OutsideChannel, for kind: NotificationKind) -> Bool {
        switch channel {
        case .textMessage: textMessageKinds.contains(kind)
        case .email: emailKinds.contains(kind)
        }
    }

    /// Whether a notification of `urgency` must wait at `date` before it leaves the open page: a non-urgent one in
    /// the quiet hours. Returns when it may go, or nil when it may go now.
    public func heldUntil(urgency: Urgency, at date: Date) -> Date? {
        guard urgency != .urgent, let quietHours, quietHours.contains(date) else { return nil }
        return quietHours.end(after: date)
    }

    /// Reads one setting.
    public subscript(setting: Setting) -> Bool {
        get {
            switch setting {
            case let .kind(kind): enabledKinds.contains(kind)
            case .sound: isSoundEnabled
            case .vibration: isVibrationEnabled
            case .systemNotifications: isSystemNotificationEnabled
            case .speakPersonalDetails: isSpeakingPersonalDetails
            case .lockScreenDetails: isShowingDetailsOnLockScreen
            case let .textMessage(kind): textMessageKinds.contains(kind)
            case let .email(kind): emailKinds.contains(kind)
            case let .summary(kind): summaryKinds.contains(kind)
            case .assignmentDigest: isAssignmentDigestOn
            }
        }
        set {
            switch setting {
            case let .kind(kind):
                if newValue { enabledKinds.insert(kind) } else { enabledKinds.remove(kind) }
            case .sound: isSoundEnabled = newValue
            case .vibration: isVibrationEnabled = newValue
            case .systemNotifications: isSystemNotificationEnabled = newValue
            case .speakPersonalDetails: isSpeakingPersonalDetails = newValue
            case .lockScreenDetails: isShowingDetailsOnLockScreen = newValue
            case let .textMessage(kind):
                if newValue { textMessageKinds.insert(kind) } else { textMessageKinds.remove(kind) }
            case let .email(kind):
                if newValue { emailKinds.insert(kind) } else { emailKinds.remove(kind) }
            case let .summary(kind):
                if newValue { summaryKinds.insert(kind) } else { summaryKinds.remove(kind) }
            case .assignmentDigest: isAssignmentDigestOn = newValue
            }
        }
    }

    /// One on/off setting on the notification settings screen.
    public enum Setting: Sendable, Hashable, Codable {
        case kind(NotificationKind)
        case sound
        case vibration
        case systemNotifications
        case speakPersonalDetails
        case lockScreenDetails
        /// Follow up on this kind by text message.
        case textMessage(NotificationKind)
        /// Follow up on this kind by email.
        case email(NotificationKind)
        /// Gather this kind into the summary instead of telling it at once.
        case summary(NotificationKind)
        /// A coordinator's daily email of open assignments.
        case assignmentDigest

        /// The settings only coordinators and admins have, after the others.
        public static let managerCases: [Setting] = [.assignmentDigest]

        /// Every setting everyone has, in the order the settings screen lists them.
        public static var allCases: [Setting] {
            NotificationKind.settable.map(Setting.kind) + [.sound, .vibration, .systemNotifications, .speakPersonalDetails, .lockScreenDetails]
                + NotificationKind.settable.map(Setting.textMessage) + NotificationKind.settable.map(Setting.email)
                + NotificationKind.summarisable.map(Setting.summary)
        }

        /// A stable identifier, usable as a form field name or element id.
        public var identifier: String {
            switch self {
            case let .kind(kind): "kind-\(kind.rawValue)"
            case .sound: "sound"
            case .vibration: "vibration"
            case .systemNotifications: "system-notifications"
            case .speakPersonalDetails: "speak-personal-details"
            case .lockScreenDetails: "lock-screen-details"
            case let .textMessage(kind): "sms-\(kind.rawValue)"
            case let .email(kind): "email-\(kind.rawValue)"
            case let .summary(kind): "summary-\(kind.rawValue)"
            case .assignmentDigest: "assignment-digest"
            }
        }

        /// Parses `identifier` back into a setting.
        public init?(identifier: String) {
            guard let match = (Setting.allCases + Setting.managerCases).first(where: { $0.identifier == identifier }) else { return nil }
            self = match
        }
    }
}
