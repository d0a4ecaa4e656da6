/// The tabs of the bottom navigation. A mentor's bar and a coordinator's bar have five tabs each; Notifications is
/// the fifth of five in both and carries the badge.
public enum AppTab: String, Sendable, Codable, Hashable, CaseIterable {
    case home
    case assignments
    case contacts
    case profile
    case notifications
    case dashboard
    case people
    case send
    case scenarios

    /// The web path of the tab's page.
    public var path: String {
        switch self {
        case .home: "/"
        case .assignments: "/assignments"
        case .contacts: "/contacts"
        case .profile: "/profile"
        case .notifications: "/notifications"
        case .dashboard: "/coordinator/assignments"
        case .people: "/people"
        case .send: "/coordinator"
        case .scenarios: "/scenarios"
        }
    }
}

/// Whose work a tab bar serves: a mentor's (assignments to answer and visit) or a coordinator's (handing out
/// assignments and looking after mentors). Chosen by role: coordinators and admins get the coordinator's bar.
public enum Workspace: String, Sendable, Codable, Hashable, CaseIterable {
    case mentor
    case coordinator

    /// The tabs of this workspace's bar, in order.
    public var tabs: [AppTab] {
        switch self {
        case .mentor: [.home, .assignments, .contacts, .profile, .notifications]
        case .coordinator: [.dashboard, .people, .send, .scenarios, .notifications]
        }
    }

    /// The workspace of a person with `role`.
    public init(_ role: PersonRole) {
        self = role == .mentor ? .mentor : .coordinator
    }
}
