import Foundation
import VarselService

/// The services every live stream uses: the broker it is attached to, the replay, the reader's settings and inbox,
/// the metrics, the clock, and where its socket goes once its response is open.
///
/// A class, made once per server and shared by reference: an idle stream keeps one pointer to it.
public final class LiveStreamServices: Sendable {
    public let broker: EventBroker
    public let pump: EventPump
    public let settings: AccountSettings
    public let inbox: NotificationInbox
    public let metrics: ServiceMetrics
    public let now: @Sendable () -> Date
    /// The `retry:` hint sent to event-stream clients, in milliseconds.
    public let retryMilliseconds: Int
    /// Where open streams' sockets are held once SwiftNIO lets go of them; nil keeps every stream on its channel.
    public let sockets: StreamSockets?

    public init(
        broker: EventBroker, pump: EventPump, settings: AccountSettings, inbox: NotificationInbox, metrics: ServiceMetrics,
        now: @escaping @Sendable () -> Date, retryMilliseconds: Int, sockets: StreamSockets? = .shared
    ) {
        self.broker = broker
        self.pump = pump
        self.settings = settings
        self.inbox = inbox
        self.metrics = metrics
        self.now = now
        self.retryMilliseconds = retryMilliseconds
        self.sockets = sockets
    }
}

extension LiveStreamServices {
    /// The stream's services taken from the service graph.
    public convenience init(_ services: VarselServices, sockets: StreamSockets? = .shared) {
        self.init(
            broker: services.broker, pump: services.pump, settings: services.settings, inbox: services.inbox, metrics: services.metrics,
            now: services.now, retryMilliseconds: services.configuration.streamRetryMilliseconds, sockets: sockets)
    }
}
