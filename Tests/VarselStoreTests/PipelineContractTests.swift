import Foundation
import Testing
import VarselCore
import VarselStore

/// The assignment pipeline's part of the contract: reassignment, visits done, live delivery, pauses, language and scenarios, the
/// same on every store.
@Suite("Store contract: the assignment pipeline")
struct PipelineContractTests {
    let now = DemoData.now

    func user(_ store: any VarselRepository, _ name: String, role: Role = .mentor) async throws -> User {
        try await store.createUser(NewUser(username: name, displayName: name.capitalized, role: role, passwordHash: "x", language: .english), at: now)
    }

    func assign(_ store: any VarselRepository, to mentor: User, coordinator: User?) async throws -> Assignment {
        try await store.createAssignment(
            mentorID: mentor.id, coordinatorID: coordinator?.id, contact: NewContact(name: "Per Olsen", phone: "1", address: "Torggata 3", notes: ""),
            at: now
        ) { contactID, assignmentID in
            NewNotification(
                recipientID: mentor.id, senderID: coordinator?.id, kind: .assignment, title: "New assignment", body: "b",
                deepLink: .contact(contactID: contactID, assignmentID: assignmentID))
        }.0
    }

    @Test("reassigning closes the first assignment and opens one for the new mentor, with its notification, once", arguments: StoreKind.allCases)
    func reassign(kind: StoreKind) async throws {
        let store = try await kind.make()
        let kari = try await user(store, "kari")
        let ola = try await user(store, "ola")
        let coordinator = try await user(store, "coord", role: .coordinator)
        let first = try await assign(store, to: kari, coordinator: coordinator)
        let later = now.addingTimeInterval(3600)
        let (second, item) = try await store.reassign(assignmentID: first.id, to: ola.id, at: later) { contactID, assignmentID in
            NewNotification(
                recipientID: ola.id, senderID: coordinator.id, kind: .assignment, title: "New assignment", body: "b",
                deepLink: .contact(contactID: contactID, assignmentID: assignmentID))
        }
        #expect(second.mentorID == ola.id && second.contactID == first.contactID && second.previousID == first.id)
        #expect(second.status == .pending && second.notificationID == item.id && second.coordinatorID == coordinator.id)
        #expect(item.recipientID == ola.id && item.deepLink == .contact(contactID: first.contactID, assignmentID: second.id))
        let closed = try #require(try await store.assignment(id: first.id))
        #expect(closed.reassignedAt == later && !closed.isLive && closed.status == .pending)
        #expect(try await store.assignment(id: second.id)?.isLive == true)
        #expect(try await store.unreadCount(for: ola.id) == 1)
        // The first mentor can no longer answer it, it is no longer escalated, and it is not reassigned twice.
        await #expect(throws: StoreError.notAllowed("The assignment was given to another mentor.")) {
            try await store.respond(to: first.id, status: .acknowledged, at: later)
        }
        #expect(try await store.pendingAssignments(createdBefore: later.addingTimeInterval(1)).map(\.id) == [second.id])
        await #expect(throws: StoreError.notAllowed("The assignment was already given to another mentor.")) {
            try await store.reassign(assignmentID: first.id, to: kari.id, at: later) { _, _ in
                NewNotification(recipientID: kari.id, senderID: nil, kind: .assignment, title: "t", body: "b", deepLink: .pause)
            }
        }
        await #expect(throws: StoreError.notFound(.mentor)) {
            try await store.reassign(assignmentID: second.id, to: 999, at: later) { _, _ in
                NewNotification(recipientID: 999, senderID: nil, kind: .assignment, title: "t", body: "b", deepLink: .pause)
            }
        }
        #expect(try await store.assignment(id: second.id)?.reassignedAt == nil)
    }

    @Test("a visit is marked done only once acknowledged, with its note; then it is closed and not reassigned", arguments: StoreKind.allCases)
    func visitDone(kind: StoreKind) async throws {
        let store = try await kind.make()
        let kari = try await user(store, "kari")
        let assignment = try await assign(store, to: kari, coordinator: nil)
        await #expect(throws: StoreError.notAllowed("A visit can be marked done only once the assignment is acknowledged.")) {
            try await store.completeVisit(assignmentID: assignment.id, note: "n", at: now)
        }
        _ = try await store.respond(to: assignment.id, status: .acknowledged, at: now)
        let later = now.addingTimeInterval(86400)
        let done = try await store.completeVisit(assignmentID: assignment.id, note: "She wants a walk next time.", at: later)
        #expect(done.status == .done && done.doneAt == later && done.visitNote == "She wants a walk next time.")
        let stored = try #require(try await store.assignment(id: assignment.id))
        #expect(stored.status == .done && stored.doneAt == later && stored.visitNote == "She wants a walk next time." && !stored.isLive)
        await #expect(throws: StoreError.notAllowed("A done assignment is not reassigned.")) {
            try await store.reassign(assignmentID: assignment.id, to: kari.id, at: later) { _, _ in
                NewNotification(recipientID: kari.id, senderID: nil, kind: .assignment, title: "t", body: "b", deepLink: .pause)
            }
        }
        await #expect(throws: StoreError.notFound(.assignment)) { try await store.completeVisit(assignmentID: 999, note: "", at: later) }
    }

    @Test("the first live delivery of an assignment's notification is recorded; later ones change nothing", arguments: StoreKind.allCases)
    func liveDelivery(kind: StoreKind) async throws {
        let store = try await kind.make()
        let kari = try await user(store, "kari")
        let assignment = try await assign(store, to: kari, coordinator: nil)
        let notificationID = try #require(assignment.notificationID)
        try await store.recordLiveDelivery(notificationID: notificationID, at: now.addingTimeInterval(2))
        try await store.recordLiveDelivery(notificationID: notificationID, at: now.addingTimeInterval(60))
        try await store.recordLiveDelivery(notificationID: 999, at: now)
        #expect(try await store.assignment(id: assignment.id)?.deliveredAt == now.addingTimeInterval(2))
    }

    @Test("a pause can start later, is in force between its days, and is cleared; the language is kept", arguments: StoreKind.allCases)
    func pauseAndLanguage(kind: StoreKind) async throws {
        let store = try await kind.make()
        let kari = try await user(store, "kari")
        let from = now.addingTimeInterval(2 * 86400)
        let until = now.addingTimeInterval(9 * 86400)
        try await store.setPause(from: from, until: until, userID: kari.id)
        let booked = try #require(try await store.user(id: kari.id))
        #expect(booked.pausedFrom == from && booked.pausedUntil == until)
        #expect(!booked.isPaused(at: now) && booked.hasPause(at: now) && booked.isPaused(at: from) && !booked.isPaused(at: until))
        try await store.setPause(from: nil, until: nil, userID: kari.id)
        let cleared = try #require(try await store.user(id: kari.id))
        #expect(cleared.pausedFrom == nil && cleared.pausedUntil == nil && !cleared.hasPause(at: now))
        try await store.setLanguage(.norwegianBokmal, userID: kari.id)
        #expect(try await store.user(id: kari.id)?.language == .norwegianBokmal)
        await #expect(throws: StoreError.notFound(.user)) { try await store.setLanguage(.english, userID: 999) }
    }

    @Test(
        "a scenario reaches each chosen mentor once with a notification; done keeps its first time, the reflection its last",
        arguments: StoreKind.allCases)
    func scenarios(kind: StoreKind) async throws {
        let store = try await kind.make()
        let kari = try await user(store, "kari")
        let ola = try await user(store, "ola")
        let coordinator = try await user(store, "coord", role: .coordinator)
        let (scenario, items) = try await store.publishScenario(
            title: "A first visit", body: "Try it.", coordinatorID: coordinator.id, mentorIDs: [kari.id, kari.id], at: now
        ) { scenarioID, mentorID in
            NewNotification(
                recipientID: mentorID, senderID: coordinator.id, kind: .scenarioPrompt, title: "Training scenario", body: "b",
                deepLink: .scenario(scenarioID: scenarioID))
        }
        #expect(items.map(\.recipientID) == [kari.id] && items[0].deepLink == .scenario(scenarioID: scenario.id))
        #expect(try await store.unreadCount(for: kari.id) == 1)
        #expect(try await store.scenarios(forMentor: kari.id).map(\.scenario) == [scenario])
        #expect(try await store.scenarios(forMentor: ola.id).isEmpty)
        let done = try await store.completeScenario(
            scenarioID: scenario.id, mentorID: kari.id, reflection: "I listened first.", at: now.addingTimeInterval(60))
        #expect(done.doneAt == now.addingTimeInterval(60) && done.reflection == "I listened first.")
        let again = try await store.completeScenario(
            scenarioID: scenario.id, mentorID: kari.id, reflection: "And asked.", at: now.addingTimeInterval(600))
        #expect(again.doneAt == now.addingTimeInterval(60) && again.reflection == "And asked.")
        await #expect(throws: StoreError.notFound(.scenario)) {
            try await store.completeScenario(scenarioID: scenario.id, mentorID: ola.id, reflection: "", at: now)
        }
        let all = try await store.allScenarios()
        #expect(all.count == 1 && all[0].0 == scenario && all[0].1.map(\.mentorID) == [kari.id] && all[0].1[0].reflection == "And asked.")
        await #expect(throws: StoreError.notFound(.mentor)) {
            try await store.publishScenario(title: "t", body: "b", coordinatorID: nil, mentorIDs: [999], at: now) { _, mentorID in
                NewNotification(
                    recipientID: mentorID, senderID: nil, kind: .scenarioPrompt, title: "t", body: "b", deepLink: .scenario(scenarioID: nil))
            }
        }
        #expect(try await store.allScenarios().count == 1)
    }
}
