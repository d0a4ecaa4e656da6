import Foundation
import Synchronization

/// Web Push counters and the notification→push-service latency, in Prometheus text format.
public final class PushMetrics: Sendable {
    static let latencyBuckets: [Double] = [0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 3600]

    private struct State {
        var sent = 0
        var failed = 0
        var retried = 0
        var removed = 0
        var skipped = 0
        var latencyCounts = [Int](repeating: 0, count: PushMetrics.latencyBuckets.count)
        var latencySum = 0.0
        var latencyCount = 0
    }

    private let state = Mutex(State())

    public init() {}

    /// A push the push service accepted, `latency` after its notification was created.
    public func sent(latency: TimeInterval) {
        state.withLock { state in
            state.sent += 1
            state.latencySum += latency
            state.latencyCount += 1
            for (index, bound) in Self.latencyBuckets.enumerated() where latency <= bound { state.latencyCounts[index] += 1 }
        }
    }

    /// A push that failed for good, a retry scheduled, a subscription removed, a delivery with nothing left to send.
    public func failed() { state.withLock { $0.failed += 1 } }
    public func retried() { state.withLock { $0.retried += 1 } }
    public func removed() { state.withLock { $0.removed += 1 } }
    public func skipped() { state.withLock { $0.skipped += 1 } }

    /// The counts so far, for tests and the log.
    public var counts: (sent: Int, failed: Int, retried: Int, removed: Int, skipped: Int) {
        state.withLock { ($0.sent, $0.failed, $0.retried, $0.removed, $0.skipped) }
    }

    public func render() -> String {
        let snapshot = state.withLock { $0 }
        var lines = [
            "# HELP varsel_push_sent_total Pushes the push service accepted.",
            "# TYPE varsel_push_sent_total counter",
            "varsel_push_sent_total \(snapshot.sent)",
            "# HELP varsel_push_failed_total Pushes given up: refused by the push service, expired, or out of retries.",
            "# TYPE varsel_push_failed_total counter",
            "varsel_push_failed_total \(snapshot.failed)",
            "# HELP varsel_push_retries_total Attempts that will be tried again (429, 5xx, network errors).",
            "# TYPE varsel_push_retries_total counter",
            "varsel_push_retries_total \(snapshot.retried)",
            "# HELP varsel_push_subscriptions_removed_total Subscriptions removed because the push service said they are gone (404, 410).",
            "# TYPE varsel_push_subscriptions_removed_total counter",
            "varsel_push_subscriptions_removed_total \(snapshot.removed)",
            "# HELP varsel_push_skipped_total Queued pushes not sent: the notification was deleted or the mentor turned its system notification off.",
            "# TYPE varsel_push_skipped_total counter",
            "varsel_push_skipped_total \(snapshot.skipped)",
            "# HELP varsel_push_delivery_seconds Time from a notification's creation to the push service accepting its push.",
            "# TYPE varsel_push_delivery_seconds histogram",
        ]
        for (index, bound) in Self.latencyBuckets.enumerated() {
            lines.append("varsel_push_delivery_seconds_bucket{le=\"\(bound)\"} \(snapshot.latencyCounts[index])")
        }
        lines += [
            "varsel_push_delivery_seconds_bucket{le=\"+Inf\"} \(snapshot.latencyCount)",
            "varsel_push_delivery_seconds_sum \(snapshot.latencySum)",
            "varsel_push_delivery_seconds_count \(snapshot.latencyCount)",
        ]
        return lines.joined(separator: "\n") + "\n"
    }
}
