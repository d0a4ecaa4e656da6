import Foundation
import VarselCore
import VarselStore

/// Assignments as the core describes them (``AssignmentSummary``), for the mentor's lists, the coordinator's
/// dashboard and the JSON API alike: contact, mentor, read, delivery and escalation times, and the history of the
/// reassignments before.
public struct AssignmentReports: Sendable {
    let repository: any VarselRepository
    let contactAccess: ContactAccess

    public init(repository: any VarselRepository, contactAccess: ContactAccess) {
        self.repository = repository
        self.contactAccess = contactAccess
    }

    /// A mentor's own assignments, as the core describes them, without those given to another mentor.
    public func mentorSummaries(of user: User) async throws -> [AssignmentSummary] {
        try await assignmentSummaries(try await repository.assignments(forMentor: user.id).filter { $0.reassignedAt == nil })
    }

    /// The assignment that now stands for `assignment`: itself, or the last of the reassignments that replaced it.
    public func currentAssignment(replacing assignment: Assignment) async throws -> Assignment {
        guard assignment.reassignedAt != nil else { return assignment }
        let all = try await repository.allAssignments()
        var current = assignment
        // The chain is short; the bound keeps a damaged one from looping.
        for _ in 0..<20 {
            guard current.reassignedAt != nil, let next = all.first(where: { $0.previousID == current.id }) else { break }
            current = next
        }
        return current
    }

    /// The current assignments `user` manages, as the core describes them: a coordinator's own, all for an admin;
    /// a reassigned one is shown through the assignment that replaced it.
    public func managedSummaries(of user: User) async throws -> [AssignmentSummary] {
        let all = try await repository.allAssignments()
        let byID = Dictionary(uniqueKeysWithValues: all.map { ($0.id, $0) })
        let managed = all.filter { $0.reassignedAt == nil && contactAccess.canManage($0, user: user) }
        return try await assignmentSummaries(managed, earlier: byID)
    }

    /// The store's assignments as the core describes them: contact, mentor, read, delivery and escalation times,
    /// and for a reassignment the history of those it replaced (`earlier` holds them, by id, when already read).
    public func assignmentSummaries(_ assignments: [Assignment], earlier: [Int64: Assignment] = [:]) async throws -> [AssignmentSummary] {
        var summaries: [AssignmentSummary] = []
        var mentors: [Int64: String] = [:]
        var contacts: [Int64: Contact] = [:]
        func summary(_ assignment: Assignment, depth: Int) async throws -> AssignmentSummary? {
            if contacts[assignment.contactID] == nil { contacts[assignment.contactID] = try await repository.contact(id: assignment.contactID) }
            guard let contact = contacts[assignment.contactID] else { return nil }
            if mentors[assignment.mentorID] == nil {
                mentors[assignment.mentorID] = try await repository.user(id: assignment.mentorID)?.displayName ?? ""
            }
            var readAt: Date?
            if let notificationID = assignment.notificationID { readAt = try await repository.notification(id: notificationID)?.readAt }
            let steps = try await repository.escalations(assignmentID: assignment.id)
            var earlierTrail: [AssignmentEvent] = []
            // The chain of reassignments is short; the bound keeps a damaged chain from looping.
            if let previousID = assignment.previousID, depth < 20 {
                let previous: Assignment? = if let known = earlier[previousID] { known } else { try await repository.assignment(id: previousID) }
                if let previous, let before = try await summary(previous, depth: depth + 1) { earlierTrail = before.trail }
            }
            let progress: AssignmentProgress = switch assignment.status {
            case .pending: .waitingForAnswer
            case .acknowledged: .acknowledged
            case .declined: .declined
            case .done: .done
            }
            return AssignmentSummary(
                id: assignment.id, contactID: assignment.contactID, contactName: contact.name, address: contact.address,
                mentorID: assignment.mentorID, mentorName: mentors[assignment.mentorID] ?? "", progress: progress, createdAt: assignment.createdAt,
                respondedAt: assignment.respondedAt, readAt: readAt, wasRemindedAt: steps[.mentorReminded], wasEscalatedAt: steps[.coordinatorTold],
                deliveredAt: assignment.deliveredAt, doneAt: assignment.doneAt, visitNote: assignment.visitNote, earlierTrail: earlierTrail,
                detailsRemovedAt: contact.erasedAt)
        }
        for assignment in assignments {
            if let made = try await summary(assignment, depth: 0) { summaries.append(made) }
        }
        return summaries
    }
}
