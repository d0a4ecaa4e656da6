import Foundation

/// How insistently an announcement interrupts: polite waits for the screen reader to finish, assertive does not.
public enum Politeness: String, Sendable, Codable, Hashable {
    case polite
    case assertive
}

/// Where an announcement is spoken: the page's own live region, or one inside the topmost open modal
/// (VoiceOver ignores live regions outside an open modal — ACCESSIBILITY.md 4).
public enum AnnouncementRegion: Sendable, Codable, Hashable {
    case main
    case modal(id: String)
}

/// One sentence for the screen reader to speak, when, how politely, and where.
public struct Announcement: Sendable, Codable, Hashable {
    /// How long a spoken sentence stays in its live region before it is removed: long enough for every screen
    /// reader to have read it, short enough that reading the page later does not find a pile of old sentences.
    public static let lingerSeconds: TimeInterval = 7

    public var text: String
    public var politeness: Politeness
    public var region: AnnouncementRegion
    /// When it is to be spoken.
    public var deliverAt: Date

    public init(text: String, politeness: Politeness, region: AnnouncementRegion, deliverAt: Date) {
        self.text = text
        self.politeness = politeness
        self.region = region
        self.deliverAt = deliverAt
    }
}

/// The outcome of something the user just did, for the announcer to confirm.
public enum ActionOutcome: Sendable, Hashable, Codable {
    /// "Mark all as read" finished; `count` is how many changed, 0 when there was nothing to do (002).
    case markedAllRead(count: Int)
    case markedRead
    case markedUnread
    /// Deleting selected notifications finished; 0 when nothing was selected.
    case deleted(count: Int)
    case assignmentAcknowledged
    case assignmentDeclined
    case settingsSaved
    /// A switch or check box was toggled where it has focus: the screen reader speaks the new state itself,
    /// so Varsel stays silent (ACCESSIBILITY.md 7).
    case toggledFocusedControl
}

extension Describer {
    /// What is announced when `item` arrives, and how politely: `New notification: [title]`, polite (003,
    /// criterion 6); urgent items `New urgent notification: [title]`, assertively. Only the title is spoken, never
    /// the body, which is where personal details are.
    public func arrivalAnnouncement(for item: NotificationItem, preferences: NotificationPreferences) -> (text: String, politeness: Politeness) {
        let title = speakableTitle(of: item, preferences: preferences)
        switch item.urgency {
        case .normal: return (strings.newNotification(title: title), .polite)
        case .urgent: return (strings.newUrgentNotification(title: title), .assertive)
        }
    }

    /// The title, which is public by contract (the service refuses a title naming a listed personal detail).
    ///
    /// A notification stored before that rule may still list its own title as a personal detail; its kind's name
    /// is spoken instead, unless the mentor allowed personal details to be spoken.
    /// A summary's title, which only counts, is said after its kind's name: `Summary: 2 certification warnings`.
    public func speakableTitle(of item: NotificationItem, preferences: NotificationPreferences) -> String {
        if item.kind == .summary { return strings.titleWithKind(item) }
        if preferences.isSpeakingPersonalDetails || !item.containsPersonalDetails(item.title) { return item.title }
        return strings.kindName(item.kind)
    }

    /// The confirmation for `outcome`, or nil when the screen reader already says it.
    public func confirmation(of outcome: ActionOutcome) -> String? {
        switch outcome {
        case let .markedAllRead(count): strings.markedAllRead(count: count)
        case .markedRead: strings.markedRead
        case .markedUnread: strings.markedUnread
        case let .deleted(count): strings.deleted(count: count)
        case .assignmentAcknowledged: strings.assignmentAcknowledged
        case .assignmentDeclined: strings.assignmentDeclined
        case .settingsSaved: strings.settingsSaved
        case .toggledFocusedControl: nil
        }
    }
}
