import Foundation
import VarselCore
import VarselStore

/// What a mentor does with an assignment given to them: acknowledge it, decline it, mark the visit done.
///
/// The one place that decides who may answer an assignment: only the mentor it was given to, from the web page, the
/// JSON API or a push notification's "Acknowledge" button alike.
public struct AssignmentAnswers: Sendable {
    /// Why an answer was refused: the assignment does not exist, or it is another mentor's.
    public enum Refusal: Error, Sendable, Equatable {
        case notFound
        case notTheAssignedMentor
    }

    let repository: any AssignmentStore
    let now: @Sendable () -> Date

    public init(repository: any AssignmentStore, now: @escaping @Sendable () -> Date) {
        self.repository = repository
        self.now = now
    }

    /// Refuses unless `mentorID` is the mentor `assignment` was given to: the rule itself, for a caller that has
    /// read the assignment already.
    public func requireGiven(_ assignment: Assignment, to mentorID: UserID) throws(Refusal) {
        guard assignment.mentorID == mentorID else { throw Refusal.notTheAssignedMentor }
    }

    /// The assignment `assignmentID` when `mentorID` is the mentor it was given to.
    public func assignment(_ assignmentID: AssignmentID, givenTo mentorID: UserID) async throws -> Assignment {
        guard let assignment = try await repository.assignment(id: assignmentID) else { throw Refusal.notFound }
        try requireGiven(assignment, to: mentorID)
        return assignment
    }

    /// Acknowledges or declines the assignment for its mentor. Throws ``StoreError/alreadyResponded(_:)`` when it
    /// was answered before.
    public func answer(_ assignmentID: AssignmentID, with status: AssignmentStatus, by mentorID: UserID) async throws -> Assignment {
        try await answer(try await assignment(assignmentID, givenTo: mentorID), with: status, by: mentorID)
    }

    /// ``answer(_:with:by:)`` for an assignment already read.
    public func answer(_ assignment: Assignment, with status: AssignmentStatus, by mentorID: UserID) async throws -> Assignment {
        try requireGiven(assignment, to: mentorID)
        return try await repository.respond(to: assignment.id, status: status, at: now())
    }

    /// Marks the visit done with the mentor's note (validated here), which closes the assignment.
    public func completeVisit(_ assignmentID: AssignmentID, note: String, by mentorID: UserID) async throws -> Assignment {
        try await completeVisit(try await assignment(assignmentID, givenTo: mentorID), note: note, by: mentorID)
    }

    /// ``completeVisit(_:note:by:)`` for an assignment already read.
    public func completeVisit(_ assignment: Assignment, note: String, by mentorID: UserID) async throws -> Assignment {
        try requireGiven(assignment, to: mentorID)
        let note = try Validation.visitNote(note)
        return try await repository.completeVisit(assignmentID: assignment.id, note: note, at: now())
    }
}
