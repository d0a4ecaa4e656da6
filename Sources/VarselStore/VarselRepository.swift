import Foundation
import VarselCore

/// Everything Varsel keeps: users, sessions, notifications, contacts, assignments, certifications, preferences
/// and the event log the live stream resumes from.
///
/// Each method is one consistent transaction. Every method that changes a notification also appends the
/// matching events (created, updated, deleted, and the recipient's new unread count) in the same transaction,
/// so the event log never disagrees with the notifications. Implementations: the SQLite store (on a file, or in
/// memory for tests) and the PostgreSQL store; the contract tests hold them to the same behaviour.
public protocol VarselRepository: PushStore, PasskeyStore, Sendable {
    // MARK: Users
    /// Creates a user and records it in their change log as done by `actorID` (nil: the command line), with a
    /// one-time password link when `link` is given; throws ``StoreError/conflict(_:)`` for a taken username.
    func createUser(_ user: NewUser, link: PasswordLink?, by actorID: UserID?, at date: Date) async throws -> User
    func user(id: UserID) async throws -> User?
    func user(username: String) async throws -> User?
    func users() async throws -> [User]
    /// Sets or clears a mentor's pause: in force from `from` (nil: at once) until `until` (nil: no pause).
    func setPause(from: Date?, until: Date?, userID: UserID) async throws
    /// Sets the language a user reads Varsel in.
    func setLanguage(_ language: Language, userID: UserID) async throws

    // MARK: Accounts
    /// Makes `change` to `userID`'s account and appends `log` to its change log, in one transaction; throws
    /// ``StoreError/notFound(_:)`` for an unknown user.
    func changeAccount(userID: UserID, _ change: AccountChange, log: [NewAccountLogEntry], at date: Date) async throws -> AccountChangeOutcome
    /// The active user a one-time password link is for, while it is unused and unexpired at `date`.
    func passwordLinkUser(tokenHash: String, at date: Date) async throws -> User?
    /// Sets the password through a one-time link, once: the link is used up, every session of the user ends, and
    /// the change log records it. Returns nil, changing nothing, when the link is unknown, used or expired, or the
    /// account is deactivated.
    func usePasswordLink(tokenHash: String, passwordHash: String, at date: Date) async throws -> User?
    /// `userID`'s change log, oldest first.
    func accountLog(userID: UserID) async throws -> [AccountLogEntry]

    // MARK: Sessions
    func createSession(_ session: Session) async throws
    func session(tokenHash: String, at date: Date) async throws -> Session?
    func deleteSession(tokenHash: String) async throws
    /// `userID`'s sessions, oldest first (for their own data export).
    func sessions(userID: UserID) async throws -> [Session]
    func deleteExpiredSessions(at date: Date) async throws -> Int
    /// Replaces `userID`'s password hash, deletes every session of theirs except `keptSession` (a token hash) and
    /// records the change in their change log as their own, in one transaction; returns the token hashes of the
    /// sessions deleted.
    func changePassword(userID: UserID, passwordHash: String, keeping keptSession: String?, at date: Date) async throws -> [String]

    // MARK: Notifications
    /// Creates one notification per entry, or, when `idempotencyKey` was used before by the same sender with the
    /// same fingerprint, returns the ones it created then and creates nothing.
    /// Throws ``StoreError/idempotencyKeyReused`` when the key came with a different request.
    /// More than ``FanOut/chunkSize`` are written as a fan-out, a chunk per transaction; this returns once all are.
    func createNotifications(_ notifications: [NewNotification], idempotencyKey: IdempotencyKey?, at date: Date) async throws -> CreatedNotifications
    /// Finishes every fan-out started before `date` that is not finished (its request was cut short), and forgets the
    /// finished ones started before it; returns how many notifications it wrote.
    func finishFanOuts(startedBefore date: Date) async throws -> Int
    func notification(id: NotificationID) async throws -> NotificationItem?
    /// A page of `userID`'s notifications passing `filter`, newest first, starting after `cursor`.
    func notifications(for userID: UserID, filter: NotificationFilter, after cursor: NotificationID?, limit: Int) async throws -> NotificationPage
    func unreadCount(for userID: UserID) async throws -> Int
    /// Marks the notification read (or unread); nil when it is not `userID`'s. Unchanged state writes no event.
    func setRead(_ isRead: Bool, notificationID: NotificationID, userID: UserID, at date: Date) async throws -> NotificationItem?
    /// Marks every unread notification of `userID` read; returns how many changed (0: nothing to do).
    func markAllRead(userID: UserID, at date: Date) async throws -> Int
    /// Marks the listed notifications of `userID` read; ids that are not theirs are ignored. Returns how many changed.
    func markRead(ids: [NotificationID], userID: UserID, at date: Date) async throws -> Int
    /// Deletes the listed notifications of `userID`; returns how many were deleted.
    func delete(ids: [NotificationID], userID: UserID, at date: Date) async throws -> Int

    // MARK: Preferences
    func preferences(for userID: UserID) async throws -> NotificationPreferences
    func setPreferences(_ preferences: NotificationPreferences, for userID: UserID) async throws

    // MARK: Contacts and assignments
    /// Creates the contact, the assignment and its notification together; `makeNotification` builds the
    /// notification from the new contact and assignment ids.
    func createAssignment(
        mentorID: UserID, coordinatorID: UserID?, contact: NewContact, at date: Date,
        makeNotification: @Sendable (_ contactID: ContactID, _ assignmentID: AssignmentID) -> NewNotification
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
    func recordEscalation(assignmentID: AssignmentID, step: EscalationStep, notification: NewNotification, at date: Date) async throws -> NotificationItem?
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
    /// The contacts not yet erased that have assignments, none of them live, the last closed (declined, done or
    /// given to another mentor) before `date`.
    func contactsClosed(before date: Date) async throws -> [ContactID]

    // MARK: Data keys
    /// Re-encrypts under the current data key up to `limit` stored personal details that are sealed under an older
    /// key or still plain; returns how many. A store without keys does nothing.
    func resealStale(limit: Int) async throws -> Int
    /// How many stored values each data key seals, by key id.
    func sealedValueCounts() async throws -> [String: Int]
    /// Records the mentor's answer; throws ``StoreError/alreadyResponded(_:)`` when answered before and
    /// ``StoreError/notAllowed(_:)`` when the assignment was given to another mentor.
    func respond(to assignmentID: AssignmentID, status: AssignmentStatus, at date: Date) async throws -> Assignment
    /// Gives an assignment's contact to another mentor in one transaction: the old assignment is marked reassigned
    /// (its mentor's access ends), a new one for `mentorID` replaces it, and its notification is created.
    /// Throws ``StoreError/notAllowed(_:)`` for a done or already reassigned assignment.
    func reassign(
        assignmentID: AssignmentID, to mentorID: UserID, at date: Date,
        makeNotification: @Sendable (_ contactID: ContactID, _ assignmentID: AssignmentID) -> NewNotification
    ) async throws -> (Assignment, NotificationItem)
    /// Marks an acknowledged assignment's visit done with the mentor's short note; throws
    /// ``StoreError/notAllowed(_:)`` unless it is acknowledged and still the mentor's.
    func completeVisit(assignmentID: AssignmentID, note: String, at date: Date) async throws -> Assignment
    /// Records when the assignment told by `notificationID` first reached its mentor on a live stream; later
    /// deliveries change nothing.
    func recordLiveDelivery(notificationID: NotificationID, at date: Date) async throws

    // MARK: Sign-in throttling, shared by every instance on the store
    /// The failed sign-ins counted under each of `keys` whose last failure is at or after `since`.
    func signInFailures(keys: [String], since: Date) async throws -> [String: SignInFailures]
    /// Counts one failed sign-in under each of `keys` at `date`; a count whose last failure is before `forgetBefore`
    /// starts again at one, and such stale counts are removed.
    func recordSignInFailure(keys: [String], at date: Date, forgetBefore: Date) async throws
    /// Forgets the failures counted under `key` (its password was right).
    func clearSignInFailures(key: String) async throws

    // MARK: Scenarios
    /// Publishes a training scenario to `mentorIDs` with one notification each: the scenario, its mentors and the
    /// first notifications in one transaction, the rest of a fan-out (``FanOut``) after it.
    func publishScenario(
        title: String, body: String, coordinatorID: UserID?, mentorIDs: [UserID], at date: Date,
        makeNotification: @Sendable (_ scenarioID: Int64, _ mentorID: UserID) -> NewNotification
    ) async throws -> (Scenario, [NotificationItem])
    /// A mentor's scenarios, newest first.
    func scenarios(forMentor mentorID: UserID) async throws -> [MentorScenario]
    /// Every scenario, newest first, with each mentor's copy (the coordinators' view).
    func allScenarios() async throws -> [(Scenario, [MentorScenario])]
    /// Marks a mentor's scenario done with their reflection (a later call replaces the reflection, keeping the
    /// first time); throws ``StoreError/notFound(_:)`` when it was not published to them.
    func completeScenario(scenarioID: Int64, mentorID: UserID, reflection: String, at date: Date) async throws -> MentorScenario

    // MARK: Certifications
    func certifications(mentorID: UserID) async throws -> [Certification]
    /// Every certification expiring before `date`.
    func certifications(expiringBefore date: Date) async throws -> [Certification]
    /// Records that the warning `threshold` days before expiry was sent, and creates its notification — once:
    /// returns nil, creating nothing, when that warning was recorded before. `alsoCovers` lists larger
    /// thresholds the same warning makes unnecessary.
    func recordExpiryWarning(certificationID: Int64, threshold: Int, alsoCovers: [Int], notification: NewNotification, at date: Date) async throws -> NotificationItem?

    // MARK: Event log
    /// Events after `id` for every user, oldest first (the live stream's source).
    func events(after id: Int64, limit: Int) async throws -> [StoredEvent]
    /// Events after `id` for one user, oldest first (a reconnecting client's replay).
    func events(for userID: UserID, after id: Int64, limit: Int) async throws -> [StoredEvent]
    /// The newest event id, 0 when there is none.
    func latestEventID() async throws -> Int64
    /// The highest event id pruned so far; a client resuming from below it must reset.
    func prunedThroughEventID() async throws -> Int64
    /// Deletes events created before `date`; returns how many.
    func pruneEvents(before date: Date) async throws -> Int
    /// Whether every event this process appends reaches ``followCommittedEvents(_:)``'s followers as it commits, so
    /// that nobody need be woken to read it back. A store that says no is read by the pump after each wake-up.
    var publishesCommittedEvents: Bool { get }
    /// Calls `follower` with the events of each transaction of this process, right after it commits, in commit
    /// order; only when ``publishesCommittedEvents``.
    func followCommittedEvents(_ follower: @escaping @Sendable ([StoredEvent]) -> Void)
}

extension VarselRepository {
    /// Creates a user with a password (the command line, the demo), recorded as done by nobody in particular.
    public func createUser(_ user: NewUser, at date: Date) async throws -> User {
        try await createUser(user, link: nil, by: nil, at: date)
    }

    /// Replaces a mentor's certifications without a change log entry (the demo's data).
    public func setCertifications(_ certifications: [NewCertification], mentorID: UserID) async throws -> [Certification] {
        try await changeAccount(userID: mentorID, .certifications(certifications), log: [], at: Date()).certifications
    }

    public var publishesCommittedEvents: Bool { false }
    public func followCommittedEvents(_ follower: @escaping @Sendable ([StoredEvent]) -> Void) {}
}

extension VarselRepository {
    /// Re-encrypts under the current data key everything an older key sealed or that was stored before encryption
    /// began, `batch` values per transaction; returns how many.
    public func resealAllStale(batch: Int = 500) async throws -> Int {
        var total = 0
        while true {
            let count = try await resealStale(limit: batch)
            total += count
            if count < batch { return total }
        }
    }
}
