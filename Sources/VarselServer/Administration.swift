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
        case let keys as PersonKeyFile.Failure: keys.description
        case let store as StoreError: store.description
        case UserAdministration.Refusal.linkNotValid:
            "The account is deactivated: reactivate it first with `varsel user reactivate`."
        case let refusal as UserAdministration.Refusal: refusal.sentence
        case let refusal as Integrations.Refusal: refusal.sentence
        case let url as PostgresURLError: url.description
        case let postgres as PostgresOpenFailure: postgres.description
        case let startup as StartupError: startup.description
        default: "Varsel stopped on an unexpected error. Check --database, --host, --port and the other options, then try again."
        }
    }

    /// The database a command uses: `--database`, else the environment's `VARSEL_DATABASE` (which keeps a PostgreSQL
    /// password out of the process list), else `./varsel.sqlite`.
    public static func database(_ option: String?) -> String {
        option ?? ProcessInfo.processInfo.environment["VARSEL_DATABASE"].flatMap { $0.isEmpty ? nil : $0 } ?? "./varsel.sqlite"
    }

    /// Whether `host` is something to listen on: an IPv4 or IPv6 address, or a name this machine resolves.
    public static func isListenableHost(_ host: String) -> Bool {
        var v4 = in_addr()
        var v6 = in6_addr()
        if inet_pton(AF_INET, host, &v4) == 1 || inet_pton(AF_INET6, host, &v6) == 1 { return true }
        // A dotted string of digits that is not an address (0.0.0.0.0) is a mistake, not a name to look up.
        guard !host.isEmpty, host.contains(where: \.isLetter) else { return false }
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var found: UnsafeMutablePointer<addrinfo>?
        defer { if let found { freeaddrinfo(found) } }
        return getaddrinfo(host, nil, &hints, &found) == 0
    }

    /// How a command names its database when it says what it did: an SQLite file by its full path, a PostgreSQL
    /// database by its URL without the password.
    public static func shownName(of database: String) -> String {
        guard PostgresRepository.isURL(database) else { return URL(fileURLWithPath: database).standardizedFileURL.path }
        guard var components = URLComponents(string: database), components.host != nil else { return "the PostgreSQL database given" }
        components.password = nil
        components.query = nil
        components.fragment = nil
        return components.string ?? "the PostgreSQL database given"
    }

    /// How long a command waits to reach a PostgreSQL server before it says it cannot.
    /// (Longer than one connection attempt's own limit, which says more: ``PostgresOpenFailure/noAnswer(host:port:seconds:)``.)
    static let connectDeadline = Duration.seconds(15)

    /// Opens the store at `database` (an SQLite file, or a PostgreSQL URL `postgres://…`), gives it to `body` with
    /// whether it was made just now, and closes it.
    ///
    /// Only with `creating` does a missing SQLite file, or a PostgreSQL database without Varsel's tables, become a
    /// new database; otherwise it is refused in a sentence that names it. Without `keys` the store is opened for work
    /// on accounts only, which never touches the personal details that may be encrypted.
    static func withStore<T>(
        _ database: String, keys: DataKeyring? = nil, creating: Bool = false, upgradesSchema: Bool = true,
        _ body: (any VarselRepository, _ isNew: Bool) async throws -> T
    ) async throws -> T {
        let shown = shownName(of: database)
        let people = try personKeys(for: keys, creating: false)
        if PostgresRepository.isURL(database) {
            let logger = {
                var logger = Logger(label: "varsel")
                logger.logLevel = .error
                return logger
            }()
            let unreachable = Failure(
                "Could not open the PostgreSQL database: check the URL (postgres://user:password@host:5432/database), "
                    + "that the server is running and that the user may connect.")
            // The client keeps retrying a server it cannot reach; a command gives up after `connectDeadline`.
            // A refused data key is said as such; anything else is an unreachable server.
            let opened: PostgresRepository?
            do {
                opened = try await withThrowingTaskGroup(of: PostgresRepository?.self) { group in
                    group.addTask {
                        try await PostgresRepository(
                            url: database, logger: logger, keys: keys, personKeys: people,
                            checksDataKey: keys != nil, createsSchema: creating, upgradesSchema: upgradesSchema)
                    }
                    group.addTask {
                        try await Task.sleep(for: connectDeadline)
                        return nil
                    }
                    defer { group.cancelAll() }
                    return try await group.next() ?? nil
                }
            } catch let error where isOpeningRefusal(error) {
                throw openingRefusal(error, database: database, keys: keys)
            } catch let error as PostgresURLError {
                throw error
            } catch let error as PostgresOpenFailure {
                throw error
            } catch is PostgresRepository.NoVarselTables {
                throw Failure(
                    "\(shown) has no Varsel tables: check --database or VARSEL_DATABASE; only `varsel serve` and `varsel user add` set up a new database."
                )
            } catch {
                throw unreachable
            }
            guard let postgres = opened else { throw unreachable }
            defer { postgres.shutdown() }
            return try await body(postgres, postgres.madeSchema)
        }
        let isNew = !FileManager.default.fileExists(atPath: database)
        if isNew && !creating {
            throw Failure(
                "There is no database at \(shown): check --database or VARSEL_DATABASE; only `varsel serve` and `varsel user add` make a new one.")
        }
        if !isNew { try refuseUnlessVarsel(database) }
        let sqlite: SQLiteRepository
        do {
            sqlite = try SQLiteRepository(
                path: database, keys: keys, personKeys: people, checksDataKey: keys != nil,
                upgradesSchema: upgradesSchema)
        } catch let error where isOpeningRefusal(error) {
            throw openingRefusal(error, database: database, keys: keys)
        } catch {
            throw Failure("Could not open the SQLite database at \(shown): check that its folder exists and can be written.")
        }
        do {
            return try await body(sqlite, isNew)
        } catch {
            // A database made for work that was then refused (a taken role name, a short password) is not left behind.
            if isNew {
                for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: database + suffix) }
            }
            throw error
        }
    }

    /// How many changes to its tables `store` made as it opened: on PostgreSQL, those this instance made (another
    /// starting at the same moment may have made others); on SQLite, those the file lacked.
    static func schemaChangesMade(_ store: any VarselRepository) -> Int? {
        if let postgres = store as? PostgresRepository { return postgres.schemaChangesMade }
        if case let .older(pending)? = (store as? SQLiteRepository)?.schemaFound { return pending }
        return nil
    }

    /// Whether `error` is a store's refusal to open a database: of its data keys, or of tables a later version changed.
    static func isOpeningRefusal(_ error: any Error) -> Bool {
        error is StoreError || error is SchemaFromNewerVersion
    }

    /// A store's refusal to open a database (its data keys, or tables a later version changed), said with the database
    /// and the key file it concerns; any other store error as it is.
    static func openingRefusal(_ error: any Error, database: String, keys: DataKeyring?) -> any Error {
        let shown = shownName(of: database)
        if error is SchemaFromNewerVersion {
            return Failure(
                "\(shown) holds tables changed by a later version of Varsel than \(VarselRelease.version): run that later version; Varsel never takes a database back to an earlier layout."
            )
        }
        guard let error = error as? StoreError else { return error }
        switch error {
        case .dataKeyRequired:
            return Failure("The personal details in \(shown) are encrypted; start Varsel with --data-key-file naming the file that holds its key.")
        case let .dataKeyMissing(id):
            let file = keys?.path.map { "The data key file \(shownName(of: $0))" } ?? "The data key file"
            return Failure("\(file) does not hold the key \(id) the details in \(shown) are encrypted with; give the key file that holds it.")
        default:
            return error
        }
    }

    /// Refuses the existing file at `path` unless it is a Varsel database: opening a store sets up its tables, and no
    /// command sets them up inside another program's database or a file that is not one.
    static func refuseUnlessVarsel(_ path: String) throws {
        let shown = shownName(of: path)
        switch SQLiteRepository.examine(path: path) {
        case .varsel: return
        case .otherDatabase:
            throw Failure(
                "\(shown) is an SQLite database without Varsel's tables, and Varsel sets up none in a file that exists: check --database or VARSEL_DATABASE."
            )
        case .notDatabase:
            throw Failure("\(shown) is not an SQLite database, or cannot be read: check --database or VARSEL_DATABASE.")
        }
    }

    /// Opens the store at `database` as ``withStore(_:keys:creating:_:)`` does, builds the services over it (the same
    /// graph as the server's), and gives them to `body` with whether the database was made just now.
    static func withServices<T>(
        _ database: String, bcryptCost: UInt8 = 4, creating: Bool = false, keys: DataKeyring? = nil,
        webhookEndpointPolicy: PushEndpointPolicy = .init(), _ body: (VarselServices, _ isNew: Bool) async throws -> T
    ) async throws -> T {
        try await withStore(database, keys: keys, creating: creating) { repository, isNew in
            var logger = Logger(label: "varsel")
            logger.logLevel = .error
            let services = VarselServices(
                repository: repository, now: { Date() }, passwords: PasswordHasher(cost: bcryptCost), webhookEndpointPolicy: webhookEndpointPolicy,
                logger: logger)
            return try await body(services, isNew)
        }
    }

    /// How an account change names the database it was made in: `to /srv/varsel.sqlite`, or, when the command made
    /// it, says so.
    private static func place(_ database: String, isNew: Bool, preposition: String) -> String {
        let shown = shownName(of: database)
        guard isNew else { return "\(preposition) \(shown)" }
        return PostgresRepository.isURL(database)
            ? "\(preposition) \(shown), whose Varsel tables were set up now"
            : "\(preposition) the new database \(shown)"
    }

    /// Adds a user with a password to the store at `database` (an SQLite file or a PostgreSQL URL), making the database
    /// when there is none; returns the line to print.
    public static func addUser(
        database: String, username: String, password: String, role: String, displayName: String?,
        locale: String, bcryptCost: UInt8
    ) async throws -> String {
        try await answering {
            // Checked before the database is opened, which may set it up.
            try checkBcryptCost(bcryptCost)
            try UserAdministration.check(username: username, password: password, role: role, displayName: displayName, locale: locale)
            return try await withServices(database, bcryptCost: bcryptCost, creating: true) { services, isNew in
                let user = try await takenSaid(database) {
                    try await services.users.add(
                        username: username, password: password, role: role, displayName: displayName, locale: locale, at: Date())
                }
                return "Added \(user.role.rawValue) \(user.username) (id \(user.id)) \(place(database, isNew: isNew, preposition: "to"))."
            }
        }
    }

    /// Adds a user without a password to the store at `database`, making the database when there is none: they
    /// choose one through the one-time link; returns the lines to print.
    public static func inviteUser(
        database: String, username: String, role: String, displayName: String?, locale: String,
        publicURL: String?
    ) async throws -> [String] {
        try await answering {
            let site = try site(publicURL)
            try UserAdministration.check(username: username, password: nil, role: role, displayName: displayName, locale: locale)
            return try await withServices(database, creating: true) { services, isNew in
                let issued = try await takenSaid(database) {
                    try await services.users.invite(username: username, displayName: displayName, role: role, locale: locale, by: nil)
                }
                let user = issued.user
                return [
                    "Added \(user.role.rawValue) \(user.username) (id \(user.id)) \(place(database, isNew: isNew, preposition: "to")), "
                        + "with no password until they choose one."
                ] + linkLines(issued, site: site)
            }
        }
    }

    /// `text` as a public URL: an http or https URL with a host; nil for anything else. The one rule for `serve`,
    /// `check` and the links the command line prints.
    public static func publicURL(_ text: String) -> URL? {
        guard let url = URL(string: text), ["http", "https"].contains(url.scheme?.lowercased() ?? ""), url.host?.isEmpty == false else { return nil }
        return url
    }

    /// The sentence for a public URL ``publicURL(_:)`` refuses.
    public static let publicURLRule = "--public-url (or VARSEL_PUBLIC_URL) must be an http or https URL, such as https://varsel.example."

    /// Whether `text` may be the VAPID subject: a `mailto:` or `https://` URL.
    public static func isVAPIDSubject(_ text: String) -> Bool {
        let lowered = text.lowercased()
        return lowered.hasPrefix("mailto:") || lowered.hasPrefix("https://")
    }

    /// The sentence for a VAPID subject ``isVAPIDSubject(_:)`` refuses.
    public static let vapidSubjectRule = "--vapid-subject must be a mailto: or https:// URL, such as mailto:drift@varsel.example."

    /// Where people reach the service, for a link: `--public-url`, else `VARSEL_PUBLIC_URL` (passed in as
    /// `publicURL`), else `http://localhost:8080`.
    private static func site(_ text: String?) throws -> String {
        guard let text else { return "http://localhost:8080" }
        guard let url = publicURL(text), let scheme = url.scheme?.lowercased(), let host = url.host else { throw Failure(publicURLRule) }
        return "\(scheme)://\(host)\(url.port.map { ":\($0)" } ?? "")"
    }

    /// `VARSEL_PUBLIC_URL`, when set and not empty.
    public static var environmentPublicURL: String? {
        ProcessInfo.processInfo.environment["VARSEL_PUBLIC_URL"].flatMap { $0.isEmpty ? nil : $0 }
    }

    /// What to tell the operator when a link is made with no public URL set: nil when one is.
    public static func publicURLNote(_ publicURL: String?) -> String? {
        publicURL == nil ? "No public URL is set (--public-url or VARSEL_PUBLIC_URL), so the link starts with http://localhost:8080." : nil
    }

    private static func linkLines(_ issued: UserAdministration.IssuedLink, site: String) -> [String] {
        let until = issued.expiresAt.formatted(.iso8601)
        return [
            "One-time set-password link for \(issued.user.username), valid once until \(until): \(site)/password/\(issued.code)",
            "Or at \(site)/password, the code \(issued.code).",
        ]
    }

    /// Gives `username` a new one-time set-password link (a new person, a forgotten password), ending their
    /// sessions; returns the lines to print: the link on `publicURL` and its code to read aloud.
    public static func resetLink(database: String, username: String, publicURL: String?) async throws -> [String] {
        try await answering {
            let site = try site(publicURL)
            return try await withServices(database) { services, _ in
                let user = try await person(username, in: services, database: database)
                let issued = try await services.users.issueLink(for: user.id, by: nil)
                return ["Made a new set-password link for \(user.username) in \(shownName(of: database)); their sessions have ended."]
                    + linkLines(issued, site: site)
            }
        }
    }

    /// Deactivates (or, with `active`, reactivates) `username`; returns the line to print.
    public static func setActive(_ active: Bool, database: String, username: String) async throws -> String {
        try await answering {
            try await withServices(database) { services, _ in
                let user = try await person(username, in: services, database: database)
                let administration = services.users
                let shown = shownName(of: database)
                guard user.isActive != active else {
                    return "\(user.username) in \(shown) is \(active ? "active" : "deactivated") already; nothing changed."
                }
                if active {
                    try await administration.reactivate(user.id, by: nil)
                    return "Reactivated \(user.username) in \(shown): they can sign in again."
                }
                let outcome = try await administration.deactivate(user.id, by: nil)
                let sessions = outcome.endedSessions.count == 1 ? "1 session" : "\(outcome.endedSessions.count) sessions"
                return "Deactivated \(user.username) in \(shown): \(sessions) ended, sign-in refused; their data is kept."
            }
        }
    }

    /// Runs `work`, saying a taken username with the database it is taken in.
    private static func takenSaid<T>(_ database: String, _ work: () async throws -> T) async throws -> T {
        do {
            return try await work()
        } catch StoreError.conflict {
            throw Failure("That username is taken in \(shownName(of: database)): choose another, or see `varsel user list`.")
        }
    }

    private static func person(_ username: String, in services: VarselServices, database: String) async throws -> User {
        guard let user = try await services.directory.person(username: username) else {
            throw Failure("There is no user with that username in \(shownName(of: database)): see `varsel user list`.")
        }
        return user
    }

    /// The people of the store at `database`: a header and one tab-separated line each (id, username, role, state,
    /// language, name), and a sentence that counts them and names the database.
    public static func userList(database: String) async throws -> (lines: [String], summary: String) {
        try await answering {
            try await withServices(database) { services, _ in
                let people = try await services.directory.everyone()
                let lines =
                    ["id\tusername\trole\tstate\tlanguage\tname"]
                    + people.map {
                        "\($0.id)\t\($0.username)\t\($0.role.rawValue)\t\($0.isActive ? "active" : "deactivated")\t\($0.language.rawValue)\t\($0.displayName)"
                    }
                let count = people.count == 1 ? "1 person" : "\(people.count) people"
                return (lines, "\(count) in \(shownName(of: database)).")
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
