import Foundation
import Logging
import Testing
import VarselCore
import VarselSQLite
import VarselStore

@testable import VarselService

/// Only the mentor an assignment was given to may answer it or mark the visit done, whichever way the answer comes.
@Suite("Answering an assignment")
struct AssignmentAnswersTests {
    struct World {
        let repository = try! SQLiteRepository.inMemory()
        let answers: AssignmentAnswers
        let mentor: User
        let otherMentor: User
        let assignment: Assignment

        init() async throws {
            let repository = repository
            let now = DemoData.now
            let sender = NotificationSender(repository: repository, now: { now })
            answers = AssignmentAnswers(repository: repository, now: { now })
            mentor = try await repository.createUser(
                NewUser(
                    username: "kari", displayName: "Kari", role: .mentor, passwordHash: "x",
                    language: .english), at: now)
            otherMentor = try await repository.createUser(
                NewUser(
                    username: "ola", displayName: "Ola", role: .mentor, passwordHash: "x",
                    language: .english), at: now)
            let coordinator = try await repository.createUser(
                NewUser(
                    username: "coord", displayName: "Coordinator", role: .coordinator,
                    passwordHash: "x", language: .english), at: now)
            assignment = try await sender.assign(
                mentor: mentor, coordinatorID: coordinator.id,
                contact: NewContact(name: "Per Olsen", phone: "", address: "Torggata 3", notes: ""),
                urgency: .normal
            ).0
        }
    }

    @Test("another mentor's answer and visit note are refused, and the assignment is unchanged")
    func anotherMentorIsRefused() async throws {
        let world = try await World()
        await #expect(throws: AssignmentAnswers.Refusal.notTheAssignedMentor) {
            try await world.answers.answer(world.assignment.id, with: .acknowledged, by: world.otherMentor.id)
        }
        await #expect(throws: AssignmentAnswers.Refusal.notTheAssignedMentor) {
            try await world.answers.completeVisit(world.assignment.id, note: "Done", by: world.otherMentor.id)
        }
        await #expect(throws: AssignmentAnswers.Refusal.notFound) {
            try await world.answers.answer(AssignmentID(world.assignment.id.rawValue + 1000), with: .acknowledged, by: world.mentor.id)
        }
        #expect(try await world.repository.assignment(id: world.assignment.id)?.status == .pending)
    }

    @Test("the assigned mentor acknowledges once, then marks the visit done with a validated note")
    func assignedMentorAnswers() async throws {
        let world = try await World()
        let acknowledged = try await world.answers.answer(world.assignment.id, with: .acknowledged, by: world.mentor.id)
        #expect(acknowledged.status == .acknowledged)
        await #expect(throws: StoreError.alreadyResponded(.acknowledged)) {
            try await world.answers.answer(world.assignment.id, with: .declined, by: world.mentor.id)
        }
        await #expect(throws: InvalidInput.self) {
            try await world.answers.completeVisit(world.assignment.id, note: "Bell\u{07}", by: world.mentor.id)
        }
        let done = try await world.answers.completeVisit(world.assignment.id, note: "  Went well.  ", by: world.mentor.id)
        #expect(done.status == .done)
    }
}
