import Foundation
import Logging
import ServiceLifecycle
import VarselCore
import VarselPush
import VarselStore

/// Sends each new notification to each of its recipient's devices by Web Push, durably.
///
/// It runs the push outbox (``PushOutbox``): reads created notifications from the event log after its cursor, queues
/// one delivery per subscription, then sends what is due. Everything it has not finished is in the store, so a
/// restart resumes where it stopped, and instances sharing a database send each push once.
public final class PushDeliveryWorker: Service, Sendable {
    /// How the worker paces and bounds its work.
    public struct Configuration: Sendable {
        /// The VAPID `sub` claim: a `mailto:` or https URL where the push service can reach the operator.
        public var subject: String
        public var endpointPolicy: PushEndpointPolicy
        /// Varsel's public origin: where a notification's tap goes (`navigate` is absolute in a declarative push).
        /// Asked at each push: without a public URL it is the address the server listens on, known once it does.
        public var origin: @Sendable () -> URL = { URL(string: "http://localhost:8080")! }
        /// How often it looks for new notifications and due retries.
        public var pollInterval: Duration = .milliseconds(500)
        /// How long a push service should keep a push for a device that is offline, counted from the
        /// notification's creation; a push not accepted by then is given up.
        public var timeToLive: TimeInterval = 24 * 3600
        /// Attempts before a push is given up.
        public var maximumAttempts = 10
        /// The first retry's delay; each further retry doubles it, up to ``maximumBackoff``.
        public var initialBackoff: TimeInterval = 5
        public var maximumBackoff: TimeInterval = 1800
        /// Pushes in flight at once, and so taken from the outbox at once.
        public var concurrency = 8
        /// How long a claimed push stays this worker's; if the instance dies meanwhile, or the store lost the answer
        /// to its claim, another round sends it after. It outlasts one claim's pushes, each bounded by the push
        /// service's timeouts.
        public var lease: TimeInterval = 60

        public init(subject: String, endpointPolicy: PushEndpointPolicy = PushEndpointPolicy()) {
            self.subject = subject
            self.endpointPolicy = endpointPolicy
        }
    }

    private let outbox: OutboxLoop<PushOutbox>
    private let transport: any PushTransport
    private let pollInterval: Duration

    init(
        store: any PushOutbox.Store, contactReads: any ContactReadRecorder, transport: any PushTransport, vapid: VAPIDKey,
        configuration: Configuration, metrics: PushMetrics, now: @escaping @Sendable () -> Date, logger: Logger
    ) {
        let channel = PushOutbox(
            store: store, contactReads: contactReads, transport: transport, vapid: vapid,
            configuration: configuration, metrics: metrics, now: now, logger: logger)
        outbox = OutboxLoop(
            channel: channel, events: store,
            pace: .init(batchSize: configuration.concurrency, concurrency: configuration.concurrency, lease: configuration.lease),
            now: now, logger: logger)
        self.transport = transport
        pollInterval = configuration.pollInterval
    }

    public func run() async throws {
        await outbox.repeatRounds(every: pollInterval, failure: "push delivery could not read or write the store") {
            try await self.step()
        }
        try? await transport.shutdown()
    }

    /// One round: queue the notifications created since the last round, then send every push that is due.
    public func step() async throws {
        try await outbox.step()
    }

    func enqueueNewNotifications() async throws {
        try await outbox.enqueueNew()
    }

    func sendDue() async throws -> Int {
        try await outbox.sendDue()
    }
}
