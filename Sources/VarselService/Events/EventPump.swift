import AsyncAlgorithms
import Foundation
import Logging
import ServiceLifecycle
import VarselStore

/// Reads new events from the store's log, in id order, and hands them to the broker: the outbox pattern.
///
/// Writers call ``wake()`` after committing; the pump also polls once a second, so an event is published even
/// if a wake-up is missed. Reading from the log, not from the writers, keeps publication in commit order,
/// which is what lets a stream skip ids it has already sent without ever skipping one it has not.
public final class EventPump: Service, Sendable {
    private let repository: any VarselRepository
    private let broker: EventBroker
    private let logger: Logger
    private let signal: AsyncStream<Void>.Continuation
    private let signals: AsyncStream<Void>
    private let pollInterval: Duration
    private let heartbeatInterval: Duration

    public init(repository: any VarselRepository, broker: EventBroker, logger: Logger,
                pollInterval: Duration = .seconds(1), heartbeatInterval: Duration = .seconds(20)) {
        self.repository = repository
        self.broker = broker
        self.logger = logger
        self.pollInterval = pollInterval
        self.heartbeatInterval = heartbeatInterval
        (signals, signal) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
    }

    /// How many parts the streams' heartbeats are spread over in each interval.
    static let heartbeatSlices = 20

    /// Asks the pump to look for new events now.
    public func wake() {
        signal.yield()
    }

    public func run() async throws {
        var cursor = try await repository.latestEventID()
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
                    var slice = 0
                    for await _ in AsyncTimerSequence(interval: heartbeatInterval / Self.heartbeatSlices, clock: .continuous) {
                        broker.heartbeat(slice: slice, of: Self.heartbeatSlices)
                        slice = (slice + 1) % Self.heartbeatSlices
                    }
                }
                for await _ in signals {
                    do {
                        cursor = try await drain(after: cursor)
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

    /// Publishes every event after `cursor`; returns the new cursor.
    func drain(after cursor: Int64) async throws -> Int64 {
        var cursor = cursor
        while true {
            let batch = try await repository.events(after: cursor, limit: 1000)
            for event in batch { broker.publish(event) }
            guard let last = batch.last else { return cursor }
            cursor = last.id
            if batch.count < 1000 { return cursor }
        }
    }
}
