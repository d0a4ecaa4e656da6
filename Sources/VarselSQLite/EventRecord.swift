import Foundation
import GRDB
import VarselCore
import VarselStore

/// One row of the `event` table as it is stored, and its conversion to and from a typed ``StoredEvent``.
struct EventRecord: Codable, FetchableRecord, MutablePersistableRecord {
    static let databaseTableName = "event"

    var id: Int64?
    var userID: Int64
    var type: String
    var notificationID: Int64?
    /// The notification as JSON, for created and updated events.
    var notification: String?
    var unreadCount: Int?
    /// Seconds since 1970.
    var createdAt: Double

    enum CodingKeys: String, CodingKey {
        case id
        case userID = "user_id"
        case type
        case notificationID = "notification_id"
        case notification
        case unreadCount = "unread_count"
        case createdAt = "created_at"
    }

    /// The record from a row of `SELECT * FROM event`, read by column name: cheaper than the `Decodable` route.
    init(row: Row) {
        id = row["id"]
        userID = row["user_id"]
        type = row["type"]
        notificationID = row["notification_id"]
        notification = row["notification"]
        unreadCount = row["unread_count"]
        createdAt = row["created_at"]
    }

    /// The row for `payload`, an event of `userID` at `date`.
    /// A notification with personal details is stored sealed by `sealer`.
    /// The notification's JSON is remembered in `cache`, so reading the event back does not decode it.
    init(userID: Int64, payload: EventPayload, at date: Date, encoder: JSONEncoder, sealer: FieldSealer, cache: NotificationJSONCache) throws {
        self.userID = userID
        type = payload.type.rawValue
        notificationID = payload.notificationID
        switch payload {
        case let .notificationCreated(item), let .notificationUpdated(item):
            let json = String(decoding: try encoder.encode(item), as: UTF8.self)
            cache.remember(item, json: json)
            notification = FieldSealer.sealsNotification(personalDetails: item.personalDetails) ? sealer.seal(json, field: .eventNotification) : json
        case .notificationDeleted, .accountDeactivated:
            break
        case let .unreadCount(count):
            unreadCount = count
        }
        createdAt = date.timeIntervalSince1970
    }

    mutating func didInsert(_ inserted: InsertionSuccess) {
        id = inserted.rowID
    }

    /// The typed event; a type this version does not know, or a payload its type lacks, is an error.
    func event(decoder: JSONDecoder, sealer: FieldSealer, cache: NotificationJSONCache) throws -> StoredEvent {
        let payload = try EventPayload.stored(type: type, notificationJSON: try sealer.openIfPresent(notification, field: .eventNotification), notificationID: notificationID,
                                              unreadCount: unreadCount, decoder: decoder, cache: cache)
        return StoredEvent(id: id ?? 0, userID: userID, payload: payload, createdAt: Date(timeIntervalSince1970: createdAt))
    }
}
