import AsyncAlgorithms
import Foundation
import Logging
import ServiceLifecycle
import Synchronization
import VarselCore
import VarselStore

/// Reads new events from the store's log, in id order, and hands them to the broker: the outbox pattern.
///
/// On PostgreSQL, other instances' commits wake it (``wake()``, from the `LISTEN` service); the pump also polls once a
/// second, so an event is published even if a wake-up is missed. Publication follows the log's order, which is what
/// lets a stream skip ids it has already sent without ever skipping one it has not.
///
/// A store that hands over each transaction's events as it commits (``VarselRepository/publishesCommittedEvents``,
/// SQLite) spares the pump the wake-up and the read: a committed batch that follows on from the last event published
/// is published at once, on the committing thread; one that does not (another process wrote in between) wakes the
/// pump, which reads the log. Both go through one cursor, under one lock, so nothing is published twice or out of
/// order. Publishing makes no frame: each stream takes its messages over to its own event loop (``StreamSubscriber``),
/// so the next transaction does not wait for the streams.
public final class EventPump: Service, Sendable {
    private let repository: any EventLogStore
    private let broker: EventBroker
    private let logger: Logger
    private let signal: AsyncStream<Void>.Continuation
    private let signals: AsyncStream<Void>
    private let pollInterval: Duration
    /// How often each stream hears a heartbeat.
    let heartbeatInterval: Duration
    /// The id of the last event handed to the broker; nil until the pump runs or a stream asks where the log ends.
    private let published = Mutex<Int64?>(nil)
    /// Whether the store hands over its commits, making wake-ups unnecessary.
    private let storePublishesCommits: Bool

    public init(
        repository: any EventLogStore, broker: EventBroker, logger: Logger,
        pollInterval: Duration = .seconds(1), heartbeatInterval: Duration = .seconds(20)
    ) {
        self.repository = repository
        self.broker = broker
        self.logger = logger
        self.pollInterval = pollInterval
        self.heartbeatInterval = heartbeatInterval
        (signals, signal) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
        storePublishesCommits = repository.publishesCommittedEvents
        repository.followCommittedEvents { [weak self] events in self?.publishCommitted(events) }
    }

    /// `userID`'s events after `id`, oldest first, for a stream that resumes.
    public func replay(for userID: UserID, after id: Int64, limit: Int) async throws -> [StoredEvent] {
        try await repository.events(for: userID, after: id, limit: limit)
    }

    /// The newest event id in the log, 0 when there is none; every event after it will be published.
    ///
    /// A stream attaches, then asks this to know where its replay ends. Should the pump not have run yet, it
    /// starts publishing first, so what commits between the stream's question and the pump's start still reaches it.
    public func latestEventID() async throws -> Int64 {
        try await startPublishing()
        return try await repository.latestEventID()
    }

    /// Sets where publication starts, once: after the newest event in the log when first asked.
    ///
    /// Whoever reads the log's end after this returns reads at least that start, so every later event is published.
    private func startPublishing() async throws {
        guard published.withLock({ $0 == nil }) else { return }
        let latest = try await repository.latestEventID()
        published.withLock { published in
            if published == nil { published = latest }
        }
    }

    /// The highest event id pruned from the log; a stream resuming from below it must start over.
    public func prunedThroughEventID() async throws -> Int64 {
        try await repository.prunedThroughEventID()
    }

    /// How often a slice of the streams hears its heartbeat: often enough that each tick beats only a few of them.
    ///
    /// A tick's heartbeats are written at once, each a hop to its stream's event loop and a write to its socket, and
    /// the notifications sent meanwhile wait for them. With 10,000 streams, slices a second apart would be 500 writes
    /// together, holding up the next notifications by about 15 ms once a second; 50 ms apart, a tick is about 25.
    static let heartbeatTick: Duration = .milliseconds(50)

    /// How many parts the streams' heartbeats are spread over in each interval: one per ``heartbeatTick``. The broker
    /// keeps its streams by slice (``EventBroker/heartbeatSlices``); the pump beats one slice a tick.
    static func heartbeatSlices(over interval: Duration) -> Int {
        max(1, min(10_000, Int((interval / heartbeatTick).rounded(.down))))
    }

    /// Asks the pump to look for new events now: another instance on the same database committed some (its NOTIFY).
    /// This process's own commits are told by the store itself (``EventLogStore/followCommittedEvents(_:)``).
    public func wake() {
        guard !storePublishesCommits else { return }
        signal.yield()
    }

    /// Publishes the events of one committed transaction when they follow on from the last event published;
    /// otherwise wakes the pump to read the log.
    func publishCommitted(_ events: [StoredEvent]) {
        // A store that does not hand over its events says only that it committed: read the log.
        guard !events.isEmpty else {
            signal.yield()
            return
        }
        let followsOn = published.withLock { published -> Bool in
            guard var cursor = published else { return false }
            for event in events {
                guard event.id == cursor + 1 else { return false }
                cursor = event.id
            }
            broker.publish(contentsOf: events)
            published = cursor
            return true
        }
        if !followsOn { signal.yield() }
    }

    public func run() async throws {
        try await startPublishing()
        var cursor = published.withLock { $0! }
        let signal = self.signal
        let pollInterval = self.pollInterval
        let heartbeatInterval = self.heartbeatInterval
        let broker = self.broker
        await withGracefulShutdownHandler {
            await withTaskGroup(of: Void.self) { group in
                group.addTask {
                    for await _ in AsyncTimerSequence(interval: pollInterval, clock: .continuous) { signal.yield() }
                }
                group.addTask {
                    // Each tick beats one slice of the streams, so each stream hears one heartbeat per interval.
                    let slices = broker.heartbeatSlices
                    var slice = 0
                    for await _ in AsyncTimerSequence(interval: heartbeatInterval / slices, clock: .continuous) {
                        broker.heartbeat(slice: slice)
                        slice = (slice + 1) % slices
                    }
                }
                for await _ in signals {
                    do {
                        cursor = try await drain(after: cursor)
                    } catch is StoreUnavailable {
                        // Said once per outage by the store's health; tried again next round.
                    } catch {
                        logger.error("event pump could not read the event log", metadata: ["error.type": "\(type(of: error))"])
                    }
                }
                group.cancelAll()
            }
        } onGracefulShutdown: {
            signal.finish()
            broker.shutDown()
        }
    }

    /// Publishes every event after `cursor` not yet published; returns the new cursor.
    func drain(after cursor: Int64) async throws -> Int64 {
        // Start after what a committing thread has published since.
        var cursor = published.withLock { max($0 ?? cursor, cursor) }
        while true {
            let batch = try await repository.events(after: cursor, limit: 1000)
            published.withLock { published in
                // What a committing thread published meanwhile is not published again.
                let last = max(published ?? cursor, cursor)
                let unpublished = batch.filter { $0.id > last }
                broker.publish(contentsOf: unpublished)
                published = unpublished.last?.id ?? last
            }
            guard let last = batch.last else { return cursor }
            cursor = last.id
            if batch.count < 1000 { return cursor }
        }
    }
}
