import Foundation
import Logging
import Synchronization
import Testing
import VarselCore
import VarselSQLite
import VarselStore

@testable import VarselService

/// Nothing goes unanswered: an assignment nobody answers reminds its mentor, then tells its
/// coordinator — each once, in each reader's language, on an injected clock (no test sleeps).
@Suite("Escalation of unanswered assignments")
struct EscalationTests {
    final class Clock: Sendable {
        private let current = Mutex(DemoData.now)
        var now: Date { current.withLock { $0 } }
        func advance(hours: Double) { current.withLock { $0 = $0.addingTimeInterval(hours * 3600) } }
    }

    struct World {
        let repository = try! SQLiteRepository.inMemory()
        let clock = Clock()
        let sender: NotificationSender
        let mentor: User
        let coordinator: User

        init() async throws {
            let clock = clock
            sender = NotificationSender(repository: repository, now: { clock.now })
            mentor = try await repository.createUser(
                NewUser(
                    username: "kari", displayName: "Kari Mentor", role: .mentor, passwordHash: "x",
                    language: .norwegianBokmal), at: clock.now)
            coordinator = try await repository.createUser(
                NewUser(
                    username: "coord", displayName: "Coordinator", role: .coordinator,
                    passwordHash: "x", language: .english), at: clock.now)
        }

        func escalate() async throws -> [NotificationItem] {
            try await sender.sendDueEscalations(now: clock.now, remindAfter: 24 * 3600, escalateAfter: 48 * 3600)
        }
    }

    @Test("after 24 h the mentor gets one urgent reminder; after 48 h the coordinator one urgent notice; never again")
    func remindsThenEscalatesOnce() async throws {
        let world = try await World()
        let (assignment, _, _) = try await world.sender.assign(
            mentor: world.mentor, coordinatorID: world.coordinator.id,
            contact: NewContact(name: "Per Olsen", phone: "", address: "Torggata 3", notes: ""),
            urgency: .normal)
        world.clock.advance(hours: 23)
        #expect(try await world.escalate().isEmpty)
        world.clock.advance(hours: 2)
        let reminders = try await world.escalate()
        let reminder = try #require(reminders.first)
        #expect(reminders.count == 1)
        #expect(reminder.recipientID == world.mentor.id && reminder.urgency == .urgent)
        #expect(reminder.title == "Påminnelse: et oppdrag venter på svaret ditt")  // the mentor reads Norwegian
        #expect(reminder.deepLink == .contact(contactID: assignment.contactID, assignmentID: assignment.id))
        #expect(!reminder.title.contains("Per") && !reminder.body.contains("Per") && !reminder.body.contains("Torggata"))
        #expect(try await world.escalate().isEmpty, "the reminder is sent once")
        world.clock.advance(hours: 24)
        let notices = try await world.escalate()
        #expect(notices.map(\.recipientID) == [world.coordinator.id])
        #expect(notices.first?.title == "Unanswered assignment: Kari Mentor has not answered in 2 days")
        #expect(notices.first?.urgency == .urgent)
        #expect(try await world.escalate().isEmpty, "the coordinator is told once")
        let steps = try await world.repository.escalations(assignmentID: assignment.id)
        #expect(Set(steps.keys) == [.mentorReminded, .coordinatorTold])
    }

    @Test(
        "an assignment overdue for both steps at once (as the demo's at start-up) reminds its mentor before telling the coordinator, and upkeep leaves both to the follow-ups"
    )
    func bothStepsInOrder() async throws {
        let world = try await World()
        let (assignment, _, _) = try await world.sender.assign(
            mentor: world.mentor, coordinatorID: world.coordinator.id,
            contact: NewContact(name: "Per Olsen", phone: "", address: "Torggata 3", notes: ""),
            urgency: .normal)
        world.clock.advance(hours: 72)
        let clock = world.clock
        // Upkeep runs beside the follow-up worker; a second scheduler, with a clock read earlier, could date the
        // coordinator's notice before the mentor's reminder.
        await MaintenanceService(
            repository: world.repository, sender: world.sender,
            erasure: ContactErasure(
                repository: world.repository, access: ContactAccess(repository: world.repository, now: { clock.now }), now: { clock.now }),
            now: { clock.now }, logger: Logger(label: "test")
        ).runOnce()
        #expect(try await world.repository.escalations(assignmentID: assignment.id).isEmpty)
        let sent = try await world.escalate()
        #expect(sent.map(\.recipientID) == [world.mentor.id, world.coordinator.id])
        let steps = try await world.repository.escalations(assignmentID: assignment.id)
        let reminded = try #require(steps[.mentorReminded])
        let told = try #require(steps[.coordinatorTold])
        #expect(reminded <= told)
    }

    @Test("an answered assignment is neither reminded nor escalated")
    func answeredIsLeftAlone() async throws {
        let world = try await World()
        let (assignment, _, _) = try await world.sender.assign(
            mentor: world.mentor, coordinatorID: world.coordinator.id,
            contact: NewContact(name: "Per Olsen", phone: "", address: "Torggata 3", notes: ""),
            urgency: .normal)
        world.clock.advance(hours: 1)
        _ = try await world.repository.respond(to: assignment.id, status: .acknowledged, at: world.clock.now)
        world.clock.advance(hours: 72)
        #expect(try await world.escalate().isEmpty)
    }

    @Test("an unanswered assignment a member system made tells the admin who made its token, and nobody once that admin is gone")
    func systemsAssignmentTellsItsAdmin() async throws {
        let world = try await World()
        let admin = try await world.repository.createUser(
            NewUser(
                username: "anne", displayName: "Anne Admin", role: .admin, passwordHash: "x",
                language: .english), at: world.clock.now)
        let integrations = Integrations(repository: world.repository, now: { world.clock.now })
        let system = try await integrations.create(name: "Member system", role: "coordinator", by: admin).integration
        let contact = NewContact(name: "Per Olsen", phone: "", address: "Torggata 3", notes: "")
        _ = try await world.sender.assign(mentor: world.mentor, coordinatorID: system.id, contact: contact, urgency: .normal)
        world.clock.advance(hours: 49)
        let told = try await world.escalate()
        #expect(told.map(\.recipientID) == [world.mentor.id, admin.id])
        #expect(told.last?.title == "Unanswered assignment: Kari Mentor has not answered in 2 days")

        // Made by the command line, or by an admin since deactivated: the mentor is still reminded; no one else is told.
        _ = try await world.repository.changeAccount(userID: admin.id, .deactivate, log: [], at: world.clock.now)
        let second = try await world.sender.assign(mentor: world.mentor, coordinatorID: system.id, contact: contact, urgency: .normal).0
        world.clock.advance(hours: 49)
        #expect(try await world.escalate().map(\.recipientID) == [world.mentor.id])
        #expect(try await world.repository.escalations(assignmentID: second.id).keys.sorted { $0.rawValue < $1.rawValue } == [.mentorReminded])
    }
}

/// Paused mentors and mentors with an expired certification are not given assignments.
@Suite("Who can be given an assignment")
struct MentorAvailabilityTests {
    @Test("a paused mentor, or one whose certification expired, is refused with the reason; others are not")
    func unavailableMentorsAreRefused() async throws {
        let world = try await EscalationTests.World()
        let contact = NewContact(name: "Per Olsen", phone: "", address: "Torggata 3", notes: "")
        #expect(try await world.sender.unavailability(of: world.mentor) == nil)
        let until = world.clock.now.addingTimeInterval(7 * 86400)
        try await world.repository.setPause(from: nil, until: until, userID: world.mentor.id)
        let paused = try #require(try await world.repository.user(id: world.mentor.id))
        #expect(try await world.sender.unavailability(of: paused) == .paused(until: until))
        await #expect(throws: InvalidInput.self) {
            _ = try await world.sender.assign(mentor: paused, coordinatorID: world.coordinator.id, contact: contact, urgency: .normal)
        }
        try await world.repository.setPause(from: nil, until: nil, userID: world.mentor.id)
        let expiredOn = world.clock.now.addingTimeInterval(-86400)
        _ = try await world.repository.changeAccount(
            userID: world.mentor.id, .certifications([NewCertification(name: "Peer mentor certificate", expiresAt: expiredOn)]), log: [], at: Date()
        ).certifications
        let expired = try #require(try await world.repository.user(id: world.mentor.id))
        #expect(try await world.sender.unavailability(of: expired) == .certificationExpired(name: "Peer mentor certificate", on: expiredOn))
        await #expect(throws: InvalidInput.self) {
            _ = try await world.sender.assign(mentor: expired, coordinatorID: world.coordinator.id, contact: contact, urgency: .normal)
        }
        #expect(try await world.repository.assignments(.everything).isEmpty)
    }

}
