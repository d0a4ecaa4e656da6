import Foundation
import GRDB
import VarselCore
import VarselStore

/// The embedded default store: one SQLite file in WAL mode, through a GRDB `DatabasePool`.
///
/// Each public method is all or nothing: a read is one transaction, a write one savepoint of a transaction that
/// writes arriving together share (``GroupCommit``). Writes are serialized by SQLite, so event ids are assigned in
/// commit order, which the live stream relies on to resume without gaps.
public final class SQLiteRepository: VarselRepository, Sendable {
    let writer: any DatabaseWriter
    /// Where every write goes: one transaction, and one wait for the disk, for a burst of them.
    let commits: GroupCommit
    /// Sessions and users as last read, forgotten when a write touches them.
    let identities = IdentityCache()
    /// Each transaction's events, handed to the pump as it commits.
    let committed = CommittedEvents()
    /// Encrypts personal details on their way in and opens them on their way out (see ``DataKeyring``).
    let sealer: FieldSealer
    /// Runs the write-ahead log's checkpoints off the commits' path, for a store on a file.
    let checkpointer: WALCheckpointer?
    /// The outages this store's writes met (``StoreCondition``): a full disk.
    public let health = StoreHealth()
    /// The notifications this store last wrote or read in its event log, by their JSON.
    let notificationJSON = NotificationJSONCache(capacity: NotificationJSONCache.storeCapacity)
    static let encoder = JSONEncoder()
    static let decoder = JSONDecoder()

    /// How much a committed write survives.
    public enum Durability: String, Sendable, CaseIterable {
        /// `synchronous = FULL`: a commit is on disk before it returns, so an accepted notification survives a
        /// power loss. The default.
        case full
        /// `synchronous = NORMAL`: survives a crash of the process, maybe not of the machine. For benchmarks.
        case normal
    }

    /// Opens (creating if needed) the database at `path` and brings its schema up to date.
    ///
    /// `commitInterval` is the least time between the starts of two commits while writes keep coming (see
    /// ``GroupCommit``): the server's writes gather into fewer commits, each waiting for the disk once, at the price of
    /// up to that much latency. Zero, the default, commits each write as soon as it can.
    /// With `keys`, personal details are stored encrypted; a database that holds encrypted details is refused
    /// without them (``StoreError/dataKeyRequired``) or with a key file that lacks its key. With `personKeys` as well,
    /// each person visited has their details sealed under a key of their own (``PersonKeyring``). `checksDataKey: false`
    /// opens it anyway, for work that never reads or writes personal details (the `varsel user` commands).
    ///
    /// A database changed by a later version is refused (``SchemaFromNewerVersion``). `upgradesSchema: false` opens
    /// the tables as they are, changing nothing, for `varsel check`; ``schemaFound`` says how they stand.
    public convenience init(
        path: String, durability: Durability = .full, commitInterval: Duration = .zero, keys: DataKeyring? = nil,
        personKeys: PersonKeyring? = nil, checksDataKey: Bool = true, upgradesSchema: Bool = true
    ) throws {
        var configuration = Configuration()
        configuration.busyMode = .timeout(10)
        let pool = try DatabasePool(path: path, configuration: configuration)
        // Set on the writer connection after GRDB's WAL set-up, which chooses NORMAL itself; readers never commit.
        try pool.writeWithoutTransaction { db in
            try db.execute(sql: durability == .full ? "PRAGMA synchronous = FULL" : "PRAGMA synchronous = NORMAL")
        }
        // Checkpoints leave the commits' path for a connection of their own; `varsel check` changes nothing.
        let checkpointer = upgradesSchema ? try WALCheckpointer(path: path, writer: pool, configuration: configuration) : nil
        try self.init(
            writer: pool, checkpointer: checkpointer, commitInterval: commitInterval, keys: keys, personKeys: personKeys,
            checksDataKey: checksDataKey, upgradesSchema: upgradesSchema)
    }

    /// A store over `writer`, its schema brought up to date: a `DatabasePool` in production, an in-memory
    /// `DatabaseQueue` in tests.
    public convenience init(
        writer: any DatabaseWriter, commitInterval: Duration = .zero, keys: DataKeyring? = nil, personKeys: PersonKeyring? = nil,
        checksDataKey: Bool = true, upgradesSchema: Bool = true
    ) throws {
        try self.init(
            writer: writer, checkpointer: nil, commitInterval: commitInterval, keys: keys, personKeys: personKeys,
            checksDataKey: checksDataKey, upgradesSchema: upgradesSchema)
    }

    /// A store over `writer` whose checkpoints `checkpointer` runs, if given (SQLite's own otherwise).
    init(
        writer: any DatabaseWriter, checkpointer: WALCheckpointer?, commitInterval: Duration, keys: DataKeyring?, personKeys: PersonKeyring?,
        checksDataKey: Bool, upgradesSchema: Bool
    ) throws {
        schemaFound = try writer.read(Migrations.state)
        sealer = FieldSealer(keys, people: personKeys)
        let sealer = sealer
        if upgradesSchema {
            if case let .newer(unknown) = schemaFound { throw SchemaFromNewerVersion(unknown: unknown) }
            // The data key is checked before any change, so a start refused for its key leaves the tables as they were
            // (an earlier layout may have no check yet).
            if checksDataKey || keys != nil,
                let existing = try writer.read({ db -> String? in
                    guard try db.tableExists("data_key_check") else { return nil }
                    return try String.fetchOne(db, sql: "SELECT sealed FROM data_key_check WHERE id = 1")
                })
            {
                _ = try sealer.startingCheck(existing: existing)
            }
            try Migrations.migrator.migrate(writer)
        }
        if checksDataKey || keys != nil {
            try writer.write { db in
                let existing = try String.fetchOne(db, sql: "SELECT sealed FROM data_key_check WHERE id = 1")
                if let check = try sealer.startingCheck(existing: existing) {
                    try db.execute(sql: "INSERT INTO data_key_check (id, sealed) VALUES (1, ?)", arguments: [check])
                }
            }
        }
        self.writer = writer
        self.checkpointer = checkpointer
        commits = GroupCommit(writer: writer, interval: commitInterval, events: committed, health: health, checkpointer: checkpointer)
        writer.add(transactionObserver: identities, extent: .databaseLifetime)
        writer.add(transactionObserver: committed, extent: .databaseLifetime)
        try writer.writeWithoutTransaction { db in
            // Deleted and overwritten content is zeroed where that costs no extra I/O (`FAST`), so an erased person's
            // details are not left in free space in the file; an erasure also empties the write-ahead log.
            try db.execute(sql: "PRAGMA secure_delete = FAST")
        }
    }

    /// How the tables stood against this version's layout when the store opened them, before any change.
    public let schemaFound: SchemaState

    public var publishesCommittedEvents: Bool { true }

    public func followCommittedEvents(_ follower: @escaping @Sendable ([StoredEvent]) -> Void) {
        committed.follow(follower)
    }

    /// A store in memory, gone when released: for fast contract tests.
    public static func inMemory() throws -> SQLiteRepository {
        try SQLiteRepository(writer: DatabaseQueue())
    }

    /// Runs `body` in a read transaction on the calling thread. The store's reads take microseconds; handing one to a
    /// GRDB reader thread and back (`await writer.read`) cost more than the read, in thread switches.
    func read<T>(_ body: (Database) throws -> T) throws -> T {
        try writer.read(body)
    }

    // MARK: Encoding

    static func date(_ seconds: Double) -> Date { Date(timeIntervalSince1970: seconds) }

    static func json<T: Encodable>(_ value: T) throws -> String {
        String(decoding: try encoder.encode(value), as: UTF8.self)
    }
}
