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
    public static func variants(of notifications: [NewNotification]) -> (
        variants: [NewNotification], recipients: [(recipientID: UserID, variant: Int)]
    ) {
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

/// What one transaction of a fan-out wrote.
public struct FanOutChunk: Sendable {
    public var written: [NotificationItem]
    /// Whether the fan-out is finished.
    public var isLast: Bool
    /// Every notification id of the fan-out, in the order given, once it is finished; nil while some remain, or when
    /// the finished fan-out is forgotten.
    public var finished: [NotificationID]?

    public init(written: [NotificationItem], isLast: Bool, finished: [NotificationID]? = nil) {
        self.written = written
        self.isLast = isLast
        self.finished = finished
    }
}

/// A store that writes fan-outs: it writes one chunk per transaction; the loops around the chunks, and what a create
/// does after its first transaction, are the same for every store.
public protocol FanOutWriting: Sendable {
    /// Writes the next chunk of `fanout`'s notifications in a transaction of its own; the last one records the ids
    /// for the request's idempotency key and forgets what the fan-out kept to write them.
    func writeNextChunk(of fanout: Int64) async throws -> FanOutChunk
    /// The stored notifications with these ids, in that order (for those another finisher wrote).
    func storedNotifications(_ ids: [NotificationID]) async throws -> [NotificationItem]
    /// Forgets the finished fan-outs started before `date`, and returns the unfinished ones started before it.
    func unfinishedFanOuts(startedBefore date: Date) async throws -> [Int64]
}

extension FanOutWriting {
    /// Answers a create after its first transaction: as it is, or once its fan-out is written; a replay whose
    /// fan-out was cut short finishes it, then asks again (`again`) and is answered as a replay.
    public func created(_ start: CreateStart, again: () async throws -> CreatedNotifications) async throws -> CreatedNotifications {
        switch start {
        case let .written(created):
            return created
        case let .spreading(fanout, written):
            return CreatedNotifications(items: try await finishFanOut(fanout, written: written), isReplay: false)
        case let .unfinished(fanout):
            _ = try await finishFanOut(fanout, written: [])
            return try await again()
        }
    }

    /// Writes the rest of a fan-out, a chunk per transaction, and returns all its notifications in the order they
    /// were given; `written` are those the caller wrote already.
    public func finishFanOut(_ fanout: Int64, written: [NotificationItem]) async throws -> [NotificationItem] {
        var known = Dictionary(written.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        while true {
            let chunk = try await writeNextChunk(of: fanout)
            for item in chunk.written { known[item.id] = item }
            guard chunk.isLast else { continue }
            // Forgotten already (finished by another, long ago): what this request wrote is all it can tell.
            guard let ids = chunk.finished else { return known.values.sorted { $0.id < $1.id } }
            let missing = ids.filter { known[$0] == nil }
            if !missing.isEmpty {
                // Written by another finisher (the upkeep, or a retry of the same request).
                for item in try await storedNotifications(missing) { known[item.id] = item }
            }
            return ids.compactMap { known[$0] }
        }
    }

    /// Finishes every fan-out started before `date` that is not finished, and forgets the finished ones; returns how
    /// many notifications it wrote.
    public func finishFanOuts(startedBefore date: Date) async throws -> Int {
        var written = 0
        for fanout in try await unfinishedFanOuts(startedBefore: date) {
            while true {
                let chunk = try await writeNextChunk(of: fanout)
                written += chunk.written.count
                if chunk.isLast { break }
            }
        }
        return written
    }
}
