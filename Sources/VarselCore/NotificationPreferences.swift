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

    public init(
        enabledKinds: Set<NotificationKind> = Set(NotificationKind.allCases),
        isSoundEnabled: Bool = true,
        isVibrationEnabled: Bool = true,
        isSystemNotificationEnabled: Bool = true,
        isSpeakingPersonalDetails: Bool = false,
        isShowingDetailsOnLockScreen: Bool = false
    ) {
        self.enabledKinds = enabledKinds
        self.isSoundEnabled = isSoundEnabled
        self.isVibrationEnabled = isVibrationEnabled
        self.isSystemNotificationEnabled = isSystemNotificationEnabled
        self.isSpeakingPersonalDetails = isSpeakingPersonalDetails
        self.isShowingDetailsOnLockScreen = isShowingDetailsOnLockScreen
    }

    private enum CodingKeys: String, CodingKey {
        case enabledKinds, isSoundEnabled, isVibrationEnabled, isSystemNotificationEnabled, isSpeakingPersonalDetails
        case isShowingDetailsOnLockScreen
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
    }

    /// The defaults every new mentor starts with.
    public static let standard = NotificationPreferences()

    /// Whether notifications of `kind` get cues.
    public func isEnabled(_ kind: NotificationKind) -> Bool { enabledKinds.contains(kind) }

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

        /// Every setting, in the order the settings screen lists them.
        public static var allCases: [Setting] {
            NotificationKind.allCases.map(Setting.kind) + [.sound, .vibration, .systemNotifications, .speakPersonalDetails, .lockScreenDetails]
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
            }
        }

        /// Parses `identifier` back into a setting.
        public init?(identifier: String) {
            guard let match = Setting.allCases.first(where: { $0.identifier == identifier }) else { return nil }
            self = match
        }
    }
}
