import Foundation
import VarselCore

/// A person's mobile number or email address as kept, with the state of its verification code.
///
/// Only the code's hash is kept; the address is sealed under the data key, like the details of the people visited.
public struct StoredContactChannel: Sendable, Hashable {
    public var userID: UserID
    public var channel: OutsideChannel
    public var address: String
    public var verifiedAt: Date?
    /// The SHA-256 of the code waiting to be typed back; nil when none waits.
    public var codeHash: String?
    public var codeSentAt: Date?
    public var codeExpiresAt: Date?
    /// Wrong codes typed since the last one was sent.
    public var wrongCodes: Int

    public init(
        userID: UserID, channel: OutsideChannel, address: String, verifiedAt: Date?, codeHash: String?, codeSentAt: Date?,
        codeExpiresAt: Date?, wrongCodes: Int
    ) {
        self.userID = userID
        self.channel = channel
        self.address = address
        self.verifiedAt = verifiedAt
        self.codeHash = codeHash
        self.codeSentAt = codeSentAt
        self.codeExpiresAt = codeExpiresAt
        self.wrongCodes = wrongCodes
    }

    /// The state the screens show.
    public var state: ContactChannelState {
        ContactChannelState(channel: channel, address: address, verifiedAt: verifiedAt, codeExpiresAt: codeHash == nil ? nil : codeExpiresAt)
    }
}

/// A text message or an email to queue: which notification it follows up, to whom, through which channel, and when
/// it is due (the notification's time plus the follow-up delay).
public struct NewMessageDelivery: Sendable, Hashable {
    public var notificationID: NotificationID
    public var userID: UserID
    public var channel: OutsideChannel
    public var dueAt: Date

    public init(notificationID: NotificationID, userID: UserID, channel: OutsideChannel, dueAt: Date) {
        self.notificationID = notificationID
        self.userID = userID
        self.channel = channel
        self.dueAt = dueAt
    }
}

/// A text message or an email queued in the message outbox: which notification, to whom, through which channel.
public struct MessageDelivery: Sendable, Hashable, Identifiable {
    public var id: Int64
    public var notificationID: NotificationID
    public var userID: UserID
    public var channel: OutsideChannel
    public var attempts: Int
    public var enqueuedAt: Date
    public var nextAttemptAt: Date

    public init(
        id: Int64, notificationID: NotificationID, userID: UserID, channel: OutsideChannel, attempts: Int, enqueuedAt: Date, nextAttemptAt: Date
    ) {
        self.id = id
        self.notificationID = notificationID
        self.userID = userID
        self.channel = channel
        self.attempts = attempts
        self.enqueuedAt = enqueuedAt
        self.nextAttemptAt = nextAttemptAt
    }
}

/// How a queued message ended.
public enum MessageOutcome: String, Sendable, Hashable {
    /// The SMTP server or the SMS gateway took it; an assignment's history says so.
    case sent
    /// It will not be sent: the person does not want it, the notification was seen or is gone, or it failed for good.
    case dropped
}

/// Mobile numbers and email addresses, their verification, and the outbox of text messages and emails that follow up
/// a notification not seen in time.
///
/// The outbox is fed from the event log, as the push outbox is: each created notification whose person has a verified
/// channel that its kind may use is queued once, due after the follow-up delay; a claimed message is leased, so one
/// instance sends it.
public protocol ContactChannelStore: Sendable {
    /// `userID`'s channels, text message first.
    func contactChannels(of userID: UserID) async throws -> [StoredContactChannel]
    /// The verified channels of any of `userIDs`.
    func verifiedContactChannels(forAnyOf userIDs: Set<UserID>) async throws -> [StoredContactChannel]
    /// Saves `address` for `channel` with a new code waiting: a different address than before is not verified; the
    /// same one keeps its verification. The wrong-code count starts again.
    func saveContactChannel(userID: UserID, channel: OutsideChannel, address: String, codeHash: String, expiresAt: Date, at date: Date) async throws
    /// Counts one wrong code; returns the count.
    func recordWrongCode(userID: UserID, channel: OutsideChannel) async throws -> Int
    /// Marks the channel verified and forgets its code, only while `codeHash` is the code waiting; returns whether it did.
    func markContactChannelVerified(userID: UserID, channel: OutsideChannel, codeHash: String, at date: Date) async throws -> Bool
    /// Removes the channel and its queued messages; returns whether there was one.
    func deleteContactChannel(userID: UserID, channel: OutsideChannel) async throws -> Bool

    /// The event id the message outbox has read through; nil before its worker first ran.
    func messageOutboxCursor() async throws -> Int64?
    /// Queues `messages` (one per notification and channel; a repeat is dropped) and moves the cursor from
    /// `expectedCursor` to `eventID` in one transaction, only if it is still `expectedCursor`; returns false, changing
    /// nothing, when another instance moved it first.
    func enqueueMessages(_ messages: [NewMessageDelivery], after expectedCursor: Int64?, through eventID: Int64, at date: Date) async throws -> Bool
    /// Whether a notification still waits to be seen: it exists, is unread, no device reported its push shown, and
    /// an assignment it told of still waits for that mentor's answer.
    func isUnseen(notificationID: NotificationID) async throws -> Bool
    /// Claims up to `limit` messages due at `date`, earliest first, until `leaseUntil`.
    func claimDueMessages(at date: Date, limit: Int, leaseUntil: Date) async throws -> [MessageDelivery]
    /// Records a failed attempt, or a message held (the quiet hours), and when to try again.
    func rescheduleMessage(id: Int64, attempts: Int, at date: Date) async throws
    /// Ends a message; when `sent`, and it told of an assignment, its history records the step at `date`.
    func finishMessage(id: Int64, outcome: MessageOutcome, at date: Date) async throws
    /// The messages of an assignment's notification still waiting to be sent, with when they are next due.
    func queuedMessages(notificationID: NotificationID) async throws -> [MessageDelivery]
    /// Deletes the record of messages that ended before `date`; returns how many.
    func pruneMessages(before date: Date) async throws -> Int
}
