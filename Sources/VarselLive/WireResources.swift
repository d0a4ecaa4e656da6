import Foundation
import VarselCore
import VarselService
import VarselStore

/// A notification as the API returns it, with its accessibility block in the reader's language.
public struct NotificationResource: Codable, Sendable, Equatable {
    public var id: NotificationID
    public var kind: NotificationKind
    public var title: String
    public var body: String
    public var urgency: Urgency
    public var createdAt: Date
    public var readAt: Date?
    public var isUnread: Bool
    public var deepLink: DeepLinkResource
    public var accessibility: AccessibilityBlock

    /// Where the notification leads, and which element receives focus there.
    public struct DeepLinkResource: Codable, Sendable, Equatable {
        public var screen: Screen
        public var path: String
        public var focusElementId: String
    }

    /// What a screen reader says for the item, and what is announced when it arrives.
    public struct AccessibilityBlock: Codable, Sendable, Equatable {
        /// The list item's full accessible name: `[type]: [title], [body], [time ago], [read/unread]` (003).
        public var label: String
        /// The item's check box label, unique in the list: `Select New assignment, 5 minutes ago` (004).
        public var selectLabel: String
        /// `urgent` for an urgent item, shown as text beside it (urgency is never colour alone); nil otherwise.
        public var urgencyText: String?
        public var kindName: String
        public var timeAgo: String
        public var readState: String
        /// `New notification: [title]` (003), with personal details left out unless allowed.
        public var announcement: AnnouncementResource
    }

    public init(_ item: NotificationItem, describer: Describer, preferences: NotificationPreferences, now: Date) {
        id = item.id
        kind = item.kind
        title = item.title
        body = item.body
        urgency = item.urgency
        createdAt = item.createdAt
        readAt = item.readAt
        isUnread = item.isUnread
        let plan = FocusPlan(following: item.deepLink)
        deepLink = DeepLinkResource(screen: plan.screen, path: item.deepLink.path, focusElementId: plan.focusElementID)
        let element = describer.listItem(item, now: now)
        let arrival = describer.arrivalAnnouncement(for: item, preferences: preferences)
        accessibility = AccessibilityBlock(
            label: WebAccessibility(element).name,
            selectLabel: describer.selectionCheckbox(for: item, now: now, isChecked: false).label,
            urgencyText: item.urgency == .urgent ? describer.strings.urgentState : nil,
            kindName: describer.strings.kindName(item.kind),
            timeAgo: describer.relativeTime.phrase(for: item.createdAt, now: now),
            readState: describer.strings.readState(isUnread: item.isUnread),
            announcement: AnnouncementResource(text: arrival.text, politeness: arrival.politeness)
        )
    }
}

/// One sentence for a screen reader and how politely to say it.
public struct AnnouncementResource: Codable, Sendable, Equatable {
    public var text: String
    public var politeness: Politeness

    public init(text: String, politeness: Politeness) {
        self.text = text
        self.politeness = politeness
    }
}

/// The unread count and the Notifications tab as a screen reader hears it.
public struct UnreadCountResource: Codable, Sendable, Equatable {
    public var count: Int
    /// The count as a sentence: `3 unread notifications`, `No unread notifications`.
    public var summary: String
    public var badge: Badge

    /// The tab's parts and its spoken phrase: `Notifications, 3 unread, tab, 5 of 5` (003).
    public struct Badge: Codable, Sendable, Equatable {
        public var label: String
        /// The tab's accessible name on the web, count included: `Notifications, 3 unread`.
        public var name: String
        public var value: String?
        public var phrase: String
        public var position: Int
        public var setSize: Int
    }

    public init(count: Int, describer: Describer) {
        self.count = count
        summary = describer.strings.unreadSummary(count)
        let element = describer.tab(.notifications, unreadCount: count, selected: nil)
        badge = Badge(
            label: element.label, name: WebAccessibility(element).name, value: element.value,
            phrase: SpeechComposer(reader: .web, language: describer.language).speak(element).text,
            position: element.position?.index ?? 5, setSize: element.position?.count ?? 5)
    }
}

/// One notification in the answer to a create, as ``HotJSON/createResponse(_:)`` writes it.
public struct CreatedNotification: Encodable, Sendable {
    public var id: NotificationID
    public var recipientId: UserID
    public var kind: NotificationKind
    public var title: String
    public var urgency: Urgency
    public var createdAt: Date

    public init(id: NotificationID, recipientId: UserID, kind: NotificationKind, title: String, urgency: Urgency, createdAt: Date) {
        self.id = id
        self.recipientId = recipientId
        self.kind = kind
        self.title = title
        self.urgency = urgency
        self.createdAt = createdAt
    }
}
