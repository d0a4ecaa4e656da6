import Foundation
import VarselCore

/// How a store writes one notification to many recipients without keeping every other write waiting.
///
/// A coordinator's message or a training scenario to a thousand mentors is a thousand notifications, a thousand
/// `notification.created` events and a thousand unread counts. Written in one transaction, that transaction holds
/// the store's writer (SQLite's only writer; PostgreSQL's event-log lock) for tens of milliseconds, and every write
/// that arrives meanwhile — a mentor marking a notification read, another coordinator's message — waits for all of
/// it. So a store writes more than ``chunkSize`` notifications as a *fan-out*:
///
/// 1. The first transaction checks the recipients and records the fan-out on disk: each distinct content once (a
///    *variant*: everything but the recipient, sealed like a notification), each recipient with its position and
///    variant. It writes the first ``chunkSize`` notifications too. From here the request is accepted: whatever
///    happens next, every recipient gets their notification exactly once.
/// 2. Each following transaction writes the next ``chunkSize`` notifications and marks them written; writes waiting
///    for the writer go between them. The last one records the notification ids for the request's idempotency key
///    and removes the fan-out.
/// 3. A fan-out a crash left unfinished is finished by the store's upkeep (``VarselRepository/finishFanOuts()``),
///    and by a retry of the request with the same idempotency key. Marking a recipient written happens in the
///    transaction that writes their notification, so two instances finishing the same fan-out never write one twice.
///
/// The caller of a create still gets every notification back, in the order it gave them, once all are written.
public enum FanOut {
    /// How many notifications one transaction of a fan-out writes: a few milliseconds of the writer's time.
    public static let chunkSize = 50

    /// Whether `count` notifications are written as a fan-out, in several transactions, rather than in one.
    public static func isSpread(_ count: Int) -> Bool { count > chunkSize }

    /// The distinct contents of `notifications` and, for each notification in order, its recipient and the index
    /// of its content among them. A message to many has one content; a scenario one per language.
    public static func variants(of notifications: [NewNotification]) -> (variants: [NewNotification], recipients: [(recipientID: UserID, variant: Int)]) {
        var variants: [NewNotification] = []
        var index: [NewNotification: Int] = [:]
        let recipients = notifications.map { notification in
            var content = notification
            content.recipientID = 0
            if let known = index[content] { return (notification.recipientID, known) }
            index[content] = variants.count
            variants.append(content)
            return (notification.recipientID, variants.count - 1)
        }
        return (variants, recipients)
    }
}

/// What the first transaction of a create did: wrote everything, or began a fan-out, or found its idempotency
/// key's fan-out unfinished.
public enum CreateStart: Sendable {
    /// Every notification is written (or was, for a replay).
    case written(CreatedNotifications)
    /// A fan-out: `written` are its first notifications; the rest follow in transactions of their own.
    case spreading(Int64, written: [NotificationItem])
    /// The idempotency key's request began a fan-out that is not finished.
    case unfinished(Int64)
}
