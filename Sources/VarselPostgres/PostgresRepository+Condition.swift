import Foundation
import NIOCore
import PostgresNIO
import VarselStore
import _ConnectionPoolModule

extension PostgresRepository: StoreCondition {
    /// How long one store operation may wait for the database (for a pooled connection, and for its statements)
    /// before it is refused as ``StoreUnavailable/timedOut``: long enough to ride out a restart of a few seconds, short
    /// enough that a request during a hang is answered well before a proxy or a person gives up.
    public static let defaultOperationTimeout: Duration = .seconds(5)

    /// How long one operation may wait once an outage has lasted ``defaultOperationTimeout``: the database is not
    /// coming back within seconds, so requests are refused fast (and a load balancer sees it fast) rather than each
    /// waiting the full time; an operation still tries, so the first to succeed ends the outage.
    static let operationTimeoutDuringOutage: Duration = .seconds(1)

    /// How long a write of `rows` rows may take: the operation timeout, and 5 ms a row on top, so a create for
    /// thousands of recipients in one transaction (which takes seconds on a busy machine) is not refused as a hang.
    func deadline(forRows rows: Int) -> Duration {
        operationTimeout + .milliseconds(5 * max(0, rows))
    }

    /// How long a readiness check waits for its `SELECT 1`.
    static let pingTimeout: Duration = .seconds(1)

    public func ping() async throws {
        let logger = logger
        try await bounded(wrote: false, within: Self.pingTimeout) {
            try await self.onOpenConnection { connection in
                _ = try await connection.query("SELECT 1", logger: logger).collect()
            }
        }
    }

    public func outboxBacklog(at date: Date) async throws -> [OutboxBacklog] {
        try await read { connection in
            let now = date.timeIntervalSince1970
            let push = try await Self.one(
                connection.query(
                    """
                    SELECT COUNT(*)::bigint, MIN(next_attempt_at) FILTER (WHERE next_attempt_at <= \(now)) FROM push_delivery
                    """, logger: self.logger))
            let (pushCount, pushDue) = try push.decode((Int64, Double?).self)
            var messages: [String: (Int64, Double?)] = [:]
            for try await (channel, count, due) in try await connection.query(
                """
                SELECT channel, COUNT(*)::bigint, MIN(next_attempt_at) FILTER (WHERE next_attempt_at <= \(now))
                FROM message_delivery WHERE ended_at IS NULL GROUP BY channel
                """, logger: self.logger
            ).decode((String, Int64, Double?).self) {
                messages[channel] = (count, due)
            }
            return [OutboxBacklog(outbox: "push", items: Int(pushCount), oldestDue: pushDue.map(Self.date))]
                + ["sms", "email"].map { channel in
                    OutboxBacklog(outbox: channel, items: Int(messages[channel]?.0 ?? 0), oldestDue: messages[channel]?.1.map(Self.date))
                }
        }
    }

    /// Runs `operation` within `limit`, turning the ways PostgreSQL or the road to it fail into ``StoreUnavailable``
    /// and telling ``health`` how it went.
    func bounded<T: Sendable>(
        wrote: Bool, within limit: Duration? = nil,
        _ operation: @escaping @Sendable () async throws -> T
    ) async throws -> T {
        let limit =
            limit
            ?? (health.outageDuration().map { $0 >= Self.seconds(operationTimeout) } == true
                ? min(operationTimeout, Self.operationTimeoutDuringOutage) : operationTimeout)
        return try await health.observe(wrote: wrote) {
            do {
                return try await StoreDeadline.run(within: limit, operation)
            } catch let error where Self.unavailability(of: error) != nil {
                throw Self.unavailability(of: error)!
            }
        }
    }

    /// `duration` as seconds, to compare with the length of an outage.
    static func seconds(_ duration: Duration) -> TimeInterval {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }

    /// The outage an error of PostgresNIO stands for, or nil when it is an answer (a constraint, a refusal).
    static func unavailability(of error: any Error) -> StoreUnavailable? {
        switch error {
        case let condition as StoreUnavailable:
            return condition
        case is ConnectionCloseWatch.ClosedBeforeUse:
            return .unreachable
        case let transaction as PostgresTransactionError:
            for inner in [transaction.beginError, transaction.closureError, transaction.commitError, transaction.rollbackError] {
                if let inner, let condition = unavailability(of: inner) { return condition }
            }
            return nil
        case let error as PSQLError:
            switch error.code {
            case .server:
                return unavailability(sqlState: error.serverInfo?[.sqlState])
            case .connectionError, .serverClosedConnection, .clientClosedConnection, .uncleanShutdown, .poolClosed,
                .queryCancelled:
                return .unreachable
            default:
                return nil
            }
        case is ChannelError, is NIOConnectionError, is IOError:
            return .unreachable
        case is ConnectionPoolError:
            // The pool gave up making connections (its circuit breaker tripped while the server did not answer); its
            // other errors come as PSQLError. An answer it is not, so it does not end the outage.
            return .unreachable
        default:
            return nil
        }
    }

    /// The outage a server's SQLSTATE stands for: a lost or refused connection (class 08), a server starting,
    /// stopping or crashed (57P01–57P03), too many connections (53300), a read-only server (25006: a standby not yet
    /// promoted), or a full disk (53100).
    static func unavailability(sqlState: String?) -> StoreUnavailable? {
        guard let sqlState else { return nil }
        switch sqlState {
        case "53100": return .diskFull
        case "53300", "25006", "57P01", "57P02", "57P03", "57P04", "57P05": return .unreachable
        default: return sqlState.hasPrefix("08") ? .unreachable : nil
        }
    }
}
