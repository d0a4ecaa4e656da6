import Foundation
import VarselCore
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
    }

    /// Adds a user to the SQLite database at `database`; returns the line to print.
    public static func addUser(database: String, username: String, password: String, role: String, displayName: String?,
                               locale: String, bcryptCost: UInt8) async throws -> String {
        let repository = try SQLiteRepository(path: database)
        do {
            let user = try await UserAdministration(repository: repository, passwords: PasswordHasher(cost: bcryptCost))
                .add(username: username, password: password, role: role, displayName: displayName, locale: locale, at: Date())
            return "Added \(user.role.rawValue) \(user.username) (id \(user.id))."
        } catch let error as InvalidInput {
            throw Failure(description: error.summary)
        } catch let error as StoreError {
            throw Failure(description: Problem.from(error).detail)
        }
    }

    /// The users of the SQLite database at `database`, one tab-separated line each: id, username, role, language, name.
    public static func userLines(database: String) async throws -> [String] {
        try await SQLiteRepository(path: database).users().map {
            "\($0.id)\t\($0.username)\t\($0.role.rawValue)\t\($0.language.rawValue)\t\($0.displayName)"
        }
    }

    /// The languages and screen readers a transcript can be asked for, by the names the command takes.
    public static let transcriptLocales = Language.allCases.map(\.rawValue)
    public static let transcriptReaders = ScreenReader.allCases.map(\.rawValue)

    /// What a screen reader says on the demo notification centre; `locale` and `reader` name one of the above.
    public static func transcript(locale: String, reader: String) throws -> String {
        guard let language = Language(rawValue: locale), let screenReader = ScreenReader(rawValue: reader) else {
            throw Failure(description: "Use --locale \(transcriptLocales.joined(separator: "|")) and --reader \(transcriptReaders.joined(separator: "|")).")
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
