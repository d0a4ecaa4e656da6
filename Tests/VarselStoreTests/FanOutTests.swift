import Foundation
import Logging
import Synchronization
import Testing
import VarselCore
import VarselService
import VarselStore

@testable import VarselPostgres
@testable import VarselSQLite

/// A notification to many recipients is written a chunk per transaction (``FanOut``): every recipient gets theirs
/// once, in the order given, whether the request runs to its end, is cut short after its first transaction and
/// finished by upkeep (or by two finishers at once), or is retried with its idempotency key; and other writes go
/// between its transactions instead of waiting for all of them.
@Suite("Fan-outs")
struct FanOutTests {
    let now = DemoData.now
    /// Enough recipients for three transactions: two full chunks and a part.
    static let many = FanOut.chunkSize * 2 + 20

    func mentors(_ store: any VarselRepository, count: Int = many) async throws -> [User] {
        var users: [User] = []
        for index in 0..<count {
            users.append(
                try await store.createUser(
                    NewUser(
                        username: "mentor\(index)", displayName: "Mentor \(index)", role: .mentor,
                        passwordHash: "x", language: index.isMultiple(of: 2) ? .english : .norwegianBokmal), at: now))
        }
        return users
    }

    /// One message to each of `users`, in two contents (the odd ones name a person), as a scenario's would be.
    func message(to users: [User]) -> [NewNotification] {
        users.enumerated().map { index, user in
            index.isMultiple(of: 2)
                ? NewNotification(
                    recipientID: user.id, senderID: 7, kind: .scenarioPrompt, title: "Practise", body: "Read it", deepLink: .scenario(scenarioID: nil)
                )
                : NewNotification(
                    recipientID: user.id, senderID: 7, kind: .assignment, title: "New visit", body: "Visit Kari Nordmann",
                    urgency: .urgent, deepLink: .scenario(scenarioID: nil), personalDetails: ["Kari Nordmann"])
        }
    }

    /// Each user's notifications, oldest first.
    func inboxes(_ store: any VarselRepository, _ users: [User]) async throws -> [[NotificationItem]] {
        var all: [[NotificationItem]] = []
        for user in users { all.append(try await store.notifications(for: user.id, filter: .all, after: nil, limit: 10).items.reversed()) }
        return all
    }

    /// Checks that each user got exactly the notification `sent` meant for them, and the log has each one's
    /// created event and unread count.
    func expectEachOnce(_ store: any VarselRepository, _ users: [User], sent: [NewNotification]) async throws {
        let inboxes = try await inboxes(store, users)
        #expect(inboxes.map(\.count) == Array(repeating: 1, count: users.count))
        #expect(inboxes.map { $0.first.map { [$0.title, $0.body] + $0.personalDetails } } == sent.map { [$0.title, $0.body] + $0.personalDetails })
        let events = try await store.events(after: 0, limit: 10_000)
        let created = events.compactMap { if case let .notificationCreated(item) = $0.payload { item.recipientID } else { nil } }
        #expect(created.sorted() == users.map(\.id).sorted())
        let counted = Set(events.compactMap { if case .unreadCount = $0.payload { $0.userID } else { nil } })
        #expect(counted == Set(users.map(\.id)))
    }

    /// Runs only the first transaction of a create: the store as a crash right after it would leave it.
    func beginOnly(_ store: any VarselRepository, _ notifications: [NewNotification], key: IdempotencyKey?) async throws {
        let now = now
        switch store {
        case let sqlite as SQLiteRepository:
            _ = try await sqlite.commits.write { db in try sqlite.beginCreate(notifications, idempotencyKey: key, at: now, db: db) }
        case let postgres as PostgresRepository:
            _ = try await postgres.write(appendsEvents: true, locksLate: true) { c in
                try await postgres.beginCreate(notifications, idempotencyKey: key, at: now, c)
            }
        default:
            Issue.record("unknown store \(type(of: store))")
        }
    }

    @Test(
        "a notification to more recipients than one transaction writes reaches each once, returned in the order given",
        arguments: StoreKind.allCases)
    func wholeFanOut(kind: StoreKind) async throws {
        let store = try await kind.make()
        let users = try await mentors(store)
        let sent = message(to: users)
        let created = try await store.createNotifications(sent, idempotencyKey: nil, at: now)
        #expect(created.items.map(\.recipientID) == users.map(\.id))
        #expect(created.items.map(\.title) == sent.map(\.title))
        #expect(Set(created.items.map(\.id)).count == users.count)
        try await expectEachOnce(store, users, sent: sent)
        // Nothing is left to finish.
        #expect(try await store.finishFanOuts(startedBefore: now.addingTimeInterval(3600)) == 0)
    }

    @Test("a fan-out with an idempotency key is replayed whole, creating nothing", arguments: StoreKind.allCases)
    func replayedWhole(kind: StoreKind) async throws {
        let store = try await kind.make()
        let users = try await mentors(store)
        let key = IdempotencyKey(senderID: 7, key: "many", fingerprint: "f")
        let first = try await store.createNotifications(message(to: users), idempotencyKey: key, at: now)
        let retry = try await store.createNotifications(message(to: users), idempotencyKey: key, at: now.addingTimeInterval(5))
        #expect(retry.isReplay)
        #expect(retry.items == first.items)
        try await expectEachOnce(store, users, sent: message(to: users))
    }

    @Test("a scenario to many mentors gives each their notification once, in their language's words", arguments: StoreKind.allCases)
    func scenario(kind: StoreKind) async throws {
        let store = try await kind.make()
        let users = try await mentors(store)
        let languages = Dictionary(uniqueKeysWithValues: users.map { ($0.id, $0.language) })
        let (scenario, items) = try await store.publishScenario(
            title: "Øvelse", body: "Tenk", coordinatorID: nil, mentorIDs: users.map(\.id).reversed(),
            at: now
        ) { scenarioID, mentorID in
            NewNotification(
                recipientID: mentorID, senderID: nil, kind: .scenarioPrompt,
                title: Strings(languages[mentorID] ?? .english).scenarioNotificationTitle("Øvelse"),
                body: "b", deepLink: .scenario(scenarioID: scenarioID))
        }
        #expect(items.map(\.recipientID) == users.map(\.id))
        #expect(items.map(\.title) == users.map { Strings($0.language).scenarioNotificationTitle("Øvelse") })
        #expect(items.allSatisfy { $0.deepLink == .scenario(scenarioID: scenario.id) })
        for user in users { #expect(try await store.scenarios(forMentor: user.id).map(\.scenario.id) == [scenario.id]) }
        #expect(try await inboxes(store, users).map(\.count) == Array(repeating: 1, count: users.count))
    }

    @Test(
        "a fan-out cut short after its first transaction is finished by upkeep once it is old enough, each recipient once, even by two finishers at once",
        arguments: StoreKind.allCases)
    func cutShortFinishedByUpkeep(kind: StoreKind) async throws {
        let store = try await kind.make()
        let users = try await mentors(store)
        let sent = message(to: users)
        try await beginOnly(store, sent, key: nil)
        #expect(try await inboxes(store, users).map(\.count).reduce(0, +) == FanOut.chunkSize)
        // Started at `now`: not before `now`, so still its request's to finish.
        #expect(try await store.finishFanOuts(startedBefore: now) == 0)
        let later = now.addingTimeInterval(60)
        async let one = store.finishFanOuts(startedBefore: later)
        async let other = store.finishFanOuts(startedBefore: later)
        #expect(try await one + other == users.count - FanOut.chunkSize)
        try await expectEachOnce(store, users, sent: sent)
        #expect(try await store.finishFanOuts(startedBefore: later) == 0)
    }

    @Test("the server's upkeep finishes a fan-out cut short once it is older than the grace time, not before", arguments: StoreKind.allCases)
    func upkeepFinishes(kind: StoreKind) async throws {
        let store = try await kind.make()
        let users = try await mentors(store)
        let sent = message(to: users)
        try await beginOnly(store, sent, key: nil)
        let clock = Mutex(now)
        let sender = NotificationSender(repository: store, now: { clock.withLock { $0 } })
        let upkeep = MaintenanceService(
            repository: store, sender: sender,
            erasure: ContactErasure(
                repository: store, access: ContactAccess(repository: store, now: { clock.withLock { $0 } }), now: { clock.withLock { $0 } }),
            now: { clock.withLock { $0 } }, logger: Logger(label: "test"))
        clock.withLock { $0 = now.addingTimeInterval(MaintenanceService.fanOutGrace / 2) }
        await upkeep.runOnce()
        #expect(try await inboxes(store, users).map(\.count).reduce(0, +) == FanOut.chunkSize, "still its request's to finish")
        clock.withLock { $0 = now.addingTimeInterval(MaintenanceService.fanOutGrace * 2) }
        await upkeep.runOnce()
        try await expectEachOnce(store, users, sent: sent)
    }

    @Test("a retry with the idempotency key of a fan-out cut short finishes it and answers with all of it, in order", arguments: StoreKind.allCases)
    func cutShortFinishedByRetry(kind: StoreKind) async throws {
        let store = try await kind.make()
        let users = try await mentors(store)
        let sent = message(to: users)
        let key = IdempotencyKey(senderID: 7, key: "cut", fingerprint: "f")
        try await beginOnly(store, sent, key: key)
        let retry = try await store.createNotifications(sent, idempotencyKey: key, at: now.addingTimeInterval(5))
        #expect(retry.isReplay)
        #expect(retry.items.map(\.recipientID) == users.map(\.id))
        try await expectEachOnce(store, users, sent: sent)
        #expect(try await store.createNotifications(sent, idempotencyKey: key, at: now.addingTimeInterval(9)).items == retry.items)
    }

    @Test("a write that arrives while a fan-out runs commits before the fan-out's next chunk, not after all of it")
    func writesGoBetween() async throws {
        let store = try SQLiteRepository(path: try temporarySQLitePath("fanout"))
        let users = try await mentors(store)
        let other = try await store.createUser(
            NewUser(username: "other", displayName: "Other", role: .mentor, passwordHash: "x", language: .english), at: now)
        let single = NewNotification(
            recipientID: other.id, senderID: nil, kind: .scenarioPrompt, title: "Alone", body: "b", deepLink: .scenario(scenarioID: nil))
        // When the fan-out's first transaction commits, the single write is sent, and the writer's thread is held
        // until it waits for the writer: it arrives while the fan-out runs.
        let sentSingle = Mutex<Task<CreatedNotifications, any Error>?>(nil)
        store.followCommittedEvents { batch in
            let isFanOut = batch.contains { if case let .notificationCreated(item) = $0.payload { item.title == "Practise" } else { false } }
            guard isFanOut, sentSingle.withLock({ $0 == nil }) else { return }
            sentSingle.withLock { $0 = Task { try await store.createNotifications([single], idempotencyKey: nil, at: self.now) } }
            let deadline = ContinuousClock.now.advanced(by: .seconds(10))
            while store.commits.waitingCount == 0, ContinuousClock.now < deadline { usleep(100) }
        }
        let fanOut = try await store.createNotifications(message(to: users), idempotencyKey: nil, at: now)
        let alone = try #require(try await sentSingle.withLock { $0 }?.value.items.first)
        let events = try await store.events(after: 0, limit: 10_000)
        let createdAt = Dictionary(
            uniqueKeysWithValues: events.compactMap { event -> (NotificationID, Int64)? in
                if case let .notificationCreated(item) = event.payload { (item.id, event.id) } else { nil }
            })
        let aloneEvent = try #require(createdAt[alone.id])
        let fanOutEvents = fanOut.items.compactMap { createdAt[$0.id] }
        #expect(fanOutEvents.count == users.count)
        // After the fan-out's first chunk, before its second.
        #expect(aloneEvent > fanOutEvents[FanOut.chunkSize - 1])
        #expect(aloneEvent < fanOutEvents[FanOut.chunkSize])
    }
}
