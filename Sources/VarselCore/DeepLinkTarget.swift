/// A screen a notification opens, and so where focus must land when it does.
public enum DeepLinkTarget: Sendable, Codable, Hashable {
    /// The contact detail of the person to visit (an assignment). Focus lands on the contact name heading (003).
    case contact(contactID: ContactID, assignmentID: AssignmentID?)
    /// The mentor's certification page.
    case certification(certificationID: Int64?)
    /// The mentor's pause page.
    case pause
    /// A training scenario.
    case scenario(scenarioID: Int64?)
    /// The notification centre, where a summary's gathered notifications are listed.
    case notifications
    /// An integration's webhook endpoints and their recent deliveries (an admin's).
    case webhooks(integrationID: UserID)

    /// The path of the target screen in the web client, without personal details.
    public var path: String {
        switch self {
        case let .contact(contactID, assignmentID):
            if let assignmentID { return "/contacts/\(contactID)?assignment=\(assignmentID)" }
            return "/contacts/\(contactID)"
        case let .certification(id): return id.map { "/certifications/\($0)" } ?? "/certifications"
        case .pause: return "/pause"
        case let .scenario(id): return id.map { "/scenarios/\($0)" } ?? "/scenarios"
        case .notifications: return "/notifications"
        case let .webhooks(integrationID): return "/integrations/\(integrationID)/webhooks"
        }
    }

    /// The screen this target opens.
    public var screen: Screen {
        switch self {
        case .contact: .contactDetail
        case .certification: .certification
        case .pause: .pause
        case .scenario: .scenario
        case .notifications: .notificationCentre
        case .webhooks: .webhooks
        }
    }
}

/// The screens of the app, each with one heading that receives focus when the screen is opened from a link.
public enum Screen: String, Sendable, Codable, Hashable, CaseIterable {
    case home
    case assignments
    case contacts
    case profile
    case notificationCentre
    case notificationSettings
    case contactDetail
    case certification
    case pause
    case scenario
    case webhooks

    /// The element id of the heading that receives focus when the screen opens.
    public var headingElementID: String {
        switch self {
        case .contactDetail: "contact-name-heading"
        default: "\(rawValue)-heading"
        }
    }
}
