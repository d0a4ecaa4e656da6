import Foundation
import Logging
import ServiceLifecycle
import Synchronization
import VarselStore

/// Runs one durable outbox: queues from the event log after its cursor, claims what is due, tries each item and
/// records what came of it.
///
/// The store may fail at any step (a database restarting, hanging or failing over). An attempt cut short by it
/// sent nothing, so its item is released to be tried again at once; an outcome the store could not take is kept
/// and recorded at the start of the next round — an item that went out is recorded as sent, any other is released —
/// so no item waits out its lease because of an outage. What is kept is dropped once its lease ends (the item is
/// then anyone's to try again), and a claim whose answer was lost waits out its lease: the lease bounds both.
final class OutboxLoop<Channel: OutboxChannel>: Sendable {
    /// How much one claim takes and how long it is this instance's.
    struct Pace: Sendable {
        /// Items one claim takes.
        var batchSize: Int
        /// Items tried at once.
        var concurrency: Int
        /// How long a claimed item stays this instance's: longer than the slowest batch takes, since an item whose
        /// lease ends is tried again by whichever instance claims it next.
        var lease: TimeInterval
    }

    private let channel: Channel
    private let events: any EventLogStore
    private let pace: Pace
    private let now: @Sendable () -> Date
    private let logger: Logger
    /// Outcomes the store could not take, with the end of their item's lease.
    private let unrecorded = Mutex<[(item: Channel.Item, outcome: Channel.Outcome, leaseUntil: Date)]>([])
    /// Events read from the log at once.
    private static var eventBatch: Int { 500 }

    init(channel: Channel, events: any EventLogStore, pace: Pace, now: @escaping @Sendable () -> Date, logger: Logger) {
        self.channel = channel
        self.events = events
        self.pace = pace
        self.now = now
        self.logger = logger
    }

    /// One round: records what the last round could not, queues what was created since, then sends what is due —
    /// claim after claim while each comes back full and settled, so a store that keeps failing is not asked in a loop.
    func step() async throws {
        try await recordLeftovers()
        if channel.followsEventLog { try await enqueueNew() }
        while try await sendDue() == pace.batchSize {}
    }

    /// Queues from each event after the cursor, moving the cursor with what it queued.
    func enqueueNew() async throws {
        guard var cursor = try await channel.cursor() else {
            // First start: the outbox begins with what is created from now on.
            _ = try await channel.enqueue([], after: nil, through: try await events.latestEventID())
            return
        }
        while true {
            let batch = try await events.events(after: cursor, limit: Self.eventBatch)
            guard let last = batch.last else { return }
            // Another instance on the same database may have queued these first; then read on from where it got.
            guard try await channel.enqueue(batch, after: cursor, through: last.id) else {
                guard let moved = try await channel.cursor() else { return }
                cursor = moved
                continue
            }
            cursor = last.id
            if batch.count < Self.eventBatch { return }
        }
    }

    /// Claims the items due now and tries them, a few at a time; returns how many were settled (tried and recorded,
    /// not released).
    func sendDue() async throws -> Int {
        let start = now()
        let leaseUntil = start.addingTimeInterval(pace.lease)
        let due = try await channel.claimDue(at: start, limit: pace.batchSize, leaseUntil: leaseUntil)
        return await withTaskGroup(of: Bool.self) { group in
            var running = 0
            var settled = 0
            for item in due {
                if running >= pace.concurrency, let done = await group.next() {
                    settled += done ? 1 : 0
                    running -= 1
                }
                group.addTask { await self.deliver(item, leaseUntil: leaseUntil) }
                running += 1
            }
            for await done in group { settled += done ? 1 : 0 }
            return settled
        }
    }

    /// Tries `item` and records what came of it, or keeps that for the next round when the store cannot take it;
    /// true when it was tried and recorded.
    func deliver(_ item: Channel.Item, leaseUntil: Date) async -> Bool {
        var metadata = channel.metadata(for: item)
        let outcome: Channel.Outcome
        var settled = true
        do {
            outcome = try await channel.attempt(item)
        } catch is StoreUnavailable {
            outcome = channel.released(item)
            settled = false
        } catch {
            logger.error("an outbox item could not be tried", metadata: metadata.merging(["error.type": "\(type(of: error))"]) { $1 })
            outcome = channel.failedAttempt(item)
        }
        metadata["outbox.outcome"] = "\(outcome)"
        do {
            try await channel.record(outcome, for: item)
            logger.debug("outbox item tried", metadata: metadata)
            return settled
        } catch {
            if !(error is StoreUnavailable) {
                logger.error(
                    "an outbox item's outcome could not be recorded", metadata: metadata.merging(["error.type": "\(type(of: error))"]) { $1 })
            }
            // An outcome read from a store that was failing may be wrong (a standby not yet caught up): only "it went
            // out" is kept as it is; anything else is tried again.
            let kept = channel.wentOut(outcome) ? outcome : channel.released(item)
            unrecorded.withLock { $0.append((item, kept, leaseUntil)) }
            return false
        }
    }

    /// Records the outcomes the store could not take before; stops at the first it still cannot, keeping the rest.
    func recordLeftovers() async throws {
        let current = now()
        let waiting = unrecorded.withLock { kept in
            defer { kept = [] }
            return kept.filter { $0.leaseUntil > current }
        }
        for (index, entry) in waiting.enumerated() {
            do {
                try await channel.record(entry.outcome, for: entry.item)
            } catch {
                unrecorded.withLock { $0.append(contentsOf: waiting[index...]) }
                throw error
            }
        }
    }

    /// How many outcomes wait to be recorded.
    var unrecordedCount: Int { unrecorded.withLock { $0.count } }

    /// Runs `round` every `interval` until the service shuts down gracefully. An outage is said once by the store's
    /// health, so a round the store cut short is only tried again; any other failure is logged as `failure`.
    func repeatRounds(every interval: Duration, failure: Logger.Message, _ round: @escaping @Sendable () async throws -> Void) async {
        let logger = logger
        try? await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                do {
                    try await round()
                } catch is StoreUnavailable {
                } catch {
                    logger.error(failure, metadata: ["error.type": "\(type(of: error))"])
                }
                try await Task.sleep(for: interval)
            }
        }
    }
}
