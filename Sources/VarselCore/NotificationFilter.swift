/// Which notifications the list shows: all, unread, or one kind.
public enum NotificationFilter: Sendable, Hashable, Codable, CaseIterable {
    case all
    case unread
    case kind(NotificationKind)

    /// Every filter the filter bar shows, in its order: summaries are found under All and Unread (and by their
    /// wire name), not on the bar.
    public static var allCases: [NotificationFilter] {
        [.all, .unread] + NotificationKind.sendable.map(NotificationFilter.kind)
    }

    /// The wire name: `all`, `unread`, or the kind's name.
    public var wireName: String {
        switch self {
        case .all: "all"
        case .unread: "unread"
        case let .kind(kind): kind.rawValue
        }
    }

    /// Parses a wire name; nil for anything unknown.
    public init?(wireName: String) {
        switch wireName {
        case "all": self = .all
        case "unread": self = .unread
        default:
            guard let kind = NotificationKind(rawValue: wireName) else { return nil }
            self = .kind(kind)
        }
    }

    /// Whether the filter narrows the list (anything but `all`).
    public var isNarrowing: Bool { self != .all }

    /// Whether `item` passes the filter.
    public func includes(_ item: NotificationItem) -> Bool {
        switch self {
        case .all: true
        case .unread: item.isUnread
        case let .kind(kind): item.kind == kind
        }
    }
}
