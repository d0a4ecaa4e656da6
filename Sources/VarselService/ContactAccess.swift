import Foundation
import VarselCore
import VarselStore

/// Who may see an assignment and its contact's personal details: the mentor while the assignment is live (not
/// declined, done or reassigned), the coordinator who manages it, and admins. The one place this is decided.
///
/// Every read of a contact's personal details goes through ``read(contactID:by:through:)``, which records who read
/// them, when and where; the contact's coordinator and admins see that record (``reads(of:for:)``).
public struct ContactAccess: ContactReadRecorder {
    let repository: any AssignmentStore
    let now: @Sendable () -> Date

    public init(repository: any AssignmentStore, now: @escaping @Sendable () -> Date = { Date() }) {
        self.repository = repository
        self.now = now
    }

    /// The contact's details for `user`, when they may see them, recording the read; nil otherwise (and nothing
    /// is recorded). `sendsDetails: false` is a look that sends none of them (an HTTP `HEAD`), which records nothing.
    public func read(contactID: ContactID, by user: User, through channel: ContactReadChannel, sendsDetails: Bool = true) async throws -> Contact? {
        guard try await canSee(contactID: contactID, user: user), let contact = try await repository.contact(id: contactID) else { return nil }
        // An erased contact has no details left to read.
        if contact.erasedAt == nil, sendsDetails {
            try await recordRead(contactID: contactID, by: user.id, through: channel)
        }
        return contact
    }

    public func recordRead(contactID: ContactID, by userID: UserID, through channel: ContactReadChannel) async throws {
        try await repository.recordContactRead(contactID: contactID, userID: userID, channel: channel, at: now())
    }

    /// Assignment `id` as stored, before anyone's access is checked (``canSee(_:user:)`` decides).
    public func assignment(_ id: AssignmentID) async throws -> Assignment? {
        try await repository.assignment(id: id)
    }

    /// When the contact's personal details were erased; nil while they are kept. Reads no personal detail.
    public func erasedAt(contactID: ContactID) async throws -> Date? {
        try await repository.contact(id: contactID)?.erasedAt
    }

    /// Who read the contact's details, oldest first, for the coordinator who manages one of its assignments or an
    /// admin; nil for anyone else.
    public func reads(of contactID: ContactID, for user: User) async throws -> [ContactRead]? {
        guard user.role != .mentor, try await canSee(contactID: contactID, user: user) else { return nil }
        return try await repository.contactReads(contactID: contactID)
    }

    /// Whether `user` may see the contact with id `contactID`.
    public func canSee(contactID: ContactID, user: User) async throws -> Bool {
        switch user.role {
        case .admin: return true
        case .coordinator: return try await !repository.assignments(AssignmentListing(coordinatorID: user.id, contactID: contactID)).isEmpty
        case .mentor: return try await !repository.assignments(AssignmentListing(scope: .live, mentorID: user.id, contactID: contactID)).isEmpty
        }
    }

    /// Whether `user` may see the assignment: its mentor (even after it closed, without the contact), the
    /// coordinator who manages it, or an admin.
    public func canSee(_ assignment: Assignment, user: User) -> Bool {
        switch user.role {
        case .admin: true
        case .coordinator: assignment.coordinatorID == user.id
        case .mentor: assignment.mentorID == user.id
        }
    }

    /// Whether `user` may change who has the assignment: the coordinator who manages it, or an admin.
    public func canManage(_ assignment: Assignment, user: User) -> Bool {
        user.role != .mentor && canSee(assignment, user: user)
    }

}
