import Foundation

/// Where an assignment stands, as the mentor and the coordinator see it.
public enum AssignmentProgress: String, Sendable, Codable, Hashable, CaseIterable {
    case waitingForAnswer
    case acknowledged
    case declined
    /// The visit was made and noted.
    case done
}

/// One assignment as the screens list it: who, where, its state and its times. The web and an iOS app build it
/// from the store's assignment and contact; every phrase about it comes from ``Describer``.
public struct AssignmentSummary: Sendable, Codable, Hashable, Identifiable {
    public var id: AssignmentID
    public var contactID: ContactID
    /// The visited person's name and address: personal data, shown only to those allowed to see the contact.
    public var contactName: String
    public var address: String
    /// The mentor's id and display name (for the coordinator's screens).
    public var mentorID: UserID
    public var mentorName: String
    public var progress: AssignmentProgress
    public var createdAt: Date
    public var respondedAt: Date?
    /// When the mentor read its notification; nil while unread.
    public var readAt: Date?
    /// Whether the mentor was sent a reminder for not answering, and whether the coordinator was told.
    public var wasRemindedAt: Date?
    public var wasEscalatedAt: Date?
    /// When a text message and an email told the mentor of it, when they had not seen it in time.
    public var textMessageSentAt: Date?
    public var emailSentAt: Date?
    /// When its notification first reached the mentor on a live stream (an open page or app).
    public var deliveredAt: Date?
    /// When the visit was marked done, and the mentor's note.
    public var doneAt: Date?
    public var visitNote: String?
    /// The history of the assignments this one replaced, oldest first, when a coordinator reassigned the contact
    /// to this mentor; empty for a first assignment.
    public var earlierTrail: [AssignmentEvent]
    /// When the visited person's details were erased; the name and address are empty since.
    public var detailsRemovedAt: Date?

    public init(
        id: AssignmentID, contactID: ContactID, contactName: String, address: String, mentorID: UserID = 0, mentorName: String,
        progress: AssignmentProgress,
        createdAt: Date, respondedAt: Date? = nil, readAt: Date? = nil, wasRemindedAt: Date? = nil, wasEscalatedAt: Date? = nil,
        textMessageSentAt: Date? = nil, emailSentAt: Date? = nil, deliveredAt: Date? = nil, doneAt: Date? = nil, visitNote: String? = nil,
        earlierTrail: [AssignmentEvent] = [],
        detailsRemovedAt: Date? = nil
    ) {
        self.detailsRemovedAt = detailsRemovedAt
        self.id = id
        self.contactID = contactID
        self.contactName = contactName
        self.address = address
        self.mentorID = mentorID
        self.mentorName = mentorName
        self.progress = progress
        self.createdAt = createdAt
        self.respondedAt = respondedAt
        self.readAt = readAt
        self.wasRemindedAt = wasRemindedAt
        self.wasEscalatedAt = wasEscalatedAt
        self.textMessageSentAt = textMessageSentAt
        self.emailSentAt = emailSentAt
        self.deliveredAt = deliveredAt
        self.doneAt = doneAt
        self.visitNote = visitNote
        self.earlierTrail = earlierTrail
    }
}

/// One step of an assignment's history, for its audit trail.
public struct AssignmentEvent: Sendable, Codable, Hashable {
    public enum Step: String, Sendable, Codable, Hashable {
        case created, notified, delivered, read, reminded, escalated, acknowledged, declined, reassigned, done
        case textMessageSent, emailSent
    }

    public var step: Step
    public var at: Date
    /// The mentor a reassignment went to; nil for other steps.
    public var mentorName: String?

    public init(_ step: Step, at: Date, mentorName: String? = nil) {
        self.step = step
        self.at = at
        self.mentorName = mentorName
    }
}

extension AssignmentSummary {
    /// Its history, oldest first: created (or, after a reassignment, the earlier history and the reassignment), the
    /// notification sent, delivered live, read, a reminder, the coordinator told, the answer, the visit done.
    public var trail: [AssignmentEvent] {
        let start =
            earlierTrail.isEmpty ? AssignmentEvent(.created, at: createdAt) : AssignmentEvent(.reassigned, at: createdAt, mentorName: mentorName)
        var events = [start, AssignmentEvent(.notified, at: createdAt)]
        if let deliveredAt { events.append(AssignmentEvent(.delivered, at: deliveredAt)) }
        if let readAt { events.append(AssignmentEvent(.read, at: readAt)) }
        if let textMessageSentAt { events.append(AssignmentEvent(.textMessageSent, at: textMessageSentAt)) }
        if let emailSentAt { events.append(AssignmentEvent(.emailSent, at: emailSentAt)) }
        if let wasRemindedAt { events.append(AssignmentEvent(.reminded, at: wasRemindedAt)) }
        if let wasEscalatedAt { events.append(AssignmentEvent(.escalated, at: wasEscalatedAt)) }
        if let respondedAt {
            switch progress {
            case .declined: events.append(AssignmentEvent(.declined, at: respondedAt))
            case .acknowledged, .done: events.append(AssignmentEvent(.acknowledged, at: respondedAt))
            case .waitingForAnswer: break
            }
        }
        if let doneAt { events.append(AssignmentEvent(.done, at: doneAt)) }
        // A stable sort: steps at the same moment keep their order (created before notified).
        return earlierTrail + events.enumerated().sorted { ($0.element.at, $0.offset) < ($1.element.at, $1.offset) }.map(\.element)
    }
}

extension AssignmentSummary {
    /// Whether it still waits for an answer after `deadline`: the dashboard's "overdue", the escalation's first step.
    public func isOverdue(now: Date, deadline: TimeInterval) -> Bool {
        progress == .waitingForAnswer && now.timeIntervalSince(createdAt) >= deadline
    }
}

extension Describer {
    /// A mentor's assignment row, named in full: `Kari Nordmann, Storgata 1, waiting for your answer, 2 hours`.
    public func mentorAssignmentRow(_ assignment: AssignmentSummary, now: Date) -> String {
        "\(whoAndWhere(assignment)), \(strings.assignmentState(assignment.progress, forMentor: true)), "
            + strings.waited(since: assignment.createdAt, until: assignment.respondedAt ?? now, answered: assignment.respondedAt != nil)
    }

    /// A coordinator's dashboard row: `Kari Nordmann, Storgata 1, Demo Mentor, waiting for an answer, 2 hours`,
    /// `…, 2 days, overdue` once it has waited past `overdueAfter`, and `…, no device shows notifications` while it
    /// waits for a mentor none of whose devices shows them (`mentorShowsNotifications` false).
    public func coordinatorAssignmentRow(
        _ assignment: AssignmentSummary, now: Date, overdueAfter: TimeInterval = .infinity,
        mentorShowsNotifications: Bool = true
    ) -> String {
        "\(whoAndWhere(assignment)), \(assignment.mentorName), "
            + "\(strings.assignmentState(assignment.progress, forMentor: false)), "
            + strings.waited(since: assignment.createdAt, until: assignment.respondedAt ?? now, answered: assignment.respondedAt != nil)
            + (assignment.isOverdue(now: now, deadline: overdueAfter) ? ", \(strings.overdue)" : "")
            + (assignment.progress == .waitingForAnswer && !mentorShowsNotifications ? ", \(strings.noDeviceShowsNotifications)" : "")
    }

    /// The person visited and where: `Kari Nordmann, Storgata 1`, or `details removed` once erased.
    public func whoAndWhere(_ assignment: AssignmentSummary) -> String {
        assignment.detailsRemovedAt == nil ? "\(assignment.contactName), \(assignment.address)" : strings.detailsRemovedShort
    }

    /// One audit-trail line: `Read by the mentor, 23 November at 10:05`.
    public func trailLine(_ event: AssignmentEvent) -> String {
        let step = event.mentorName.map(strings.reassigned(to:)) ?? strings.trailStep(event.step)
        return "\(step), \(strings.dateAndTime(event.at, timeZone: RelativeTime(language: language).calendar.timeZone))"
    }
}
