/// What a notification is about; the four kinds of the user story (seed 003).
public enum NotificationKind: String, Sendable, Codable, Hashable, CaseIterable {
    /// A new case: the person to visit, their address and situation.
    case assignment
    /// A mentor's certification is about to expire.
    case certificationExpiry
    /// The mentor's pause took effect.
    case pauseConfirmation
    /// A training scenario to work through.
    case scenarioPrompt
}

/// How urgent a notification is; urgent ones are announced assertively.
public enum Urgency: String, Sendable, Codable, Hashable, CaseIterable {
    case normal
    case urgent
}
