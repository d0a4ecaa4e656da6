import Foundation
import GRDB
import Testing

@testable import VarselSQLite

@Suite("SQLite durability")
struct DurabilityTests {
    @Test("an accepted write is on disk before it returns: synchronous = FULL by default")
    func synchronousIsFull() async throws {
        let directory = try temporaryDirectory("durability")
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = try SQLiteRepository(path: directory.appendingPathComponent("varsel.sqlite").path)
        #expect(try await store.synchronousSetting() == 2)
        let fast = try SQLiteRepository(path: directory.appendingPathComponent("bench.sqlite").path, durability: .normal)
        #expect(try await fast.synchronousSetting() == 1)
    }

    @Test("a recipient's unread count reads only their unread notifications (an index), not every notification they ever had")
    func unreadCountUsesItsIndex() async throws {
        let directory = try temporaryDirectory("unread-index")
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("varsel.sqlite").path
        _ = try SQLiteRepository(path: path)
        let plan = try await DatabaseQueue(path: path).read { db in
            try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN " + SQLiteRepository.unreadCountSQL, arguments: [1]).map { $0["detail"] as String }
        }
        #expect(
            plan.contains {
                $0.contains("USING COVERING INDEX notification_unread_by_recipient") || $0.contains("USING INDEX notification_unread_by_recipient")
            },
            "\(plan)")
    }
}

extension SQLiteRepository {
    /// The `synchronous` setting in force on the writer's connection (2 is FULL, 1 NORMAL).
    func synchronousSetting() async throws -> Int {
        try await commits.write { db in try Int.fetchOne(db, sql: "PRAGMA synchronous") ?? -1 }
    }
}
