import Foundation
import Logging
import VarselStore

/// What differs between Varsel's durable outboxes: what an event queues, and how an item is claimed, tried and recorded.
///
/// ``OutboxLoop`` does the rest once for every outbox (pushes, follow-up text messages and email): following the
/// event log, claiming what is due, trying several at a time, and keeping what could not be recorded.
protocol OutboxChannel: Sendable {
    associatedtype Item: Sendable
    associatedtype Outcome: Sendable

    /// Whether this outbox queues from the event log; one whose items are queued by the changes themselves does not.
    var followsEventLog: Bool { get }
    /// The last event this outbox queued from; nil before its first start.
    func cursor() async throws -> Int64?
    /// Queues what `events` call for and moves the cursor from `cursor` to `last`, in one transaction; false when
    /// another instance moved the cursor first, and then nothing is queued.
    func enqueue(_ events: [StoredEvent], after cursor: Int64?, through last: Int64) async throws -> Bool
    /// Takes up to `limit` items due at `date`, this instance's until `leaseUntil`.
    func claimDue(at date: Date, limit: Int, leaseUntil: Date) async throws -> [Item]
    /// Tries to send `item`. It throws only before anything was sent (a read of the store failed, for example).
    func attempt(_ item: Item) async throws -> Outcome
    /// A failed attempt, tried again after a backoff and counted towards giving up.
    func failedAttempt(_ item: Item) -> Outcome
    /// Due again at once with its attempts unchanged: nothing was sent, or nothing will be known to have been.
    func released(_ item: Item) -> Outcome
    /// Whether `outcome` says the item went out, so that only recording it keeps it from going out twice.
    func wentOut(_ outcome: Outcome) -> Bool
    /// Records `outcome` in the store. Recording it a second time changes nothing more.
    func record(_ outcome: Outcome, for item: Item) async throws
    /// How the log names `item` and what came of it: ids and states, never anything personal.
    func metadata(for item: Item) -> Logger.Metadata
}

extension OutboxChannel {
    var followsEventLog: Bool { true }
}
