import Foundation
import Logging
import PostgresNIO
import Synchronization
import Testing
import VarselCore
import VarselPostgres
import VarselStore

/// Several instances on one PostgreSQL database: event ids commit in id order, and two instances never
/// claim the same push. Runs when `VARSEL_TEST_POSTGRES_URL` is set (`./scripts/test.sh` starts a server).
@Suite("PostgreSQL: several instances", .enabled(if: PostgresTestDatabase.serverURL != nil))
struct PostgresOrderingTests {
    let now = DemoData.now
    let logger = Logger(label: "test")

    /// A second connection to the same database, outside the repository, to hold a transaction open.
    func withRawConnection<T: Sendable>(_ repository: PostgresRepository, _ body: @Sendable (PostgresConnection) async throws -> T) async throws -> T
    {
        try await repository.withConnectionForTests(body)
    }

    /// How many sessions on `repository`'s database wait for the event lock.
    func waitingForTheEventLock(_ repository: PostgresRepository) async throws -> Int {
        let logger = logger
        let key = PostgresRepository.eventLockForTests
        return try await withRawConnection(repository) { c in
            // A bigint advisory lock is shown as its high 32 bits (classid) and low 32 bits (objid).
            let rows = try await c.query(
                """
                SELECT count(*)::bigint FROM pg_locks
                WHERE locktype = 'advisory' AND NOT granted AND objsubid = 1
                  AND database = (SELECT oid FROM pg_database WHERE datname = current_database())
                  AND classid::bigint = \(key >> 32) AND objid::bigint = \(key & 0xFFFF_FFFF)
                """, logger: logger
            ).collect()
            return Int(try rows.first?.decode(Int64.self) ?? 0)
        }
    }

    @Test("without the event lock, two writers can commit out of id order: a reader past the later id skips the earlier")
    func theHazardIsReal() async throws {
        let repository = try await PostgresTestDatabase.make()
        let gate = AsyncStream<Void>.makeStream()
        let release = AsyncStream<Void>.makeStream()
        let logger = logger
        // The first writer takes an id and stays uncommitted until the test has read the log.
        let first = Task {
            try await withRawConnection(repository) { a in
                try await a.query("BEGIN", logger: logger)
                let id = try await a.query(
                    "INSERT INTO event (user_id, type, unread_count, created_at) VALUES (1, 'unread-count', 0, 0) RETURNING id", logger: logger
                )
                .collect().first?.decode(Int64.self)
                gate.continuation.yield()
                for await _ in release.stream { break }
                try await a.query("COMMIT", logger: logger)
                return id
            }
        }
        for await _ in gate.stream { break }
        let second = try await withRawConnection(repository) { b in
            try await b.query(
                "INSERT INTO event (user_id, type, unread_count, created_at) VALUES (1, 'unread-count', 0, 0) RETURNING id", logger: logger
            )
            .collect().first?.decode(Int64.self)
        }
        // The later id is committed and visible while the earlier one is not: a reader moving its cursor to it
        // would never see the earlier one.
        let visible = try await repository.events(after: 0, limit: 10).map(\.id)
        release.continuation.yield()
        let firstID = try await first.value
        #expect(try #require(second) > (try #require(firstID)))
        #expect(visible == [second].compactMap { $0 })
    }

    /// Another instance part-way through writing events: a transaction on a connection of its own that holds the
    /// event lock, and takes an event id at once (`takesIDAtOnce`) or only when let go.
    struct EventLockHolder {
        let transaction: Task<Int64?, any Error>
        let letGo: AsyncStream<Void>.Continuation

        /// Starts it for an event of `userID`; returns once it holds the lock (and, `takesIDAtOnce`, its id).
        static func start(_ repository: PostgresRepository, userID: UserID, takesIDAtOnce: Bool, logger: Logger) async -> EventLockHolder {
            let held = AsyncStream<Void>.makeStream()
            let letGo = AsyncStream<Void>.makeStream()
            let transaction = Task {
                try await repository.withConnectionForTests { a in
                    let insert: PostgresQuery =
                        "INSERT INTO event (user_id, type, unread_count, created_at) VALUES (\(userID), 'unread-count', 0, 0) RETURNING id"
                    try await a.query("BEGIN", logger: logger)
                    try await a.query("SELECT pg_advisory_xact_lock(\(PostgresRepository.eventLockForTests))", logger: logger)
                    var id = takesIDAtOnce ? try await a.query(insert, logger: logger).collect().first?.decode(Int64.self) : nil
                    held.continuation.yield()
                    for await _ in letGo.stream { break }
                    if !takesIDAtOnce { id = try await a.query(insert, logger: logger).collect().first?.decode(Int64.self) }
                    try await a.query("COMMIT", logger: logger)
                    return id
                }
            }
            for await _ in held.stream { break }
            return EventLockHolder(transaction: transaction, letGo: letGo.continuation)
        }

        /// Lets it take its id (if it has not) and commit; returns the id.
        func commit() async throws -> Int64 {
            letGo.yield()
            return try #require(try await transaction.value)
        }
    }

    /// Starts a create for `mentor` and returns once PostgreSQL shows it waiting for the event lock (or, wrongly, it
    /// finished without waiting), or after ten seconds.
    func createWaitingForTheEventLock(_ repository: PostgresRepository, to mentor: UserID) async throws -> Task<CreatedNotifications, any Error> {
        let finished = Mutex(false)
        let now = now
        let create = Task {
            defer { finished.withLock { $0 = true } }
            return try await repository.createNotifications(
                [
                    NewNotification(
                        recipientID: mentor, senderID: nil, kind: .scenarioPrompt, title: "T",
                        body: "B", deepLink: .scenario(scenarioID: nil))
                ], idempotencyKey: nil, at: now)
        }
        let deadline = ContinuousClock.now + .seconds(10)
        while !finished.withLock({ $0 }), try await waitingForTheEventLock(repository) == 0, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(5))
        }
        return create
    }

    @Test("the repository's writers wait for an open event-log transaction, so ids commit in order and none is skipped")
    func writersCommitInIDOrder() async throws {
        let repository = try await PostgresTestDatabase.make()
        let mentor = try await repository.createUser(
            NewUser(username: "kari", displayName: "Kari", role: .mentor, passwordHash: "x", language: .english), at: now)
        // An instance mid-way through writing events: it holds the event lock and has taken an id.
        let holder = await EventLockHolder.start(repository, userID: mentor.id, takesIDAtOnce: true, logger: logger)
        // Another instance creates a notification meanwhile: it must wait for the first to commit.
        let writer = try await createWaitingForTheEventLock(repository, to: mentor.id)
        #expect(try await waitingForTheEventLock(repository) == 1, "the writer is not waiting for the event lock")
        #expect(try await repository.events(after: 0, limit: 10).isEmpty, "a later id became visible before the earlier one committed")
        let heldID = try await holder.commit()
        _ = try await writer.value
        let ids = try await repository.events(after: 0, limit: 10).map(\.id)
        #expect(ids.first == heldID)
        #expect(ids == ids.sorted() && ids.count == 3)  // the held event, then created + unread count
    }

    @Test("a create takes its events' ids only once it holds the event lock: an event written meanwhile under the lock comes first")
    func idsAreTakenUnderTheLock() async throws {
        let repository = try await PostgresTestDatabase.make()
        let mentor = try await repository.createUser(
            NewUser(username: "kari", displayName: "Kari", role: .mentor, passwordHash: "x", language: .english), at: now)
        // Another instance holds the event lock and takes its id only once the create is waiting.
        let holder = await EventLockHolder.start(repository, userID: mentor.id, takesIDAtOnce: false, logger: logger)
        let writer = try await createWaitingForTheEventLock(repository, to: mentor.id)
        #expect(try await waitingForTheEventLock(repository) == 1, "the create is not waiting for the event lock")
        let heldID = try await holder.commit()
        _ = try await writer.value
        let events = try await repository.events(after: 0, limit: 10)
        // The held event, then the create's two. Had the create taken its ids before it waited, the held event's
        // would be the highest.
        #expect(events.count == 3)
        #expect(events.first?.id == heldID)
    }

    @Test("requests with one idempotency key at once, on two instances, create the notification once; the others replay it")
    func concurrentIdempotentCreates() async throws {
        let repository = try await PostgresTestDatabase.make()
        let other = try await PostgresRepository(
            url: repository.urlForTests, logger: logger, operationTimeout: PostgresTestDatabase.operationTimeout,
            idleTransactionTimeout: PostgresTestDatabase.idleTransactionTimeout)
        let mentor = try await repository.createUser(
            NewUser(username: "kari", displayName: "Kari", role: .mentor, passwordHash: "x", language: .english), at: now)
        let key = IdempotencyKey(senderID: mentor.id, key: "retry-1", fingerprint: "same body")
        let new = NewNotification(
            recipientID: mentor.id, senderID: nil, kind: .scenarioPrompt, title: "T", body: "B", deepLink: .scenario(scenarioID: nil))
        let results = try await withThrowingTaskGroup(of: CreatedNotifications.self) { group in
            for index in 0..<8 {
                let store: PostgresRepository = index.isMultiple(of: 2) ? repository : other
                group.addTask { try await store.createNotifications([new], idempotencyKey: key, at: self.now) }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(Set(results.flatMap { $0.items.map(\.id) }).count == 1)
        #expect(results.filter { !$0.isReplay }.count == 1)
        #expect(try await repository.unreadCount(for: mentor.id) == 1)
        #expect(try await repository.events(after: 0, limit: 10).count == 2)
    }

    @Test("a create on one instance wakes another instance's listener at commit (the event table's trigger sends the NOTIFY)")
    func createWakesTheOtherInstance() async throws {
        let repository = try await PostgresTestDatabase.make()
        let other = try await PostgresRepository(
            url: repository.urlForTests, logger: logger, operationTimeout: PostgresTestDatabase.operationTimeout,
            idleTransactionTimeout: PostgresTestDatabase.idleTransactionTimeout)
        let mentor = try await repository.createUser(
            NewUser(username: "kari", displayName: "Kari", role: .mentor, passwordHash: "x", language: .english), at: now)
        let wakes = WakeCount()
        let logger = logger
        let listener = Task { try await PostgresEventListener(repository: other, logger: logger) { wakes.count.withLock { $0 += 1 } }.run() }
        defer { listener.cancel() }
        func waitFor(moreThan count: Int) async throws -> Bool {
            let deadline = ContinuousClock.now + .seconds(5)
            while wakes.count.withLock({ $0 }) <= count {
                guard ContinuousClock.now < deadline else { return false }
                try await Task.sleep(for: .milliseconds(10))
            }
            return true
        }
        // Its catch-up wake comes once LISTEN has taken effect: from then on, every commit's NOTIFY reaches it.
        #expect(try await waitFor(moreThan: 0), "the listener did not start")
        let before = wakes.count.withLock { $0 }
        _ = try await repository.createNotifications(
            [
                NewNotification(
                    recipientID: mentor.id, senderID: nil, kind: .scenarioPrompt, title: "T", body: "B",
                    deepLink: .scenario(scenarioID: nil))
            ], idempotencyKey: nil, at: now)
        let woke = try await waitFor(moreThan: before)
        #expect(woke, "no NOTIFY reached the other instance within 5 s")
    }

    @Test("two instances claiming due pushes at once never take the same one")
    func claimsAreExclusive() async throws {
        let first = try await PostgresTestDatabase.make()
        let second = try await PostgresRepository(
            url: first.urlForTests, logger: logger, operationTimeout: PostgresTestDatabase.operationTimeout,
            idleTransactionTimeout: PostgresTestDatabase.idleTransactionTimeout)
        let mentor = try await first.createUser(
            NewUser(username: "kari", displayName: "Kari", role: .mentor, passwordHash: "x", language: .english), at: now)
        try await first.createSession(
            Session(tokenHash: "s", userID: mentor.id, csrfToken: "c", createdAt: now, expiresAt: now.addingTimeInterval(3600)))
        let subscription = try await first.savePushSubscription(
            NewPushSubscription(
                userID: mentor.id, sessionTokenHash: "s", endpoint: "https://push.example/x", p256dh: Data(repeating: 4, count: 65),
                auth: Data(count: 16), actionSecret: Data(count: 32)), at: now)
        let deliveries = (1...200).map { NewPushDelivery(subscriptionID: subscription.id, notificationID: NotificationID($0)) }
        #expect(try await first.enqueuePushDeliveries(deliveries, after: nil, through: 1, at: now))
        let now = now
        func drain(_ store: PostgresRepository) async throws -> [NotificationID] {
            var taken: [NotificationID] = []
            while true {
                let claimed = try await store.claimDuePushDeliveries(at: now, limit: 7, leaseUntil: now.addingTimeInterval(600))
                if claimed.isEmpty { return taken }
                taken += claimed.map(\.notificationID)
            }
        }
        async let a = drain(first)
        async let b = drain(second)
        let (fromFirst, fromSecond) = try await (a, b)
        #expect(Set(fromFirst).isDisjoint(with: fromSecond))
        #expect((fromFirst + fromSecond).sorted() == (1...200).map { NotificationID(Int64($0)) })
        // Deterministically: while one instance's claim is in flight (its rows locked), another skips those rows
        // instead of waiting for them or taking them too.
        let more = (1...10).map { NewPushDelivery(subscriptionID: subscription.id, notificationID: NotificationID(1000 + $0)) }
        #expect(try await first.enqueuePushDeliveries(more, after: 1, through: 2, at: now))
        let logger = logger
        let gate = AsyncStream<Void>.makeStream()
        let claimed = Mutex(false)
        let holder = Task {
            try await first.withConnectionForTests { a in
                try await a.query("BEGIN", logger: logger)
                try await a.query("SELECT id FROM push_delivery WHERE notification_id <= 1004 ORDER BY id FOR UPDATE", logger: logger)
                gate.continuation.yield()
                // Held until the other claim returns (or 10 s: a claim that waited for these rows would then take
                // all ten, and the expectation below fails instead of the test hanging).
                for _ in 0..<200 where !claimed.withLock({ $0 }) { try await Task.sleep(for: .milliseconds(50)) }
                try await a.query("ROLLBACK", logger: logger)
            }
        }
        for await _ in gate.stream { break }
        let skipped = try await second.claimDuePushDeliveries(at: now, limit: 10, leaseUntil: now.addingTimeInterval(600))
        claimed.withLock { $0 = true }
        #expect(skipped.map(\.notificationID) == (1005...1010).map { NotificationID(Int64($0)) }, "the claim took or waited for locked rows")
        try await holder.value
        second.shutdown()
    }

    @Test("a recipient's unread count is read from an index of unread notifications only, not from every notification they ever had")
    func unreadCountUsesItsIndex() async throws {
        let repository = try await PostgresTestDatabase.make()
        let logger = logger
        let plan = try await withRawConnection(repository) { c in
            // The table is nearly empty, so the planner would scan it; told not to, it shows which index it would take.
            try await c.query("SET enable_seqscan = off", logger: logger)
            var lines: [String] = []
            for try await line in try await c.query(
                "EXPLAIN SELECT COUNT(*) FROM notification WHERE recipient_id = 1 AND read_at IS NULL",
                logger: logger
            ).decode(String.self) {
                lines.append(line)
            }
            return lines
        }
        #expect(plan.contains { $0.contains("notification_unread_by_recipient") }, "\(plan)")
        repository.shutdown()
    }

    @Test("a create with more values than one statement may carry (65,535) is split over statements; ids follow the order given")
    func aCreateTooBigForOneStatement() async throws {
        // 8,000 notifications in one create take 10 s alone and over a minute beside the other suites on two busy
        // cores; the deadline is about a database that does not answer, not about this.
        let repository = try await PostgresRepository(
            url: try await PostgresTestDatabase.makeEmpty(), logger: Logger(label: "test"), operationTimeout: .seconds(300),
            idleTransactionTimeout: PostgresTestDatabase.idleTransactionTimeout)
        let mentor = try await repository.createUser(
            NewUser(username: "kari", displayName: "K", role: .mentor, passwordHash: "x", language: .english), at: now)
        let before = try await repository.latestEventID()
        // Nine values a row: 72,000 in one statement would be refused.
        let count = 8000
        let news = (0..<count).map {
            NewNotification(
                recipientID: mentor.id, senderID: nil, kind: .scenarioPrompt, title: "n\($0)", body: "b", deepLink: .scenario(scenarioID: nil))
        }
        let created = try await repository.createNotifications(news, idempotencyKey: nil, at: now)
        #expect(created.items.map(\.title) == news.map(\.title))
        #expect(created.items.map(\.id) == created.items.map(\.id).sorted())
        let stored = try await withRawConnection(repository) { c in
            var rows: [String] = []
            for try await (id, title) in try await c.query("SELECT id, title FROM notification ORDER BY id", logger: logger).decode(
                (Int64, String).self)
            {
                rows.append("\(id) \(title)")
            }
            return rows
        }
        #expect(stored == created.items.map { "\($0.id) \($0.title)" }, "each returned id is the row with that title")
        // Written as a fan-out: each chunk's transaction ends with its recipient's unread count.
        let events = try await repository.events(after: before, limit: count * 2)
        #expect(events.count == count + (count + FanOut.chunkSize - 1) / FanOut.chunkSize)
        if case let .unreadCount(unread) = events.last?.payload { #expect(unread == count) } else { Issue.record("the unread count comes last") }
        repository.shutdown()
    }
}

/// How often a listener woke, shared with its task.
final class WakeCount: Sendable {
    let count = Mutex(0)
}
