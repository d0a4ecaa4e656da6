import Foundation
import GRDB
import Logging
import PostgresNIO
import Synchronization
import Testing
import VarselCore
import VarselStore
import _ConnectionPoolModule

@testable import VarselPostgres
@testable import VarselSQLite

/// A gate a test opens by hand: whoever waits at it waits until then.
private final class Gate: Sendable {
    private let waiters = Mutex<(open: Bool, waiting: [CheckedContinuation<Void, Never>])>((false, []))

    func wait() async {
        await withCheckedContinuation { continuation in
            let isOpen = waiters.withLock { state in
                if !state.open { state.waiting.append(continuation) }
                return state.open
            }
            if isOpen { continuation.resume() }
        }
    }

    func open() {
        for waiting in waiters.withLock({ state -> [CheckedContinuation<Void, Never>] in
            state.open = true
            defer { state.waiting = [] }
            return state.waiting
        }) { waiting.resume() }
    }
}

@Suite("The store when what it stands on fails")
struct StoreOutageTests: StoreContract {
    let now = DemoData.now

    @Test("a deadline answers timedOut while the operation still waits, and the operation's own answer when it comes first")
    func deadline() async throws {
        let gate = Gate()
        // The gate opens only after the caller was answered: the answer came while the operation still waited.
        await #expect(throws: StoreUnavailable.timedOut) {
            try await StoreDeadline.run(within: .milliseconds(200)) {
                await gate.wait()
                return 1
            }
        }
        gate.open()
        #expect(try await StoreDeadline.run(within: .seconds(30)) { 7 } == 7)
        await #expect(throws: StoreError.idempotencyKeyReused) {
            try await StoreDeadline.run(within: .seconds(30)) { () async throws -> Int in throw StoreError.idempotencyKeyReused }
        }
    }

    @Test("an outage is told once when it begins and once when it ends; a read does not end a full disk, a write does")
    func healthEpisodes() async throws {
        let health = StoreHealth(now: { DemoData.now })
        let told = Mutex<[String]>([])
        health.onChange { began, ended in
            told.withLock { $0.append(began.map { "began \($0.condition.name)" } ?? "ended \(ended!.condition.name)") }
        }
        health.refused(.timedOut)
        health.refused(.unreachable)
        health.refused(.timedOut)
        #expect(health.outage?.condition == .timedOut)
        health.succeeded(wrote: false)
        #expect(health.outage == nil)
        health.refused(.diskFull)
        health.succeeded(wrote: false)
        #expect(health.outage?.condition == .diskFull, "reading works on a full disk; it is not over")
        health.succeeded(wrote: true)
        #expect(told.withLock { $0 } == ["began timeout", "ended timeout", "began disk_full", "ended disk_full"])
        #expect(health.refusedCounts == ["timeout": 2, "unreachable": 1, "disk_full": 1])
    }

    @Test("PostgreSQL's ways of being unavailable are outages; its answers (a constraint, a refusal) are not")
    func postgresConditions() {
        #expect(PostgresRepository.unavailability(sqlState: "57P01") == .unreachable, "admin shutdown: a restart")
        #expect(PostgresRepository.unavailability(sqlState: "57P03") == .unreachable, "the database system is starting up")
        #expect(PostgresRepository.unavailability(sqlState: "08006") == .unreachable, "connection failure")
        #expect(PostgresRepository.unavailability(sqlState: "25006") == .unreachable, "a standby not yet promoted is read-only")
        #expect(PostgresRepository.unavailability(sqlState: "53100") == .diskFull)
        #expect(PostgresRepository.unavailability(sqlState: "23505") == nil, "a unique violation is an answer")
        #expect(PostgresRepository.unavailability(sqlState: "40001") == nil)
        #expect(PostgresRepository.unavailability(sqlState: nil) == nil)
        #expect(PostgresRepository.unavailability(of: ChannelError.ioOnClosedChannel) == .unreachable, "a connection the server dropped")
        #expect(PostgresRepository.unavailability(of: StoreError.idempotencyKeyReused) == nil)
        #expect(
            PostgresRepository.unavailability(of: ConnectionPoolError.connectionCreationCircuitBreakerTripped) == .unreachable,
            "a pool that gave up connecting to a server that does not answer")
    }

    @Test("SQLite on a full disk refuses a write as diskFull, loses nothing committed, reads on, and writes again once there is room")
    func sqliteDiskFull() async throws {
        let path = try temporarySQLitePath("disk-full")
        let store = try SQLiteRepository(path: path)
        let kari = try await mentor(store, "kari")
        let told = Mutex<[String]>([])
        store.health.onChange { began, ended in
            told.withLock { $0.append(began.map { "began \($0.condition.name)" } ?? "ended \(ended!.condition.name)") }
        }
        // SQLite answers a database at its page limit exactly as a full disk: SQLITE_FULL.
        let limiter = try DatabaseQueue(path: path)
        let pages = try await limiter.read { db in try Int.fetchOne(db, sql: "PRAGMA page_count") ?? 0 }
        var stored = 0
        var refusal: (any Error)?
        for n in 0..<2000 {
            do {
                try await store.writer.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA max_page_count = \(pages + 4)") }
                _ = try await store.createNotifications(
                    [note(kari.id, title: "Note \(n) " + String(repeating: "x", count: 400))],
                    idempotencyKey: nil, at: now)
                stored += 1
            } catch {
                refusal = error
                break
            }
        }
        #expect(refusal as? StoreUnavailable == .diskFull, "\(String(describing: refusal))")
        #expect(stored > 0)
        #expect(store.health.outage?.condition == .diskFull)
        #expect(
            try await store.notifications(for: kari.id, filter: .all, after: nil, limit: 5000).items.count == stored,
            "reads go on; nothing committed was lost")
        // Room again: the next write goes through without a restart, and the outage ends.
        try await store.writer.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA max_page_count = 1073741823") }
        _ = try await store.createNotifications([note(kari.id, title: "After")], idempotencyKey: nil, at: now)
        #expect(store.health.outage == nil)
        #expect(told.withLock { $0 } == ["began disk_full", "ended disk_full"])
        #expect(try await store.writer.read { db in try String.fetchOne(db, sql: "PRAGMA integrity_check") } == "ok")
    }

    @Test("a PostgreSQL write that cannot get what it waits for is refused as timedOut at the deadline; the next one goes through")
    func postgresDeadline() async throws {
        guard PostgresTestDatabase.serverURL != nil else { return }
        // A deadline short enough for a quick test, long enough that nothing but the held write meets it on a machine
        // busy with the other tests (at 1 s, an ordinary write once did).
        let (store, kari) = try await postgresWithMentor(operationTimeout: .seconds(4))
        defer { store.shutdown() }
        let holding = Gate()
        let release = Gate()
        // Another instance holds the event log's lock, as a hung transaction would: every write that appends events waits.
        let holder = Task {
            try await store.withConnectionForTests { connection in
                try await connection.query("SELECT pg_advisory_lock(\(PostgresRepository.eventLockForTests))", logger: Logger(label: "test"))
                holding.open()
                await release.wait()
                try await connection.query("SELECT pg_advisory_unlock(\(PostgresRepository.eventLockForTests))", logger: Logger(label: "test"))
            }
        }
        await holding.wait()
        // The lock is released only after the write was answered: it was refused while still waiting.
        await #expect(throws: StoreUnavailable.timedOut) {
            try await store.createNotifications(
                [note(kari.id)], idempotencyKey: IdempotencyKey(senderID: kari.id, key: "held", fingerprint: "f"), at: now)
        }
        #expect(store.health.outage?.condition == .timedOut)
        release.open()
        try await holder.value
        // Sent again with its key: stored once, whether or not the first attempt committed after its deadline.
        let created = try await store.createNotifications(
            [note(kari.id)], idempotencyKey: IdempotencyKey(senderID: kari.id, key: "held", fingerprint: "f"), at: now)
        #expect(created.items.count == 1)
        #expect(store.health.outage == nil)
        try await store.ping()
    }

    /// A new PostgreSQL database with one mentor, opened with the given deadline for every operation.
    ///
    /// The schema and the mentor are made through a store with the usual deadline first, so a busy machine cannot fail
    /// the test before the outage it is about; only the returned store has the short deadline. Both let a transaction
    /// sit idle as long as the other test stores do: on that machine the schema's transaction can wait seconds for a
    /// thread between two statements, and the server would end it.
    func postgresWithMentor(operationTimeout: Duration) async throws -> (PostgresRepository, User) {
        let url = try await PostgresTestDatabase.makeEmpty()
        let setup = try await PostgresRepository(
            url: url, logger: Logger(label: "test"), idleTransactionTimeout: PostgresTestDatabase.idleTransactionTimeout)
        let kari: User
        do {
            kari = try await mentor(setup, "kari")
            setup.shutdown()
        } catch {
            setup.shutdown()
            throw error
        }
        let store = try await PostgresRepository(
            url: url, logger: Logger(label: "test"), operationTimeout: operationTimeout,
            idleTransactionTimeout: PostgresTestDatabase.idleTransactionTimeout)
        return (store, kari)
    }

    /// How the server ends a session in the middle of one of Varsel's transactions.
    enum SessionEnd: String, CaseIterable, Sendable, CustomTestStringConvertible {
        /// The transaction sat idle past `idle_in_transaction_session_timeout` (an instance too busy to go on).
        case idleTooLong
        /// An administrator ended it (`pg_terminate_backend`), as a restart or a failover also does.
        case terminated

        var testDescription: String { rawValue }
    }

    @Test(
        "a transaction whose session the server ends between two statements is refused as unreachable, and gives its connection back",
        arguments: SessionEnd.allCases)
    func postgresSessionEndedMidTransaction(end: SessionEnd) async throws {
        guard PostgresTestDatabase.serverURL != nil else { return }
        // Far longer than the test: a statement that waited for an answer from the closed session would be refused as
        // timedOut at this deadline instead of as unreachable.
        let (store, kari) = try await postgresWithMentor(operationTimeout: .seconds(600))
        defer { store.shutdown() }
        let logger = Logger(label: "test")
        // More rounds than the pool has connections (16): one kept by a statement left waiting would leave the last none.
        for round in 1...20 {
            await #expect(throws: StoreUnavailable.unreachable, "round \(round)") {
                try await store.write { c in
                    switch end {
                    case .idleTooLong:
                        try await c.query("SET LOCAL idle_in_transaction_session_timeout = '20ms'", logger: logger)
                    case .terminated:
                        let pid = try await PostgresRepository.one(c.query("SELECT pg_backend_pid()", logger: logger)).decode(Int32.self)
                        _ = try await store.withConnectionForTests { other in
                            try await other.query("SELECT pg_terminate_backend(\(pid))", logger: logger)
                        }
                    }
                    // The session is gone once the client has seen its connection close.
                    while !c.isClosed { try await Task.sleep(for: .milliseconds(5)) }
                    try await c.query("SELECT 1", logger: logger)
                }
            }
        }
        let created = try await store.createNotifications([note(kari.id)], idempotencyKey: nil, at: now)
        #expect(created.items.count == 1)
        #expect(store.closeWatch.watchedConnections <= 16)
    }

    @Test("a statement the server does not answer by the deadline gives its connection back a moment later; the pool keeps working")
    func postgresUnansweredStatement() async throws {
        guard PostgresTestDatabase.serverURL != nil else { return }
        let (store, kari) = try await postgresWithMentor(operationTimeout: .seconds(1))
        defer { store.shutdown() }
        let logger = Logger(label: "test")
        // More rounds than the pool has connections (16), each a statement the server answers only after a minute,
        // long after the test: a connection kept until then would leave the last rounds, and the create after, none.
        for round in 1...17 {
            await #expect(throws: StoreUnavailable.timedOut, "round \(round)") {
                try await store.write { c in try await c.query("SELECT pg_sleep(60)", logger: logger) }
            }
        }
        // The pool has connections again: a create goes through well before the first statement is answered. (Each
        // try has the one-second deadline of an outage; on a busy machine a new connection can take longer.)
        let start = ContinuousClock.now
        var created: CreatedNotifications?
        while created == nil, ContinuousClock.now - start < .seconds(30) {
            created = try? await store.createNotifications([note(kari.id)], idempotencyKey: nil, at: now)
        }
        #expect(created?.items.count == 1)
    }

    @Test(
        "each outbox's backlog counts what waits and how long the oldest due item has waited; a held one is not due",
        arguments: StoreKind.allCases)
    func outboxBacklog(kind: StoreKind) async throws {
        let store = try await kind.make()
        #expect(try await store.outboxBacklog(at: now).map(\.outbox) == ["push", "sms", "email"])
        #expect(try await store.outboxBacklog(at: now).allSatisfy { $0.items == 0 && $0.oldestDue == nil })
        let kari = try await mentor(store, "kari")
        let item = try await store.createNotifications([note(kari.id)], idempotencyKey: nil, at: now).items[0]
        #expect(
            try await store.enqueueMessages(
                [
                    NewMessageDelivery(notificationID: item.id, userID: kari.id, channel: .email, dueAt: now - 90),
                    NewMessageDelivery(notificationID: item.id, userID: kari.id, channel: .textMessage, dueAt: now + 3600),
                ], after: nil, through: 1, at: now - 100))
        let backlog = try await store.outboxBacklog(at: now)
        #expect(backlog.map(\.items) == [0, 1, 1])
        #expect(backlog[1].oldestDue == nil, "held until later: not due, so not stuck")
        #expect(backlog[2].oldestDue == now - 90)
    }
}
