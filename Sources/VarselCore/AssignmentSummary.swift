import Foundation

/// Where an assignment stands, as the mentor and the coordinator see it.
public enum AssignmentProgress: String, Sendable, Codable, Hashable, CaseIterable {
    case waitingForAnswer
    case acknowledged
    case declined
}

/// One assignment as the screens list it: who, where, its state and its times. The web and an iOS app build it
/// from the store's assignment and contact; every phrase about it comes from ``Describer``.
public struct AssignmentSummary: Sendable, Codable, Hashable, Identifiable {
    public var id: Int64
    public var contactID: Int64
    /// The visited person's name and address: personal data, shown only to those allowed to see the contact.
    public var contactName: String
    public var address: String
    /// The mentor's display name (for the coordinator's screens).
    public var mentorName: String
    public var progress: AssignmentProgress
    public var createdAt: Date
    public var respondedAt: Date?
    /// When the mentor read its notification; nil while unread.
    public var readAt: Date?
    /// Whether the mentor was sent a reminder for not answering, and whether the coordinator was told.
    public var wasRemindedAt: Date?
    public var wasEscalatedAt: Date?

    public init(id: Int64, contactID: Int64, contactName: String, address: String, mentorName: String, progress: AssignmentProgress,
                createdAt: Date, respondedAt: Date? = nil, readAt: Date? = nil, wasRemindedAt: Date? = nil, wasEscalatedAt: Date? = nil) {
        self.id = id
        self.contactID = contactID
        self.contactName = contactName
        self.address = address
        self.mentorName = mentorName
        self.progress = progress
        self.createdAt = createdAt
        self.respondedAt = respondedAt
        self.readAt = readAt
        self.wasRemindedAt = wasRemindedAt
        self.wasEscalatedAt = wasEscalatedAt
    }
}

/// One step of an assignment's history, for its audit trail.
public struct AssignmentEvent: Sendable, Codable, Hashable {
    public enum Step: String, Sendable, Codable, Hashable {
        case created, notified, read, reminded, escalated, acknowledged, declined
    }

    public var step: Step
    public var at: Date

    public init(_ step: Step, at: Date) {
        self.step = step
        self.at = at
    }
}

extension AssignmentSummary {
    /// Its history, oldest first: created, the notification sent, read, a reminder, the coordinator told, the answer.
    public var trail: [AssignmentEvent] {
        var events = [AssignmentEvent(.created, at: createdAt), AssignmentEvent(.notified, at: createdAt)]
        if let readAt { events.append(AssignmentEvent(.read, at: readAt)) }
        if let wasRemindedAt { events.append(AssignmentEvent(.reminded, at: wasRemindedAt)) }
        if let wasEscalatedAt { events.append(AssignmentEvent(.escalated, at: wasEscalatedAt)) }
        if let respondedAt {
            switch progress {
            case .acknowledged: events.append(AssignmentEvent(.acknowledged, at: respondedAt))
            case .declined: events.append(AssignmentEvent(.declined, at: respondedAt))
            case .waitingForAnswer: break
            }
        }
        return events.sorted { $0.at < $1.at }
    }
}

extension Describer {
    /// A mentor's assignment row, named in full: `Kari Nordmann, Storgata 1, waiting for your answer, 2 hours`.
    public func mentorAssignmentRow(_ assignment: AssignmentSummary, now: Date) -> String {
        "\(assignment.contactName), \(assignment.address), \(strings.assignmentState(assignment.progress, forMentor: true)), "
            + strings.waited(since: assignment.createdAt, until: assignment.respondedAt ?? now, answered: assignment.respondedAt != nil)
    }

    /// A coordinator's dashboard row: `Kari Nordmann, Storgata 1, Demo Mentor, waiting for an answer, 2 hours`.
    public func coordinatorAssignmentRow(_ assignment: AssignmentSummary, now: Date) -> String {
        "\(assignment.contactName), \(assignment.address), \(assignment.mentorName), "
            + "\(strings.assignmentState(assignment.progress, forMentor: false)), "
            + strings.waited(since: assignment.createdAt, until: assignment.respondedAt ?? now, answered: assignment.respondedAt != nil)
    }

    /// One audit-trail line: `Read by the mentor, 23 November at 10:05`.
    public func trailLine(_ event: AssignmentEvent) -> String {
        "\(strings.trailStep(event.step)), \(strings.dateAndTime(event.at, timeZone: RelativeTime(language: language).calendar.timeZone))"
    }
}
