import Foundation
import Logging
import PostgresNIO
import Testing
import VarselCore
import VarselPostgres
import VarselSQLite
import VarselStore

/// The stores Varsel can run on; the contract holds every one of them to the same behaviour.
///
/// PostgreSQL joins when `VARSEL_TEST_POSTGRES_URL` names a server to create throwaway databases on
/// (`./scripts/test.sh` starts one); each test gets a database of its own.
enum StoreKind: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case sqlite
    /// The SQLite store over an in-memory GRDB queue: the same SQL, no file.
    case sqliteInMemory
    case postgres

    var testDescription: String { rawValue }

    static var allCases: [StoreKind] {
        let local: [StoreKind] = [.sqlite, .sqliteInMemory]
        return ProcessInfo.processInfo.environment["VARSEL_TEST_POSTGRES_URL"] == nil ? local : local + [.postgres]
    }

    /// A fresh, empty store; SQLite on a real file in a new temporary directory, PostgreSQL in a new database.
    func make() async throws -> any VarselRepository {
        switch self {
        case .sqlite:
            return try SQLiteRepository(path: try temporarySQLitePath("contract"))
        case .sqliteInMemory:
            return try SQLiteRepository.inMemory()
        case .postgres:
            return try await PostgresTestDatabase.make()
        }
    }
}

/// Throwaway databases on the test PostgreSQL server.
enum PostgresTestDatabase {
    static var serverURL: String? { ProcessInfo.processInfo.environment["VARSEL_TEST_POSTGRES_URL"] }

    /// How long a test's operation may wait: the test server is shared by every suite at once on a machine that is
    /// also building, so the server's own deadline (about a database that does not answer) would fail ordinary
    /// writes by chance. The deadline itself is tested with its own, shorter, value.
    static let operationTimeout: Duration = .seconds(60)

    /// How long a test's transaction may sit idle before the server ends it: a test's task can wait seconds for a
    /// thread between two statements on that machine. The server's own limit is tested with its own value.
    static let idleTransactionTimeout: Duration = .seconds(60)

    /// A new, empty database with Varsel's schema, its personal details encrypted under `keys` when given (each
    /// person's under their own key, with `personKeys`).
    static func make(keys: DataKeyring? = nil, personKeys: PersonKeyring? = nil) async throws -> PostgresRepository {
        try await PostgresRepository(
            url: try await makeEmpty(), logger: Logger(label: "test"), keys: keys, personKeys: personKeys,
            operationTimeout: PostgresTestDatabase.operationTimeout,
            idleTransactionTimeout: PostgresTestDatabase.idleTransactionTimeout)
    }

    /// The URL of a new database without any tables.
    static func makeEmpty() async throws -> String {
        guard let serverURL, var components = URLComponents(string: serverURL) else { throw PostgresURLError() }
        let name = "varsel_test_\(UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased())"
        let admin = PostgresClient(configuration: try PostgresRepository.configuration(from: serverURL), backgroundLogger: Logger(label: "test"))
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await admin.run() }
            try await admin.query(PostgresQuery(unsafeSQL: "CREATE DATABASE \(name)"))
            group.cancelAll()
        }
        components.path = "/" + name
        return components.string ?? serverURL
    }
}

/// What the contract suites share: the demo's clock and small builders of users and notifications.
protocol StoreContract {
    var now: Date { get }
}

extension StoreContract {
    func mentor(_ store: any VarselRepository, _ name: String = "mentor") async throws -> User {
        try await store.createUser(
            NewUser(username: name, displayName: name.capitalized, role: .mentor, passwordHash: "x", language: .english), at: now)
    }

    func note(_ recipient: UserID, title: String = "Title", kind: NotificationKind = .scenarioPrompt) -> NewNotification {
        NewNotification(recipientID: recipient, senderID: nil, kind: kind, title: title, body: "Body", deepLink: .scenario(scenarioID: nil))
    }
}
