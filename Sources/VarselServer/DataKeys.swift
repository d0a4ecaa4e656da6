import Foundation
import VarselPostgres
import VarselSQLite
import VarselStore

/// The work of `varsel keys` and the data key `serve` starts with.
extension Administration {
    /// The data key file a command uses: the option, else the environment's `VARSEL_DATA_KEY_FILE`, else none.
    public static func dataKeyFile(_ option: String?) -> String? {
        option ?? ProcessInfo.processInfo.environment["VARSEL_DATA_KEY_FILE"].flatMap { $0.isEmpty ? nil : $0 }
    }

    /// The data key file a `varsel keys` command works on, which it cannot do without.
    public static func requiredDataKeyFile(_ option: String?) throws -> String {
        guard let file = dataKeyFile(option), !file.isEmpty else {
            throw Failure("Name the data key file with --data-key-file or VARSEL_DATA_KEY_FILE.")
        }
        return file
    }

    /// The data key file the demo keeps beside its SQLite database when `serve` is given none.
    public static func demoKeyFile(file: String?, database: String, demo: Bool) -> String? {
        guard file == nil, demo, !PostgresRepository.isURL(database) else { return nil }
        return database + ".key"
    }

    /// The data keys for `serve`: the file `--data-key-file` names; for the demo on SQLite without one, a file
    /// beside its database (``demoKeyFile(file:database:demo:)``), made on first start; otherwise none (details
    /// stored unencrypted). Also the people's keys, in the key store beside the data key file (made on first start),
    /// and the data key file it made, if it made one.
    public static func serverKeys(file: String?, database: String, demo: Bool) throws -> (
        keys: DataKeyring?, people: PersonKeyring?, made: String?
    ) {
        try answeringNow {
            let keys: DataKeyring?
            var made: String?
            if let file {
                guard !file.isEmpty else { throw Failure("--data-key-file names no file: give the path of the data key file.") }
                keys = try DataKeyring.load(path: file)
            } else if let beside = demoKeyFile(file: file, database: database, demo: demo) {
                if FileManager.default.fileExists(atPath: beside) {
                    keys = try DataKeyring.load(path: beside)
                } else {
                    keys = try DataKeyring.create(path: beside)
                    made = beside
                }
            } else {
                keys = nil
            }
            return (keys, try personKeys(for: keys, creating: true), made)
        }
    }

    /// Where the people's key store is kept: a file beside the data key file `keyFile`, `<keyFile>.people`, apart from
    /// the database and its backups (see ``PersonKeyring`` and `docs/deploy.md`).
    public static func personKeyStorePath(keyFile: String) -> String { keyFile + ".people" }

    /// The people's keys for a store opened with `keys`: the key store beside their file, made when `creating` (a
    /// server's start) and absent. None for keys not read from a file, or when a command finds no key store.
    static func personKeys(for keys: DataKeyring?, creating: Bool) throws -> PersonKeyring? {
        guard let keys, let file = keys.path else { return nil }
        let path = personKeyStorePath(keyFile: file)
        guard creating || FileManager.default.fileExists(atPath: path) else { return nil }
        return PersonKeyring(store: try PersonKeyFile(path: path, creating: creating), wrapping: keys)
    }

    /// Makes a new data key file at `file`; returns the line to print.
    public static func createKey(file: String) async throws -> String {
        try await answering {
            let keys = try DataKeyring.create(path: file)
            return
                "Made the data key file \(file) (key \(keys.currentID)). Back it up apart from the database: without it the personal details cannot be read."
        }
    }

    /// Puts a new key first in `file` and re-encrypts everything in `database` under it, while servers run; returns
    /// the line to print. Running servers read the changed file within seconds.
    public static func rotateKey(file: String, database: String) async throws -> String {
        try await answering {
            // The database must open with the keys as they are before the file changes.
            _ = try await withStore(database, keys: try DataKeyring.load(path: file)) { _, _ in () }
            let keys = try DataKeyring.rotate(path: file)
            let count = try await withStore(database, keys: keys) { repository, _ in try await repository.resealAllStale() }
            return
                "Key \(keys.currentID) now encrypts the personal details; \(count) values in \(shownName(of: database)) were re-encrypted under it. "
                + "The previous keys stay in \(file) until `varsel keys retire` finds nothing encrypted under them."
        }
    }

    /// Removes from `file` the keys nothing in `database` is encrypted under any more; returns the line to print.
    public static func retireKeys(file: String, database: String) async throws -> String {
        try await answering {
            let keys = try DataKeyring.load(path: file)
            // Running servers read a rotated file within a second; until then they may still encrypt under the old key.
            if let age = DataKeyring.age(path: file), age < DataKeyring.settleTime {
                try await Task.sleep(for: .seconds(DataKeyring.settleTime - age))
            }
            let counts = try await withStore(database, keys: keys) { repository, _ in
                // What a server wrote under an old key just before it read the rotated file is moved first.
                _ = try await repository.resealAllStale()
                return try await repository.sealedValueCounts()
            }
            let removed = try DataKeyring.retire(path: file, keeping: Set(counts.keys))
            let kept = keys.ids.filter { !removed.contains($0) }
            if removed.isEmpty {
                return
                    "No key to retire for \(shownName(of: database)): \(file) holds \(kept.count == 1 ? "only the key in use" : "keys still in use (\(kept.joined(separator: ", ")))")."
            }
            return
                "Retired \(removed.joined(separator: ", ")) from \(file), as nothing in \(shownName(of: database)) is encrypted under \(removed.count == 1 ? "it" : "them"); "
                + "\(kept.joined(separator: ", ")) remains."
        }
    }

    /// Runs synchronous work and turns what it throws into one ``Failure`` sentence.
    static func answeringNow<T>(_ work: () throws -> T) throws -> T {
        do {
            return try work()
        } catch {
            throw Failure(sentence(for: error))
        }
    }
}
