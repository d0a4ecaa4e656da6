import Foundation
import Logging
import ServiceLifecycle
import VarselPush
import VarselStore

/// Delivers integrations' webhooks from the durable outbox: at least once, with the same `webhook-id` on every
/// retry, in order per contact, across restarts and instances.
public final class WebhookWorker: Service, Sendable {
    /// How the worker paces its work.
    public struct Configuration: Sendable {
        /// Which endpoints may be called: https on public hosts, unless private endpoints are allowed (tests).
        public var endpointPolicy: PushEndpointPolicy
        /// How often it looks for due deliveries.
        public var pollInterval: Duration = .seconds(1)
        /// The first retry's delay; each further retry doubles it, up to ``maximumBackoff``.
        public var initialBackoff: TimeInterval = 5
        public var maximumBackoff: TimeInterval = 3600
        /// How long an endpoint may fail every delivery before it is turned off.
        public var disableAfter: TimeInterval = 24 * 3600
        /// How long a claimed delivery stays this instance's: longer than a delivery's timeout.
        public var lease: TimeInterval = 60
        /// Deliveries sent at once.
        public var concurrency = 4

        public init(endpointPolicy: PushEndpointPolicy = PushEndpointPolicy()) {
            self.endpointPolicy = endpointPolicy
        }
    }

    private let outbox: OutboxLoop<WebhookOutbox>
    private let transport: any PushTransport
    private let pollInterval: Duration

    init(
        store: any WebhookOutbox.Store & EventLogStore, transport: any PushTransport, messaging: OutsideMessaging, configuration: Configuration,
        now: @escaping @Sendable () -> Date, logger: Logger
    ) {
        let notice = WebhookTurnedOffNotice(store: store, messaging: messaging, now: now)
        outbox = OutboxLoop(
            channel: WebhookOutbox(store: store, transport: transport, notice: notice, configuration: configuration, now: now, logger: logger),
            events: store, pace: .init(batchSize: configuration.concurrency * 4, concurrency: configuration.concurrency, lease: configuration.lease),
            now: now, logger: logger)
        self.transport = transport
        pollInterval = configuration.pollInterval
    }

    public func run() async throws {
        await outbox.repeatRounds(every: pollInterval, failure: "webhook delivery could not read or write the store") {
            try await self.step()
        }
        try? await transport.shutdown()
    }

    /// One round: sends every delivery that is due.
    public func step() async throws {
        try await outbox.step()
    }
}
