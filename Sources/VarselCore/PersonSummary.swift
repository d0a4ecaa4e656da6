import Foundation

/// What a coordinator needs to know of a person at a glance: their name, the state they are in, their live work.
public struct PersonSummary: Sendable, Hashable, Identifiable {
    public var id: UserID
    public var displayName: String
    public var username: String
    public var role: PersonRole
    /// When the account was deactivated; nil while active.
    public var deactivatedAt: Date?
    /// Until when a pause is in force; nil when none is in force now.
    public var pausedUntil: Date?
    /// The certification that expires first, if any.
    public var firstExpiring: (name: String, expiresAt: Date)?
    /// Assignments the person still has to answer or visit.
    public var liveAssignments: Int
    /// Whether any of the person's devices can be counted on to show a notification; nil when not known.
    public var showsNotifications: Bool?

    public init(
        id: UserID, displayName: String, username: String, role: PersonRole, deactivatedAt: Date?, pausedUntil: Date?,
        firstExpiring: (name: String, expiresAt: Date)?, liveAssignments: Int
    ) {
        self.id = id
        self.displayName = displayName
        self.username = username
        self.role = role
        self.deactivatedAt = deactivatedAt
        self.pausedUntil = pausedUntil
        self.firstExpiring = firstExpiring
        self.liveAssignments = liveAssignments
    }

    public static func == (lhs: PersonSummary, rhs: PersonSummary) -> Bool {
        lhs.id == rhs.id && lhs.displayName == rhs.displayName && lhs.username == rhs.username && lhs.role == rhs.role
            && lhs.deactivatedAt == rhs.deactivatedAt && lhs.pausedUntil == rhs.pausedUntil
            && lhs.firstExpiring?.name == rhs.firstExpiring?.name && lhs.firstExpiring?.expiresAt == rhs.firstExpiring?.expiresAt
            && lhs.liveAssignments == rhs.liveAssignments && lhs.showsNotifications == rhs.showsNotifications
    }

    public func hash(into hasher: inout Hasher) { hasher.combine(id) }

    /// Days from `now` until the first certification expires, counted in whole days (negative once expired); nil
    /// without a certification.
    public func daysUntilExpiry(now: Date) -> Int? {
        firstExpiring.map { Int(($0.expiresAt.timeIntervalSince(now) / 86400).rounded(.down)) }
    }

    /// Whether the person needs a coordinator's attention at `now`: a certification expired or expiring within
    /// ``PersonFilter/expiringWithinDays``, or a pause in force. Deactivated people never do.
    public func needsAttention(now: Date) -> Bool {
        guard deactivatedAt == nil else { return false }
        if pausedUntil.map({ $0 > now }) ?? false { return true }
        if let days = daysUntilExpiry(now: now), days < PersonFilter.expiringWithinDays { return true }
        return false
    }

    /// The state the person is in, for filtering: deactivated, paused, or active.
    public func state(now: Date) -> PersonFilter {
        if deactivatedAt != nil { return .deactivated }
        if pausedUntil.map({ $0 > now }) ?? false { return .paused }
        return .active
    }
}

/// What a person does in Varsel: mentors receive work, coordinators send it, admins manage users.
public enum PersonRole: String, Sendable, Codable, Hashable, CaseIterable {
    case mentor
    case coordinator
    case admin
}

/// The people list's filters.
public enum PersonFilter: String, Sendable, Codable, Hashable, CaseIterable {
    case all
    case needsAttention = "attention"
    case active
    case paused
    case deactivated

    /// A certification expiring within this many days needs attention.
    public static let expiringWithinDays = 31

    /// Whether `person` belongs in the list at `now`.
    public func includes(_ person: PersonSummary, now: Date) -> Bool {
        switch self {
        case .all: true
        case .needsAttention: person.needsAttention(now: now)
        case .active, .paused, .deactivated: person.state(now: now) == self
        }
    }
}
