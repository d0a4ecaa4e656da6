import Foundation
import GRDB
import VarselCore
import VarselStore

/// One row of the `user` table as it is stored, and its conversion to a typed ``User``.
struct UserRecord: Codable, FetchableRecord, MutablePersistableRecord {
    static let databaseTableName = "user"

    var id: UserID?
    var username: String
    var displayName: String
    var role: String
    var passwordHash: String
    var language: String
    /// Seconds since 1970.
    var createdAt: Double
    var pausedUntil: Double?
    var pausedFrom: Double?
    var deactivatedAt: Double?
    var isIntegration: Bool = false

    enum CodingKeys: String, CodingKey {
        case id
        case username
        case displayName = "display_name"
        case role
        case passwordHash = "password_hash"
        case language
        case createdAt = "created_at"
        case pausedUntil = "paused_until"
        case pausedFrom = "paused_from"
        case deactivatedAt = "deactivated_at"
        case isIntegration = "is_integration"
    }

    /// The columns requests filter and order on.
    enum Columns {
        static let id = Column(CodingKeys.id)
        /// Compared case-insensitively: the column is `COLLATE NOCASE`.
        static let username = Column(CodingKeys.username)
    }

    /// The record from a row of `SELECT * FROM user`, read by column name: cheaper than the `Decodable` route.
    init(row: Row) {
        id = row["id"]
        username = row["username"]
        displayName = row["display_name"]
        role = row["role"]
        passwordHash = row["password_hash"]
        language = row["language"]
        createdAt = row["created_at"]
        pausedUntil = row["paused_until"]
        pausedFrom = row["paused_from"]
        deactivatedAt = row["deactivated_at"]
        isIntegration = row["is_integration"]
    }

    /// The row for a new user, created at `date`.
    init(_ user: NewUser, at date: Date) {
        username = user.username
        displayName = user.displayName
        role = user.role.rawValue
        passwordHash = user.passwordHash
        language = user.language.rawValue
        createdAt = date.timeIntervalSince1970
    }

    mutating func didInsert(_ inserted: InsertionSuccess) {
        id = UserID(inserted.rowID)
    }

    /// The typed user; a role or language this version does not know is an error, never a default.
    func user() throws -> User {
        User(
            id: id ?? 0, username: username, displayName: displayName,
            role: try Role(stored: role, column: "user.role"), passwordHash: passwordHash,
            language: try Language(stored: language, column: "user.language"),
            createdAt: Date(timeIntervalSince1970: createdAt), pausedUntil: pausedUntil.map(Date.init(timeIntervalSince1970:)),
            pausedFrom: pausedFrom.map(Date.init(timeIntervalSince1970:)),
            deactivatedAt: deactivatedAt.map(Date.init(timeIntervalSince1970:)), isIntegration: isIntegration)
    }
}

extension DerivableRequest<UserRecord> {
    /// The user with `username`, in any case.
    func named(_ username: String) -> Self {
        filter(UserRecord.Columns.username == username)
    }
}
