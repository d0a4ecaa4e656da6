import Foundation
import GRDB
import VarselCore
import VarselStore

extension TableRecord {
    /// `INSERT INTO <table> (<columns>) VALUES (?, …)`, for a prepared statement.
    static func insertStatement(_ columns: [Column]) -> String {
        "INSERT INTO \(databaseTableName) (\(columns.map(\.name).joined(separator: ", "))) "
            + "VALUES (\(Array(repeating: "?", count: columns.count).joined(separator: ", ")))"
    }
}

/// One row of the `notification` table as it is stored, and its conversion to and from a ``NotificationItem``.
///
/// The columns are named once, in ``Columns``: the insert statement and the reading of a row both use them. The
/// body and the personal details are kept as stored (sealed when the notification has personal details); the
/// store opens them as it makes the item.
struct NotificationRecord: FetchableRecord, TableRecord {
    static let databaseTableName = "notification"

    enum Columns {
        static let id = Column("id")
        static let recipientID = Column("recipient_id")
        static let senderID = Column("sender_id")
        static let kind = Column("kind")
        static let title = Column("title")
        static let body = Column("body")
        static let urgency = Column("urgency")
        static let createdAt = Column("created_at")
        static let readAt = Column("read_at")
        static let deepLink = Column("deep_link")
        static let personalDetails = Column("personal_details")

        /// Every column an insert writes, in the order of ``NotificationRecord/insertArguments``.
        static let inserted = [recipientID, senderID, kind, title, body, urgency, createdAt, readAt, deepLink, personalDetails]
    }

    var id: NotificationID?
    var recipientID: UserID
    var senderID: UserID?
    var kind: String
    var title: String
    /// As stored: sealed when the notification has personal details.
    var body: String
    var urgency: String
    /// Seconds since 1970.
    var createdAt: Double
    var readAt: Double?
    /// The deep link as JSON.
    var deepLink: String
    /// The personal details as a JSON array, as stored: sealed when there are any.
    var personalDetails: String

    init(row: Row) {
        id = row[Columns.id]
        recipientID = row[Columns.recipientID]
        senderID = row[Columns.senderID]
        kind = row[Columns.kind]
        title = row[Columns.title]
        body = row[Columns.body]
        urgency = row[Columns.urgency]
        createdAt = row[Columns.createdAt]
        readAt = row[Columns.readAt]
        deepLink = row[Columns.deepLink]
        personalDetails = row[Columns.personalDetails]
    }

    /// The row for a new notification at `date`; its body and personal details sealed by `sealer` when it has personal
    /// details, under the key of the person they are about (`person`) when there is one.
    init(_ new: NewNotification, at date: Date, sealer: FieldSealer, person: PersonKeyID? = nil) throws {
        recipientID = new.recipientID
        senderID = new.senderID
        kind = new.kind.rawValue
        title = new.title
        urgency = new.urgency.rawValue
        createdAt = date.timeIntervalSince1970
        deepLink = StoredNotificationJSON.encode(new.deepLink)
        let details = StoredNotificationJSON.encode(new.personalDetails)
        if FieldSealer.sealsNotification(personalDetails: new.personalDetails) {
            body = try sealer.seal(new.body, field: .notificationBody, person: person)
            personalDetails = try sealer.seal(details, field: .notificationDetails, person: person)
        } else {
            body = new.body
            personalDetails = details
        }
    }

    /// `INSERT INTO notification (…) VALUES (?, …)`, for a prepared statement: a record's own `insert` builds its
    /// arguments through `Encodable`, on every notification.
    static let insertSQL = insertStatement(Columns.inserted)

    var insertArguments: StatementArguments {
        [recipientID, senderID, kind, title, body, urgency, createdAt, readAt, deepLink, personalDetails]
    }

    /// The notification, its sealed values opened.
    func item(sealer: FieldSealer, decoder: JSONDecoder) throws -> NotificationItem {
        NotificationItem(
            id: id ?? 0, recipientID: recipientID,
            kind: try NotificationKind(stored: kind, column: "notification.kind"),
            title: title, body: try sealer.open(body, field: .notificationBody), createdAt: Date(timeIntervalSince1970: createdAt),
            readAt: readAt.map { Date(timeIntervalSince1970: $0) }, urgency: try Urgency(stored: urgency, column: "notification.urgency"),
            deepLink: try decoder.decode(DeepLinkTarget.self, from: Data(deepLink.utf8)),
            personalDetails: try StoredNotificationJSON.strings(try sealer.open(personalDetails, field: .notificationDetails), decoder: decoder))
    }
}
