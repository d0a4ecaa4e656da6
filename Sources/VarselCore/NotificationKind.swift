/// What a notification is about: the four kinds of the user story (seed 003); the summary that gathers the quieter
/// three of them for a person who asks for one; and the service notice that tells an admin of something in Varsel.
public enum NotificationKind: String, Sendable, Codable, Hashable, CaseIterable {
    /// A new case: the person to visit, their address and situation.
    case assignment
    /// A mentor's certification is about to expire.
    case certificationExpiry
    /// The mentor's pause took effect.
    case pauseConfirmation
    /// A training scenario to work through.
    case scenarioPrompt
    /// The notifications gathered for the person's summary time, told as one.
    case summary
    /// Something about Varsel itself that needs an admin: an integration's webhook endpoint turned off.
    case serviceNotice

    /// The kinds a person may have gathered into a summary instead of told at once; an assignment never is.
    public static let summarisable: [NotificationKind] = [.certificationExpiry, .pauseConfirmation, .scenarioPrompt]

    /// The kinds a person chooses cues and follow-ups for on the settings screen: a service notice is always told.
    public static let settable: [NotificationKind] = sendable + [.summary]

    /// The kinds a sender may send: summaries and service notices are made by Varsel alone.
    public static let sendable: [NotificationKind] = [.assignment, .certificationExpiry, .pauseConfirmation, .scenarioPrompt]
}

/// How urgent a notification is; urgent ones are announced assertively.
public enum Urgency: String, Sendable, Codable, Hashable, CaseIterable {
    case normal
    case urgent
}
