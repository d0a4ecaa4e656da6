import Foundation
import PostgresNIO
import VarselCore
import VarselStore

/// When each person's next summary is due.
extension PostgresRepository: SummaryStore {
    public func scheduleSummary(for userID: UserID, dueAt: Date?, at date: Date) async throws {
        try await write { c in
            guard let dueAt else {
                try await c.query("DELETE FROM summary_schedule WHERE user_id = \(userID)", logger: self.logger)
                return
            }
            try await c.query(
                """
                INSERT INTO summary_schedule (user_id, due_at, since)
                VALUES (\(userID), \(dueAt.timeIntervalSince1970), \(date.timeIntervalSince1970))
                ON CONFLICT (user_id) DO UPDATE SET due_at = excluded.due_at
                """, logger: self.logger)
        }
    }

    public func dueSummaries(at date: Date, limit: Int) async throws -> [DueSummary] {
        try await read { c in
            try await c.query(
                """
                SELECT user_id, due_at, since FROM summary_schedule WHERE due_at <= \(date.timeIntervalSince1970)
                ORDER BY due_at, user_id LIMIT \(limit)
                """, logger: self.logger
            ).collect().map { row in
                let (userID, dueAt, since) = try row.decode((UserID, Double, Double).self)
                return DueSummary(userID: userID, dueAt: Self.date(dueAt), since: Self.date(since))
            }
        }
    }

    // The times are compared to the millisecond: a `Date` read back from seconds since 1970 may differ in its last bit.
    public func advanceSummary(_ summary: DueSummary, to nextDueAt: Date, since: Date) async throws -> Bool {
        try await write { c in
            try await !c.query(
                """
                UPDATE summary_schedule SET due_at = \(nextDueAt.timeIntervalSince1970), since = \(since.timeIntervalSince1970)
                WHERE user_id = \(summary.userID) AND abs(since - \(summary.since.timeIntervalSince1970)) < 0.001
                RETURNING user_id
                """, logger: self.logger
            ).collect().isEmpty
        }
    }
}
