import Foundation
import Synchronization
import VarselStore

/// Whether this instance can use its store now, for the load balancer (`/readyz`) and the operator's metrics.
///
/// A check asks the store for a cheap read within a short deadline and keeps its answer for ``cacheFor``, so a
/// load balancer polling every instance often costs the database one `SELECT 1` a second at most. A full disk makes
/// the instance not ready until a write succeeds again, although reads still work: it cannot take a notification.
public final class Readiness: Sendable {
    /// What a check found: ready, or the condition that keeps the instance from using its store.
    public struct Report: Sendable, Equatable {
        public var problem: StoreUnavailable?
        public var isReady: Bool { problem == nil }

        public init(problem: StoreUnavailable?) {
            self.problem = problem
        }
    }

    private let store: any StoreCondition
    private let now: @Sendable () -> Date
    /// How long a check's answer is kept, in seconds.
    let cacheFor: TimeInterval
    private let last = Mutex<(at: Date, report: Report)?>(nil)

    public init(store: any StoreCondition, now: @escaping @Sendable () -> Date, cacheFor: TimeInterval = 1) {
        self.store = store
        self.now = now
        self.cacheFor = cacheFor
    }

    /// The outages the store met, as its operations saw them.
    public var health: StoreHealth { store.health }

    /// Whether the store can be used now: the answer of the last second, or a new check.
    public func check() async -> Report {
        let started = now()
        if let last = last.withLock({ $0 }), started.timeIntervalSince(last.at) < cacheFor, started >= last.at { return last.report }
        let report = await probe()
        last.withLock { $0 = (started, report) }
        return report
    }

    private func probe() async -> Report {
        if store.health.outage?.condition == .diskFull { return Report(problem: .diskFull) }
        do {
            try await store.ping()
            return Report(problem: nil)
        } catch let condition as StoreUnavailable {
            return Report(problem: condition)
        } catch {
            return Report(problem: .unreachable)
        }
    }

    /// The store's condition and its outboxes in Prometheus text: readiness, the outage going on and for how long,
    /// operations refused by condition, and each outbox's backlog and the wait of its oldest due item. The outboxes
    /// are left out while the store cannot be read (the outage says why).
    public func metricsText() async -> String {
        let report = await check()
        let now = now()
        let health = store.health
        let outage = health.outage
        let refused = health.refusedCounts
        var lines = [
            "# HELP varsel_ready Whether this instance can use its store now (1) or not (0), as /readyz answers.",
            "# TYPE varsel_ready gauge",
            "varsel_ready \(report.isReady ? 1 : 0)",
            "# HELP varsel_store_outage_seconds How long the store has been unavailable to this instance; 0 when it is not.",
            "# TYPE varsel_store_outage_seconds gauge",
            "varsel_store_outage_seconds \(outage.map { max(0, now.timeIntervalSince($0.since)) } ?? 0)",
            "# HELP varsel_store_unavailable_total Store operations refused because the database could not serve, by condition.",
            "# TYPE varsel_store_unavailable_total counter",
        ]
        for condition in [StoreUnavailable.unreachable, .timedOut, .diskFull] {
            lines.append("varsel_store_unavailable_total{condition=\"\(condition.name)\"} \(refused[condition.name] ?? 0)")
        }
        if let backlog = try? await store.outboxBacklog(at: now) {
            lines += [
                "# HELP varsel_outbox_items Items in an outbox not yet sent or given up, including those held for later.",
                "# TYPE varsel_outbox_items gauge",
            ]
            lines += backlog.map { "varsel_outbox_items{outbox=\"\($0.outbox)\"} \($0.items)" }
            lines += [
                "# HELP varsel_outbox_oldest_due_age_seconds How long the outbox's longest-waiting due item has waited past its time; 0 when none is due.",
                "# TYPE varsel_outbox_oldest_due_age_seconds gauge",
            ]
            lines += backlog.map { item in
                "varsel_outbox_oldest_due_age_seconds{outbox=\"\(item.outbox)\"} \(item.oldestDue.map { max(0, now.timeIntervalSince($0)) } ?? 0)"
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }
}
