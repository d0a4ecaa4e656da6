import Foundation
import VarselCore

/// One device's Web Push subscription: where to send, and the keys to encrypt for it (RFC 8291).
///
/// Bound to the user and the session that made it: signing out of that session, or a password change that
/// ends it, removes the subscription, so a device that is no longer signed in gets nothing.
public struct PushSubscription: Sendable, Hashable, Identifiable {
    public var id: Int64
    public var userID: UserID
    /// The session that subscribed (its token hash).
    public var sessionTokenHash: String
    /// The push service's URL for this device.
    public var endpoint: String
    /// The device's P-256 public key, uncompressed (65 bytes).
    public var p256dh: Data
    /// The device's authentication secret (16 bytes).
    public var auth: Data
    /// A server-side secret that keys the tokens of this subscription's notification buttons ("Acknowledge").
    public var actionSecret: Data
    public var createdAt: Date

    public init(
        id: Int64, userID: UserID, sessionTokenHash: String, endpoint: String, p256dh: Data, auth: Data,
        actionSecret: Data, createdAt: Date
    ) {
        self.id = id
        self.userID = userID
        self.sessionTokenHash = sessionTokenHash
        self.endpoint = endpoint
        self.p256dh = p256dh
        self.auth = auth
        self.actionSecret = actionSecret
        self.createdAt = createdAt
    }
}

/// The fields of a subscription about to be saved.
public struct NewPushSubscription: Sendable, Hashable {
    public var userID: UserID
    public var sessionTokenHash: String
    public var endpoint: String
    public var p256dh: Data
    public var auth: Data
    public var actionSecret: Data
    /// The device as a person names it (`iPhone (Safari)`), from the browser that subscribed.
    public var deviceName: String

    public init(
        userID: UserID, sessionTokenHash: String, endpoint: String, p256dh: Data, auth: Data, actionSecret: Data,
        deviceName: String = ""
    ) {
        self.userID = userID
        self.sessionTokenHash = sessionTokenHash
        self.endpoint = endpoint
        self.p256dh = p256dh
        self.auth = auth
        self.actionSecret = actionSecret
        self.deviceName = deviceName
    }
}

/// One subscribed device and what is known of its delivery: the core judges its health from this.
public struct PushDevice: Sendable, Hashable, Identifiable {
    /// The subscription's id.
    public var id: Int64
    public var userID: UserID
    public var status: PushDeviceStatus

    public init(id: Int64, userID: UserID, status: PushDeviceStatus) {
        self.id = id
        self.userID = userID
        self.status = status
    }
}

/// What came of a device's report that it showed a push.
public enum PushReceiptOutcome: Sendable, Hashable {
    /// Recorded now.
    case recorded
    /// That push's receipt was recorded before: nothing changed.
    case repeated
    /// No such subscription: nothing changed.
    case unknown
}

/// A notification to send to one subscription, queued in the push outbox.
public struct NewPushDelivery: Sendable, Hashable {
    public var subscriptionID: Int64
    public var notificationID: NotificationID

    public init(subscriptionID: Int64, notificationID: NotificationID) {
        self.subscriptionID = subscriptionID
        self.notificationID = notificationID
    }
}

/// A queued push: what to send where, how often it was tried, and when to try next.
public struct PushDelivery: Sendable, Hashable, Identifiable {
    public var id: Int64
    public var subscription: PushSubscription
    public var notificationID: NotificationID
    /// True for a withdrawal: a push that replaces the notification's shown push, which its person should no longer
    /// see; queued with the change that withdrew it, to each device the notification's push was accepted for.
    public var isWithdrawal = false
    /// How many attempts failed so far.
    public var attempts: Int
    public var enqueuedAt: Date
    public var nextAttemptAt: Date

    public init(
        id: Int64, subscription: PushSubscription, notificationID: NotificationID, attempts: Int, enqueuedAt: Date, nextAttemptAt: Date,
        isWithdrawal: Bool = false
    ) {
        self.id = id
        self.subscription = subscription
        self.notificationID = notificationID
        self.isWithdrawal = isWithdrawal
        self.attempts = attempts
        self.enqueuedAt = enqueuedAt
        self.nextAttemptAt = nextAttemptAt
    }
}

/// What Web Push keeps: the server's VAPID key, the devices' subscriptions, and the push outbox.
///
/// A change that takes a notification from its person (deleting it, giving its assignment to someone else, erasing
/// the visited person's details) queues a withdrawal in the same transaction, to every device its push was
/// accepted for.
///
/// The outbox is fed from the event log: the delivery worker reads created notifications after its cursor and
/// queues one delivery per subscription of the recipient, moving the cursor in the same transaction, so each
/// notification is queued exactly once and a restart loses nothing.
public protocol PushStore: Sendable {
    /// The VAPID private key (raw P-256 scalar), storing `candidate` when there is none yet; returns the one kept.
    func vapidPrivateKey(orStore candidate: Data) async throws -> Data
    /// Saves a subscription. The same endpoint subscribed again replaces the earlier one (keys, user, session).
    func savePushSubscription(_ subscription: NewPushSubscription, at date: Date) async throws -> PushSubscription
    func pushSubscription(id: Int64) async throws -> PushSubscription?
    /// `userID`'s subscriptions, oldest first.
    func pushSubscriptions(for userID: UserID) async throws -> [PushSubscription]
    /// The subscriptions of any of `userIDs` that still take pushes, in one read (the delivery worker's batch).
    func pushSubscriptions(forAnyOf userIDs: Set<UserID>) async throws -> [PushSubscription]
    /// Deletes a subscription and its queued deliveries; with `userID`, only when it is theirs. Returns whether it did.
    func deletePushSubscription(id: Int64, userID: UserID?) async throws -> Bool
    /// The event id the push outbox has read through; nil before the worker first ran.
    func pushOutboxCursor() async throws -> Int64?
    /// Queues `deliveries` and moves the cursor from `expectedCursor` to `eventID`, in one transaction — only if the
    /// cursor is still `expectedCursor` (nil: not set yet). Returns false, changing nothing, when another worker
    /// moved it first: with several instances on one database, each event is queued once. Deliveries to
    /// subscriptions deleted meanwhile are dropped.
    func enqueuePushDeliveries(_ deliveries: [NewPushDelivery], after expectedCursor: Int64?, through eventID: Int64, at date: Date) async throws
        -> Bool
    /// Claims up to `limit` deliveries due at `date`, earliest first, by moving them to `leaseUntil`: another worker
    /// does not take them meanwhile, and if this one dies they come due again then.
    func claimDuePushDeliveries(at date: Date, limit: Int, leaseUntil: Date) async throws -> [PushDelivery]
    /// When the next queued delivery is due; nil when the outbox is empty.
    func nextPushDeliveryDate() async throws -> Date?
    /// Records a failed attempt and when to try again.
    func reschedulePushDelivery(id: Int64, attempts: Int, at date: Date) async throws
    /// Removes a delivery that was sent or given up.
    func finishPushDelivery(id: Int64) async throws
    /// Records that the push service accepted `notificationID`'s push for a subscription: a push its device should show.
    func recordPushAccepted(subscriptionID: Int64, notificationID: NotificationID, at date: Date) async throws
    /// Records the device's report that it showed `notificationID`'s push, once; also when it comes before the push
    /// service's answer, which then changes nothing (the push counts as accepted when shown).
    func recordPushShown(subscriptionID: Int64, notificationID: NotificationID, at date: Date) async throws -> PushReceiptOutcome
    /// Marks a subscription its push service no longer takes (404, 410) and drops its queued deliveries; it gets no
    /// more pushes but stays listed, with when, until the device subscribes again or its session ends.
    func revokePushSubscription(id: Int64, at date: Date) async throws
    /// The devices of any of `userIDs` with their delivery, revoked ones included, oldest first.
    func pushDevices(forAnyOf userIDs: Set<UserID>) async throws -> [PushDevice]
}
