import Foundation

/// What a push notification shows and does on a phone whose Varsel page is closed.
///
/// Decided here, in the mentor's language, so every platform shows the same: by default the kind and a title
/// without personal details, never the body's personal details; the full text only when the mentor turned on
/// "Show details on the lock screen".
public struct LockScreenNotification: Sendable, Codable, Hashable {
    public var title: String
    public var body: String
    /// Identifies the notification on the device, so a repeat replaces it instead of stacking (web: `tag`).
    public var tag: String
    /// The language of `title` and `body` (BCP 47), for the screen reader's voice.
    public var language: String
    /// Where opening it takes the mentor: through the notification centre's own link, so the target screen's
    /// heading takes focus and the notification is marked read.
    public var path: String
    /// Urgent notifications stay until the mentor acts on them.
    public var requiresInteraction: Bool
    /// The vibration pattern in milliseconds; empty when vibration is off, and always when ``isSilent``.
    public var vibration: [Int]
    /// True when the phone should neither sound nor vibrate for it (the web's `silent`).
    ///
    /// A notification on the web is silent or not: a silent one may not carry a vibration pattern (browsers refuse to
    /// show it), and one that is not silent may also sound. So with sound off and vibration on it is not silent and
    /// carries the pattern, and the phone's own settings for Varsel decide whether it also sounds: a mentor who
    /// wants to feel an assignment arrive must not miss it.
    public var isSilent: Bool
    public var actions: [Action]
    /// For an assignment: what the "Acknowledge" button acknowledges and what it then says.
    public var acknowledgement: Acknowledgement?

    /// A button on the notification.
    public struct Action: Sendable, Codable, Hashable {
        /// `open` or `acknowledge`.
        public var id: String
        public var title: String
    }

    /// The assignment the notification's "Acknowledge" button answers, and what the device says after.
    public struct Acknowledgement: Sendable, Codable, Hashable {
        public var assignmentID: AssignmentID
        public var confirmation: String
        public var failure: String
    }
}

extension Describer {
    /// The push notification for `item` under `preferences`, or nil when the mentor does not want a system
    /// notification for it (the kind is muted, or system notifications are off). An assignment's notification has an
    /// "Acknowledge" button only when `mayAcknowledge`: its recipient is the assignment's mentor and it waits for an
    /// answer (a coordinator told of an unanswered one cannot acknowledge it).
    public func lockScreenNotification(
        for item: NotificationItem, preferences: NotificationPreferences,
        mayAcknowledge: Bool = true
    ) -> LockScreenNotification? {
        let cues = CuePlan(for: item, preferences: preferences, isAppInForeground: false)
        guard cues.showsSystemNotification else { return nil }
        let showsDetails = preferences.isShowingDetailsOnLockScreen
        let title = showsDetails || !item.containsPersonalDetails(item.title) ? item.title : strings.lockScreenHiddenTitle
        let body = showsDetails || !item.containsPersonalDetails(item.body) ? item.body : strings.lockScreenHiddenBody
        var actions = [LockScreenNotification.Action(id: "open", title: strings.lockScreenOpen)]
        var acknowledgement: LockScreenNotification.Acknowledgement?
        if mayAcknowledge, item.kind == .assignment, case let .contact(_, assignmentID?) = item.deepLink {
            actions.append(.init(id: "acknowledge", title: strings.lockScreenAcknowledge))
            acknowledgement = .init(
                assignmentID: assignmentID, confirmation: strings.assignmentAcknowledged,
                failure: strings.lockScreenAcknowledgeFailed)
        }
        return LockScreenNotification(
            title: strings.lockScreenTitle(kind: item.kind, title: title, isUrgent: item.urgency == .urgent),
            body: body,
            tag: "varsel-notification-\(item.id)",
            language: strings.language.rawValue,
            path: "/notifications/\(item.id)/open",
            requiresInteraction: item.urgency == .urgent,
            vibration: cues.haptic?.pattern ?? [],
            isSilent: cues.earcon == nil && cues.haptic == nil,
            actions: actions,
            acknowledgement: acknowledgement
        )
    }
}

extension Describer {
    /// What replaces a shown push notification that its person should no longer see (the notification was deleted,
    /// its assignment given to someone else, or the visited person's details erased): the same tag, so it takes the
    /// old one's place on the lock screen, silent, and naming no one.
    public func withdrawnLockScreenNotification(notificationID: NotificationID) -> LockScreenNotification {
        LockScreenNotification(
            title: strings.lockScreenWithdrawnTitle, body: strings.lockScreenWithdrawnBody, tag: "varsel-notification-\(notificationID)",
            language: strings.language.rawValue, path: "/notifications", requiresInteraction: false, vibration: [], isSilent: true,
            actions: [], acknowledgement: nil)
    }
}
