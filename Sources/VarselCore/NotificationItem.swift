import Foundation

/// One notification as a mentor receives it.
///
/// Named `NotificationItem` because Foundation already owns `Notification`.
public struct NotificationItem: Sendable, Codable, Hashable, Identifiable {
    public var id: NotificationID
    /// The user id of the mentor the notification is for.
    public var recipientID: UserID
    public var kind: NotificationKind
    public var title: String
    public var body: String
    public var createdAt: Date
    /// When the recipient read it; nil while unread.
    public var readAt: Date?
    public var urgency: Urgency
    /// Where activating the notification takes the user.
    public var deepLink: DeepLinkTarget
    /// Exact phrases of `title` and `body` that are personal details of someone other than the recipient,
    /// such as the name and address of the person to visit. They are left out of announcements unless allowed.
    public var personalDetails: [String]

    public init(
        id: NotificationID,
        recipientID: UserID,
        kind: NotificationKind,
        title: String,
        body: String,
        createdAt: Date,
        readAt: Date? = nil,
        urgency: Urgency = .normal,
        deepLink: DeepLinkTarget,
        personalDetails: [String] = []
    ) {
        self.id = id
        self.recipientID = recipientID
        self.kind = kind
        self.title = title
        self.body = body
        self.createdAt = createdAt
        self.readAt = readAt
        self.urgency = urgency
        self.deepLink = deepLink
        self.personalDetails = personalDetails
    }

    /// Whether the recipient has not read it yet.
    public var isUnread: Bool { readAt == nil }

    /// Whether `text` contains any of this notification's personal details.
    public func containsPersonalDetails(_ text: String) -> Bool {
        Self.text(text, containsAnyOf: personalDetails)
    }

    /// Whether `text` contains any of `phrases`, ignoring case: the one test of whether a text names a personal detail.
    public static func text(_ text: String, containsAnyOf phrases: [String]) -> Bool {
        phrases.contains { !$0.isEmpty && text.localizedCaseInsensitiveContains($0) }
    }
}
