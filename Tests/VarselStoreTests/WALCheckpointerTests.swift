import Foundation
import GRDB
import Testing
import VarselStore

@testable import VarselSQLite

/// The write-ahead log is copied back into the database file on a connection of its own, started by commits.
@Suite("The write-ahead log's checkpoints, off the commits' path")
struct WALCheckpointerTests {
    /// A database file in WAL mode with one table, its commits through group commit and `interval`'s checkpointer.
    struct Database {
        let path: String
        let pool: DatabasePool
        let checkpointer: WALCheckpointer
        let commits: GroupCommit

        init(interval: Duration) throws {
            path = try temporarySQLitePath("checkpoint")
            var configuration = Configuration()
            configuration.busyMode = .timeout(10)
            pool = try DatabasePool(path: path, configuration: configuration)
            checkpointer = try WALCheckpointer(path: path, writer: pool, configuration: configuration, interval: interval)
            try pool.write { db in try db.execute(sql: "CREATE TABLE note (text TEXT NOT NULL)") }
            commits = GroupCommit(writer: pool, checkpointer: checkpointer)
        }

        /// Commits a row holding `text`.
        func insert(_ text: String) async throws {
            try await commits.write { db in try db.execute(sql: "INSERT INTO note (text) VALUES (?)", arguments: [text]) }
        }

        /// Whether the database file itself, not only its log, holds `text`.
        func fileHolds(_ text: String) throws -> Bool {
            try Data(contentsOf: URL(fileURLWithPath: path)).range(of: Data(text.utf8)) != nil
        }
    }

    @Test("the committing connection never checkpoints; its commit has the checkpointer copy the log into the file")
    func checkpointsOnItsOwnConnection() async throws {
        let database = try Database(interval: .zero)
        #expect(try await database.pool.writeWithoutTransaction { db in try Int.fetchOne(db, sql: "PRAGMA wal_autocheckpoint") } == 0)
        let marker = "marker \(UUID().uuidString)"
        try await database.insert(marker)
        // The checkpointer's connection takes one thing at a time: this runs once the checkpoint has.
        try await database.checkpointer.afterCheckpoint { _ in }
        #expect(try database.fileHolds(marker))
    }

    @Test("a commit within the interval of the last checkpoint's start leaves its pages in the log for the next one")
    func oneCheckpointPerInterval() async throws {
        let database = try Database(interval: .seconds(3600))
        let first = "first \(UUID().uuidString)"
        let second = "second \(UUID().uuidString)"
        try await database.insert(first)
        try await database.checkpointer.afterCheckpoint { _ in }
        try await database.insert(second)
        try await database.checkpointer.afterCheckpoint { _ in }
        #expect(try database.fileHolds(first))
        #expect(try !database.fileHolds(second), "only in the log until the interval has passed")
        // Read back from the log all the same.
        #expect(try await database.pool.read { db in try String.fetchAll(db, sql: "SELECT text FROM note") } == [first, second])
    }
}
