import Foundation
import VarselCore

/// A notification to send later, as its sender asks for it: to whom, what, and when.
public struct NewScheduledSend: Sendable, Hashable {
    public var senderID: UserID
    public var recipientIDs: [UserID]
    public var kind: NotificationKind
    public var title: String
    public var body: String
    public var urgency: Urgency
    public var sendAt: Date
    /// It publishes a training scenario (its title and text) to its recipients, each told by a scenario prompt.
    public var publishesScenario: Bool

    public init(
        senderID: UserID, recipientIDs: [UserID], kind: NotificationKind, title: String, body: String, urgency: Urgency, sendAt: Date,
        publishesScenario: Bool = false
    ) {
        self.publishesScenario = publishesScenario
        self.senderID = senderID
        self.recipientIDs = recipientIDs
        self.kind = kind
        self.title = title
        self.body = body
        self.urgency = urgency
        self.sendAt = sendAt
    }
}

/// A send stored by ``ScheduledSendStore/scheduleSend(_:idempotencyKey:at:)``, or found stored before under its key.
public struct ScheduledSendCreated: Sendable, Hashable {
    public var send: ScheduledSend
    /// The idempotency key's earlier request made it; nothing new was stored.
    public var isReplay: Bool

    public init(send: ScheduledSend, isReplay: Bool) {
        self.send = send
        self.isReplay = isReplay
    }
}

extension ScheduledSendStore {
    /// Stores `new`, with no idempotency key.
    public func scheduleSend(_ new: NewScheduledSend, at date: Date) async throws -> ScheduledSend {
        try await scheduleSend(new, idempotencyKey: nil, at: date).send
    }
}

/// Where a scheduled send stands.
public enum ScheduledSendState: String, Sendable, Hashable, Codable, CaseIterable {
    /// Its time has not come: it can still be changed or cancelled.
    case waiting
    /// Taken for sending: its notifications are being made, and it can no longer be changed or cancelled.
    case sending
    /// Its notifications were made.
    case sent
    /// Cancelled before it went: it never goes.
    case cancelled
}

/// A notification scheduled to go later, and where it stands.
public struct ScheduledSend: Sendable, Hashable, Identifiable {
    public var id: ScheduledSendID
    public var senderID: UserID
    public var recipientIDs: [UserID]
    public var kind: NotificationKind
    public var title: String
    public var body: String
    public var urgency: Urgency
    public var sendAt: Date
    public var createdAt: Date
    public var state: ScheduledSendState
    /// When it was sent or cancelled.
    public var endedAt: Date?
    /// It publishes a training scenario (its title and text) to its recipients, each told by a scenario prompt.
    public var publishesScenario: Bool

    public init(
        id: ScheduledSendID, senderID: UserID, recipientIDs: [UserID], kind: NotificationKind, title: String, body: String,
        urgency: Urgency, sendAt: Date, createdAt: Date, state: ScheduledSendState, endedAt: Date?, publishesScenario: Bool = false
    ) {
        self.publishesScenario = publishesScenario
        self.id = id
        self.senderID = senderID
        self.recipientIDs = recipientIDs
        self.kind = kind
        self.title = title
        self.body = body
        self.urgency = urgency
        self.sendAt = sendAt
        self.createdAt = createdAt
        self.state = state
        self.endedAt = endedAt
    }

    /// The recipients as stored: their ids, comma-separated.
    public static func storedRecipients(_ ids: [UserID]) -> String { ids.map { String($0.rawValue) }.joined(separator: ",") }

    /// Reads ``storedRecipients(_:)``.
    public static func recipients(stored: String) -> [UserID] {
        stored.split(separator: ",").compactMap { Int64($0).map(UserID.init(rawValue:)) }
    }
}

/// Notifications their senders scheduled for later, and their sending: each goes once, across restarts and instances.
///
/// A send is taken for sending (``takeDueScheduledSends(at:limit:)``) before its notifications are made, and from
/// then on it can neither be changed nor cancelled; the service makes them under an idempotency key of the send's, so
/// a send taken again after an instance stopped mid-way (or by two instances at once) makes them once.
public protocol ScheduledSendStore: Sendable {
    /// Stores `new`; throws ``StoreError/unknownRecipient(_:)`` for a recipient who does not exist.
    ///
    /// With an idempotency key its sender used before, nothing new is stored: the send made then is returned as a
    /// replay when the fingerprint is the same, and ``StoreError/idempotencyKeyReused`` is thrown when it is not.
    func scheduleSend(_ new: NewScheduledSend, idempotencyKey: IdempotencyKey?, at date: Date) async throws -> ScheduledSendCreated
    /// The send with this id, in whatever state; nil when there is none.
    func scheduledSend(id: ScheduledSendID) async throws -> ScheduledSend?
    /// The send an earlier request with this idempotency key stored, as a replay; nil when the key is new, and
    /// ``StoreError/idempotencyKeyReused`` when that request was another.
    func scheduledSend(requestedWith idempotencyKey: IdempotencyKey) async throws -> ScheduledSendCreated?
    /// The sends still waiting, of `senderID` (of everyone when nil), soonest first.
    func waitingScheduledSends(senderID: UserID?) async throws -> [ScheduledSend]
    /// Gives a waiting send a new time and words; nil when it no longer waits (taken, sent, cancelled or unknown).
    func changeScheduledSend(
        id: ScheduledSendID, sendAt: Date, title: String, body: String, urgency: Urgency, at date: Date
    ) async throws -> ScheduledSend?
    /// Cancels a waiting send; false when it no longer waits.
    func cancelScheduledSend(id: ScheduledSendID, at date: Date) async throws -> Bool
    /// Takes for sending the waiting sends whose time has come by `date`, and returns them with any taken earlier and
    /// not finished (an instance stopped mid-way), soonest first, at most `limit`.
    func takeDueScheduledSends(at date: Date, limit: Int) async throws -> [ScheduledSend]
    /// Records that a taken send's notifications were made.
    func finishScheduledSend(id: ScheduledSendID, at date: Date) async throws
}
