import Foundation
import Logging
import VarselCore
import VarselPostgres
import VarselPush
import VarselSQLite
import VarselService
import VarselStore
import VarselWeb

/// The work of the `varsel user` and `varsel transcript` subcommands, so that the command depends on this target alone.
public enum Administration {
    /// A command that cannot do what it was asked: one sentence to print, naming no personal data.
    public struct Failure: Error, CustomStringConvertible {
        public var description: String

        public init(_ description: String) {
            self.description = description
        }
    }

    /// Runs a command's work and turns whatever it throws into one ``Failure`` sentence that says what to do: never
    /// a Swift type name, a value typed in, a database URL (it may hold a password) or personal data.
    public static func answering<T>(_ work: () async throws -> T) async throws -> T {
        do {
            return try await work()
        } catch {
            throw Failure(sentence(for: error))
        }
    }

    /// The sentence for `error` (see ``answering(_:)``).
    static func sentence(for error: any Error) -> String {
        switch error {
        case let failure as Failure: failure.description
        case let invalid as InvalidInput: invalid.summary
        case StoreError.dataKeyRequired, StoreError.dataKeyMissing: "\(error)"
        case let keys as DataKeyring.Failure: keys.description
        case let store as StoreError: store.description
        case UserAdministration.Refusal.linkNotValid:
            "The account is deactivated: reactivate it first with `varsel user reactivate`."
        case let refusal as UserAdministration.Refusal: refusal.sentence
        case let url as PostgresURLError: url.description
        case let startup as StartupError: startup.description
        case _ where "\(error)".contains("Address already in use"):
            "The address and port are in use by another program: choose another with --port, or stop the other program."
        default: "Varsel stopped on an unexpected error. Check --database, --host, --port and the other options, then try again."
        }
    }

    /// The database a command uses: `--database`, else the environment's `VARSEL_DATABASE` (which keeps a PostgreSQL
    /// password out of the process list), else `./varsel.sqlite`.
    public static func database(_ option: String?) -> String {
        option ?? ProcessInfo.processInfo.environment["VARSEL_DATABASE"].flatMap { $0.isEmpty ? nil : $0 } ?? "./varsel.sqlite"
    }

    /// How long a command waits to reach a PostgreSQL server before it says it cannot.
    static let connectDeadline = Duration.seconds(10)

    /// Opens the store at `database` (an SQLite file, or a PostgreSQL URL `postgres://…`), gives it to `body`, and
    /// closes it.
    ///
    /// Without `keys` the store is opened for work on accounts only, which never touches the personal details that
    /// may be encrypted.
    static func withStore<T>(_ database: String, keys: DataKeyring? = nil, _ body: (any VarselRepository) async throws -> T) async throws -> T {
        if PostgresRepository.isURL(database) {
            let logger = {
                var logger = Logger(label: "varsel")
                logger.logLevel = .error
                return logger
            }()
            let unreachable = Failure("Could not open the PostgreSQL database: check the URL (postgres://user:password@host:5432/database), "
                                      + "that the server is running and that the user may connect.")
            // The client keeps retrying a server it cannot reach; a command gives up after `connectDeadline`.
            // A refused data key is said as such; anything else is an unreachable server.
            let opened: PostgresRepository?
            do {
                opened = try await withThrowingTaskGroup(of: PostgresRepository?.self) { group in
                    group.addTask { try await PostgresRepository(url: database, logger: logger, keys: keys, checksDataKey: keys != nil) }
                    group.addTask {
                        try await Task.sleep(for: connectDeadline)
                        return nil
                    }
                    defer { group.cancelAll() }
                    return try await group.next() ?? nil
                }
            } catch let error as StoreError {
                throw error
            } catch {
                throw unreachable
            }
            guard let postgres = opened else { throw unreachable }
            defer { postgres.shutdown() }
            return try await body(postgres)
        }
        let sqlite: SQLiteRepository
        do {
            sqlite = try SQLiteRepository(path: database, keys: keys, checksDataKey: keys != nil)
        } catch let error as StoreError {
            throw error
        } catch {
            throw Failure("Could not open the SQLite database at the path given: check that its folder exists and can be written.")
        }
        return try await body(sqlite)
    }

    /// Opens the store at `database` as ``withStore(_:keys:_:)`` does, builds the services over it (the same graph
    /// as the server's), and gives them to `body`.
    static func withServices<T>(_ database: String, bcryptCost: UInt8 = 4, _ body: (VarselServices) async throws -> T) async throws -> T {
        try await withStore(database) { repository in
            var logger = Logger(label: "varsel")
            logger.logLevel = .error
            return try await body(VarselServices(repository: repository, now: { Date() }, passwords: PasswordHasher(cost: bcryptCost), logger: logger))
        }
    }

    /// Adds a user to the store at `database` (an SQLite file or a PostgreSQL URL); returns the line to print.
    public static func addUser(database: String, username: String, password: String, role: String, displayName: String?,
                               locale: String, bcryptCost: UInt8) async throws -> String {
        try await answering {
            try await withServices(database, bcryptCost: bcryptCost) { services in
                let user = try await services.users.add(username: username, password: password, role: role, displayName: displayName, locale: locale, at: Date())
                return "Added \(user.role.rawValue) \(user.username) (id \(user.id))."
            }
        }
    }

    /// Gives `username` a new one-time set-password link (a new person, a forgotten password), ending their
    /// sessions; returns the lines to print: the link on `publicURL` and its code to read aloud.
    public static func resetLink(database: String, username: String, publicURL: String?) async throws -> [String] {
        let site = publicURL.flatMap(URL.init(string:)).flatMap { url -> String? in
            guard let scheme = url.scheme, let host = url.host else { return nil }
            return "\(scheme)://\(host)\(url.port.map { ":\($0)" } ?? "")"
        } ?? "http://localhost:8080"
        return try await answering {
            try await withServices(database) { services in
                let user = try await person(username, in: services)
                let issued = try await services.users.issueLink(for: user.id, by: nil)
                let until = issued.expiresAt.formatted(.iso8601)
                return ["One-time set-password link for \(user.username), valid once until \(until): \(site)/password/\(issued.code)",
                        "Or at \(site)/password, the code \(issued.code)."]
            }
        }
    }

    /// Deactivates (or, with `active`, reactivates) `username`; returns the line to print.
    public static func setActive(_ active: Bool, database: String, username: String) async throws -> String {
        try await answering {
            try await withServices(database) { services in
                let user = try await person(username, in: services)
                let administration = services.users
                guard user.isActive != active else {
                    return active ? "\(user.username) is active already." : "\(user.username) is deactivated already."
                }
                if active {
                    try await administration.reactivate(user.id, by: nil)
                    return "Reactivated \(user.username): they can sign in again."
                }
                let outcome = try await administration.deactivate(user.id, by: nil)
                let sessions = outcome.endedSessions.count == 1 ? "1 session" : "\(outcome.endedSessions.count) sessions"
                return "Deactivated \(user.username): \(sessions) ended, sign-in refused; their data is kept."
            }
        }
    }

    private static func person(_ username: String, in services: VarselServices) async throws -> User {
        guard let user = try await services.directory.person(username: username) else {
            throw Failure("There is no user with that username: see `varsel user list`.")
        }
        return user
    }

    /// The users of the store at `database`, one tab-separated line each: id, username, role, language, name.
    public static func userLines(database: String) async throws -> [String] {
        try await answering {
            try await withServices(database) { services in
                try await services.directory.everyone().map {
                    "\($0.id)\t\($0.username)\t\($0.role.rawValue)\t\($0.language.rawValue)\t\($0.displayName)"
                }
            }
        }
    }

    /// The languages and screen readers a transcript can be asked for, by the names the command takes.
    public static let transcriptLocales = Language.allCases.map(\.rawValue)
    public static let transcriptReaders = ScreenReader.allCases.map(\.rawValue)

    /// What a screen reader says on the demo notification centre; `locale` and `reader` name one of the above.
    public static func transcript(locale: String, reader: String) throws -> String {
        guard let language = Language(rawValue: locale), let screenReader = ScreenReader(rawValue: reader) else {
            throw Failure("Use --locale \(transcriptLocales.joined(separator: "|")) and --reader \(transcriptReaders.joined(separator: "|")).")
        }
        return Transcript(language: language, reader: screenReader).render()
    }
}

extension ServerConfiguration {
    /// How much a committed write survives (``SQLiteRepository/Durability``).
    public typealias Durability = SQLiteRepository.Durability

    /// Believes `X-Forwarded-For` from the proxy or network `text` (an address or CIDR); false when it is neither.
    public mutating func trustProxy(_ text: String) -> Bool {
        guard let network = CIDR(text) else { return false }
        http.trustedProxies.append(network)
        return true
    }
}
