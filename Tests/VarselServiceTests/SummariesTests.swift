import Foundation
import Testing
import VarselCore
import VarselSQLite
import VarselStore

@testable import VarselService

/// Summaries: what a person gathers is listed without cues and told as one notification at their summary time, on
/// an injected clock; once, across a second instance and a stop.
@Suite("Summaries")
struct SummariesTests {
    struct World {
        let repository = try! SQLiteRepository.inMemory()
        let clock = TestClock()
        let summaries: Summaries
        let kari: User
        let ola: User

        init() async throws {
            let clock = clock
            summaries = Summaries(repository: repository, now: { clock.now })
            kari = try await repository.createUser(
                NewUser(username: "kari", displayName: "Kari", role: .mentor, passwordHash: "x", language: .norwegianBokmal), at: clock.now)
            ola = try await repository.createUser(
                NewUser(username: "ola", displayName: "Ola", role: .mentor, passwordHash: "x", language: .english), at: clock.now)
        }

        /// `user` gathers `kinds` into a summary at 16:00, Oslo time; returns when the first is due.
        func gather(_ kinds: Set<NotificationKind>, for user: User) async throws -> Date {
            var preferences = NotificationPreferences.standard
            preferences.summaryKinds = kinds
            try await repository.setPreferences(preferences, for: user.id)
            try await summaries.schedule(for: user.id, preferences: preferences)
            return preferences.summaryTime.next(after: clock.now)
        }

        @discardableResult
        func send(_ kind: NotificationKind, _ title: String, to user: User, urgency: Urgency = .normal) async throws -> NotificationItem {
            let created = try await repository.createNotifications(
                [
                    NewNotification(
                        recipientID: user.id, senderID: nil, kind: kind, title: title, body: "", urgency: urgency,
                        deepLink: Validation.deepLink(for: kind))
                ], idempotencyKey: nil, at: clock.now)
            return try #require(created.items.first)
        }

        func summaries(of user: User) async throws -> [NotificationItem] {
            try await repository.notifications(for: user.id, filter: .kind(.summary), after: nil, limit: 50).items
        }
    }

    @Test("gathered kinds are listed without cues and told as one summary at the chosen time; the others, at once")
    func oneSummaryAtTheTime() async throws {
        let world = try await World()
        let due = try await world.gather([.certificationExpiry, .scenarioPrompt], for: world.ola)
        let preferences = try await world.repository.preferences(for: world.ola.id)
        world.clock.advance(60)
        let first = try await world.send(.certificationExpiry, "First aid expires in 30 days", to: world.ola)
        try await world.send(.certificationExpiry, "Guiding expires in 14 days", to: world.ola)
        try await world.send(.scenarioPrompt, "Scenario: the first phone call", to: world.ola)
        let pause = try await world.send(.pauseConfirmation, "Your pause starts Monday", to: world.ola)
        let urgent = try await world.send(.certificationExpiry, "Guiding expires tomorrow", to: world.ola, urgency: .urgent)
        let assignment = try await world.send(.assignment, "New assignment", to: world.ola)
        #expect(!preferences.cuesOnArrival(first), "gathered: listed, not announced or sounded")
        #expect(preferences.cuesOnArrival(pause) && preferences.cuesOnArrival(urgent) && preferences.cuesOnArrival(assignment))
        #expect(CuePlan(for: first, preferences: preferences, isAppInForeground: true).isAnnounced == false)
        #expect(CuePlan(for: urgent, preferences: preferences, isAppInForeground: true).isAnnounced)

        world.clock.advance(due.timeIntervalSince(world.clock.now) - 1)
        #expect(try await world.summaries.sendDue().isEmpty, "not before its time")
        world.clock.advance(1)
        let sent = try await world.summaries.sendDue()
        #expect(sent.map(\.gathered) == [3])
        #expect(try await world.summaries.sendDue().isEmpty, "it goes once")
        let summary = try #require(try await world.summaries(of: world.ola).first)
        #expect(summary.title == "2 certification warnings, 1 scenario prompt")
        #expect(summary.body == "First aid expires in 30 days\nGuiding expires in 14 days\nScenario: the first phone call")
        #expect(summary.deepLink == .notifications && summary.urgency == .normal)
        #expect(preferences.cuesOnArrival(summary), "the summary itself is told")

        // The next day's summary gathers only what came after this one.
        world.clock.advance(3600)
        try await world.send(.scenarioPrompt, "Scenario: stairs", to: world.ola)
        world.clock.advance(23 * 3600)
        #expect(try await world.summaries.sendDue().map(\.gathered) == [1])
        #expect(try await world.summaries(of: world.ola).first?.title == "1 scenario prompt")
    }

    @Test("a summary is in its person's language; nothing gathered, or all of it read, makes none and moves the time on")
    func languageAndNothingGathered() async throws {
        let world = try await World()
        let due = try await world.gather([.certificationExpiry, .scenarioPrompt, .pauseConfirmation], for: world.kari)
        _ = try await world.gather([.pauseConfirmation], for: world.ola)
        world.clock.advance(60)
        try await world.send(.pauseConfirmation, "Pausen din starter", to: world.kari)
        try await world.send(.certificationExpiry, "Førstehjelp går ut", to: world.kari)
        let read = try await world.send(.pauseConfirmation, "Your pause starts", to: world.ola)
        _ = try await world.repository.setRead(true, notificationID: read.id, userID: world.ola.id, at: world.clock.now)
        world.clock.advance(due.timeIntervalSince(world.clock.now))
        let sent = try await world.summaries.sendDue()
        #expect(sent.map(\.userID) == [world.kari.id])
        #expect(try await world.summaries(of: world.kari).first?.title == "1 sertifiseringsvarsel, 1 pausebekreftelse")
        #expect(try await world.summaries(of: world.ola).isEmpty)
        #expect(try await world.repository.dueSummaries(at: world.clock.now, limit: 10).isEmpty, "both moved on to tomorrow")
    }

    @Test("a summary made by an instance that stopped before moving on is made once, however late the next round is")
    func madeOnce() async throws {
        let world = try await World()
        let due = try await world.gather([.scenarioPrompt], for: world.ola)
        world.clock.advance(60)
        try await world.send(.scenarioPrompt, "Scenario: the first phone call", to: world.ola)
        // An instance made the summary under its key at its time, and stopped before moving its time on.
        world.clock.advance(due.timeIntervalSince(world.clock.now))
        let key = Summaries.idempotencyKey(moment: due)
        let made = try await world.repository.createNotifications(
            [
                NewNotification(
                    recipientID: world.ola.id, senderID: nil, kind: .summary, title: "1 scenario prompt", body: "", deepLink: .notifications)
            ], idempotencyKey: IdempotencyKey(senderID: world.ola.id, key: key, fingerprint: key), at: world.clock.now)
        // Started again two days on: the same summary, not a second one, and the next one is due after now.
        world.clock.advance(2 * 86400)
        #expect(try await world.summaries.sendDue().map(\.notificationID) == [made.items.first?.id])
        #expect(try await world.summaries(of: world.ola).count == 1)
        let next = try #require(try await world.repository.dueSummaries(at: .distantFuture, limit: 10).first)
        #expect(next.dueAt > world.clock.now && next.since == due)
        // A round that had read it due before it moved on does not move it again.
        let stale = DueSummary(userID: world.ola.id, dueAt: due, since: DemoData.now)
        #expect(try await world.repository.advanceSummary(stale, to: due, since: due) == false, "already moved on")
    }

    @Test("a summary that fell due while Varsel was stopped goes at start; what came after its time waits for the next")
    func missedWhileStopped() async throws {
        let world = try await World()
        let due = try await world.gather([.certificationExpiry], for: world.ola)
        world.clock.advance(60)
        try await world.send(.certificationExpiry, "First aid expires in 30 days", to: world.ola)
        world.clock.advance(due.timeIntervalSince(world.clock.now) + 3600)
        try await world.send(.certificationExpiry, "Guiding expires in 14 days", to: world.ola)
        // Stopped through the next day's summary too; started two hours after it.
        world.clock.advance(25 * 3600)
        #expect(try await world.summaries.sendDue().map(\.gathered) == [1])
        #expect(try await world.summaries(of: world.ola).map(\.title) == ["1 certification warning"])
        let next = try #require(try await world.repository.dueSummaries(at: .distantFuture, limit: 10).first)
        #expect(next.dueAt > world.clock.now && next.dueAt.timeIntervalSince(world.clock.now) < 24 * 3600)
        world.clock.advance(next.dueAt.timeIntervalSince(world.clock.now))
        #expect(try await world.summaries.sendDue().map(\.gathered) == [1])
        #expect(try await world.summaries(of: world.ola).first?.body == "Guiding expires in 14 days")
    }

    @Test("a deactivated person is told nothing and their time moves on; a long list of titles ends with how many more")
    func deactivatedAndLong() async throws {
        let world = try await World()
        let due = try await world.gather([.scenarioPrompt], for: world.ola)
        world.clock.advance(60)
        for number in 1...17 { try await world.send(.scenarioPrompt, "Scenario \(number)", to: world.ola) }
        _ = try await world.gather([.scenarioPrompt], for: world.kari)
        try await world.send(.scenarioPrompt, "Scenario for Kari", to: world.kari)
        _ = try await world.repository.changeAccount(userID: world.kari.id, .deactivate, log: [], at: world.clock.now)
        world.clock.advance(due.timeIntervalSince(world.clock.now))
        #expect(try await world.summaries.sendDue().map(\.userID) == [world.ola.id])
        let lines = try #require(try await world.summaries(of: world.ola).first?.body).split(separator: "\n")
        #expect(lines.count == 16 && lines.first == "Scenario 1" && lines.last == "and 2 more")
        #expect(try await world.summaries(of: world.kari).isEmpty)
        #expect(try await world.repository.dueSummaries(at: .distantFuture, limit: 10).count == 2, "Kari's time moved on, kept for her return")
    }

    @Test("switching every kind back to at once removes the summary; an urgent or assignment kind is never gathered")
    func turnedOff() async throws {
        let world = try await World()
        _ = try await world.gather([.scenarioPrompt], for: world.ola)
        #expect(try await world.repository.dueSummaries(at: .distantFuture, limit: 10).count == 1)
        _ = try await world.gather([], for: world.ola)
        #expect(try await world.repository.dueSummaries(at: .distantFuture, limit: 10).isEmpty)
        var preferences = NotificationPreferences.standard
        preferences.summaryKinds = [.assignment, .scenarioPrompt]
        #expect(!preferences.isSummarised(.assignment, urgency: .normal))
        #expect(!preferences.isSummarised(.scenarioPrompt, urgency: .urgent))
        #expect(preferences.isSummarised(.scenarioPrompt, urgency: .normal))
    }
}
