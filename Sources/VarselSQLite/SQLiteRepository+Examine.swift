import GRDB

extension SQLiteRepository {
    /// What a file that already exists holds, as far as opening it as a store is concerned.
    public enum ExistingFile: Sendable, Equatable {
        /// A Varsel database (of this version or an older one).
        case varsel
        /// An SQLite database, maybe empty, without Varsel's tables: another program's, or a file made by hand.
        case otherDatabase
        /// Not an SQLite database at all, or not readable.
        case notDatabase
    }

    /// Reads what the existing file at `path` holds without changing it, so that a store is never set up inside
    /// another program's database (opening a store brings its schema up to date).
    public static func examine(path: String) -> ExistingFile {
        // A server may be writing to it: wait for its lock as the store itself does, rather than call it unreadable.
        var configuration = Configuration()
        configuration.busyMode = .timeout(10)
        do {
            return try DatabaseQueue(path: path, configuration: configuration).read { db in
                guard try db.tableExists("grdb_migrations") else { return .otherDatabase }
                let recorded =
                    try Bool.fetchOne(
                        db, sql: "SELECT EXISTS (SELECT 1 FROM grdb_migrations WHERE identifier = ?)",
                        arguments: [Migrations.first]) ?? false
                return recorded ? .varsel : .otherDatabase
            }
        } catch {
            return .notDatabase
        }
    }
}
