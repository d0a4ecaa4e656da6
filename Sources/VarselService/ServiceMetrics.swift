import Foundation
import Synchronization
import VarselPush

/// The service's counters and the create→delivered latency histogram, rendered in Prometheus text format.
public final class ServiceMetrics: Sendable {
    /// Upper bounds of the latency buckets, in seconds.
    static let latencyBuckets: [Double] = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5]

    private struct State {
        var requests: [String: Int] = [:]
        var openStreams = 0
        var streamsOpened = 0
        var eventsDelivered = 0
        var streamsClosedSlow = 0
        var latencyCounts = [Int](repeating: 0, count: ServiceMetrics.latencyBuckets.count)
        var latencySum = 0.0
        var latencyCount = 0
    }

    private let state = Mutex(State())
    /// Web Push's counters, written by the delivery worker, served with these.
    public let push = PushMetrics()

    public init() {}

    /// Counts one response by status class (`2xx`, `4xx`, …).
    public func recordRequest(status: Int) {
        state.withLock { $0.requests["\(status / 100)xx", default: 0] += 1 }
    }

    public func streamOpened() {
        state.withLock { state in
            state.openStreams += 1
            state.streamsOpened += 1
        }
    }
    public func streamClosed() { state.withLock { $0.openStreams -= 1 } }
    public func streamDroppedAsSlow() { state.withLock { $0.streamsClosedSlow += 1 } }

    /// Counts a delivered event; `latency` is the time from its creation, for notification-created events.
    public func eventDelivered(latency: TimeInterval?) {
        state.withLock { state in
            state.eventsDelivered += 1
            guard let latency else { return }
            state.latencySum += latency
            state.latencyCount += 1
            for (index, bound) in Self.latencyBuckets.enumerated() where latency <= bound {
                state.latencyCounts[index] += 1
            }
        }
    }

    public var openStreams: Int { state.withLock { $0.openStreams } }
    /// How many events have been written to live streams.
    public var eventsDelivered: Int { state.withLock { $0.eventsDelivered } }
    /// How many streams were closed for falling too far behind.
    public var streamsClosedSlow: Int { state.withLock { $0.streamsClosedSlow } }

    /// The metrics as Prometheus text.
    public func render() -> String {
        let snapshot = state.withLock { $0 }
        var lines = [
            "# HELP varsel_http_requests_total HTTP responses by status class.",
            "# TYPE varsel_http_requests_total counter",
        ]
        for (key, value) in snapshot.requests.sorted(by: { $0.key < $1.key }) {
            lines.append("varsel_http_requests_total{status=\"\(key)\"} \(value)")
        }
        lines += [
            "# HELP varsel_event_streams_open Open live event streams.",
            "# TYPE varsel_event_streams_open gauge",
            "varsel_event_streams_open \(snapshot.openStreams)",
            "# HELP varsel_event_streams_opened_total Live event streams opened (a rate well above sign-ins means clients keep reconnecting).",
            "# TYPE varsel_event_streams_opened_total counter",
            "varsel_event_streams_opened_total \(snapshot.streamsOpened)",
            "# HELP varsel_events_delivered_total Events written to live streams.",
            "# TYPE varsel_events_delivered_total counter",
            "varsel_events_delivered_total \(snapshot.eventsDelivered)",
            "# HELP varsel_event_streams_closed_slow_total Streams closed because the client fell too far behind (it resumes from Last-Event-ID).",
            "# TYPE varsel_event_streams_closed_slow_total counter",
            "varsel_event_streams_closed_slow_total \(snapshot.streamsClosedSlow)",
            "# HELP varsel_notification_delivery_seconds Time from a notification's creation to its delivery on a live stream.",
            "# TYPE varsel_notification_delivery_seconds histogram",
        ]
        for (index, bound) in Self.latencyBuckets.enumerated() {
            lines.append("varsel_notification_delivery_seconds_bucket{le=\"\(bound)\"} \(snapshot.latencyCounts[index])")
        }
        lines += [
            "varsel_notification_delivery_seconds_bucket{le=\"+Inf\"} \(snapshot.latencyCount)",
            "varsel_notification_delivery_seconds_sum \(snapshot.latencySum)",
            "varsel_notification_delivery_seconds_count \(snapshot.latencyCount)",
        ]
        return lines.joined(separator: "\n") + "\n" + push.render()
    }
}
