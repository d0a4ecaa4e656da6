import ArgumentParser
import Foundation
import Hummingbird
import Logging
import VarselCore
import VarselSQLite
import VarselServer
import VarselStore
import VarselWeb

/// The `varsel` command: parse arguments and call into VarselServer, nothing else.
@main
struct Varsel: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "varsel",
        abstract: "An accessible notification centre for peer mentors who use a screen reader.",
        subcommands: [ServeCommand.self, UserCommand.self, TranscriptCommand.self]
    )
}

extension Language: ExpressibleByArgument {}
extension ScreenReader: ExpressibleByArgument {}

/// Runs the server.
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "serve", abstract: "Run the Varsel server.")

    @Option(help: "The address to listen on.") var host = "127.0.0.1"
    @Option(help: "The port to listen on (0 picks a free one).") var port = 8080
    @Option(help: "The SQLite database file.") var database = "./varsel.sqlite"
    @Flag(help: "Create the demo users and notifications (once).") var demo = false
    @Flag(help: "Mark the session cookie Secure (when served behind TLS).") var secureCookies = false
    @Option(help: "The bcrypt cost for new passwords.") var bcryptCost: UInt8 = 12

    func run() async throws {
        var configuration = ServerConfiguration()
        configuration.host = host
        configuration.port = port
        configuration.databasePath = database
        configuration.loadsDemo = demo
        configuration.bcryptCost = bcryptCost
        configuration.http.isCookieSecure = secureCookies
        let host = host
        let app = try await buildApplication(configuration, onServerRunning: { port in
            // Tests and scripts wait for this line to learn the port.
            FileHandle.standardOutput.write(Data("Varsel is listening on http://\(host):\(port)\n".utf8))
        })
        try await app.runService()
    }
}

/// User administration; safe while the server runs on the same database (SQLite serializes the writes).
struct UserCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "user", abstract: "Add and list users.",
                                                    subcommands: [Add.self, List.self])

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Add a user; the password is read from standard input.")

        @Argument(help: "The username.") var name: String
        @Option(help: "mentor, coordinator or admin.") var role: String
        @Option(help: "The name shown to others.") var displayName: String?
        @Option(help: "en or nb.") var locale = "en"
        @Option(help: "The SQLite database file.") var database = "./varsel.sqlite"
        @Option(help: "The bcrypt cost.") var bcryptCost: UInt8 = 12

        func run() async throws {
            let password = (readLine(strippingNewline: true) ?? "")
            let repository = try SQLiteRepository(path: database)
            do {
                let user = try await UserAdministration(repository: repository, passwords: PasswordHasher(cost: bcryptCost))
                    .add(username: name, password: password, role: role, displayName: displayName, locale: locale, at: Date())
                print("Added \(user.role.rawValue) \(user.username) (id \(user.id)).")
            } catch let error as Problem {
                throw ValidationError(error.detail)
            } catch let error as StoreError {
                throw ValidationError(Problem.from(error).detail)
            }
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List users.")

        @Option(help: "The SQLite database file.") var database = "./varsel.sqlite"

        func run() async throws {
            let repository = try SQLiteRepository(path: database)
            for user in try await repository.users() {
                print("\(user.id)\t\(user.username)\t\(user.role.rawValue)\t\(user.language.rawValue)\t\(user.displayName)")
            }
        }
    }
}

/// Prints what a screen reader says on the demo notification centre.
struct TranscriptCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "transcript",
        abstract: "Print what a screen reader says on the demo notification centre, then a timed announcement simulation."
    )

    @Option(help: "The language: en or nb.") var locale: Language = .english
    @Option(help: "The screen reader: voiceover, talkback or web.") var reader: ScreenReader = .voiceOver

    func run() throws {
        print(Transcript(language: locale, reader: reader).render(), terminator: "")
    }
}
