import Foundation
import VarselCore
import VarselStore

/// Assignments as the core describes them (``AssignmentSummary``), for the mentor's lists, the coordinator's
/// dashboard and the JSON API alike: contact, mentor, read, delivery and escalation times, and the history of the
/// reassignments before.
public struct AssignmentReports: Sendable {
    let repository: any AssignmentStore
    let contactAccess: ContactAccess

    public init(repository: any AssignmentStore, contactAccess: ContactAccess) {
        self.repository = repository
        self.contactAccess = contactAccess
    }

    /// A mentor's own assignments, as the core describes them, without those given to another mentor.
    public func mentorSummaries(of user: User) async throws -> [AssignmentSummary] {
        try await summaries(.mentor(user.id, scope: .current))
    }

    /// A mentor's live assignments (waiting for an answer or acknowledged), as the core describes them.
    public func liveSummaries(ofMentor mentorID: UserID) async throws -> [AssignmentSummary] {
        try await summaries(.mentor(mentorID, scope: .live))
    }

    /// The assignment that now stands for `assignment`: itself, or the last of the reassignments that replaced it.
    public func currentAssignment(replacing assignment: Assignment) async throws -> Assignment {
        guard assignment.reassignedAt != nil else { return assignment }
        let all = try await repository.assignments(AssignmentListing(contactID: assignment.contactID))
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
        switch user.role {
        case .mentor: []
        case .coordinator: try await summaries(AssignmentListing(scope: .current, coordinatorID: user.id))
        case .admin: try await summaries(AssignmentListing(scope: .current))
        }
    }

    /// The summaries of these assignments, in the order given.
    public func assignmentSummaries(_ assignments: [Assignment]) async throws -> [AssignmentSummary] {
        guard !assignments.isEmpty else { return [] }
        let made = Dictionary(uniqueKeysWithValues: try await summaries(.ids(assignments.map(\.id))).map { ($0.id, $0) })
        return assignments.compactMap { made[$0.id] }
    }

    /// The assignments `listing` holds as the core describes them: contact, mentor, read, delivery and escalation
    /// times, and for a reassignment the history of those it replaced. One query reads the list; one more per step
    /// back along the reassignments, when there are any.
    public func summaries(_ listing: AssignmentListing) async throws -> [AssignmentSummary] {
        let rows = try await repository.assignmentReports(listing)
        var known = Dictionary(rows.map { ($0.assignment.id, $0) }, uniquingKeysWith: { first, _ in first })
        // Read the earlier assignments of the reassigned ones, a step back at a time; the chain is short, and the bound
        // keeps a damaged one from looping.
        var wanted = Set(rows.compactMap(\.assignment.previousID)).subtracting(known.keys)
        for _ in 0..<20 where !wanted.isEmpty {
            let earlier = try await repository.assignmentReports(.ids(Array(wanted)))
            for row in earlier { known[row.assignment.id] = row }
            wanted = Set(earlier.compactMap(\.assignment.previousID)).subtracting(known.keys)
        }
        func summary(_ row: AssignmentReportRow, depth: Int) -> AssignmentSummary {
            let assignment = row.assignment
            var earlierTrail: [AssignmentEvent] = []
            if let previousID = assignment.previousID, depth < 20, let previous = known[previousID] {
                earlierTrail = summary(previous, depth: depth + 1).trail
            }
            let progress: AssignmentProgress =
                switch assignment.status {
                case .pending: .waitingForAnswer
                case .acknowledged: .acknowledged
                case .declined: .declined
                case .done: .done
                }
            return AssignmentSummary(
                id: assignment.id, contactID: assignment.contactID, contactName: row.contactName, address: row.contactAddress,
                mentorID: assignment.mentorID, mentorName: row.mentorName, progress: progress, createdAt: assignment.createdAt,
                respondedAt: assignment.respondedAt, readAt: row.readAt, wasRemindedAt: row.escalations[.mentorReminded],
                wasEscalatedAt: row.escalations[.coordinatorTold],
                textMessageSentAt: row.escalations[.textMessageSent], emailSentAt: row.escalations[.emailSent], deliveredAt: assignment.deliveredAt,
                doneAt: assignment.doneAt,
                visitNote: assignment.visitNote, earlierTrail: earlierTrail, detailsRemovedAt: row.contactErasedAt)
        }
        return rows.map { summary($0, depth: 0) }
    }
}
