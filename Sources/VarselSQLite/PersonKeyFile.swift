import Foundation
import GRDB
import Synchronization
import VarselStore

#if canImport(Glibc)
    import Glibc
#endif

/// The people's key store as a SQLite file of its own, beside the data key file and apart from the database and its
/// backups (``PersonKeyring``). Several instances on one machine share it; a write waits for another's.
///
/// A destroyed key is deleted with `secure_delete` on, which overwrites its bytes in the file, and the file keeps no
/// write-ahead log: a rollback journal, gone at each commit. What is left is the key's id and when it was destroyed.
public final class PersonKeyFile: PersonKeyStore, Sendable {
    public let location: String
    /// The open file; nil until the first key is stored when it did not exist yet.
    private let opened: Mutex<DatabaseQueue?>

    /// Why the key store file could not be used, in one sentence that names the file.
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    /// Opens the key store at `path`. With `creating`, a store that does not exist yet is made, readable by its owner
    /// only, when the first key is stored (a start refused before that leaves no file); without, it is refused.
    public init(path: String, creating: Bool) throws {
        location = path
        if FileManager.default.fileExists(atPath: path) {
            opened = Mutex(try Self.open(path))
        } else if creating {
            opened = Mutex(nil)
        } else {
            throw Failure(description: "The people's key store \(path) does not exist.")
        }
    }

    private static func open(_ path: String) throws -> DatabaseQueue {
        var configuration = Configuration()
        configuration.busyMode = .timeout(10)
        configuration.prepareDatabase { db in
            try db.execute(sql: "PRAGMA secure_delete = ON")
            try db.execute(sql: "PRAGMA synchronous = FULL")
        }
        do {
            let queue = try DatabaseQueue(path: path, configuration: configuration)
            try queue.writeWithoutTransaction { db in
                // A rollback journal, not a write-ahead log: a destroyed key is in no log once its erasure committed.
                _ = try String.fetchOne(db, sql: "PRAGMA journal_mode = DELETE")
            }
            try queue.write { db in
                // Tables are made only in an empty file, never inside another program's database.
                guard try Int.fetchOne(db, sql: "SELECT count(*) FROM sqlite_master WHERE type = 'table'") == 0 else { return }
                try db.execute(
                    sql: """
                        CREATE TABLE person_key (id TEXT PRIMARY KEY, wrapped TEXT NOT NULL) WITHOUT ROWID;
                        CREATE TABLE person_key_destroyed (id TEXT PRIMARY KEY, at REAL NOT NULL) WITHOUT ROWID;
                        """)
            }
            guard try queue.read({ try $0.tableExists("person_key") && $0.tableExists("person_key_destroyed") }) else {
                throw Failure(description: "The file \(path) is not a people's key store.")
            }
            return queue
        } catch let failure as Failure {
            throw failure
        } catch {
            throw Failure(description: "The people's key store \(path) cannot be opened: it is not a SQLite file, or not readable by this user.")
        }
    }

    /// The open store; nil when there is none yet and `making` is false (it holds no key then). A store another
    /// instance made meanwhile is opened.
    private func queue(making: Bool) throws -> DatabaseQueue? {
        try opened.withLock { queue in
            if let queue { return queue }
            if !FileManager.default.fileExists(atPath: location) {
                guard making else { return nil }
                // Made empty and private first, so the keys are never in a file others can read; a file another
                // instance made at the same moment is used as it is.
                let descriptor = Glibc.open(location, O_WRONLY | O_CREAT | O_EXCL, 0o600)
                if descriptor >= 0 {
                    close(descriptor)
                } else if errno != EEXIST {
                    throw Failure(description: "The people's key store \(location) cannot be made: its directory does not exist or is not writable.")
                }
            }
            queue = try Self.open(location)
            return queue
        }
    }

    public func state(of id: PersonKeyID) throws -> PersonKeyState? {
        try queue(making: false)?.read { db in
            if let wrapped = try String.fetchOne(db, sql: "SELECT wrapped FROM person_key WHERE id = ?", arguments: [id.rawValue]) {
                return .live(wrapped: wrapped)
            }
            return try Double.fetchOne(db, sql: "SELECT at FROM person_key_destroyed WHERE id = ?", arguments: [id.rawValue])
                .map { .destroyed(at: Date(timeIntervalSince1970: $0)) }
        }
    }

    public func add(_ id: PersonKeyID, wrapped: String) throws {
        try queue(making: true)!.write { db in
            try db.execute(sql: "INSERT INTO person_key (id, wrapped) VALUES (?, ?)", arguments: [id.rawValue, wrapped])
        }
    }

    public func destroy(_ id: PersonKeyID, at date: Date) throws {
        try queue(making: true)!.write { db in
            try db.execute(sql: "DELETE FROM person_key WHERE id = ?", arguments: [id.rawValue])
            try db.execute(
                sql: "INSERT OR IGNORE INTO person_key_destroyed (id, at) VALUES (?, ?)", arguments: [id.rawValue, date.timeIntervalSince1970])
        }
    }

    public func wrappedKeys() throws -> [(id: PersonKeyID, wrapped: String)] {
        try queue(making: false)?.read { db in
            try Row.fetchAll(db, sql: "SELECT id, wrapped FROM person_key ORDER BY id").compactMap { row in
                PersonKeyID(rawValue: row["id"]).map { ($0, row["wrapped"] as String) }
            }
        } ?? []
    }

    public func rewrap(_ id: PersonKeyID, from old: String, to new: String) throws -> Bool {
        try queue(making: false)?.write { db in
            try db.execute(sql: "UPDATE person_key SET wrapped = ? WHERE id = ? AND wrapped = ?", arguments: [new, id.rawValue, old])
            return db.changesCount > 0
        } ?? false
    }

    public func destroyed(among ids: [PersonKeyID]) throws -> [PersonKeyID: Date] {
        guard !ids.isEmpty, let queue = try queue(making: false) else { return [:] }
        return try queue.read { db in
            var found: [PersonKeyID: Date] = [:]
            for chunk in stride(from: 0, to: ids.count, by: 500).map({ Array(ids[$0..<min($0 + 500, ids.count)]) }) {
                let marks = chunk.map { _ in "?" }.joined(separator: ", ")
                for row in try Row.fetchAll(
                    db, sql: "SELECT id, at FROM person_key_destroyed WHERE id IN (\(marks))", arguments: StatementArguments(chunk.map(\.rawValue)))
                {
                    if let id = PersonKeyID(rawValue: row["id"]) { found[id] = Date(timeIntervalSince1970: row["at"]) }
                }
            }
            return found
        }
    }

    public func counts() throws -> (live: Int, destroyed: Int) {
        try queue(making: false)?.read { db in
            (
                try Int.fetchOne(db, sql: "SELECT count(*) FROM person_key") ?? 0,
                try Int.fetchOne(db, sql: "SELECT count(*) FROM person_key_destroyed") ?? 0
            )
        } ?? (0, 0)
    }
}
