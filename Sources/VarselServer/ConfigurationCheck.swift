import Foundation
import VarselPostgres
import VarselPush
import VarselSQLite
import VarselStore

extension Administration {
    /// What `varsel check` looked at: the settings as `serve` would read them.
    public struct CheckedSettings: Sendable {
        public var database: String
        public var dataKeyFile: String?
        public var publicURL: String?
        public var vapidKeyFile: String?
        public var vapidSubject: String?

        public init(database: String, dataKeyFile: String?, publicURL: String?, vapidKeyFile: String?, vapidSubject: String?) {
            self.database = database
            self.dataKeyFile = dataKeyFile
            self.publicURL = publicURL
            self.vapidKeyFile = vapidKeyFile
            self.vapidSubject = vapidSubject
        }
    }

    /// One finding of `varsel check`: a sentence, and whether it is a problem to fix before serving.
    public struct Finding: Sendable, Equatable {
        public var isProblem: Bool
        public var sentence: String

        static func fine(_ sentence: String) -> Finding { Finding(isProblem: false, sentence: sentence) }
        static func problem(_ sentence: String) -> Finding { Finding(isProblem: true, sentence: sentence) }

        /// The line to print: `OK: …` or `Problem: …`.
        public var line: String { (isProblem ? "Problem: " : "OK: ") + sentence }
    }

    /// Checks what `serve` would start with, reading and changing nothing: the database opens and has Varsel's
    /// tables, of this version's layout or an earlier one (and, on PostgreSQL, a version Varsel runs on), the data key file opens everything encrypted in it, the
    /// VAPID key, the VAPID subject and the public URL. Each finding is one sentence.
    public static func check(_ settings: CheckedSettings) async -> [Finding] {
        var findings: [Finding] = []
        let shown = shownName(of: settings.database)
        var sealed: [String: Int]?
        var people: PeopleKeyCounts?
        do {
            // Opened as it is: an upgrade is said, not made.
            try await withStore(settings.database, upgradesSchema: false) { repository, _ in
                let postgres = repository as? PostgresRepository
                let found = postgres?.schemaFound ?? (repository as? SQLiteRepository)?.schemaFound ?? .current
                var place = ""
                if let postgres {
                    let version = try await postgres.serverVersion()
                    guard version.number >= PostgresRepository.oldestServerVersion.number else {
                        findings.append(
                            .problem(
                                "The database \(shown) runs PostgreSQL \(version.name); Varsel needs \(PostgresRepository.oldestServerVersion.name) or later."
                            ))
                        return
                    }
                    place = ", on PostgreSQL \(version.name)"
                }
                switch found {
                case .current:
                    findings.append(.fine("The database \(shown) opens and has Varsel's tables\(place)."))
                case let .older(pending):
                    findings.append(
                        .fine(
                            "The database \(shown) opens and has Varsel's tables from an earlier version\(place): `varsel serve` brings them up to date (\(pending) \(pending == 1 ? "change" : "changes")); back the database up first."
                        ))
                case let .newer(unknown):
                    findings.append(
                        .problem(sentence(for: openingRefusal(SchemaFromNewerVersion(unknown: unknown), database: settings.database, keys: nil))))
                    return
                }
                sealed = try await repository.sealedValueCounts()
                people = try await repository.peopleKeyCounts()
            }
        } catch {
            findings.append(.problem(sentence(for: error)))
        }
        findings.append(dataKeyFinding(settings.dataKeyFile, sealed: sealed, database: shown))
        if let file = settings.dataKeyFile { findings.append(personKeysFinding(keyFile: file, people: people)) }
        findings += webFindings(settings)
        return findings
    }

    /// The people's key store beside the data key file: how many keys it holds, how long its backups may be kept, and
    /// how many people are still to move to keys of their own.
    private static func personKeysFinding(keyFile: String, people: PeopleKeyCounts?) -> Finding {
        let path = personKeyStorePath(keyFile: keyFile)
        let waiting = people?.underDataKey
        guard FileManager.default.fileExists(atPath: path) else {
            if let people, people.ownKeys > 0 {
                return .problem(
                    "There is no people's key store at \(path), and \(people.ownKeys) people's details are sealed under keys kept in one: restore it from its backup."
                )
            }
            return .fine("There is no people's key store at \(path) yet: `varsel serve` makes it when it first stores a key.")
        }
        let counts: (live: Int, destroyed: Int)
        do {
            counts = try PersonKeyFile(path: path, creating: false).counts()
        } catch {
            return .problem(sentence(for: error))
        }
        let moving =
            (waiting ?? 0) > 0
            ? " \(waiting!) \(waiting == 1 ? "person's details are" : "people's details are") still under the data key; a running server moves them to keys of their own."
            : ""
        return .fine(
            "The people's key store \(path) holds \(counts.live) \(counts.live == 1 ? "key" : "keys") (\(counts.destroyed) destroyed by erasure); "
                + "back it up apart from the database and keep those backups at most \(PersonKeyring.backupRetentionDays) days, so an erasure reaches every backup within them."
                + moving)
    }

    /// Whether the data key file opens everything the database holds encrypted.
    private static func dataKeyFinding(_ file: String?, sealed: [String: Int]?, database: String) -> Finding {
        let encrypted = (sealed ?? [:]).filter { $0.value > 0 }
        guard let file else {
            guard encrypted.isEmpty else {
                return .problem(
                    "\(database) holds encrypted personal details, and no data key file is given: name it with --data-key-file or VARSEL_DATA_KEY_FILE."
                )
            }
            return .problem(
                "No data key file is given (--data-key-file or VARSEL_DATA_KEY_FILE): personal details would be stored unencrypted; make one with `varsel keys create`."
            )
        }
        let keys: DataKeyring
        do {
            keys = try DataKeyring.load(path: file)
        } catch {
            return .problem(sentence(for: error))
        }
        let missing = encrypted.keys.filter { !keys.ids.contains($0) }.sorted()
        guard missing.isEmpty else {
            return .problem(
                "The data key file \(file) lacks \(missing.joined(separator: ", ")), under which details in \(database) are encrypted: use the file the server used."
            )
        }
        guard sealed != nil else { return .fine("The data key file \(file) opens (key \(keys.currentID)).") }
        return .fine("The data key file \(file) opens everything encrypted in \(database) (key \(keys.currentID) encrypts new details).")
    }

    /// The public URL, the VAPID key and the VAPID subject.
    private static func webFindings(_ settings: CheckedSettings) -> [Finding] {
        var findings: [Finding] = []
        var isHTTPS = false
        if let text = settings.publicURL {
            if let url = publicURL(text) {
                isHTTPS = url.scheme?.lowercased() == "https"
                findings.append(
                    isHTTPS
                        ? .fine("The public URL is \(text).")
                        : .problem(
                            "The public URL \(text) is not https: browsers allow passkeys and installing the app only on https, and cookies are not marked Secure."
                        ))
            } else {
                findings.append(
                    .problem("The public URL (--public-url or VARSEL_PUBLIC_URL) must be an http or https URL, such as https://varsel.example."))
            }
        } else {
            findings.append(
                .problem(
                    "No public URL is set (--public-url or VARSEL_PUBLIC_URL): links in messages would start with the address the server listens on, and passkeys are off."
                ))
        }
        if let file = settings.vapidKeyFile {
            if (try? VAPIDKey(pem: String(contentsOfFile: file, encoding: .utf8))) != nil {
                findings.append(.fine("The VAPID key file \(file) holds a P-256 private key."))
            } else {
                findings.append(.problem("The VAPID key file \(file) cannot be read as a P-256 private key in PEM: check the path and the file."))
            }
        } else {
            findings.append(.fine("No VAPID key file is given: the server makes a VAPID key on its first start and keeps it in the database."))
        }
        if let subject = settings.vapidSubject {
            findings.append(
                isVAPIDSubject(subject)
                    ? .fine("The VAPID subject is \(subject).")
                    : .problem("The VAPID subject must be a mailto: or https:// URL, such as mailto:drift@varsel.example."))
        } else if !isHTTPS {
            findings.append(
                .problem("No VAPID subject is set (--vapid-subject), and no https public URL stands in for it: push services may refuse pushes."))
        } else {
            findings.append(.fine("The VAPID subject is the public URL."))
        }
        return findings
    }
}
