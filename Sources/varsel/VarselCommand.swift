import ArgumentParser
import Foundation
import VarselServer

/// The `varsel` command: parse arguments and call into VarselServer, nothing else.
@main
struct Varsel: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "varsel",
        abstract: "An accessible notification centre for peer mentors who use a screen reader.",
        version: "varsel \(VarselRelease.version)",
        subcommands: [
            ServeCommand.self, CheckCommand.self, ReadyCommand.self, UserCommand.self, TokenCommand.self, WebhookCommand.self, KeysCommand.self,
            TranscriptCommand.self,
        ]
    )

    /// Runs the command; a mistake in the arguments is answered in one sentence with exit code 1, like any other
    /// refusal (help and `--version` are printed as usual).
    static func main() async {
        if let refusal = helpRefusal(Array(CommandLine.arguments.dropFirst())) {
            FileHandle.standardError.write(Data("Error: \(refusal)\n".utf8))
            Foundation.exit(1)
        }
        do {
            var command = try parseAsRoot()
            if var asynchronous = command as? any AsyncParsableCommand {
                try await asynchronous.run()
            } else {
                try command.run()
            }
        } catch {
            if exitCode(for: error) == .success || error is Administration.Failure { exit(withError: error) }
            let message = message(for: error).split(separator: "\n").first.map(String.init) ?? "The arguments are not right"
            let sentence = message.hasSuffix(".") || message.hasSuffix("?") ? message : message + "."
            FileHandle.standardError.write(Data("Error: \(sentence) See `varsel --help`.\n".utf8))
            Foundation.exit(1)
        }
    }
}

extension Varsel {
    /// Why `varsel help …` cannot be answered, in one sentence, or nil when it can: a word after `help` that names no
    /// command (`varsel help user nosuch`), or an option other than `--help` (`varsel help serve --port 5`), which the
    /// argument parser would answer with the nearest command's help and success, or with an option the command has.
    static func helpRefusal(_ arguments: [String]) -> String? {
        guard arguments.first == "help" else { return nil }
        var command: any ParsableCommand.Type = Varsel.self
        var path = ["varsel", "help"]
        for word in arguments.dropFirst() {
            if word == "--help" || word == "-h" { return nil }
            if word.hasPrefix("-") {
                // The option's name only: a value given with `=` may be a password or a database URL with one.
                let option = word.prefix { $0 != "=" }
                return "`varsel help` takes command names only, not '\(option)'. See `\(path.joined(separator: " "))`."
            }
            if word == "help" { continue }
            guard let next = command.configuration.subcommands.first(where: { $0._commandName == word }) else {
                return "There is no command '\(word)'. See `varsel --help`."
            }
            command = next
            path.append(word)
        }
        return nil
    }
}

extension ServerConfiguration.Durability: ExpressibleByArgument {}

/// Runs the server.
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "serve", abstract: "Run the Varsel server.")

    @Option(help: "The address to listen on.") var host = "127.0.0.1"
    @Option(parsing: .unconditional, help: "The port to listen on (0 picks a free one).") var port = 8080
    @Option(
        help:
            "The SQLite database file, or a PostgreSQL URL (postgres://user:password@host:5432/varsel) to run several instances on one database (default: VARSEL_DATABASE, else ./varsel.sqlite)."
    )
    var database: String?
    @Flag(help: "Create the demo users and notifications (once).") var demo = false
    @Flag(help: "Mark the session cookie Secure even when --public-url is not https.") var secureCookies = false
    @Option(help: "The URL users reach the service at (https://varsel.example; default: VARSEL_PUBLIC_URL); an https URL makes cookies Secure.")
    var publicURL: String?
    @Option(help: "A proxy (CIDR) whose X-Forwarded-For is believed; repeat for several.") var trustedProxy: [String] = []
    @Option(help: "The bearer token /metrics requires (or VARSEL_METRICS_TOKEN); without one /metrics is off.")
    var metricsToken: String?
    @Option(parsing: .unconditional, help: "The bcrypt cost for new passwords.") var bcryptCost = 12
    @Option(help: "SQLite durability: full (a commit survives power loss) or normal (only a process crash).")
    var durability: ServerConfiguration.Durability = .full
    @Option(
        parsing: .unconditional,
        help:
            "SQLite: the least milliseconds between the starts of two commits while writes keep coming; steady writes share a commit (and its wait for the disk) for up to this much latency. 0, the default, commits a write at once when no commit is in flight."
    )
    var commitInterval = 0.0
    @Option(parsing: .unconditional, help: "Seconds a connection may sit idle, or take to send its request, before it is closed.")
    var idleTimeout = 30.0
    @Option(parsing: .unconditional, help: "Seconds one write to a live stream may wait for a client that does not read before it is disconnected.")
    var streamWriteTimeout = 30.0
    @Option(parsing: .unconditional, help: "Live streams one user may hold; opening one more closes their oldest.") var streamsPerUser = 8
    @Option(help: "The VAPID subject push services may contact you at: mailto:… or https://… (default: --public-url).")
    var vapidSubject: String?
    @Option(help: "A PEM file with the VAPID private key (P-256); without it one is made on first start and kept in the database.")
    var vapidKeyFile: String?
    @Option(
        help:
            "How long an assignment may wait for an answer before the mentor gets an urgent reminder: 30s, 10m, 2h or 3d, or a number of hours (default 24h); twice that and its coordinator is told."
    )
    var escalateAfter = "24h"
    @Option(
        help:
            "How long a notification may go unseen (unread, no push shown, an assignment unanswered) before a text message and an email follow it, to the channels its person verified and chose: 30s, 10m, 2h (default 15m)."
    )
    var messageAfter = "15m"
    @Option(help: "The SMTP server emails go through (a host name); without it Varsel sends no email.")
    var smtpHost: String?
    @Option(parsing: .unconditional, help: "The SMTP server's port (default 587 with starttls, 465 with tls, 25 with none).")
    var smtpPort: Int?
    @Option(help: "How the SMTP connection is encrypted: starttls (default), tls (implicit, port 465) or none (only to this machine).")
    var smtpSecurity = "starttls"
    @Option(help: "The SMTP user name; the password is read from --smtp-password-file or VARSEL_SMTP_PASSWORD, never given as an argument.")
    var smtpUsername: String?
    @Option(help: "A file holding the SMTP password (its first line).")
    var smtpPasswordFile: String?
    @Option(help: "A PEM file of certificate authorities to trust for the SMTP server, besides the system's.")
    var smtpCaFile: String?
    @Option(help: "Who emails come from: an address, or a name and an address, such as \"Varsel <varsel@example.org>\".")
    var mailFrom: String?
    @Option(help: "The text-message gateway's URL (https); without it Varsel sends no text messages.")
    var smsGatewayUrl: String?
    @Option(
        help: "How requests to the gateway are written: json (a JSON object, bearer token) or form (a form, basic authentication with user:password)."
    )
    var smsGatewayFormat = "json"
    @Option(help: "A file holding the gateway's token (json) or user:password (form); or VARSEL_SMS_GATEWAY_TOKEN.")
    var smsGatewayTokenFile: String?
    @Option(help: "The sender name text messages show: up to 11 letters and digits (default Varsel).")
    var smsSender = "Varsel"
    @Option(help: "Days the record of who read a contact's details is kept (default 365: a year of answers to \"who has seen my address?\").")
    var retainAccessLogDays = 365
    @Option(
        help:
            "Days a visited person's details are kept after their last assignment closed (default 90: time for follow-up questions and the quarter's report, no longer)."
    )
    var retainContactsDays = 90
    @Option(
        help:
            "How long a device's pushes may go unshown (its service worker sends no receipt) before it counts as not showing notifications: 30s, 10m, 2h or 3d (default 3d; 3 unshown pushes count too)."
    )
    var pushStaleAfter = "3d"
    @Flag(help: "Accept http and private-address push endpoints. For tests with a stand-in push service only.")
    var pushAllowHttpEndpoints = false
    @Flag(help: "Call http and private-address webhook endpoints. For tests on one machine only.")
    var webhookAllowPrivateEndpoints = false
    @Option(
        help:
            "The file with the keys that encrypt personal details in the database (make one with `varsel keys create`); keep it and its backups apart from the database's (default: VARSEL_DATA_KEY_FILE; the demo makes one beside its database)."
    )
    var dataKeyFile: String?

    func run() async throws {
        try await Administration.answering { try await serve() }
    }

    /// Seconds in a duration written `30s`, `10m`, `2h` or `3d`; nil for anything else.
    static func duration(_ text: String) -> TimeInterval? {
        let units: [Character: TimeInterval] = ["s": 1, "m": 60, "h": 3600, "d": 86400]
        guard let unit = text.last.flatMap({ units[$0] }), let value = Double(text.dropLast()), value.isFinite else { return nil }
        return value * unit
    }

    private func serve() async throws {
        var configuration = ServerConfiguration()
        configuration.durability = durability
        guard commitInterval >= 0, commitInterval <= 1000 else {
            throw Administration.Failure("--commit-interval is a number of milliseconds from 0 to 1000, such as 3.")
        }
        configuration.commitInterval = .microseconds(Int64(commitInterval * 1000))
        try Administration.checkServeNumbers(
            port: port, idleTimeout: idleTimeout, streamWriteTimeout: streamWriteTimeout, bcryptCost: UInt8(clamping: bcryptCost))
        guard streamsPerUser > 0 else { throw Administration.Failure("--streams-per-user must be positive.") }
        configuration.idleTimeout = .milliseconds(Int64(idleTimeout * 1000))
        configuration.http.streamWriteTimeout = .milliseconds(Int64(streamWriteTimeout * 1000))
        configuration.http.streamsPerUser = streamsPerUser
        guard Administration.isListenableHost(host) else {
            throw Administration.Failure(
                "--host must be an address of this machine or a name it resolves, such as 127.0.0.1, 0.0.0.0, :: or localhost.")
        }
        configuration.host = host
        configuration.port = port
        configuration.databasePath = Administration.database(database)
        configuration.loadsDemo = demo
        configuration.bcryptCost = UInt8(clamping: bcryptCost)
        configuration.http.isCookieSecure = secureCookies
        if let publicURL = publicURL ?? Administration.environmentPublicURL {
            guard let url = Administration.publicURL(publicURL) else { throw Administration.Failure(Administration.publicURLRule) }
            configuration.http.publicURL = url
        }
        for text in trustedProxy where !configuration.trustProxy(text) {
            throw Administration.Failure("--trusted-proxy must be an address or CIDR, such as 10.0.0.0/8.")
        }
        configuration.http.metricsToken = metricsToken ?? ProcessInfo.processInfo.environment["VARSEL_METRICS_TOKEN"]
        if let vapidSubject, !Administration.isVAPIDSubject(vapidSubject) {
            throw Administration.Failure(Administration.vapidSubjectRule)
        }
        guard let escalation = Double(escalateAfter).map({ $0 * 3600 }) ?? Self.duration(escalateAfter), escalation > 0 else {
            throw Administration.Failure("--escalate-after must be a duration such as 30s, 10m, 2h or 3d, or a positive number of hours.")
        }
        configuration.remindUnansweredAfter = escalation
        guard let followUpDelay = Self.duration(messageAfter), followUpDelay > 0 else {
            throw Administration.Failure("--message-after must be a duration such as 30s, 10m or 2h.")
        }
        configuration.messaging = try Administration.messaging(
            smtpHost: smtpHost, smtpPort: smtpPort, smtpSecurity: smtpSecurity, smtpUsername: smtpUsername, smtpPasswordFile: smtpPasswordFile,
            smtpCAFile: smtpCaFile, mailFrom: mailFrom, smsGatewayURL: smsGatewayUrl, smsGatewayFormat: smsGatewayFormat,
            smsGatewayTokenFile: smsGatewayTokenFile, smsSender: smsSender)
        configuration.messaging.followUpDelay = followUpDelay
        guard retainAccessLogDays > 0 else { throw Administration.Failure("--retain-access-log-days must be a positive number of days.") }
        configuration.accessLogRetention = TimeInterval(retainAccessLogDays) * 86400
        guard retainContactsDays > 0 else { throw Administration.Failure("--retain-contacts-days must be a positive number of days.") }
        configuration.contactRetention = TimeInterval(retainContactsDays) * 86400
        guard let staleAfter = Self.duration(pushStaleAfter), staleAfter > 0 else {
            throw Administration.Failure("--push-stale-after must be a duration such as 30s, 10m, 2h or 3d.")
        }
        configuration.push.staleAfter = staleAfter
        configuration.push.subject = vapidSubject
        configuration.push.keyFile = vapidKeyFile
        configuration.push.allowsInsecureEndpoints = pushAllowHttpEndpoints
        configuration.webhooksAllowPrivateEndpoints = webhookAllowPrivateEndpoints
        let keyFile = Administration.dataKeyFile(dataKeyFile)
        let host = host
        let demoKeyFile = Administration.demoKeyFile(file: keyFile, database: configuration.databasePath, demo: demo)
        try await Administration.removingWhatAFailedStartMakes(
            database: configuration.databasePath, demoKeyFile: demoKeyFile,
            personKeyStore: demoKeyFile.map(Administration.personKeyStorePath(keyFile:))
        ) { listening in
            (configuration.dataKeys, configuration.personKeys, configuration.madeDataKeyFile) = try Administration.serverKeys(
                file: keyFile, database: configuration.databasePath, demo: demo)
            let app = try await buildApplication(
                configuration,
                onServerRunning: { port in
                    listening()
                    // Tests and scripts wait for this line to learn the port.
                    FileHandle.standardOutput.write(Data("Varsel is listening on http://\(host):\(port)\n".utf8))
                })
            try await Administration.run(app, host: host, port: port)
        }
    }
}

/// Checks the settings `serve` would start with, changing nothing.
struct CheckCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract: "Check the database, the data key, the VAPID key and subject and the public URL that `varsel serve` would use; nothing is changed.")

    @Option(help: "The SQLite database file, or a PostgreSQL URL (default: VARSEL_DATABASE, else ./varsel.sqlite).") var database: String?
    @Option(help: "The data key file (default: VARSEL_DATA_KEY_FILE).") var dataKeyFile: String?
    @Option(help: "The URL users reach the service at (default: VARSEL_PUBLIC_URL).") var publicURL: String?
    @Option(help: "A PEM file with the VAPID private key, as given to serve.") var vapidKeyFile: String?
    @Option(help: "The VAPID subject, as given to serve.") var vapidSubject: String?

    func run() async throws {
        let findings = await Administration.check(
            Administration.CheckedSettings(
                database: Administration.database(database), dataKeyFile: Administration.dataKeyFile(dataKeyFile),
                publicURL: publicURL ?? Administration.environmentPublicURL, vapidKeyFile: vapidKeyFile, vapidSubject: vapidSubject))
        for finding in findings { print(finding.line) }
        let problems = findings.filter(\.isProblem).count
        guard problems == 0 else {
            throw Administration.Failure(
                problems == 1
                    ? "1 problem found: see the line that starts with Problem."
                    : "\(problems) problems found: see the lines that start with Problem.")
        }
    }
}

/// Waits until a running instance can use its database, for systemd and rolling restarts.
struct ReadyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ready",
        abstract: "Wait until the instance on this port answers /readyz with ready (it can use its database); exit 1 if it does not in time.")

    @Option(help: "The address the instance listens on.") var host = "127.0.0.1"
    @Option(help: "The instance's port.") var port: Int
    @Option(help: "How many seconds to wait.") var wait = 60

    func run() async throws {
        guard (1...65535).contains(port) else { throw Administration.Failure("--port must be a port number from 1 to 65535.") }
        guard wait >= 0 else { throw Administration.Failure("--wait must be a number of seconds, 0 or more.") }
        try await ReadinessWait.wait(host: host, port: port, seconds: wait)
        print("The instance at \(host):\(port) is ready.")
    }
}

/// User administration on an SQLite file or a PostgreSQL database; safe while servers run on the same database.
struct UserCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "user", abstract: "Add, list, reset and deactivate users.",
        subcommands: [Add.self, List.self, ResetLink.self, Deactivate.self, Reactivate.self])

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract:
                "Add a user (making the database when there is none): with --link they choose their password through a one-time link; otherwise it is read from standard input."
        )

        @Argument(help: "The username.") var name: String
        @Option(help: "mentor, coordinator or admin.") var role: String
        @Option(help: "The name shown to others.") var displayName: String?
        @Option(help: "en or nb.") var locale = "en"
        @Flag(help: "Print a one-time set-password link for them instead of reading a password.") var link = false
        @Option(help: "With --link: the URL users reach the service at (default: VARSEL_PUBLIC_URL).") var publicURL: String?
        @Option(
            help:
                "The SQLite database file, or a PostgreSQL URL (postgres://user:password@host:5432/varsel); default: VARSEL_DATABASE, else ./varsel.sqlite."
        )
        var database: String?
        @Option(parsing: .unconditional, help: "The bcrypt cost.") var bcryptCost = 12

        func run() async throws {
            let database = Administration.database(database)
            if link {
                let url = publicURL ?? Administration.environmentPublicURL
                for line in try await Administration.inviteUser(
                    database: database, username: name, role: role, displayName: displayName,
                    locale: locale, publicURL: url)
                { print(line) }
                Administration.publicURLNote(url).map(printNote)
                return
            }
            guard publicURL == nil else {
                throw Administration.Failure("--public-url goes with --link, which prints a link; without it no link is made.")
            }
            if isatty(STDIN_FILENO) != 0 {
                printNote("Type the password for \(name), then press Enter (or use --link to send them a one-time link).")
            }
            let password = (readLine(strippingNewline: true) ?? "")
            print(
                try await Administration.addUser(
                    database: database, username: name, password: password, role: role,
                    displayName: displayName, locale: locale, bcryptCost: UInt8(clamping: bcryptCost)))
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List users.")

        @Option(
            help:
                "The SQLite database file, or a PostgreSQL URL (postgres://user:password@host:5432/varsel); default: VARSEL_DATABASE, else ./varsel.sqlite."
        )
        var database: String?

        func run() async throws {
            let listing = try await Administration.userList(database: Administration.database(database))
            for line in listing.lines { print(line) }
            // On standard error, so a pipe gets the table alone.
            printNote(listing.summary)
        }
    }

    struct ResetLink: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "reset-link",
            abstract: "Print a one-time set-password link for a user (a new person, a forgotten password); their sessions end.")

        @Argument(help: "The username.") var name: String
        @Option(help: "The URL users reach the service at, for the link (default: VARSEL_PUBLIC_URL, else http://localhost:8080, which is said).")
        var publicURL: String?
        @Option(
            help:
                "The SQLite database file, or a PostgreSQL URL (postgres://user:password@host:5432/varsel); default: VARSEL_DATABASE, else ./varsel.sqlite."
        )
        var database: String?

        func run() async throws {
            let url = publicURL ?? Administration.environmentPublicURL
            for line in try await Administration.resetLink(database: Administration.database(database), username: name, publicURL: url) {
                print(line)
            }
            Administration.publicURLNote(url).map(printNote)
        }
    }

    struct Deactivate: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Deactivate a user: sign-in refused, sessions, live streams and push subscriptions ended; data kept.")

        @Argument(help: "The username.") var name: String
        @Option(
            help:
                "The SQLite database file, or a PostgreSQL URL (postgres://user:password@host:5432/varsel); default: VARSEL_DATABASE, else ./varsel.sqlite."
        )
        var database: String?

        func run() async throws {
            print(try await Administration.setActive(false, database: Administration.database(database), username: name))
        }
    }

    struct Reactivate: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Let a deactivated user sign in again.")

        @Argument(help: "The username.") var name: String
        @Option(
            help:
                "The SQLite database file, or a PostgreSQL URL (postgres://user:password@host:5432/varsel); default: VARSEL_DATABASE, else ./varsel.sqlite."
        )
        var database: String?

        func run() async throws {
            print(try await Administration.setActive(true, database: Administration.database(database), username: name))
        }
    }
}

/// Integration tokens for member and case systems, on an SQLite file or a PostgreSQL database; safe while servers run.
struct TokenCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "token", abstract: "Make, list and revoke integration tokens for other systems.",
        subcommands: [Create.self, List.self, Revoke.self])

    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Make an integration token for a system (a member or case system), printed once on standard output; only its hash is kept.")

        @Argument(help: "The system's name, as logs and histories show it (\"Member system\").") var name: String
        @Option(help: "coordinator or admin: what the system may do.") var role: String
        @Option(
            help:
                "The SQLite database file, or a PostgreSQL URL (postgres://user:password@host:5432/varsel); default: VARSEL_DATABASE, else ./varsel.sqlite."
        )
        var database: String?

        func run() async throws {
            let made = try await Administration.createToken(database: Administration.database(database), name: name, role: role)
            print(made.token)
            // On standard error, so `TOKEN=$(varsel token create …)` gets the token alone.
            printNote(made.summary)
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List integration tokens, with their last use; never the tokens themselves.")

        @Option(
            help:
                "The SQLite database file, or a PostgreSQL URL (postgres://user:password@host:5432/varsel); default: VARSEL_DATABASE, else ./varsel.sqlite."
        )
        var database: String?

        func run() async throws {
            let listing = try await Administration.tokenList(database: Administration.database(database))
            for line in listing.lines { print(line) }
            printNote(listing.summary)
        }
    }

    struct Revoke: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Revoke an integration token for good: the system's next request is refused.")

        @Argument(help: "The token's id, from `varsel token list`.") var id: Int64
        @Option(
            help:
                "The SQLite database file, or a PostgreSQL URL (postgres://user:password@host:5432/varsel); default: VARSEL_DATABASE, else ./varsel.sqlite."
        )
        var database: String?

        func run() async throws {
            print(try await Administration.revokeToken(database: Administration.database(database), id: id))
        }
    }
}

/// Webhook endpoints of integrations, on an SQLite file or a PostgreSQL database; safe while servers run.
struct WebhookCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "webhook", abstract: "Add, list and remove the endpoints an integration's system is told of events at.",
        subcommands: [Add.self, List.self, Remove.self])

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Add a webhook endpoint to an integration token; its signing secret is printed once on standard output.")

        @Argument(help: "The integration token's id, from `varsel token list`.") var integration: Int64
        @Option(help: "The https URL Varsel POSTs the events to.") var url: String
        @Option(
            help: """
                The events, comma-separated: \(WebhookEventNames.all).
                """)
        var events: String
        @Flag(help: "Accept http and private-address URLs. For tests on one machine only.")
        var allowPrivateEndpoint = false
        @Option(help: "The data key file, so the secret is stored encrypted at once (default: VARSEL_DATA_KEY_FILE).") var dataKeyFile: String?
        @Option(
            help:
                "The SQLite database file, or a PostgreSQL URL (postgres://user:password@host:5432/varsel); default: VARSEL_DATABASE, else ./varsel.sqlite."
        )
        var database: String?

        func run() async throws {
            let added = try await Administration.addWebhook(
                database: Administration.database(database), dataKeyFile: Administration.dataKeyFile(dataKeyFile), integrationID: integration,
                url: url,
                events: events.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty },
                allowsPrivate: allowPrivateEndpoint)
            print(added.secret)
            // On standard error, so `SECRET=$(varsel webhook add …)` gets the secret alone.
            printNote(added.summary)
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List webhook endpoints and their state; never their secrets.")

        @Option(
            help:
                "The SQLite database file, or a PostgreSQL URL (postgres://user:password@host:5432/varsel); default: VARSEL_DATABASE, else ./varsel.sqlite."
        )
        var database: String?

        func run() async throws {
            let listing = try await Administration.webhookList(database: Administration.database(database))
            for line in listing.lines { print(line) }
            printNote(listing.summary)
        }
    }

    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Remove a webhook endpoint and what is still queued for it.")

        @Argument(help: "The endpoint's id, from `varsel webhook list`.") var id: Int64
        @Option(
            help:
                "The SQLite database file, or a PostgreSQL URL (postgres://user:password@host:5432/varsel); default: VARSEL_DATABASE, else ./varsel.sqlite."
        )
        var database: String?

        func run() async throws {
            print(try await Administration.removeWebhook(database: Administration.database(database), id: id))
        }
    }
}

/// Writes a line for the operator to standard error: a note beside what a command printed.
func printNote(_ line: String) {
    FileHandle.standardError.write(Data("\(line)\n".utf8))
}

/// The keys that encrypt personal details at rest.
struct KeysCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "keys", abstract: "Make, rotate and retire the keys that encrypt personal details.",
        subcommands: [Create.self, Rotate.self, Retire.self])

    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Make a new data key file; it never replaces one.")

        @Option(help: "The file to make (default: VARSEL_DATA_KEY_FILE).") var dataKeyFile: String?

        func run() async throws {
            print(try await Administration.createKey(file: try Administration.requiredDataKeyFile(dataKeyFile)))
        }
    }

    struct Rotate: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Put a new key first in the data key file and re-encrypt the database under it, while servers run.")

        @Option(help: "The data key file (default: VARSEL_DATA_KEY_FILE).") var dataKeyFile: String?
        @Option(
            help:
                "The SQLite database file, or a PostgreSQL URL (postgres://user:password@host:5432/varsel); default: VARSEL_DATABASE, else ./varsel.sqlite."
        )
        var database: String?

        func run() async throws {
            print(
                try await Administration.rotateKey(
                    file: try Administration.requiredDataKeyFile(dataKeyFile), database: Administration.database(database)))
        }
    }

    struct Retire: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Remove from the data key file the keys nothing is encrypted under any more.")

        @Option(help: "The data key file (default: VARSEL_DATA_KEY_FILE).") var dataKeyFile: String?
        @Option(
            help:
                "The SQLite database file, or a PostgreSQL URL (postgres://user:password@host:5432/varsel); default: VARSEL_DATABASE, else ./varsel.sqlite."
        )
        var database: String?

        func run() async throws {
            print(
                try await Administration.retireKeys(
                    file: try Administration.requiredDataKeyFile(dataKeyFile), database: Administration.database(database)))
        }
    }
}

/// Prints what a screen reader says on the demo notification centre.
struct TranscriptCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "transcript",
        abstract: "Print what a screen reader says on the demo notification centre, then a timed announcement simulation."
    )

    @Option(help: "The language: en or nb.") var locale = "en"
    @Option(help: "The screen reader: voiceover, talkback or web.") var reader = "voiceover"

    func validate() throws {
        guard Administration.transcriptLocales.contains(locale), Administration.transcriptReaders.contains(reader) else {
            throw Administration.Failure(
                "--locale must be one of \(Administration.transcriptLocales.joined(separator: ", ")); "
                    + "--reader one of \(Administration.transcriptReaders.joined(separator: ", ")).")
        }
    }

    func run() throws {
        print(try Administration.transcript(locale: locale, reader: reader), terminator: "")
    }
}
