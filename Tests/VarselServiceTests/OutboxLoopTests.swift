import Foundation
import Logging
import Synchronization
import Testing
import VarselCore
import VarselSQLite
import VarselStore

@testable import VarselService

/// The shared outbox loop when the store fails under it: nothing waits out its lease, nothing that went out goes
/// out twice — on an injected clock, with failures injected one call at a time.
@Suite("Outbox loop")
struct OutboxLoopTests {
    /// An outbox held in memory whose store fails as a test asks.
    final class TestOutbox: OutboxChannel {
        enum Outcome: Equatable, Sendable { case sent, retry, released }
        struct Item: Sendable, Equatable {
            var id: Int
            var attempts: Int
        }
        struct Row {
            var due: Date
            var attempts = 0
            var done = false
        }
        struct State {
            var rows: [Int: Row] = [:]
            var sent: [Int] = []
            var claims = 0
            var failingAttempts = 0
            var failingRecords = 0
            /// Items whose attempt comes to a retry (their push service refused them).
            var refused: Set<Int> = []
            var cursor: Int64?
        }
        let state = Mutex(State())
        let clock: @Sendable () -> Date
        init(clock: @escaping @Sendable () -> Date) { self.clock = clock }

        func add(_ id: Int) { state.withLock { $0.rows[id] = Row(due: clock()) } }
        func row(_ id: Int) -> Row? { state.withLock { $0.rows[id] } }
        var sent: [Int] { state.withLock { $0.sent } }
        var claims: Int { state.withLock { $0.claims } }

        /// True once for each failure asked for.
        private func fails(_ counter: WritableKeyPath<State, Int>) -> Bool {
            state.withLock { state in
                guard state[keyPath: counter] > 0 else { return false }
                state[keyPath: counter] -= 1
                return true
            }
        }

        func cursor() async throws -> Int64? { state.withLock { $0.cursor } }
        func enqueue(_ events: [StoredEvent], after cursor: Int64?, through last: Int64) async throws -> Bool {
            state.withLock { $0.cursor = last }
            return true
        }
        func claimDue(at date: Date, limit: Int, leaseUntil: Date) async throws -> [Item] {
            state.withLock { state in
                state.claims += 1
                let due = state.rows.filter { !$0.value.done && $0.value.due <= date }.keys.sorted().prefix(limit)
                for id in due { state.rows[id]?.due = leaseUntil }
                return due.map { Item(id: $0, attempts: state.rows[$0]!.attempts) }
            }
        }
        func attempt(_ item: Item) async throws -> Outcome {
            if fails(\.failingAttempts) { throw StoreUnavailable.timedOut }
            return state.withLock { state in
                if state.refused.contains(item.id) { return .retry }
                state.sent.append(item.id)
                return .sent
            }
        }
        func failedAttempt(_ item: Item) -> Outcome { .retry }
        func released(_ item: Item) -> Outcome { .released }
        func wentOut(_ outcome: Outcome) -> Bool { outcome == .sent }
        func record(_ outcome: Outcome, for item: Item) async throws {
            if fails(\.failingRecords) { throw StoreUnavailable.unreachable }
            let now = clock()
            state.withLock { state in
                switch outcome {
                case .sent: state.rows[item.id]?.done = true
                case .retry:
                    state.rows[item.id].map { _ in
                        state.rows[item.id]!.attempts = item.attempts + 1
                        state.rows[item.id]!.due = now + 60
                    }
                case .released: state.rows[item.id]?.due = now
                }
            }
        }
        func metadata(for item: Item) -> Logger.Metadata { ["item.id": "\(item.id)"] }
    }

    final class Clock: Sendable {
        private let current = Mutex(DemoData.now)
        var now: Date { current.withLock { $0 } }
        func advance(_ seconds: TimeInterval) { current.withLock { $0 = $0.addingTimeInterval(seconds) } }
    }

    let clock = Clock()
    let outbox: TestOutbox
    let loop: OutboxLoop<TestOutbox>

    init() throws {
        let clock = clock
        outbox = TestOutbox(clock: { clock.now })
        loop = OutboxLoop(
            channel: outbox, events: try SQLiteRepository.inMemory(), pace: .init(batchSize: 4, concurrency: 2, lease: 60),
            now: { clock.now }, logger: Logger(label: "test"))
    }

    @Test("an attempt the store cut short releases its item, tried again in the next round without waiting for its lease")
    func cutShortAttemptIsReleased() async throws {
        outbox.add(1)
        outbox.state.withLock { $0.failingAttempts = 1 }
        try await loop.step()
        #expect(outbox.sent.isEmpty)
        #expect(outbox.row(1)?.due == clock.now, "due again at once")
        #expect(outbox.row(1)?.attempts == 0, "the store's failure is not the item's")
        try await loop.step()
        #expect(outbox.sent == [1])
        #expect(outbox.row(1)?.done == true)
    }

    @Test("an item that went out but could not be recorded is recorded in the next round, and not sent again")
    func sentButUnrecordedIsRecordedLater() async throws {
        outbox.add(1)
        outbox.add(2)
        outbox.state.withLock { $0.failingRecords = 1 }
        try await loop.step()
        #expect(outbox.sent.sorted() == [1, 2])
        #expect(loop.unrecordedCount == 1)
        try await loop.step()
        #expect(loop.unrecordedCount == 0)
        #expect(outbox.row(1)?.done == true && outbox.row(2)?.done == true)
        #expect(outbox.sent.sorted() == [1, 2], "nothing went out twice")
    }

    @Test("an outcome other than sent that could not be recorded is not kept: the item is released and tried again")
    func unsentUnrecordedIsReleased() async throws {
        outbox.add(1)
        outbox.state.withLock {
            $0.refused = [1]
            $0.failingRecords = 1
        }
        try await loop.step()
        outbox.state.withLock { $0.refused = [] }
        try await loop.recordLeftovers()
        #expect(outbox.row(1)?.attempts == 0, "released, not recorded as a failed attempt read while the store was failing")
        #expect(outbox.row(1)?.due == clock.now)
        try await loop.step()
        #expect(outbox.sent == [1])
    }

    @Test("while the store still cannot record what the last round left, a round claims nothing new")
    func noClaimWhileLeftoversWait() async throws {
        outbox.add(1)
        outbox.state.withLock { $0.failingRecords = 2 }
        try await loop.step()
        let claims = outbox.claims
        await #expect(throws: StoreUnavailable.self) { try await loop.step() }
        #expect(outbox.claims == claims)
        #expect(loop.unrecordedCount == 1)
        try await loop.step()
        #expect(loop.unrecordedCount == 0)
        #expect(outbox.row(1)?.done == true)
        #expect(outbox.sent == [1])
    }

    @Test("what could not be recorded by the end of its lease is dropped: the item is anyone's to try again")
    func leftoversEndWithTheLease() async throws {
        outbox.add(1)
        outbox.state.withLock { $0.failingRecords = 1 }
        try await loop.step()
        #expect(loop.unrecordedCount == 1)
        clock.advance(61)
        try await loop.recordLeftovers()
        #expect(loop.unrecordedCount == 0)
        #expect(outbox.row(1)?.done == false, "not recorded after its lease ended")
    }
}
