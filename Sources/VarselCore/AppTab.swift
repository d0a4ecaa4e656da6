/// The five tabs of the bottom navigation, in order; Notifications is the fifth of five and carries the badge.
public enum AppTab: String, Sendable, Codable, Hashable, CaseIterable {
    case home
    case assignments
    case contacts
    case profile
    case notifications

    /// The tab's 1-based position in the bar.
    public var position: Int { (AppTab.allCases.firstIndex(of: self) ?? 0) + 1 }

    /// The screen the tab opens.
    public var screen: Screen {
        switch self {
        case .home: .home
        case .assignments: .assignments
        case .contacts: .contacts
        case .profile: .profile
        case .notifications: .notificationCentre
        }
    }

    /// The web path of the tab's page.
    public var path: String {
        switch self {
        case .home: "/"
        case .assignments: "/assignments"
        case .contacts: "/contacts"
        case .profile: "/profile"
        case .notifications: "/notifications"
        }
    }
}
