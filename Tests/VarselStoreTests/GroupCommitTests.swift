import Foundation
import GRDB
import Synchronization
import Testing

@testable import VarselSQLite

/// Group commit: a write commits at once when no commit is in flight, writes that arrive during one share the next,
/// and with an interval steady writes gather into one commit per interval while a lone write is not held back.
@Suite("SQLite group commit")
struct GroupCommitTests {
    /// Counts the commits of a database.
    final class CommitCounter: TransactionObserver, Sendable {
        private let commits = Mutex(0)
        var count: Int { commits.withLock { $0 } }
        func observes(eventsOfKind eventKind: DatabaseEventKind) -> Bool { true }
        func databaseDidChange(with event: DatabaseEvent) {}
        func databaseDidCommit(_ db: Database) { commits.withLock { $0 += 1 } }
        func databaseDidRollback(_ db: Database) {}
    }

    /// Records the waits group commit asks for and, while shut, holds each until the test opens it.
    final class Gate: Sendable {
        private let state: Mutex<(requested: [ContinuousClock.Instant], isOpen: Bool)>
        init(isOpen: Bool = false) { state = Mutex(([], isOpen)) }
        var requested: [ContinuousClock.Instant] { state.withLock { $0.requested } }

        /// Records `deadline`; while shut, waits for the test to open it, or at most five seconds (so a wait the
        /// test did not expect fails its expectations rather than hanging it).
        func pause(until deadline: ContinuousClock.Instant) async {
            state.withLock { $0.requested.append(deadline) }
            let giveUp = ContinuousClock.now.advanced(by: .seconds(5))
            while !state.withLock({ $0.isOpen }), ContinuousClock.now < giveUp { try? await Task.sleep(for: .milliseconds(2)) }
        }

        func open() { state.withLock { $0.isOpen = true } }
    }

    /// A flag one thread raises and another sees.
    final class Flag: Sendable {
        private let raised = Mutex(false)
        var isRaised: Bool { raised.withLock { $0 } }
        func raise() { raised.withLock { $0 = true } }
    }

    /// A database with one table to write to, its commits counted, and group commit over it.
    func make(interval: Duration, gate: Gate = Gate()) throws -> (GroupCommit, CommitCounter, DatabaseQueue) {
        let queue = try DatabaseQueue()
        try queue.write { try $0.execute(sql: "CREATE TABLE item (name TEXT NOT NULL)") }
        let counter = CommitCounter()
        queue.add(transactionObserver: counter, extent: .databaseLifetime)
        return (GroupCommit(writer: queue, interval: interval, pause: { await gate.pause(until: $0) }), counter, queue)
    }

    func insert(_ name: String, with commits: GroupCommit) async throws {
        try await commits.write { try $0.execute(sql: "INSERT INTO item VALUES (?)", arguments: [name]) }
    }

    @Test("writes that come within the interval after a commit started wait for it to pass, then share one commit")
    func writesWithinTheIntervalShareOneCommit() async throws {
        let gate = Gate()
        let (commits, counter, queue) = try make(interval: .seconds(3600), gate: gate)
        let firstStart = ContinuousClock.now
        try await insert("first", with: commits)
        #expect(gate.requested.isEmpty, "the first write has nothing to wait for")
        let afterFirst = counter.count
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<5 { group.addTask { try await insert("w\(index)", with: commits) } }
            // All five wait (the first of them in the pause) before the interval is let pass.
            let deadline = ContinuousClock.now.advanced(by: .seconds(10))
            while commits.waitingCount < 5, counter.count == afterFirst, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(2))
            }
            #expect(commits.waitingCount == 5)
            #expect(counter.count == afterFirst, "nothing committed during the interval")
            gate.open()
            try await group.waitForAll()
        }
        #expect(counter.count - afterFirst == 1, "the five writes committed in \(counter.count - afterFirst) transactions")
        #expect(gate.requested.count == 1)
        #expect(gate.requested.allSatisfy { $0 >= firstStart.advanced(by: .seconds(3600)) }, "it waits until the interval after the last start")
        #expect(try await queue.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM item") } == 6)
    }

    @Test("without an interval, writes one after another commit one by one, waiting for nothing")
    func noIntervalCommitsEachWrite() async throws {
        let gate = Gate(isOpen: true)
        let (commits, counter, _) = try make(interval: .zero, gate: gate)
        for index in 0..<5 { try await insert("w\(index)", with: commits) }
        #expect(counter.count == 5)
        #expect(gate.requested.isEmpty)
    }

    @Test("without an interval, writes that arrive while a commit is in flight go together in the next one")
    func writesDuringACommitShareTheNext() async throws {
        let gate = Gate(isOpen: true)
        let (commits, counter, queue) = try make(interval: .zero, gate: gate)
        let started = Flag()
        let release = DispatchSemaphore(value: 0)
        try await withThrowingTaskGroup(of: Void.self) { group in
            // The first write holds its transaction open (as a disk sync would) until the others are waiting; only
            // the writer's own thread waits, so the test's tasks keep every thread of the pool.
            group.addTask {
                try await commits.write { db in
                    try db.execute(sql: "INSERT INTO item VALUES ('first')")
                    started.raise()
                    release.wait()
                }
            }
            // A long deadline: the whole suite shares a task pool as wide as the machine's cores, which other tests'
            // helpers (a Python SMTP server starting, a blocking socket read) can hold for seconds on two cores.
            let deadline = ContinuousClock.now.advanced(by: .seconds(60))
            while !started.isRaised, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(2)) }
            #expect(started.isRaised, "the first write began its transaction")
            for index in 0..<5 { group.addTask { try await insert("w\(index)", with: commits) } }
            while commits.waitingCount < 5, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(2)) }
            #expect(commits.waitingCount == 5)
            #expect(counter.count == 0, "nothing commits while the first transaction is open")
            release.signal()
            try await group.waitForAll()
        }
        #expect(counter.count == 2, "the first write, then the five together: \(counter.count) commits")
        #expect(gate.requested.isEmpty, "no write waited for anything but the commit in flight")
        #expect(try await queue.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM item") } == 6)
    }

    @Test("a write after a quiet spell longer than the interval is not held back")
    func loneWriteStartsAtOnce() async throws {
        let gate = Gate(isOpen: true)
        let (commits, counter, _) = try make(interval: .milliseconds(50), gate: gate)
        try await insert("first", with: commits)
        try await Task.sleep(for: .milliseconds(100))
        try await insert("second", with: commits)
        #expect(gate.requested.isEmpty, "held back, it would have asked to wait")
        #expect(counter.count == 2)
    }
}
