import Foundation
import VarselCore

/// Contacts, the assignments that send mentors to them, their answers, escalations and who read them.
///
/// A contact's personal details are sealed under the data key; every read of them is recorded by the caller.
public protocol AssignmentStore: Sendable {
    // MARK: Contacts and assignments
    /// Creates the contact, the assignment and its notification together; `makeNotification` builds the
    /// notification from the new contact and assignment ids.
    func createAssignment(
        mentorID: UserID, coordinatorID: UserID?, contact: NewContact, at date: Date,
        makeNotification: @escaping @Sendable (_ contactID: ContactID, _ assignmentID: AssignmentID) -> NewNotification
    ) async throws -> (Assignment, Contact, NotificationItem)
    func assignment(id: AssignmentID) async throws -> Assignment?
    /// The assignments `listing` holds, newest first, filtered in the store.
    func assignments(_ listing: AssignmentListing) async throws -> [Assignment]
    /// The assignments `listing` holds, newest first, each with what its summary needs from the contact, the mentor,
    /// the notification and the escalations: one query for the whole list.
    func assignmentReports(_ listing: AssignmentListing) async throws -> [AssignmentReportRow]
    /// Assignments still waiting for an answer (and not reassigned) that were created before `date`, oldest first.
    func pendingAssignments(createdBefore date: Date) async throws -> [Assignment]
    /// Records that escalation `step` happened for an assignment and creates its notification — once: returns
    /// nil, creating nothing, when that step was recorded before (by this instance or another).
    func recordEscalation(assignmentID: AssignmentID, step: EscalationStep, notification: NewNotification, at date: Date) async throws
        -> NotificationItem?
    /// When each escalation step of an assignment happened.
    func escalations(assignmentID: AssignmentID) async throws -> [EscalationStep: Date]
    func contact(id: ContactID) async throws -> Contact?
    /// Records that `userID` read contact `contactID`'s personal details through `channel`.
    func recordContactRead(contactID: ContactID, userID: UserID, channel: ContactReadChannel, at date: Date) async throws
    /// Who read contact `contactID`'s details, oldest first.
    func contactReads(contactID: ContactID) async throws -> [ContactRead]
    /// Deletes the records of reads before `date`; returns how many.
    func pruneContactReads(before date: Date) async throws -> Int
    /// Erases contact `contactID`'s personal details everywhere they were copied, in one transaction: the contact's
    /// fields (`erasedAt` set), its assignments' visit notes, and each of its assignments' notifications — title
    /// replaced by `titles[recipient's language]`, body and personal details emptied, the copies in the event log
    /// rewritten, queued pushes dropped, and a `notification.updated` event appended. Returns the notifications as
    /// they are now; nil for an unknown contact. Erasing twice changes nothing more.
    func eraseContact(contactID: ContactID, titles: [Language: String], at date: Date) async throws -> [NotificationItem]?
    /// Erases, as ``eraseContact(contactID:titles:at:)`` does, each contact whose key the people's key store
    /// (``PersonKeyring``) says was destroyed, as of its destruction (a database restored from a backup taken before
    /// the erasure), and destroys the keys of erased contacts still live; returns how many contacts it erased. Changes
    /// nothing without people's keys.
    func erasePeopleWithDestroyedKeys(titles: [Language: String], at date: Date) async throws -> Int
    /// The contacts not yet erased that have assignments, none of them live, the last closed (declined, done or
    /// given to another mentor) before `date`.
    func contactsClosed(before date: Date) async throws -> [ContactID]

    // MARK: Answers and visits
    /// Records the mentor's answer; throws ``StoreError/alreadyResponded(_:)`` when answered before and
    /// ``StoreError/notAllowed(_:)`` when the assignment was given to another mentor.
    func respond(to assignmentID: AssignmentID, status: AssignmentStatus, at date: Date) async throws -> Assignment
    /// Gives an assignment's contact to another mentor in one transaction: the old assignment is marked reassigned
    /// (its mentor's access ends), a new one for `mentorID` replaces it, and its notification is created.
    /// Throws ``StoreError/notAllowed(_:)`` for a done or already reassigned assignment.
    func reassign(
        assignmentID: AssignmentID, to mentorID: UserID, at date: Date,
        makeNotification: @escaping @Sendable (_ contactID: ContactID, _ assignmentID: AssignmentID) -> NewNotification
    ) async throws -> (Assignment, NotificationItem)
    /// Marks an acknowledged assignment's visit done with the mentor's short note; throws
    /// ``StoreError/notAllowed(_:)`` unless it is acknowledged and still the mentor's.
    func completeVisit(assignmentID: AssignmentID, note: String, at date: Date) async throws -> Assignment
    /// Records when the assignment told by `notificationID` first reached its mentor on a live stream; later
    /// deliveries change nothing.
    func recordLiveDelivery(notificationID: NotificationID, at date: Date) async throws
}
