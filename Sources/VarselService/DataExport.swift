import Foundation
import VarselCore
import VarselStore

/// Everything Varsel stores about one person, as JSON-ready values: a user's own data (any user, for themself) and
/// a visited person's (admins only, recorded as a read of their details).
public struct DataExport: Sendable {
    /// What is stored about a user. Their sessions without tokens; their assignments without the visited people's
    /// details, which are not theirs.
    public struct PersonalData: Encodable, Sendable {
        public struct Account: Encodable, Sendable {
            var id: UserID
            var username: String
            var displayName: String
            var role: Role
            var language: Language
            var createdAt: Date
            var pausedFrom: Date?
            var pausedUntil: Date?
            var deactivatedAt: Date?
        }

        public struct SessionRecord: Encodable, Sendable {
            var createdAt: Date
            var expiresAt: Date
        }

        public struct PushRecord: Encodable, Sendable {
            var endpoint: String
            var createdAt: Date
        }

        public struct ChannelRecord: Encodable, Sendable {
            var channel: OutsideChannel
            var address: String
            var verifiedAt: Date?
        }

        public struct AssignmentRecord: Encodable, Sendable {
            var id: AssignmentID
            var status: AssignmentStatus
            var createdAt: Date
            var respondedAt: Date?
            var doneAt: Date?
            var reassignedAt: Date?
        }

        var exportedAt: Date
        var account: Account
        var preferences: NotificationPreferences
        var notifications: [NotificationItem]
        var scenarios: [MentorScenario]
        var certifications: [Certification]
        var assignments: [AssignmentRecord]
        var sessions: [SessionRecord]
        var pushSubscriptions: [PushRecord]
        /// Their mobile number and email address, and when each was verified.
        var channels: [ChannelRecord]
        var accountChanges: [AccountLogEntry]
    }

    /// What is stored about a visited person: their details, their assignments, the notifications about them,
    /// and who read the details.
    public struct ContactData: Encodable, Sendable {
        var exportedAt: Date
        var contact: Contact
        var assignments: [Assignment]
        var notifications: [NotificationItem]
        var reads: [ContactRead]
    }

    /// Only admins export a visited person's data.
    public struct Refused: Error, Sendable, Equatable {}

    let repository: any AssignmentStore & ContactChannelStore & NotificationStore & PushStore & TrainingStore & UserStore
    let now: @Sendable () -> Date

    /// Records the download of a contact's details as a read of them.
    let contactReads: any ContactReadRecorder

    public init(
        repository: any AssignmentStore & ContactChannelStore & NotificationStore & PushStore & TrainingStore & UserStore,
        contactReads: any ContactReadRecorder, now: @escaping @Sendable () -> Date
    ) {
        self.repository = repository
        self.contactReads = contactReads
        self.now = now
    }

    /// Everything stored about `user`, for themself.
    public func personalData(of user: User) async throws -> PersonalData {
        var notifications: [NotificationItem] = []
        var cursor: NotificationID?
        repeat {
            let page = try await repository.notifications(for: user.id, filter: .all, after: cursor, limit: 500)
            notifications += page.items
            cursor = page.nextCursor
        } while cursor != nil
        return PersonalData(
            exportedAt: now(),
            account: .init(
                id: user.id, username: user.username, displayName: user.displayName, role: user.role, language: user.language,
                createdAt: user.createdAt, pausedFrom: user.pausedFrom, pausedUntil: user.pausedUntil, deactivatedAt: user.deactivatedAt),
            preferences: try await repository.preferences(for: user.id),
            notifications: notifications,
            scenarios: try await repository.scenarios(forMentor: user.id),
            certifications: try await repository.certifications(mentorID: user.id),
            assignments: try await repository.assignments(.mentor(user.id, scope: .all)).map {
                .init(
                    id: $0.id, status: $0.status, createdAt: $0.createdAt, respondedAt: $0.respondedAt, doneAt: $0.doneAt,
                    reassignedAt: $0.reassignedAt)
            },
            sessions: try await repository.sessions(userID: user.id).map { .init(createdAt: $0.createdAt, expiresAt: $0.expiresAt) },
            pushSubscriptions: try await repository.pushSubscriptions(for: user.id).map { .init(endpoint: $0.endpoint, createdAt: $0.createdAt) },
            channels: try await repository.contactChannels(of: user.id).map {
                .init(channel: $0.channel, address: $0.address, verifiedAt: $0.verifiedAt)
            },
            accountChanges: try await repository.accountLog(userID: user.id))
    }

    /// Everything stored about contact `contactID`, for an admin; the download is recorded as a read of the details.
    public func contactData(_ contactID: ContactID, for user: User, sendsDetails: Bool = true) async throws -> ContactData {
        guard user.role == .admin, let contact = try await repository.contact(id: contactID) else { throw Refused() }
        let assignments = try await repository.assignments(AssignmentListing(contactID: contactID))
        var notifications: [NotificationItem] = []
        for id in assignments.compactMap(\.notificationID) {
            if let item = try await repository.notification(id: id) { notifications.append(item) }
        }
        // A look that sends none of the details (an HTTP `HEAD`) records no read.
        if contact.erasedAt == nil, sendsDetails {
            try await contactReads.recordRead(contactID: contactID, by: user.id, through: .export)
        }
        return ContactData(
            exportedAt: now(), contact: contact, assignments: assignments, notifications: notifications,
            reads: try await repository.contactReads(contactID: contactID))
    }
}
