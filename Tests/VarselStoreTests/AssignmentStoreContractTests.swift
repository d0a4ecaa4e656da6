import Foundation
import Testing
import VarselCore
import VarselStore

/// Contacts and assignments in every store: created together, answered once.
@Suite("Store contract: assignments")
struct AssignmentStoreContractTests: StoreContract {
    let now = DemoData.now

    @Test("an assignment is created with its contact and notification, and answered once", arguments: StoreKind.allCases)
    func assignments(kind: StoreKind) async throws {
        let store = try await kind.make()
        let user = try await mentor(store)
        let contact = NewContact(name: "Kari Nordmann", phone: "+47 1", address: "Storgata 1", notes: "n")
        let (assignment, stored, item) = try await store.createAssignment(mentorID: user.id, coordinatorID: nil, contact: contact, at: now) {
            contactID, assignmentID in
            NewNotification(
                recipientID: user.id, senderID: nil, kind: .assignment, title: "New assignment", body: "Visit",
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
}

/// The assignment pipeline's part of the contract: escalation steps happen once, and pending assignments are found by age.
@Suite("Store contract: escalations")
struct EscalationContractTests: StoreContract {
    let now = DemoData.now

    @Test("each escalation step is recorded once with its notification; pending assignments are found by age", arguments: StoreKind.allCases)
    func escalationOnce(kind: StoreKind) async throws {
        let store = try await kind.make()
        let mentor = try await store.createUser(
            NewUser(username: "kari", displayName: "Kari", role: .mentor, passwordHash: "x", language: .english), at: now)
        let (assignment, _, _) = try await store.createAssignment(
            mentorID: mentor.id, coordinatorID: nil, contact: NewContact(name: "N", phone: "", address: "A", notes: ""), at: now
        ) { contactID, assignmentID in
            NewNotification(
                recipientID: mentor.id, senderID: nil, kind: .assignment, title: "New assignment", body: "b",
                deepLink: .contact(contactID: contactID, assignmentID: assignmentID))
        }
        #expect(try await store.pendingAssignments(createdBefore: now).isEmpty)
        #expect(try await store.pendingAssignments(createdBefore: now.addingTimeInterval(1)).map(\.id) == [assignment.id])
        #expect(try await store.assignments(.everything).map(\.id) == [assignment.id])
        let reminder = NewNotification(
            recipientID: mentor.id, senderID: nil, kind: .assignment, title: "Reminder", body: "", urgency: .urgent,
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

    @Test(
        "assignment lists are filtered by the store; a report row carries the contact, the mentor, the read time and the escalations",
        arguments: StoreKind.allCases)
    func listingsAndReports(kind: StoreKind) async throws {
        let store = try await kind.make()
        func user(_ name: String, _ role: Role) async throws -> User {
            try await store.createUser(
                NewUser(username: name, displayName: name.capitalized, role: role, passwordHash: "x", language: .english), at: now)
        }
        let kari = try await user("kari", .mentor)
        let ola = try await user("ola", .mentor)
        let coordinator = try await user("cora", .coordinator)
        let other = try await user("odd", .coordinator)
        func assign(_ mentor: User, by coordinator: User, contact name: String) async throws -> (Assignment, NotificationItem) {
            let (assignment, _, item) = try await store.createAssignment(
                mentorID: mentor.id, coordinatorID: coordinator.id, contact: NewContact(name: name, phone: "1", address: "\(name) street", notes: ""),
                at: now
            ) { contactID, assignmentID in
                NewNotification(
                    recipientID: mentor.id, senderID: coordinator.id, kind: .assignment, title: "New assignment", body: "",
                    deepLink: .contact(contactID: contactID, assignmentID: assignmentID))
            }
            return (assignment, item)
        }
        let (first, firstItem) = try await assign(kari, by: coordinator, contact: "Anne")
        let (second, _) = try await assign(kari, by: other, contact: "Bjørn")
        let (third, _) = try await assign(ola, by: coordinator, contact: "Cecilie")
        _ = try await store.markRead(ids: [firstItem.id], userID: kari.id, at: now.addingTimeInterval(60))
        let reminder = NewNotification(
            recipientID: kari.id, senderID: nil, kind: .assignment, title: "Reminder", body: "",
            deepLink: .contact(contactID: first.contactID, assignmentID: first.id))
        _ = try await store.recordEscalation(assignmentID: first.id, step: .mentorReminded, notification: reminder, at: now.addingTimeInterval(120))
        // The second goes to Ola: the old one is reassigned, a new one replaces it; the third is declined.
        let (replacement, _) = try await store.reassign(assignmentID: second.id, to: ola.id, at: now) { contactID, assignmentID in
            NewNotification(
                recipientID: ola.id, senderID: other.id, kind: .assignment, title: "New assignment", body: "",
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
