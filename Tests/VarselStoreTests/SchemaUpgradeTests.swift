import Foundation
import GRDB
import Logging
import PostgresNIO
import Testing
import VarselSQLite
import VarselStore

@testable import VarselPostgres

/// A database of an earlier layout is brought up to date by opening it for work and left as it is by a look; one a
/// later version changed is refused, never opened for work.
@Suite("Schema upgrades")
struct SchemaUpgradeTests {
    /// The last change both stores know, and one no version has made.
    static let lastChange = "v16: scheduled sends"
    static let laterChange = "v99: a change of a later version"

    @Test("a database's state counts the changes still to apply and the ones this version does not know")
    func stateCounts() {
        let known = ["v1", "v2", "v3"]
        #expect(SchemaState(applied: ["v1", "v2", "v3"], known: known) == .current)
        #expect(SchemaState(applied: ["v1"], known: known) == .older(pending: 2))
        #expect(SchemaState(applied: [], known: known) == .older(pending: 3))
        #expect(SchemaState(applied: ["v1", "v2", "v3", "v4"], known: known) == .newer(unknown: 1))
        // Unknown changes win over missing ones: this version cannot tell what the later one did instead.
        #expect(SchemaState(applied: ["v1", "v4", "v5"], known: known) == .newer(unknown: 2))
    }

    @Test("SQLite: an earlier layout is looked at unchanged, and brought up to date when opened for work")
    func sqliteOlder() async throws {
        let path = try temporarySQLitePath("older")
        _ = try SQLiteRepository(path: path)
        try await Self.undoLastChange(sqlite: path)

        let looked = try SQLiteRepository(path: path, checksDataKey: false, upgradesSchema: false)
        #expect(looked.schemaFound == .older(pending: 1))
        #expect(try await looked.sealedValueCounts() == [:])
        #expect(try Self.sqliteChanges(path).contains(Self.lastChange) == false)
        #expect(try await DatabaseQueue(path: path).read { try $0.tableExists("scheduled_send") } == false)

        let opened = try SQLiteRepository(path: path)
        #expect(opened.schemaFound == .older(pending: 1))
        #expect(try Self.sqliteChanges(path).contains(Self.lastChange))
        #expect(try SQLiteRepository(path: path, upgradesSchema: false).schemaFound == .current)
    }

    @Test("SQLite: an earlier layout whose details are encrypted is refused without its key before any change")
    func sqliteKeyBeforeChanges() async throws {
        let path = try temporarySQLitePath("older-encrypted")
        _ = try SQLiteRepository(path: path, keys: try DataKeyring.create(path: try DataKeyringTests.keyFile("older-encrypted")))
        try await Self.undoLastChange(sqlite: path)
        #expect(throws: StoreError.dataKeyRequired) { try SQLiteRepository(path: path) }
        #expect(try Self.sqliteChanges(path).contains(Self.lastChange) == false, "a refused start changed the tables")
    }

    @Test("SQLite: a database a later version changed is refused for work and left as it is")
    func sqliteNewer() throws {
        let path = try temporarySQLitePath("newer")
        _ = try SQLiteRepository(path: path)
        try DatabaseQueue(path: path).write { db in
            try db.execute(sql: "INSERT INTO grdb_migrations (identifier) VALUES (?)", arguments: [Self.laterChange])
        }
        let before = try Self.sqliteChanges(path)

        #expect(throws: SchemaFromNewerVersion(unknown: 1)) { try SQLiteRepository(path: path) }
        #expect(try SQLiteRepository(path: path, upgradesSchema: false).schemaFound == .newer(unknown: 1))
        #expect(try Self.sqliteChanges(path) == before)
    }

    @Test(
        "PostgreSQL: an earlier layout is looked at unchanged, and brought up to date when opened for work",
        .enabled(if: PostgresTestDatabase.serverURL != nil))
    func postgresOlder() async throws {
        let made = try await PostgresTestDatabase.make()
        defer { made.shutdown() }
        try await Self.undoLastChange(postgres: made)

        let looked = try await PostgresRepository(
            url: made.urlForTests, logger: Logger(label: "test"), checksDataKey: false, upgradesSchema: false,
            operationTimeout: PostgresTestDatabase.operationTimeout,
            idleTransactionTimeout: PostgresTestDatabase.idleTransactionTimeout)
        defer { looked.shutdown() }
        #expect(looked.schemaFound == .older(pending: 1))
        #expect(try await looked.sealedValueCounts() == [:])
        #expect(try await Self.postgresChanges(made).contains(Self.lastChange) == false)

        let opened = try await PostgresRepository(
            url: made.urlForTests, logger: Logger(label: "test"), operationTimeout: PostgresTestDatabase.operationTimeout,
            idleTransactionTimeout: PostgresTestDatabase.idleTransactionTimeout)
        defer { opened.shutdown() }
        #expect(opened.schemaFound == .older(pending: 1))
        #expect(opened.schemaChangesMade == 1)
        #expect(!opened.madeSchema)
        #expect(try await Self.postgresChanges(made).contains(Self.lastChange))
    }

    @Test(
        "PostgreSQL: an earlier layout whose details are encrypted is refused without its key before any change",
        .enabled(if: PostgresTestDatabase.serverURL != nil))
    func postgresKeyBeforeChanges() async throws {
        let made = try await PostgresTestDatabase.make(keys: try DataKeyring.create(path: try DataKeyringTests.keyFile("pg-older-encrypted")))
        defer { made.shutdown() }
        try await Self.undoLastChange(postgres: made)
        await #expect(throws: StoreError.dataKeyRequired) {
            try await PostgresRepository(
                url: made.urlForTests, logger: Logger(label: "test"), operationTimeout: PostgresTestDatabase.operationTimeout,
                idleTransactionTimeout: PostgresTestDatabase.idleTransactionTimeout
            ).shutdown()
        }
        #expect(try await Self.postgresChanges(made).contains(Self.lastChange) == false, "a refused start changed the tables")
    }

    @Test(
        "PostgreSQL: of instances starting at once on a new database, the first makes every change and the others none",
        .enabled(if: PostgresTestDatabase.serverURL != nil))
    func postgresInstancesStartingTogether() async throws {
        let url = try await PostgresTestDatabase.makeEmpty()
        let opened = try await withThrowingTaskGroup(of: PostgresRepository.self) { group in
            for _ in 0..<4 {
                group.addTask {
                    try await PostgresRepository(
                        url: url, logger: Logger(label: "test"), operationTimeout: PostgresTestDatabase.operationTimeout,
                        idleTransactionTimeout: PostgresTestDatabase.idleTransactionTimeout)
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        defer { for store in opened { store.shutdown() } }
        #expect(opened.filter(\.madeSchema).count == 1)
        #expect(opened.map(\.schemaChangesMade).sorted() == [0, 0, 0, PostgresMigrations.all.count])
        #expect(try await Self.postgresChanges(opened[0]) == Set(PostgresMigrations.all.map(\.name)))
    }

    @Test(
        "PostgreSQL: a database a later version changed is refused for work and left as it is",
        .enabled(if: PostgresTestDatabase.serverURL != nil))
    func postgresNewer() async throws {
        let made = try await PostgresTestDatabase.make()
        defer { made.shutdown() }
        try await made.client.query("INSERT INTO schema_migration (name) VALUES (\(Self.laterChange))")
        let before = try await Self.postgresChanges(made)

        await #expect(throws: SchemaFromNewerVersion(unknown: 1)) {
            try await PostgresRepository(
                url: made.urlForTests, logger: Logger(label: "test"), operationTimeout: PostgresTestDatabase.operationTimeout,
                idleTransactionTimeout: PostgresTestDatabase.idleTransactionTimeout
            ).shutdown()
        }
        let looked = try await PostgresRepository(
            url: made.urlForTests, logger: Logger(label: "test"), checksDataKey: false, upgradesSchema: false,
            operationTimeout: PostgresTestDatabase.operationTimeout,
            idleTransactionTimeout: PostgresTestDatabase.idleTransactionTimeout)
        defer { looked.shutdown() }
        #expect(looked.schemaFound == .newer(unknown: 1))
        #expect(try await Self.postgresChanges(made) == before)
    }

    /// Leaves the database as the version before the last change left it.
    static func undoLastChange(sqlite path: String) async throws {
        try await DatabaseQueue(path: path).write { db in
            try db.execute(
                sql: "DROP TABLE scheduled_send; DELETE FROM grdb_migrations WHERE identifier = ?",
                arguments: [lastChange])
        }
    }

    static func undoLastChange(postgres store: PostgresRepository) async throws {
        try await store.client.query("DROP TABLE scheduled_send")
        try await store.client.query("DELETE FROM schema_migration WHERE name = \(lastChange)")
    }

    static func sqliteChanges(_ path: String) throws -> Set<String> {
        try DatabaseQueue(path: path).read { try String.fetchSet($0, sql: "SELECT identifier FROM grdb_migrations") }
    }

    static func postgresChanges(_ store: PostgresRepository) async throws -> Set<String> {
        var names: Set<String> = []
        for try await name in try await store.client.query("SELECT name FROM schema_migration").decode(String.self) { names.insert(name) }
        return names
    }
}
