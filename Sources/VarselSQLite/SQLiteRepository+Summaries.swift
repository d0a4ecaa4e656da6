import Foundation
import GRDB
import VarselCore
import VarselStore

/// When each person's next summary is due.
extension SQLiteRepository: SummaryStore {
    public func scheduleSummary(for userID: UserID, dueAt: Date?, at date: Date) async throws {
        try await commits.write { db in
            guard let dueAt else {
                try db.execute(sql: "DELETE FROM summary_schedule WHERE user_id = ?", arguments: [userID])
                return
            }
            try db.execute(
                sql: """
                    INSERT INTO summary_schedule (user_id, due_at, since) VALUES (?, ?, ?)
                    ON CONFLICT (user_id) DO UPDATE SET due_at = excluded.due_at
                    """, arguments: [userID, dueAt.timeIntervalSince1970, date.timeIntervalSince1970])
        }
    }

    public func dueSummaries(at date: Date, limit: Int) async throws -> [DueSummary] {
        try read { db in
            try Row.fetchAll(
                db, sql: "SELECT user_id, due_at, since FROM summary_schedule WHERE due_at <= ? ORDER BY due_at, user_id LIMIT ?",
                arguments: [date.timeIntervalSince1970, limit]
            ).map { row in
                DueSummary(
                    userID: row["user_id"], dueAt: Date(timeIntervalSince1970: row["due_at"]), since: Date(timeIntervalSince1970: row["since"]))
            }
        }
    }

    // The times are compared to the millisecond: a `Date` read back from seconds since 1970 may differ in its last bit.
    public func advanceSummary(_ summary: DueSummary, to nextDueAt: Date, since: Date) async throws -> Bool {
        try await commits.write { db in
            try db.execute(
                sql: "UPDATE summary_schedule SET due_at = ?, since = ? WHERE user_id = ? AND abs(since - ?) < 0.001",
                arguments: [
                    nextDueAt.timeIntervalSince1970, since.timeIntervalSince1970, summary.userID, summary.since.timeIntervalSince1970,
                ])
            return db.changesCount > 0
        }
    }
}
