import Foundation
import Synchronization
import Testing
import VarselCore
import VarselSQLite
import VarselStore

@testable import VarselService

/// Notifications scheduled for later go once, at their time, on an injected clock; a cancelled one never.
@Suite("Scheduled sends")
struct ScheduledSendsTests {
    final class Clock: Sendable {
        private let current = Mutex(DemoData.now)
        var now: Date { current.withLock { $0 } }
        func advance(seconds: TimeInterval) { current.withLock { $0 = $0.addingTimeInterval(seconds) } }
    }

    struct World {
        let repository = try! SQLiteRepository.inMemory()
        let clock = Clock()
        let sends: ScheduledSends
        let kari: User
        let ola: User
        let coordinator: User

        init() async throws {
            let clock = clock
            sends = ScheduledSends(repository: repository, now: { clock.now })
            kari = try await repository.createUser(
                NewUser(username: "kari", displayName: "Kari", role: .mentor, passwordHash: "x", language: .norwegianBokmal), at: clock.now)
            ola = try await repository.createUser(
                NewUser(username: "ola", displayName: "Ola", role: .mentor, passwordHash: "x", language: .english), at: clock.now)
            coordinator = try await repository.createUser(
                NewUser(username: "coord", displayName: "Coordinator", role: .coordinator, passwordHash: "x", language: .english),
                at: clock.now)
        }

        func received(_ user: User) async throws -> [NotificationItem] {
            try await repository.notifications(for: user.id, filter: .all, after: nil, limit: 50).items
        }
    }

    let scenario = Validation.ValidNotification(
        kind: .scenarioPrompt, title: "Scenario for Monday", body: "Work through it.", urgency: .normal, personalDetails: [])

    @Test("a scheduled send goes once at its time, to each recipient; a cancelled one never goes")
    func goesOnceAtItsTime() async throws {
        let world = try await World()
        let send = try await world.sends.schedule(
            scenario, from: world.coordinator.id, to: [world.kari.id, world.ola.id], at: world.clock.now + 3600)
        let cancelled = try await world.sends.schedule(scenario, from: world.coordinator.id, to: [world.kari.id], at: world.clock.now + 3600)
        #expect(try await world.sends.cancel(cancelled.id, by: world.coordinator).state == .cancelled)
        world.clock.advance(seconds: 3599)
        #expect(try await world.sends.sendDue().isEmpty)
        #expect(try await world.received(world.kari).isEmpty)
        world.clock.advance(seconds: 1)
        let sent = try await world.sends.sendDue()
        #expect(sent.map(\.send.id) == [send.id])
        #expect(sent.first?.notificationCount == 2)
        #expect(try await world.sends.sendDue().isEmpty, "it goes once")
        let kari = try await world.received(world.kari)
        #expect(kari.map(\.title) == ["Scenario for Monday"])
        #expect(kari.first?.body == "Work through it.", "on time, the body is as written")
        #expect(try await world.received(world.ola).count == 1)
        await #expect(throws: ScheduledSends.Refusal.noLongerWaiting) { try await world.sends.cancel(send.id, by: world.coordinator) }
        #expect(try await world.repository.scheduledSend(id: cancelled.id)?.state == .cancelled)
    }

    @Test("a send taken by an instance that stopped before it finished, or by two at once, still makes each notification once")
    func takenAgainMakesThemOnce() async throws {
        let world = try await World()
        let send = try await world.sends.schedule(scenario, from: world.coordinator.id, to: [world.kari.id], at: world.clock.now + 60)
        world.clock.advance(seconds: 60)
        // An instance took it and made its notifications, then stopped before recording it as sent.
        let taken = try await world.repository.takeDueScheduledSends(at: world.clock.now, limit: 10)
        #expect(taken.map(\.id) == [send.id])
        let key = ScheduledSends.idempotencyKey(of: send)
        _ = try await world.repository.createNotifications(
            [
                NewNotification(
                    recipientID: world.kari.id, senderID: world.coordinator.id, kind: .scenarioPrompt, title: send.title, body: send.body,
                    deepLink: Validation.deepLink(for: .scenarioPrompt))
            ],
            idempotencyKey: IdempotencyKey(senderID: send.senderID, key: key, fingerprint: key), at: world.clock.now)
        // Two instances' next rounds at once.
        let other = ScheduledSends(repository: world.repository, now: { world.clock.now })
        async let first = world.sends.sendDue()
        async let second = other.sendDue()
        _ = try await (first, second)
        #expect(try await world.received(world.kari).count == 1)
        #expect(try await world.repository.scheduledSend(id: send.id)?.state == .sent)
    }

    @Test("a scheduled scenario is published once at its time, across a stop between publishing and recording it; a cancelled one never")
    func scenarioOnceAtItsTime() async throws {
        let world = try await World()
        let scheduled = try await world.sends.scheduleScenario(
            title: "Monday's scenario", body: "Guide a visitor down the stairs.", from: world.coordinator.id, to: [world.kari.id, world.ola.id],
            at: world.clock.now + 3600
        ).send
        let cancelled = try await world.sends.scheduleScenario(
            title: "Never", body: "Not sent.", from: world.coordinator.id, to: [world.kari.id], at: world.clock.now + 3600
        ).send
        #expect(scheduled.publishesScenario && scheduled.kind == .scenarioPrompt)
        _ = try await world.sends.cancel(cancelled.id, by: world.coordinator)
        world.clock.advance(seconds: 3599)
        #expect(try await world.sends.sendDue().isEmpty)
        #expect(try await world.repository.scenarios(forMentor: world.kari.id).isEmpty, "no scenario before its time")
        world.clock.advance(seconds: 1)
        // An instance took it and published its scenario, then stopped before recording it as sent.
        let taken = try await world.repository.takeDueScheduledSends(at: world.clock.now, limit: 10)
        #expect(taken.map(\.id) == [scheduled.id])
        _ = try await world.repository.publishScenario(
            title: scheduled.title, body: scheduled.body, coordinatorID: world.coordinator.id, mentorIDs: scheduled.recipientIDs,
            scheduledSendID: scheduled.id, at: world.clock.now
        ) { scenarioID, mentorID in
            NewNotification(
                recipientID: mentorID, senderID: world.coordinator.id, kind: .scenarioPrompt, title: "Scenario: Monday's scenario", body: "",
                deepLink: .scenario(scenarioID: scenarioID))
        }
        // The next round publishes nothing new.
        #expect(try await world.sends.sendDue().map(\.send.id) == [scheduled.id])
        for mentor in [world.kari, world.ola] {
            let scenarios = try await world.repository.scenarios(forMentor: mentor.id)
            #expect(scenarios.map(\.scenario.title) == ["Monday's scenario"])
            #expect(try await world.received(mentor).count == 1)
        }
        #expect(try await world.repository.scheduledSend(id: scheduled.id)?.state == .sent)
    }

    @Test("a scheduled scenario keeps a scenario's rules when changed, and leaves out a mentor deactivated before its time")
    func scenarioRulesAndLeavers() async throws {
        let world = try await World()
        let scheduled = try await world.sends.scheduleScenario(
            title: "Stairs", body: "Guide a visitor down the stairs.", from: world.coordinator.id, to: [world.kari.id, world.ola.id],
            at: world.clock.now + 60
        ).send
        let empty = Validation.ValidNotification(kind: .scenarioPrompt, title: "Stairs", body: "", urgency: .urgent, personalDetails: [])
        await #expect {
            try await world.sends.change(scheduled.id, by: world.coordinator, to: empty, at: world.clock.now + 120)
        } throws: { ($0 as? InvalidInput)?.issues.map(\.field) == ["body"] }
        var urgent = empty
        urgent.body = "Guide a visitor up the stairs."
        let changed = try await world.sends.change(scheduled.id, by: world.coordinator, to: urgent, at: world.clock.now + 120)
        #expect(changed.body == "Guide a visitor up the stairs." && changed.urgency == .normal, "a scenario has no urgency")
        _ = try await world.repository.changeAccount(userID: world.kari.id, .deactivate, log: [], at: world.clock.now)
        world.clock.advance(seconds: 120)
        #expect(try await world.sends.sendDue().map(\.notificationCount) == [1])
        #expect(try await world.repository.scenarios(forMentor: world.ola.id).map(\.scenario.body) == ["Guide a visitor up the stairs."])
        #expect(try await world.repository.scenarios(forMentor: world.kari.id).isEmpty)
    }

    @Test("a scheduled scenario that goes at its time tells each mentor in their language, with a link to it")
    func scenarioToldInTheirLanguage() async throws {
        let world = try await World()
        _ = try await world.sends.scheduleScenario(
            title: "Stairs", body: "Guide a visitor down the stairs.", from: world.coordinator.id, to: [world.kari.id, world.ola.id],
            at: world.clock.now + 60)
        world.clock.advance(seconds: 60)
        #expect(try await world.sends.sendDue().map(\.notificationCount) == [2])
        let published = try #require(try await world.repository.scenarios(forMentor: world.ola.id).first)
        #expect(published.scenario.body == "Guide a visitor down the stairs.")
        let ola = try #require(try await world.received(world.ola).first)
        #expect(ola.kind == .scenarioPrompt && ola.deepLink == .scenario(scenarioID: published.scenario.id))
        #expect(ola.title == Strings(.english).scenarioNotificationTitle("Stairs"))
        #expect(try await world.received(world.kari).first?.title == Strings(.norwegianBokmal).scenarioNotificationTitle("Stairs"))
    }

    @Test("a send that fails is left to the next round, and the sends after it still go")
    func oneFailureStopsNoOther() async throws {
        let world = try await World()
        let first = try await world.sends.schedule(scenario, from: world.coordinator.id, to: [world.kari.id], at: world.clock.now + 60)
        let second = try await world.sends.schedule(scenario, from: world.coordinator.id, to: [world.ola.id], at: world.clock.now + 61)
        // The first's key already names another request, so making its notifications is refused.
        let key = ScheduledSends.idempotencyKey(of: first)
        _ = try await world.repository.createNotifications(
            [
                NewNotification(
                    recipientID: world.ola.id, senderID: world.coordinator.id, kind: .scenarioPrompt, title: "Other", body: "",
                    deepLink: Validation.deepLink(for: .scenarioPrompt))
            ],
            idempotencyKey: IdempotencyKey(senderID: world.coordinator.id, key: key, fingerprint: "another request"), at: world.clock.now)
        world.clock.advance(seconds: 61)
        let failed = Mutex<[ScheduledSendID]>([])
        let sent = try await world.sends.sendDue { send, _ in failed.withLock { $0.append(send.id) } }
        #expect(sent.map(\.send.id) == [second.id])
        #expect(failed.withLock { $0 } == [first.id])
        #expect(try await world.repository.scheduledSend(id: first.id)?.state == .sending, "left for the next round")
        #expect(try await world.received(world.kari).isEmpty)
    }

    @Test("a send whose time passed while Varsel was stopped goes at the next round and says in the body when it was meant for")
    func lateSaysItsTime() async throws {
        let world = try await World()
        let sendAt = world.clock.now + 3600
        _ = try await world.sends.schedule(scenario, from: world.coordinator.id, to: [world.kari.id, world.ola.id], at: sendAt)
        world.clock.advance(seconds: 3600 + 3 * 3600)
        let sent = try await world.sends.sendDue()
        #expect(abs((sent.first?.lateBy ?? 0) - 3 * 3600) < 0.001)
        let ola = try #require(try await world.received(world.ola).first)
        let meant = Strings(.english).dateAndTime(sendAt, timeZone: osloTimeZone)
        #expect(ola.body == "Work through it.\n\nMeant for \(meant); sent late, as Varsel was not running then.")
        let kari = try #require(try await world.received(world.kari).first)
        #expect(kari.body.hasSuffix("sendt senere, fordi Varsel ikke kjørte da."), "in each recipient's language")
        #expect(kari.title == "Scenario for Monday", "the title stays as written")
    }

    @Test("a time in the past, beyond a year, or personal details are refused, naming the field; nothing is stored")
    func refused() async throws {
        let world = try await World()
        for sendAt in [world.clock.now, world.clock.now - 60, world.clock.now + 367 * 86400] {
            await #expect {
                try await world.sends.schedule(scenario, from: world.coordinator.id, to: [world.kari.id], at: sendAt)
            } throws: { ($0 as? InvalidInput)?.issues.map(\.field) == ["sendAt"] }
        }
        var withDetails = scenario
        withDetails.personalDetails = ["Per Olsen"]
        await #expect {
            try await world.sends.schedule(withDetails, from: world.coordinator.id, to: [world.kari.id], at: world.clock.now + 60)
        } throws: { ($0 as? InvalidInput)?.issues.map(\.field) == ["personalDetails"] }
        #expect(try await world.sends.waiting(for: world.coordinator).isEmpty)
    }

    @Test("a coordinator sees, changes and cancels only their own sends; an admin sees everyone's")
    func whoSeesWhat() async throws {
        let world = try await World()
        let other = try await world.repository.createUser(
            NewUser(username: "other", displayName: "Other", role: .coordinator, passwordHash: "x", language: .english), at: world.clock.now)
        let admin = try await world.repository.createUser(
            NewUser(username: "admin", displayName: "Admin", role: .admin, passwordHash: "x", language: .english), at: world.clock.now)
        let mine = try await world.sends.schedule(scenario, from: world.coordinator.id, to: [world.kari.id], at: world.clock.now + 600)
        let theirs = try await world.sends.schedule(scenario, from: other.id, to: [world.kari.id], at: world.clock.now + 60)
        #expect(try await world.sends.waiting(for: world.coordinator).map(\.id) == [mine.id])
        #expect(try await world.sends.waiting(for: admin).map(\.id) == [theirs.id, mine.id])
        await #expect(throws: ScheduledSends.Refusal.unknown) { try await world.sends.cancel(theirs.id, by: world.coordinator) }
        var words = scenario
        words.title = "Scenario for Tuesday"
        let changed = try await world.sends.change(mine.id, by: world.coordinator, to: words, at: world.clock.now + 1200)
        #expect(changed.title == "Scenario for Tuesday" && changed.sendAt == world.clock.now + 1200)
        await #expect(throws: ScheduledSends.Refusal.unknown) {
            try await world.sends.change(theirs.id, by: world.coordinator, to: words, at: world.clock.now + 1200)
        }
    }
}
