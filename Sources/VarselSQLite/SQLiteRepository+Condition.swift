import Foundation
import GRDB
import VarselStore

extension SQLiteRepository: StoreCondition {
    public func ping() async throws {
        _ = try read { db in try Int.fetchOne(db, sql: "SELECT 1") }
    }

    public func outboxBacklog(at date: Date) async throws -> [OutboxBacklog] {
        try read { db in
            let now = date.timeIntervalSince1970
            let push = try Row.fetchOne(
                db,
                sql: """
                    SELECT COUNT(*), MIN(CASE WHEN next_attempt_at <= ? THEN next_attempt_at END) FROM push_delivery
                    """, arguments: [now])
            var messages: [String: (Int, Double?)] = [:]
            for row in try Row.fetchAll(
                db,
                sql: """
                    SELECT channel, COUNT(*), MIN(CASE WHEN next_attempt_at <= ? THEN next_attempt_at END)
                    FROM message_delivery WHERE ended_at IS NULL GROUP BY channel
                    """, arguments: [now])
            {
                messages[row[0]] = (row[1], row[2])
            }
            let pushDue: Double? = push?[1]
            return [OutboxBacklog(outbox: "push", items: push?[0] ?? 0, oldestDue: pushDue.map(Self.date))]
                + ["sms", "email"].map { channel in
                    OutboxBacklog(outbox: channel, items: messages[channel]?.0 ?? 0, oldestDue: messages[channel]?.1.map(Self.date))
                }
        }
    }

    /// A write in a transaction of its own, outside group commit (one that must not share its transaction), with
    /// its outcome told to ``health`` as group commit's are.
    func writeAlone<T: Sendable>(_ body: @Sendable (Database) throws -> T) async throws -> T {
        let value = try await Self.observing(health) { try await self.writer.write(body) }
        checkpointer?.committed()
        return value
    }

    /// Runs a write, turning SQLite's "database or disk is full" into ``StoreUnavailable/diskFull`` and telling
    /// `health` how it went.
    static func observing<T>(_ health: StoreHealth, _ write: () async throws -> T) async throws -> T {
        try await health.observe(wrote: true) {
            do {
                return try await write()
            } catch let error as DatabaseError where isDiskFull(error) {
                throw StoreUnavailable.diskFull
            }
        }
    }

    /// Whether SQLite failed for want of space (`SQLITE_FULL`, which its file layer reports for ENOSPC), or could not
    /// grow the write-ahead log's index for the same reason.
    static func isDiskFull(_ error: DatabaseError) -> Bool {
        error.resultCode == .SQLITE_FULL || error.extendedResultCode == .SQLITE_IOERR_SHMSIZE
    }
}
