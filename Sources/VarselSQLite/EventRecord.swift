import Foundation
import GRDB
import VarselCore
import VarselStore

/// One row of the `event` table as it is stored, and its conversion to and from a typed ``StoredEvent``.
///
/// The columns are named once, in ``Columns``: the insert statement and the reading of a row both use them.
struct EventRecord: FetchableRecord, TableRecord {
    static let databaseTableName = "event"

    enum Columns {
        static let id = Column("id")
        static let userID = Column("user_id")
        static let type = Column("type")
        static let notificationID = Column("notification_id")
        static let notification = Column("notification")
        static let unreadCount = Column("unread_count")
        static let createdAt = Column("created_at")

        /// Every column an insert writes, in the order of ``EventRecord/insertArguments``.
        static let inserted = [userID, type, notificationID, notification, unreadCount, createdAt]
    }

    var id: Int64?
    var userID: UserID
    var type: String
    var notificationID: NotificationID?
    /// The notification as JSON, for created and updated events (sealed when it has personal details).
    var notification: String?
    var unreadCount: Int?
    /// Seconds since 1970.
    var createdAt: Double

    init(row: Row) {
        id = row[Columns.id]
        userID = row[Columns.userID]
        type = row[Columns.type]
        notificationID = row[Columns.notificationID]
        notification = row[Columns.notification]
        unreadCount = row[Columns.unreadCount]
        createdAt = row[Columns.createdAt]
    }

    /// `INSERT INTO event (…) VALUES (?, …)`, for a prepared statement.
    static let insertSQL = insertStatement(Columns.inserted)

    var insertArguments: StatementArguments { [userID, type, notificationID, notification, unreadCount, createdAt] }

    /// The row for `payload`, an event of `userID` at `date`.
    /// A notification with personal details is stored sealed by `sealer`, under the key of the person they are about
    /// (`person`) when there is one.
    /// The notification's JSON is remembered in `cache`, so reading the event back does not decode it.
    init(
        userID: UserID, payload: EventPayload, at date: Date, encoder: JSONEncoder, sealer: FieldSealer, person: PersonKeyID? = nil,
        cache: NotificationJSONCache
    ) throws {
        self.userID = userID
        type = payload.type.rawValue
        notificationID = payload.notificationID
        switch payload {
        case let .notificationCreated(item), let .notificationUpdated(item):
            let json = try StoredNotificationJSON.encode(item) ?? String(decoding: encoder.encode(item), as: UTF8.self)
            cache.remember(item, json: json)
            notification =
                FieldSealer.sealsNotification(personalDetails: item.personalDetails)
                ? try sealer.seal(json, field: .eventNotification, person: person) : json
        case .notificationDeleted, .accountDeactivated:
            break
        case let .unreadCount(count):
            unreadCount = count
        }
        createdAt = date.timeIntervalSince1970
    }

    /// The typed event; a type this version does not know, or a payload its type lacks, is an error.
    func event(decoder: JSONDecoder, sealer: FieldSealer, cache: NotificationJSONCache) throws -> StoredEvent {
        let payload = try EventPayload.stored(
            type: type, notificationJSON: try sealer.openIfPresent(notification, field: .eventNotification), notificationID: notificationID,
            unreadCount: unreadCount, decoder: decoder, cache: cache)
        return StoredEvent(id: id ?? 0, userID: userID, payload: payload, createdAt: Date(timeIntervalSince1970: createdAt))
    }
}
