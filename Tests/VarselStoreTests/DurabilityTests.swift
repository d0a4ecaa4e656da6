import Foundation
import Testing
import VarselSQLite

@Suite("SQLite durability")
struct DurabilityTests {
    @Test("issue 8: an accepted write is on disk before it returns: synchronous = FULL by default")
    func synchronousIsFull() async throws {
        let directory = try temporaryDirectory("durability")
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = try SQLiteRepository(path: directory.appendingPathComponent("varsel.sqlite").path)
        #expect(try await store.synchronousSetting() == 2)
        let fast = try SQLiteRepository(path: directory.appendingPathComponent("bench.sqlite").path, durability: .normal)
        #expect(try await fast.synchronousSetting() == 1)
    }
}
