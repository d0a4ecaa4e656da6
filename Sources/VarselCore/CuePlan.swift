/// How a notification makes itself perceived: seen always, heard and felt where the mentor allows (seed 000).
public struct CuePlan: Sendable, Codable, Hashable {
    /// Always true: every notification is visible in the list and on the badge.
    public var isVisible: Bool
    /// The earcon to play, or nil when sound is off or the kind is muted.
    public var earcon: Earcon?
    /// The vibration to play, or nil when vibration is off or the kind is muted.
    public var haptic: Haptic?
    /// Whether the screen reader is told (a live announcement). Stays on when sound is off: speech is the
    /// screen reader's, not an app sound.
    public var isAnnounced: Bool
    /// Whether to show an operating-system notification when the app is in the background.
    public var showsSystemNotification: Bool

    /// A short sound; urgent is distinct.
    public enum Earcon: String, Sendable, Codable, Hashable {
        case standard
        case urgent

        /// The tones, in hertz, played one after another: one for standard, a rising-falling three for urgent.
        public var tones: [Int] {
            switch self {
            case .standard: [660]
            case .urgent: [880, 660, 880]
            }
        }

        /// How long each tone sounds, and the time from one tone's start to the next, in milliseconds.
        public static let toneMilliseconds = 120
        public static let toneSpacingMilliseconds = 150
    }

    /// A vibration pattern; urgent is longer.
    public enum Haptic: String, Sendable, Codable, Hashable {
        case standard
        case urgent

        /// The pattern in milliseconds (vibrate, pause, vibrate…), as `navigator.vibrate` takes it.
        public var pattern: [Int] {
            switch self {
            case .standard: [120]
            case .urgent: [200, 100, 200, 100, 200]
            }
        }
    }

    /// The cues for `item` under `preferences`; `isAppInForeground` decides between in-app and system cues.
    public init(for item: NotificationItem, preferences: NotificationPreferences, isAppInForeground: Bool) {
        isVisible = true
        let isKindEnabled = preferences.cuesOnArrival(item)
        let style: Earcon = item.urgency == .urgent ? .urgent : .standard
        earcon = isKindEnabled && preferences.isSoundEnabled ? style : nil
        haptic = isKindEnabled && preferences.isVibrationEnabled ? (style == .urgent ? .urgent : .standard) : nil
        isAnnounced = isKindEnabled && isAppInForeground
        showsSystemNotification = isKindEnabled && !isAppInForeground && preferences.isSystemNotificationEnabled
    }
}
