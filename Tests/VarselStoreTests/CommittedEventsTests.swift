import Foundation
import GRDB
import Logging
import Synchronization
import Testing
import VarselCore
import VarselServiceTesting
import VarselStore

@testable import VarselSQLite
@testable import VarselService

/// The SQLite store hands each transaction's events to the pump as it commits (``CommittedEvents``), so the
/// pump is neither woken nor reads back what was just written. These tests hold the handed-over events to the log
/// itself, a failed write's events to never being handed over, and the pump to reading the log when a batch does not
/// follow on from what it published.
@Suite("Events handed over as they commit")
struct CommittedEventsTests {
    let now = DemoData.now

    func file() throws -> String { try temporarySQLitePath("committed") }

    /// Collects what the store hands over.
    final class Follower: Sendable {
        private let batches = Mutex<[[StoredEvent]]>([])
        var events: [StoredEvent] { batches.withLock { $0.flatMap { $0 } } }
        func follow(_ store: SQLiteRepository) { store.followCommittedEvents { batch in self.batches.withLock { $0.append(batch) } } }
    }

    func notification(to recipient: UserID, _ title: String) -> NewNotification {
        NewNotification(recipientID: recipient, senderID: nil, kind: .scenarioPrompt, title: title, body: "b", deepLink: .scenario(scenarioID: nil))
    }

    @Test("what is handed over is the log: every event once, in id order, with the same payloads, over creates, reads and deletes, many at once")
    func handedOverIsTheLog() async throws {
        let store = try SQLiteRepository(path: try file())
        #expect(store.publishesCommittedEvents)
        let follower = Follower()
        follower.follow(store)
        let kari = try await store.createUser(
            NewUser(username: "kari", displayName: "K", role: .mentor, passwordHash: "x", language: .english), at: now)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<30 {
                group.addTask { _ = try await store.createNotifications([notification(to: kari.id, "n\(index)")], idempotencyKey: nil, at: now) }
            }
            try await group.waitForAll()
        }
        let page = try await store.notifications(for: kari.id, filter: .all, after: nil, limit: 100)
        _ = try await store.markRead(ids: Array(page.items.prefix(3).map(\.id)), userID: kari.id, at: now)
        _ = try await store.delete(ids: [page.items[5].id], userID: kari.id, at: now)
        let logged = try await store.events(after: 0, limit: 1000)
        // 30 creates (created, unread count), 3 read (3 updated, 1 unread count), 1 deleted (deleted, unread count).
        #expect(logged.count == 66)
        #expect(follower.events == logged)
    }

    @Test("a write that fails inside a shared transaction takes its events with it; its neighbour's are handed over")
    func failedWriteHandsNothingOver() async throws {
        let store = try SQLiteRepository(path: try file())
        let follower = Follower()
        follower.follow(store)
        let kari = try await store.createUser(
            NewUser(username: "kari", displayName: "K", role: .mentor, passwordHash: "x", language: .english), at: now)
        struct Refused: Error {}
        let commits = GroupCommitTests.CommitCounter()
        store.writer.add(transactionObserver: commits, extent: .databaseLifetime)
        // The first write holds the writer until the two that follow are both waiting: they share the next transaction.
        let started = AsyncStream<Void>.makeStream()
        let release = DispatchSemaphore(value: 0)
        let holding = Task {
            try await store.commits.write { db in
                try db.execute(sql: "UPDATE user SET display_name = 'Kari' WHERE id = ?", arguments: [kari.id])
                started.continuation.yield()
                // At most ten seconds, so a test gone wrong fails rather than hangs.
                _ = release.wait(timeout: .now() + 10)
            }
        }
        for await _ in started.stream { break }
        let failing = Task {
            try await store.commits.write { db in
                try db.execute(
                    sql: "INSERT INTO event (user_id, type, unread_count, created_at) VALUES (?, 'unread-count', 7, 0)", arguments: [kari.id])
                store.committed.appended(StoredEvent(id: db.lastInsertedRowID, userID: kari.id, payload: .unreadCount(7), createdAt: now))
                throw Refused()
            }
        }
        try await waitUntil { store.commits.waitingCount == 1 }
        let succeeding = Task { try await store.createNotifications([notification(to: kari.id, "kept")], idempotencyKey: nil, at: now) }
        try await waitUntil { store.commits.waitingCount == 2 }
        let committedBefore = commits.count
        release.signal()
        try await holding.value
        await #expect(throws: Refused.self) { try await failing.value }
        let created = try await succeeding.value
        let logged = try await store.events(after: 0, limit: 100)
        #expect(logged.map(\.type) == [.notificationCreated, .unreadCount])
        #expect(logged.first?.notificationID == created.items.first?.id)
        #expect(follower.events == logged, "the refused write's event is in neither")
        #expect(commits.count - committedBefore == 2, "the holding write's commit, then one shared by the other two")
    }

    /// Waits (up to ten seconds) until `condition` holds.
    func waitUntil(_ condition: () -> Bool) async throws {
        let deadline = ContinuousClock.now + .seconds(10)
        while !condition(), ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(1)) }
        #expect(condition())
    }

    @Test(
        "the pump publishes a commit without being woken, and reads the log when another process wrote in between",
        .timeLimit(.minutes(1)))
    func pumpFollowsCommits() async throws {
        let path = try file()
        let store = try SQLiteRepository(path: path)
        let otherProcess = try SQLiteRepository(path: path)
        let kari = try await store.createUser(
            NewUser(username: "kari", displayName: "K", role: .mentor, passwordHash: "x", language: .english), at: now)
        let broker = EventBroker(bufferLimit: 64, metrics: ServiceMetrics())
        // Polling once a minute: whatever arrives within the test came by hand-over or by wake-up.
        let pump = EventPump(repository: store, broker: broker, logger: Logger(label: "test"), pollInterval: .seconds(60))
        let stream = broker.subscribe(userID: kari.id, session: "s")
        // The pump's cursor starts at the log's end (no events yet), before it runs, so no commit can fall before it.
        _ = try await pump.drain(after: 0)
        let running = Task { try await pump.run() }
        defer { running.cancel() }
        var iterator = stream.messages.makeAsyncIterator()
        func nextEvent() async -> StoredEvent? {
            while let message = await iterator.next() {
                if case let .event(event) = message { return event }
            }
            return nil
        }
        _ = try await store.createNotifications([notification(to: kari.id, "first")], idempotencyKey: nil, at: now)
        #expect(await nextEvent()?.type == .notificationCreated)
        #expect(await nextEvent()?.type == .unreadCount)

        // Handed over: the pump is not woken (wake-ups are not needed with this store).
        _ = try await store.createNotifications([notification(to: kari.id, "second")], idempotencyKey: nil, at: now)
        let second = try #require(await nextEvent())
        guard case let .notificationCreated(item) = second.payload else {
            Issue.record("expected the created event")
            return
        }
        #expect(item.title == "second")
        _ = await nextEvent()

        // Another process writes; this one's next commit does not follow on, so the pump reads the log: both, in order.
        _ = try await otherProcess.createNotifications([notification(to: kari.id, "elsewhere")], idempotencyKey: nil, at: now)
        _ = try await store.createNotifications([notification(to: kari.id, "here")], idempotencyKey: nil, at: now)
        var titles: [String] = []
        var ids: [Int64] = []
        for _ in 0..<4 {
            guard let event = await nextEvent() else { break }
            ids.append(event.id)
            if case let .notificationCreated(item) = event.payload { titles.append(item.title) }
        }
        #expect(titles == ["elsewhere", "here"])
        #expect(ids == ids.sorted() && Set(ids).count == 4)
        let logged = try await store.events(after: second.id + 1, limit: 10).map(\.id)
        #expect(ids == logged)
    }
}
