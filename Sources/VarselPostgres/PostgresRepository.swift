import Foundation
import Logging
import PostgresNIO
import Synchronization
import VarselCore
import VarselStore

/// The store for more than one machine: PostgreSQL through a PostgresNIO connection pool.
///
/// Each public method is one transaction. Several Varsel instances may share the database: every transaction
/// that appends to the event log first takes one transaction-scoped advisory lock, so event ids are assigned and
/// committed in the same order — a reader that has seen id n never later finds a smaller id committed (no gap a
/// stream could skip). The same transaction sends `NOTIFY varsel_events`, which wakes every instance's pump.
public final class PostgresRepository: VarselRepository, Sendable {
    let client: PostgresClient
    /// Ends an operation whose connection the server closed under it (PostgresNIO would wait on it for good).
    let closeWatch = ConnectionCloseWatch()
    let logger: Logger
    let url: String
    let runner: Task<Void, Never>
    /// Plain creates waiting to share a transaction.
    let creates = PostgresCreateBatch()
    /// Encrypts personal details on their way in and opens them on their way out (see ``DataKeyring``).
    let sealer: FieldSealer
    /// The notifications this store last wrote or read in its event log, by their JSON.
    let notificationJSON = NotificationJSONCache(capacity: NotificationJSONCache.storeCapacity)
    /// Told after each transaction of this process that appended events, once it commits (``followCommittedEvents(_:)``).
    private let commitFollowers = Mutex<[@Sendable ([StoredEvent]) -> Void]>([])
    /// The outages this store's operations met (``StoreCondition``).
    public let health = StoreHealth()
    /// How long one operation may wait for the database before it is refused (``defaultOperationTimeout``).
    let operationTimeout: Duration
    static let encoder = JSONEncoder()
    static let decoder = JSONDecoder()
    /// The advisory lock that orders event-log writers.
    static let eventLock: Int64 = 0x7661_7273_656C_0001
    /// How long the server lets one of Varsel's transactions sit idle before it ends it (`idle_in_transaction_session_timeout`).
    public static let defaultIdleTransactionTimeout: Duration = .seconds(3)
    /// The advisory lock migrations take.
    static let migrationLock: Int64 = 0x7661_7273_656C_0002
    /// The channel `NOTIFY` uses when events are committed.
    public static let eventChannel = "varsel_events"

    /// Connects to the database at `url` (`postgres://user:password@host:port/database`) and brings its schema up to date.
    ///
    /// With `createsSchema: false` a database without Varsel's tables is refused (``NoVarselTables``) rather than
    /// set up: a command that was not asked to make a database does not make one.
    ///
    /// With `keys`, personal details are stored encrypted; a database that holds encrypted details is refused
    /// without them (``StoreError/dataKeyRequired``) or with a key file that lacks its key. `checksDataKey: false`
    /// opens it anyway, for work that never reads or writes personal details (the `varsel user` commands).
    ///
    /// A database changed by a later version is refused (``SchemaFromNewerVersion``). `upgradesSchema: false` opens
    /// the tables as they are, changing nothing, for `varsel check`; ``schemaFound`` says how they stand.
    ///
    /// Each operation waits at most `operationTimeout` for the database, then fails with ``StoreUnavailable``. The
    /// server ends a transaction of this store's that sits idle for `idleTransactionTimeout`.
    public init(
        url: String, logger: Logger, keys: DataKeyring? = nil, personKeys: PersonKeyring? = nil, checksDataKey: Bool = true,
        createsSchema: Bool = true,
        upgradesSchema: Bool = true, operationTimeout: Duration = PostgresRepository.defaultOperationTimeout,
        idleTransactionTimeout: Duration = PostgresRepository.defaultIdleTransactionTimeout
    ) async throws {
        guard !Self.needsPercentEncoding(url) else { throw PostgresOpenFailure.needsPercentEncoding }
        let configuration = try Self.configuration(from: url, idleTransactionTimeout: idleTransactionTimeout)
        // One connection first: a refused password or an unknown database is said at once, not retried by the pool.
        try await Self.probe(url: url, logger: logger)
        client = PostgresClient(configuration: configuration, backgroundLogger: logger)
        self.operationTimeout = operationTimeout
        self.logger = logger
        self.url = url
        sealer = FieldSealer(keys, people: personKeys)
        let (client, closeWatch, sealer) = (client, closeWatch, sealer)
        runner = Task { await client.run() }
        do {
            // On one connection under the close watch, like every operation: a session the server ends in the middle
            // (a restart, or the schema's transaction idle too long on a starved machine) fails the start at once
            // instead of leaving it waiting for good for an answer PostgresNIO never gives.
            let checksKey = checksDataKey || keys != nil
            (schemaFound, madeSchema, schemaChangesMade) = try await Self.onOpenConnection(client, closeWatch) { connection in
                let hasSchema = try await PostgresMigrations.hasSchema(connection, logger: logger)
                if !createsSchema, !hasSchema { throw NoVarselTables() }
                let found = try await PostgresMigrations.state(connection, hasSchema: hasSchema, logger: logger)
                var (made, changes) = (false, 0)
                if upgradesSchema {
                    if case let .newer(unknown) = found { throw SchemaFromNewerVersion(unknown: unknown) }
                    // The data key is checked before any change, so a start refused for its key leaves the tables as they were.
                    if checksKey { try await Self.checkDataKeyBeforeChanges(connection, sealer: sealer, logger: logger) }
                    (made, changes) = try await PostgresMigrations.migrate(connection, logger: logger)
                }
                if checksKey { try await Self.checkDataKey(connection, sealer: sealer, logger: logger) }
                return (found, made, changes)
            }
        } catch {
            runner.cancel()
            if Self.sqlState(of: error) == "42501" { throw PostgresOpenFailure.permissionDenied(user: configuration.username) }
            throw error
        }
    }

    deinit { runner.cancel() }

    /// Whether opening this store set up Varsel's tables in a database that had none.
    public let madeSchema: Bool

    /// How the tables stood against this version's layout when the store opened them, before any change.
    public let schemaFound: SchemaState

    /// How many changes to the tables this store made as it opened (another instance starting at the same moment
    /// may have made the rest).
    public let schemaChangesMade: Int

    /// The database has no Varsel tables, and the store was opened with `createsSchema: false`.
    public struct NoVarselTables: Error {}

    /// Refuses a database whose details these keys cannot open, reading only: a database of an earlier layout may not
    /// have the check's table yet.
    static func checkDataKeyBeforeChanges(_ connection: PostgresConnection, sealer: FieldSealer, logger: Logger) async throws {
        let hasTable =
            try await first(connection.query("SELECT to_regclass('data_key_check') IS NOT NULL", logger: logger))?.decode(Bool.self) ?? false
        guard hasTable,
            let existing = try await first(connection.query("SELECT sealed FROM data_key_check WHERE id = 1", logger: logger))?
                .decode(String.self)
        else { return }
        _ = try sealer.startingCheck(existing: existing)
    }

    /// Refuses a database whose details these keys cannot open, and marks a database encrypted from its first start
    /// with keys. Instances starting together agree: the first check stored is the one every instance verifies.
    static func checkDataKey(_ connection: PostgresConnection, sealer: FieldSealer, logger: Logger) async throws {
        let select: PostgresQuery = "SELECT sealed FROM data_key_check WHERE id = 1"
        let existing = try await first(connection.query(select, logger: logger))?.decode(String.self)
        guard let check = try sealer.startingCheck(existing: existing) else { return }
        try await connection.query("INSERT INTO data_key_check (id, sealed) VALUES (1, \(check)) ON CONFLICT (id) DO NOTHING", logger: logger)
        _ = try sealer.startingCheck(existing: try await first(connection.query(select, logger: logger))?.decode(String.self))
    }

    /// Tells `follower` after each transaction of this process that appended events, with no events: this store's
    /// followers read the log (``publishesCommittedEvents`` is false).
    public func followCommittedEvents(_ follower: @escaping @Sendable ([StoredEvent]) -> Void) {
        commitFollowers.withLock { $0.append(follower) }
    }

    /// Closes the pool.
    public func shutdown() { runner.cancel() }

    /// The server's version as a number (`150004` for 15.4) and as it names it.
    public func serverVersion() async throws -> (number: Int, name: String) {
        try await read { connection in
            let row = try await Self.one(
                connection.query("SELECT current_setting('server_version_num')::int, current_setting('server_version')", logger: self.logger))
            let (number, name) = try row.decode((Int, String).self)
            return (number, name)
        }
    }

    /// The oldest PostgreSQL Varsel runs on.
    public static let oldestServerVersion = (number: 130000, name: "13")

    // MARK: For tests of several instances

    /// The database URL this repository was opened with.
    public var urlForTests: String { url }

    /// The lock event-log writers take, so a test can hold it as another instance would.
    public static var eventLockForTests: Int64 { eventLock }

    /// A pooled connection outside any repository method, for tests that hold a transaction open.
    public func withConnectionForTests<T: Sendable>(_ body: @Sendable (PostgresConnection) async throws -> T) async throws -> T {
        try await client.withConnection { connection in try await body(connection) }
    }

    /// Whether `text` names a PostgreSQL database (`postgres://…` or `postgresql://…`) rather than a SQLite file.
    public static func isURL(_ text: String) -> Bool {
        let lowered = text.lowercased()
        return lowered.hasPrefix("postgres://") || lowered.hasPrefix("postgresql://")
    }

    /// Reads `postgres://user:password@host:port/database`; TLS is used when `sslmode=require` is given.
    public static func configuration(
        from url: String, idleTransactionTimeout: Duration = defaultIdleTransactionTimeout
    ) throws -> PostgresClient.Configuration {
        let parts = try URLParts(url)
        var configuration = PostgresClient.Configuration(
            host: parts.host, port: parts.port, username: parts.user, password: parts.password,
            database: parts.database, tls: parts.requiresTLS ? .require(.makeClientConfiguration()) : .disable)
        configuration.options.maximumConnections = 16
        // A transaction left open by an instance that stopped talking to the server (cut off by the network, or hung)
        // is ended by the server after this long, and its locks with it: the event log's lock above all, which every
        // other instance's writes wait for. Varsel's own transactions never sit idle for anything like it.
        let milliseconds = idleTransactionTimeout.components.seconds * 1000 + idleTransactionTimeout.components.attoseconds / 1_000_000_000_000_000
        configuration.options.additionalStartupParameters = [("idle_in_transaction_session_timeout", "\(milliseconds)")]
        return configuration
    }

    // MARK: Transactions

    /// Runs `body` in a read-only snapshot.
    func read<T: Sendable>(within limit: Duration? = nil, _ body: @escaping @Sendable (PostgresConnection) async throws -> T) async throws -> T {
        try await bounded(wrote: false, within: limit) {
            try await self.onOpenConnection(body)
        }
    }

    /// Runs `body` on a pooled connection under the close watch, asking the pool again (a few times) when it hands
    /// over a connection that has just closed (as often as it does, within the caller's deadline).
    func onOpenConnection<T: Sendable>(_ body: @escaping @Sendable (PostgresConnection) async throws -> T) async throws -> T {
        try await Self.onOpenConnection(client, closeWatch, body)
    }

    /// Runs `body` on a connection of `client`'s pool under `closeWatch`, as ``onOpenConnection(_:)`` does.
    static func onOpenConnection<T: Sendable>(
        _ client: PostgresClient, _ closeWatch: ConnectionCloseWatch, _ body: @escaping @Sendable (PostgresConnection) async throws -> T
    ) async throws -> T {
        while true {
            do {
                return try await client.withConnection { connection in
                    try await closeWatch.run(on: connection) { try await body(connection) }
                }
            } catch is ConnectionCloseWatch.ClosedBeforeUse {
                // The pool drops the connection once it has seen it close; the caller's deadline bounds the tries.
                try await Task.sleep(for: .milliseconds(5))
            }
        }
    }

    /// Runs `body` in a transaction; with `appendsEvents`, under the event-log lock. (A trigger on the event table
    /// sends the NOTIFY that wakes the other instances at commit.)
    ///
    /// The lock is what keeps event ids in commit order across instances, and every write that appends events waits
    /// for it, so the less a transaction does while holding it, the more writes per second the log takes. With
    /// `locksLate`, `body` takes it itself just before its first event (``lockEventLog(_:)``, or in the statement that
    /// appends its events), after the work that needs no order (the notifications' own rows).
    ///
    /// It waits at most `within` (the store's operation timeout when nil) for the database; a write of many rows
    /// passes a longer one (``deadline(forRows:)``).
    @discardableResult
    func write<T: Sendable>(
        appendsEvents: Bool = false, locksLate: Bool = false, within limit: Duration? = nil,
        _ body: @escaping @Sendable (PostgresConnection) async throws -> T
    ) async throws -> T {
        let logger = logger
        do {
            let result = try await bounded(wrote: true, within: limit) {
                try await self.onOpenConnection { connection in
                    try await connection.withTransaction(logger: logger) { connection in
                        if appendsEvents && !locksLate {
                            try await self.lockEventLog(connection)
                        }
                        return try await body(connection)
                    }
                }
            }
            if appendsEvents {
                // The events are read back from the log (their ids are the database's); the followers are told to read.
                for follower in commitFollowers.withLock({ $0 }) { follower([]) }
            }
            return result
        } catch let error as PostgresTransactionError {
            // The store's own errors (a taken username, an answered assignment) come out as themselves.
            if let storeError = error.closureError as? StoreError { throw storeError }
            throw error
        }
    }

    /// Takes the event-log lock until the end of the transaction.
    func lockEventLog(_ connection: PostgresConnection) async throws {
        try await connection.query("SELECT pg_advisory_xact_lock(\(Self.eventLock))", logger: logger)
    }

    // MARK: Rows and values

    static func first(_ rows: PostgresRowSequence) async throws -> PostgresRow? {
        try await rows.collect().first
    }

    static func one(_ rows: PostgresRowSequence) async throws -> PostgresRow {
        guard let row = try await rows.collect().first else { throw StoreError.unknownStoredValue(column: "(a row the statement returns)") }
        return row
    }

    static func date(_ seconds: Double) -> Date { Date(timeIntervalSince1970: seconds) }

    static func json<T: Encodable>(_ value: T) throws -> String {
        String(decoding: try encoder.encode(value), as: UTF8.self)
    }

    /// The event log's JSON of a notification (``StoredNotificationJSON``).
    static func storedJSON(_ item: NotificationItem) throws -> String {
        try StoredNotificationJSON.encode(item) ?? json(item)
    }
}

/// What a PostgreSQL URL names, read in one place for the pool and for the first connection.
struct URLParts {
    var host: String
    var port: Int
    var user: String
    var password: String?
    /// Nil when the URL names none: PostgreSQL then takes the user's name.
    var database: String?
    /// `sslmode=require`.
    var requiresTLS: Bool

    init(_ url: String) throws {
        guard let components = URLComponents(string: url), ["postgres", "postgresql"].contains(components.scheme?.lowercased() ?? ""),
            let host = components.host, let user = components.user, !user.isEmpty
        else {
            throw PostgresURLError()
        }
        let database = components.path.trimmingCharacters(in: CharacterSet(charactersIn: "/"))
        self.host = host
        port = components.port ?? 5432
        self.user = user
        password = components.password
        self.database = database.isEmpty ? nil : database
        requiresTLS = components.queryItems?.first { $0.name == "sslmode" }?.value == "require"
    }
}

/// `--database` names neither a SQLite file nor a PostgreSQL URL Varsel can read.
public struct PostgresURLError: Error, CustomStringConvertible {
    public init() {}

    public var description: String { "The database URL must look like postgres://user:password@host:5432/database." }
}
