import Foundation
import Testing
import Logging
import PostgresNIO
import VarselCore
import VarselPostgres
import VarselSQLite
import VarselStore

/// The stores Varsel can run on; the contract holds every one of them to the same behaviour.
///
/// PostgreSQL joins when `VARSEL_TEST_POSTGRES_URL` names a server to create throwaway databases on
/// (`./scripts/test.sh` starts one); each test gets a database of its own.
enum StoreKind: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case sqlite
    /// The SQLite store over an in-memory GRDB queue: the same SQL, no file.
    case sqliteInMemory
    case postgres

    var testDescription: String { rawValue }

    static var allCases: [StoreKind] {
        let local: [StoreKind] = [.sqlite, .sqliteInMemory]
        return ProcessInfo.processInfo.environment["VARSEL_TEST_POSTGRES_URL"] == nil ? local : local + [.postgres]
    }

    /// A fresh, empty store; SQLite on a real file in a new temporary directory, PostgreSQL in a new database.
    func make() async throws -> any VarselRepository {
        switch self {
        case .sqlite:
            return try SQLiteRepository(path: try temporarySQLitePath("contract"))
        case .sqliteInMemory:
            return try SQLiteRepository.inMemory()
        case .postgres:
            return try await PostgresTestDatabase.make()
        }
    }
}

/// Throwaway databases on the test PostgreSQL server.
enum PostgresTestDatabase {
    static var serverURL: String? { ProcessInfo.processInfo.environment["VARSEL_TEST_POSTGRES_URL"] }

    /// A new, empty database with Varsel's schema, its personal details encrypted under `keys` when given.
    static func make(keys: DataKeyring? = nil) async throws -> PostgresRepository {
        guard let serverURL, var components = URLComponents(string: serverURL) else { throw PostgresURLError() }
        let name = "varsel_test_\(UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased())"
        let admin = PostgresClient(configuration: try PostgresRepository.configuration(from: serverURL), backgroundLogger: Logger(label: "test"))
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await admin.run() }
            try await admin.query(PostgresQuery(unsafeSQL: "CREATE DATABASE \(name)"))
            group.cancelAll()
        }
        components.path = "/" + name
        return try await PostgresRepository(url: components.string ?? serverURL, logger: Logger(label: "test"), keys: keys)
    }
}

@Suite("Store contract")
struct StoreContractTests {
    let now = DemoData.now

    func mentor(_ store: any VarselRepository, _ name: String = "mentor") async throws -> User {
        try await store.createUser(NewUser(username: name, displayName: name.capitalized, role: .mentor, passwordHash: "x", language: .english), at: now)
    }

    func note(_ recipient: UserID, title: String = "Title", kind: NotificationKind = .scenarioPrompt) -> NewNotification {
        NewNotification(recipientID: recipient, senderID: nil, kind: kind, title: title, body: "Body", deepLink: .scenario(scenarioID: nil))
    }

    @Test("users are unique by username, case-insensitively", arguments: StoreKind.allCases)
    func uniqueUsernames(kind: StoreKind) async throws {
        let store = try await kind.make()
        let created = try await mentor(store, "kari")
        #expect(try await store.user(username: "KARI")?.id == created.id)
        await #expect(throws: StoreError.conflict("username is taken")) { try await self.mentor(store, "Kari") }
        #expect(try await store.users().count == 1)
    }

    @Test("sessions expire and can be deleted", arguments: StoreKind.allCases)
    func sessions(kind: StoreKind) async throws {
        let store = try await kind.make()
        let user = try await mentor(store)
        let session = Session(tokenHash: "h", userID: user.id, csrfToken: "c", createdAt: now, expiresAt: now.addingTimeInterval(60))
        try await store.createSession(session)
        #expect(try await store.session(tokenHash: "h", at: now) == session)
        #expect(try await store.session(tokenHash: "h", at: now.addingTimeInterval(61)) == nil)
        #expect(try await store.deleteExpiredSessions(at: now.addingTimeInterval(61)) == 1)
        try await store.createSession(session)
        try await store.deleteSession(tokenHash: "h")
        #expect(try await store.session(tokenHash: "h", at: now) == nil)
    }

    @Test("changing a password replaces the hash and ends every other session of that user", arguments: StoreKind.allCases)
    func passwordChange(kind: StoreKind) async throws {
        let store = try await kind.make()
        let user = try await mentor(store)
        let other = try await store.createUser(NewUser(username: "other", displayName: "O", role: .mentor, passwordHash: "x", language: .english), at: now)
        for (hash, owner) in [("kept", user.id), ("ended", user.id), ("theirs", other.id)] {
            try await store.createSession(Session(tokenHash: hash, userID: owner, csrfToken: "c", createdAt: now, expiresAt: now.addingTimeInterval(60)))
        }
        #expect(try await store.changePassword(userID: user.id, passwordHash: "new-hash", keeping: "kept", at: now) == ["ended"])
        #expect(try await store.user(id: user.id)?.passwordHash == "new-hash")
        #expect(try await store.session(tokenHash: "kept", at: now) != nil)
        #expect(try await store.session(tokenHash: "ended", at: now) == nil)
        #expect(try await store.session(tokenHash: "theirs", at: now) != nil)
    }

    @Test("created notifications are listed newest first, filtered, and paged by cursor", arguments: StoreKind.allCases)
    func listing(kind: StoreKind) async throws {
        let store = try await kind.make()
        let user = try await mentor(store)
        let other = try await mentor(store, "other")
        let batch = (1...5).map { note(user.id, title: "N\($0)", kind: $0 % 2 == 0 ? .assignment : .scenarioPrompt) } + [note(other.id)]
        let created = try await store.createNotifications(batch, idempotencyKey: nil, at: now)
        #expect(created.items.count == 6)
        #expect(!created.isReplay)
        let first = try await store.notifications(for: user.id, filter: .all, after: nil, limit: 2)
        #expect(first.items.map(\.title) == ["N5", "N4"])
        let second = try await store.notifications(for: user.id, filter: .all, after: first.nextCursor, limit: 2)
        #expect(second.items.map(\.title) == ["N3", "N2"])
        let last = try await store.notifications(for: user.id, filter: .all, after: second.nextCursor, limit: 2)
        #expect(last.items.map(\.title) == ["N1"])
        #expect(last.nextCursor == nil)
        #expect(try await store.notifications(for: user.id, filter: .kind(.assignment), after: nil, limit: 10).items.map(\.title) == ["N4", "N2"])
        #expect(try await store.unreadCount(for: user.id) == 5)
        #expect(try await store.notification(id: created.items[0].id) == created.items[0])
    }

    @Test("an idempotency key returns the first result and creates nothing new; another body is refused", arguments: StoreKind.allCases)
    func idempotency(kind: StoreKind) async throws {
        let store = try await kind.make()
        let user = try await mentor(store)
        let key = IdempotencyKey(senderID: 99, key: "k1", fingerprint: "f1")
        let first = try await store.createNotifications([note(user.id)], idempotencyKey: key, at: now)
        let retry = try await store.createNotifications([note(user.id)], idempotencyKey: key, at: now.addingTimeInterval(5))
        #expect(retry.isReplay)
        #expect(retry.items == first.items)
        #expect(try await store.unreadCount(for: user.id) == 1)
        await #expect(throws: StoreError.idempotencyKeyReused) {
            try await store.createNotifications([self.note(user.id)], idempotencyKey: IdempotencyKey(senderID: 99, key: "k1", fingerprint: "f2"), at: self.now)
        }
        // The same key from another sender is a different key.
        let otherSender = try await store.createNotifications([note(user.id)], idempotencyKey: IdempotencyKey(senderID: 7, key: "k1", fingerprint: "f1"), at: now)
        #expect(!otherSender.isReplay)
    }

    @Test("a create naming an unknown recipient changes nothing", arguments: StoreKind.allCases)
    func unknownRecipient(kind: StoreKind) async throws {
        let store = try await kind.make()
        let user = try await mentor(store)
        await #expect(throws: StoreError.notFound(.recipient)) {
            try await store.createNotifications([self.note(user.id), self.note(12345)], idempotencyKey: nil, at: self.now)
        }
        #expect(try await store.notifications(for: user.id, filter: .all, after: nil, limit: 10).items.isEmpty)
        #expect(try await store.latestEventID() == 0)
    }

    @Test("read, unread, mark all and delete touch only the owner's notifications", arguments: StoreKind.allCases)
    func ownership(kind: StoreKind) async throws {
        let store = try await kind.make()
        let owner = try await mentor(store)
        let stranger = try await mentor(store, "stranger")
        let items = try await store.createNotifications([note(owner.id), note(owner.id), note(owner.id)], idempotencyKey: nil, at: now).items
        #expect(try await store.setRead(true, notificationID: items[0].id, userID: stranger.id, at: now) == nil)
        #expect(try await store.delete(ids: [items[0].id], userID: stranger.id, at: now) == 0)
        #expect(try await store.markRead(ids: items.map(\.id), userID: stranger.id, at: now) == 0)
        let read = try await store.setRead(true, notificationID: items[0].id, userID: owner.id, at: now)
        #expect(read?.readAt == now)
        #expect(try await store.setRead(false, notificationID: items[0].id, userID: owner.id, at: now)?.isUnread == true)
        #expect(try await store.markAllRead(userID: owner.id, at: now) == 3)
        #expect(try await store.markAllRead(userID: owner.id, at: now) == 0)
        #expect(try await store.delete(ids: [items[1].id, items[1].id], userID: owner.id, at: now) == 1)
        #expect(try await store.notification(id: items[1].id) == nil)
    }

    @Test("every change appends its events in order, with the new unread count", arguments: StoreKind.allCases)
    func eventLog(kind: StoreKind) async throws {
        let store = try await kind.make()
        let user = try await mentor(store)
        let other = try await mentor(store, "other")
        let item = try await store.createNotifications([note(user.id)], idempotencyKey: nil, at: now).items[0]
        _ = try await store.createNotifications([note(other.id)], idempotencyKey: nil, at: now)
        _ = try await store.setRead(true, notificationID: item.id, userID: user.id, at: now)
        _ = try await store.delete(ids: [item.id], userID: user.id, at: now)
        let mine = try await store.events(for: user.id, after: 0, limit: 100)
        #expect(mine.map(\.type) == [.notificationCreated, .unreadCount, .notificationUpdated, .unreadCount, .notificationDeleted, .unreadCount])
        #expect(mine.compactMap { if case let .unreadCount(count) = $0.payload { count } else { nil } } == [1, 0, 0])
        #expect(mine[0].payload == .notificationCreated(item))
        #expect(mine.allSatisfy { $0.notificationID == nil || $0.notificationID == item.id })
        #expect(zip(mine, mine.dropFirst()).allSatisfy { $0.id < $1.id })
        let all = try await store.events(after: 0, limit: 100)
        #expect(all.count == 8)
        #expect(try await store.latestEventID() == all.last?.id)
        #expect(try await store.events(after: all[3].id, limit: 2).map(\.id) == [all[4].id, all[5].id])
    }

    @Test("pruning old events records how far it went", arguments: StoreKind.allCases)
    func pruning(kind: StoreKind) async throws {
        let store = try await kind.make()
        let user = try await mentor(store)
        _ = try await store.createNotifications([note(user.id)], idempotencyKey: nil, at: now)
        _ = try await store.createNotifications([note(user.id)], idempotencyKey: nil, at: now.addingTimeInterval(3600))
        #expect(try await store.pruneEvents(before: now.addingTimeInterval(1)) == 2)
        #expect(try await store.prunedThroughEventID() == 2)
        #expect(try await store.events(for: user.id, after: 0, limit: 10).map(\.id) == [3, 4])
        #expect(try await store.latestEventID() == 4)
    }

    @Test("preferences default to the standard set and persist", arguments: StoreKind.allCases)
    func preferences(kind: StoreKind) async throws {
        let store = try await kind.make()
        let user = try await mentor(store)
        #expect(try await store.preferences(for: user.id) == .standard)
        var changed = NotificationPreferences.standard
        changed.isSoundEnabled = false
        changed.enabledKinds = [.assignment]
        try await store.setPreferences(changed, for: user.id)
        #expect(try await store.preferences(for: user.id) == changed)
    }

    @Test("an assignment is created with its contact and notification, and answered once", arguments: StoreKind.allCases)
    func assignments(kind: StoreKind) async throws {
        let store = try await kind.make()
        let user = try await mentor(store)
        let contact = NewContact(name: "Kari Nordmann", phone: "+47 1", address: "Storgata 1", notes: "n")
        let (assignment, stored, item) = try await store.createAssignment(mentorID: user.id, coordinatorID: nil, contact: contact, at: now) { contactID, assignmentID in
            NewNotification(recipientID: user.id, senderID: nil, kind: .assignment, title: "New assignment", body: "Visit",
                            deepLink: .contact(contactID: contactID, assignmentID: assignmentID), personalDetails: ["Kari Nordmann"])
        }
        #expect(item.deepLink == .contact(contactID: stored.id, assignmentID: assignment.id))
        #expect(try await store.assignment(id: assignment.id)?.notificationID == item.id)
        #expect(try await store.contact(id: stored.id)?.name == "Kari Nordmann")
        #expect(try await store.assignments(.mentor(user.id, scope: .all)).map(\.id) == [assignment.id])
        let answered = try await store.respond(to: assignment.id, status: .acknowledged, at: now)
        #expect(answered.status == .acknowledged)
        await #expect(throws: StoreError.alreadyResponded(.acknowledged)) {
            try await store.respond(to: assignment.id, status: .declined, at: self.now)
        }
        await #expect(throws: StoreError.notFound(.mentor)) {
            try await store.createAssignment(mentorID: 999, coordinatorID: nil, contact: contact, at: self.now) { _, _ in self.note(999) }
        }
    }

    @Test("an expiry warning is recorded exactly once per threshold", arguments: StoreKind.allCases)
    func expiryWarnings(kind: StoreKind) async throws {
        let store = try await kind.make()
        let user = try await mentor(store)
        let certs = try await store.setCertifications([NewCertification(name: "Peer mentor", expiresAt: now.addingTimeInterval(5 * 86400))], mentorID: user.id)
        #expect(try await store.certifications(expiringBefore: now.addingTimeInterval(30 * 86400)).map(\.id) == certs.map(\.id))
        let warning = note(user.id, kind: .certificationExpiry)
        #expect(try await store.recordExpiryWarning(certificationID: certs[0].id, threshold: 7, alsoCovers: [30], notification: warning, at: now) != nil)
        #expect(try await store.recordExpiryWarning(certificationID: certs[0].id, threshold: 7, alsoCovers: [30], notification: warning, at: now) == nil)
        #expect(try await store.recordExpiryWarning(certificationID: certs[0].id, threshold: 30, alsoCovers: [], notification: warning, at: now) == nil)
        #expect(try await store.unreadCount(for: user.id) == 1)
        // Re-recording the same certification keeps it (and its warnings).
        let again = try await store.setCertifications([NewCertification(name: "Peer mentor", expiresAt: now.addingTimeInterval(5 * 86400))], mentorID: user.id)
        #expect(again.map(\.id) == certs.map(\.id))
    }
}

@Suite("SQLite store on disk")
struct SQLiteDurabilityTests {
    @Test("data written survives closing and reopening the same file")
    func reopen() async throws {
        let path = try temporarySQLitePath("reopen")
        do {
            let store = try SQLiteRepository(path: path)
            let user = try await store.createUser(NewUser(username: "kari", displayName: "Kari", role: .mentor, passwordHash: "x", language: .norwegianBokmal), at: DemoData.now)
            _ = try await store.createNotifications(
                [NewNotification(recipientID: user.id, senderID: nil, kind: .pauseConfirmation, title: "Pause", body: "B", deepLink: .pause)],
                idempotencyKey: nil, at: DemoData.now)
        }
        let reopened = try SQLiteRepository(path: path)
        let user = try #require(try await reopened.user(username: "kari"))
        #expect(user.language == .norwegianBokmal)
        #expect(try await reopened.unreadCount(for: user.id) == 1)
        #expect(try await reopened.latestEventID() == 2)
    }
}

/// The assignment pipeline's part of the contract: escalation steps happen once, and pending assignments are found by age.
@Suite("Store contract: escalations")
struct EscalationContractTests {
    let now = DemoData.now

    @Test("each escalation step is recorded once with its notification; pending assignments are found by age", arguments: StoreKind.allCases)
    func escalationOnce(kind: StoreKind) async throws {
        let store = try await kind.make()
        let mentor = try await store.createUser(NewUser(username: "kari", displayName: "Kari", role: .mentor, passwordHash: "x", language: .english), at: now)
        let (assignment, _, _) = try await store.createAssignment(
            mentorID: mentor.id, coordinatorID: nil, contact: NewContact(name: "N", phone: "", address: "A", notes: ""), at: now
        ) { contactID, assignmentID in
            NewNotification(recipientID: mentor.id, senderID: nil, kind: .assignment, title: "New assignment", body: "b",
                            deepLink: .contact(contactID: contactID, assignmentID: assignmentID))
        }
        #expect(try await store.pendingAssignments(createdBefore: now).isEmpty)
        #expect(try await store.pendingAssignments(createdBefore: now.addingTimeInterval(1)).map(\.id) == [assignment.id])
        #expect(try await store.assignments(.everything).map(\.id) == [assignment.id])
        let reminder = NewNotification(recipientID: mentor.id, senderID: nil, kind: .assignment, title: "Reminder", body: "", urgency: .urgent,
                                       deepLink: .contact(contactID: assignment.contactID, assignmentID: assignment.id))
        let later = now.addingTimeInterval(86400)
        let first = try await store.recordEscalation(assignmentID: assignment.id, step: .mentorReminded, notification: reminder, at: later)
        #expect(first?.title == "Reminder")
        #expect(try await store.recordEscalation(assignmentID: assignment.id, step: .mentorReminded, notification: reminder, at: later) == nil)
        #expect(try await store.escalations(assignmentID: assignment.id) == [.mentorReminded: later])
        #expect(try await store.unreadCount(for: mentor.id) == 2)
        _ = try await store.respond(to: assignment.id, status: .acknowledged, at: later)
        #expect(try await store.pendingAssignments(createdBefore: later.addingTimeInterval(1)).isEmpty)
    }

    @Test("assignment lists are filtered by the store; a report row carries the contact, the mentor, the read time and the escalations",
          arguments: StoreKind.allCases)
    func listingsAndReports(kind: StoreKind) async throws {
        let store = try await kind.make()
        func user(_ name: String, _ role: Role) async throws -> User {
            try await store.createUser(NewUser(username: name, displayName: name.capitalized, role: role, passwordHash: "x", language: .english), at: now)
        }
        let kari = try await user("kari", .mentor), ola = try await user("ola", .mentor)
        let coordinator = try await user("cora", .coordinator), other = try await user("odd", .coordinator)
        func assign(_ mentor: User, by coordinator: User, contact name: String) async throws -> (Assignment, NotificationItem) {
            let (assignment, _, item) = try await store.createAssignment(
                mentorID: mentor.id, coordinatorID: coordinator.id, contact: NewContact(name: name, phone: "1", address: "\(name) street", notes: ""), at: now
            ) { contactID, assignmentID in
                NewNotification(recipientID: mentor.id, senderID: coordinator.id, kind: .assignment, title: "New assignment", body: "",
                                deepLink: .contact(contactID: contactID, assignmentID: assignmentID))
            }
            return (assignment, item)
        }
        let (first, firstItem) = try await assign(kari, by: coordinator, contact: "Anne")
        let (second, _) = try await assign(kari, by: other, contact: "Bjørn")
        let (third, _) = try await assign(ola, by: coordinator, contact: "Cecilie")
        _ = try await store.markRead(ids: [firstItem.id], userID: kari.id, at: now.addingTimeInterval(60))
        let reminder = NewNotification(recipientID: kari.id, senderID: nil, kind: .assignment, title: "Reminder", body: "",
                                       deepLink: .contact(contactID: first.contactID, assignmentID: first.id))
        _ = try await store.recordEscalation(assignmentID: first.id, step: .mentorReminded, notification: reminder, at: now.addingTimeInterval(120))
        // The second goes to Ola: the old one is reassigned, a new one replaces it; the third is declined.
        let (replacement, _) = try await store.reassign(assignmentID: second.id, to: ola.id, at: now) { contactID, assignmentID in
            NewNotification(recipientID: ola.id, senderID: other.id, kind: .assignment, title: "New assignment", body: "",
                            deepLink: .contact(contactID: contactID, assignmentID: assignmentID))
        }
        _ = try await store.respond(to: third.id, status: .declined, at: now)

        func ids(_ listing: AssignmentListing) async throws -> [AssignmentID] { try await store.assignments(listing).map(\.id) }
        #expect(try await ids(.everything) == [replacement.id, third.id, second.id, first.id], "newest first")
        #expect(try await ids(.mentor(kari.id, scope: .all)) == [second.id, first.id])
        #expect(try await ids(.mentor(kari.id, scope: .current)) == [first.id])
        #expect(try await ids(.mentor(ola.id, scope: .live)) == [replacement.id])
        #expect(try await ids(AssignmentListing(scope: .current, coordinatorID: coordinator.id)) == [third.id, first.id])
        #expect(try await ids(AssignmentListing(contactID: second.contactID)) == [replacement.id, second.id])
        #expect(try await ids(.ids([first.id, replacement.id, 9999])) == [replacement.id, first.id])
        #expect(try await ids(.ids([])).isEmpty)

        let reports = try await store.assignmentReports(AssignmentListing(scope: .current, coordinatorID: coordinator.id))
        #expect(reports.map(\.assignment) == (try await store.assignments(AssignmentListing(scope: .current, coordinatorID: coordinator.id))))
        let anne = try #require(reports.last)
        #expect(anne.contactName == "Anne" && anne.contactAddress == "Anne street" && anne.contactErasedAt == nil)
        #expect(anne.mentorName == "Kari")
        #expect(anne.readAt == now.addingTimeInterval(60))
        #expect(anne.escalations == [.mentorReminded: now.addingTimeInterval(120)])
        let cecilie = try #require(reports.first)
        #expect(cecilie.contactName == "Cecilie" && cecilie.mentorName == "Ola" && cecilie.readAt == nil && cecilie.escalations.isEmpty)
    }
}
