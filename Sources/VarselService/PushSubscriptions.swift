import Foundation
import VarselCore
import VarselPush
import VarselStore

/// A user's devices that receive Web Push: subscribing (the endpoint and keys checked, the oldest dropped past the
/// limit), unsubscribing, the receipts of shown pushes, and each device's health.
public struct PushSubscriptions: Sendable {
    let repository: any PushStore
    let endpointPolicy: PushEndpointPolicy
    let perUser: Int
    let now: @Sendable () -> Date
    /// How long accepted pushes may go unshown before a device is stale (`--push-stale-after`).
    public let staleAfter: TimeInterval
    private let receipts: ReceiptLimiter

    public init(
        repository: any PushStore, endpointPolicy: PushEndpointPolicy, perUser: Int, staleAfter: TimeInterval = 3 * 86400,
        receiptsPerMinute: Int = 30, now: @escaping @Sendable () -> Date
    ) {
        self.repository = repository
        self.endpointPolicy = endpointPolicy
        self.perUser = perUser
        self.staleAfter = staleAfter
        self.receipts = ReceiptLimiter(perMinute: receiptsPerMinute)
        self.now = now
    }

    /// Why a receipt was refused; nothing was recorded.
    public enum ReceiptRefusal: Error, Equatable {
        /// No such subscription, or a token that is not its own for that push.
        case unknown
        /// That push's receipt came before.
        case repeated
        /// More receipts from this subscription in a minute than a device shows notifications.
        case tooMany
    }

    /// Records a device's report that it showed `notificationID`'s push: authenticated by the token the push carried
    /// (keyed by the subscription's own secret), once per push, at most `receiptsPerMinute` a minute per subscription.
    public func receipt(subscriptionID: Int64, notificationID: NotificationID, token: String) async throws {
        guard let subscription = try await repository.pushSubscription(id: subscriptionID),
            PushActionToken.verifyShown(token, notificationID: notificationID, subscription: subscription)
        else {
            throw ReceiptRefusal.unknown
        }
        guard await receipts.admit(subscriptionID, at: now()) else { throw ReceiptRefusal.tooMany }
        switch try await repository.recordPushShown(subscriptionID: subscriptionID, notificationID: notificationID, at: now()) {
        case .recorded: return
        case .repeated: throw ReceiptRefusal.repeated
        case .unknown: throw ReceiptRefusal.unknown
        }
    }

    /// `userID`'s subscriptions, oldest first.
    public func subscriptions(of userID: UserID) async throws -> [PushSubscription] {
        try await repository.pushSubscriptions(for: userID)
    }

    /// The subscription `id` when `token` is the acknowledgement its push carried for `assignmentID`; nil otherwise
    /// (an unknown subscription and a wrong token are not told apart).
    public func acknowledging(subscriptionID id: Int64, assignmentID: AssignmentID, token: String) async throws -> PushSubscription? {
        guard let subscription = try await repository.pushSubscription(id: id),
            PushActionToken.verifyAcknowledge(token, assignmentID: assignmentID, subscription: subscription)
        else { return nil }
        return subscription
    }

    /// The devices of `userIDs` with their health now, oldest first.
    public func devices(of userIDs: Set<UserID>) async throws -> [(device: PushDevice, health: PushDeviceStatus.Health)] {
        let at = now()
        return try await repository.pushDevices(forAnyOf: userIDs).map { ($0, $0.status.health(now: at, staleAfter: staleAfter)) }
    }

    /// `people` with whether each mentor has a device that shows notifications.
    public func markingDevices(_ people: [PersonSummary]) async throws -> [PersonSummary] {
        let mentors = Set(people.filter { $0.role == .mentor }.map(\.id))
        let without = try await withoutShowingDevice(mentors)
        return people.map { person in
            var marked = person
            if mentors.contains(person.id) { marked.showsNotifications = !without.contains(person.id) }
            return marked
        }
    }

    /// Those of `userIDs` none of whose devices can be counted on to show a notification (no device, or every one
    /// stale or revoked).
    public func withoutShowingDevice(_ userIDs: Set<UserID>) async throws -> Set<UserID> {
        let showing = Set(try await devices(of: userIDs).filter { $0.health.isShowing }.map(\.device.userID))
        return userIDs.subtracting(showing)
    }

    /// Saves the browser's subscription for `userID` on `session`; `p256dh` and `auth` are base64url as browsers give
    /// them. Throws ``InvalidInput`` naming `endpoint`, `keys.p256dh` or `keys.auth`, never repeating them.
    public func subscribe(
        userID: UserID, session: Session, endpoint: String, p256dh: String, auth: String,
        userAgent: String = ""
    ) async throws -> PushSubscription {
        var issues: [Validation.Issue] = []
        do {
            _ = try endpointPolicy.check(endpoint)
        } catch {
            issues.append(.init(field: "endpoint", rule: .other(error.description)))
        }
        let publicKey = Base64URL.decode(p256dh) ?? Data()
        let secret = Base64URL.decode(auth) ?? Data()
        do {
            try WebPushEncryption.validate(p256dh: publicKey, auth: secret)
        } catch .invalidAuthSecret {
            issues.append(.init(field: "keys.auth", rule: .other("must be the subscription's 16-byte auth secret, base64url")))
        } catch {
            issues.append(
                .init(field: "keys.p256dh", rule: .other("must be the subscription's P-256 public key (65 bytes, uncompressed), base64url")))
        }
        guard issues.isEmpty else { throw InvalidInput(issues, summary: "The push subscription is not valid.") }
        let saved = try await repository.savePushSubscription(
            NewPushSubscription(
                userID: userID, sessionTokenHash: session.tokenHash, endpoint: endpoint, p256dh: publicKey, auth: secret,
                actionSecret: PushActionToken.newSecret(), deviceName: PushDeviceStatus.deviceName(userAgent: userAgent)), at: now())
        // One user's devices are few; past the limit the oldest subscription goes.
        for stale in try await repository.pushSubscriptions(for: userID).dropLast(perUser) {
            _ = try await repository.deletePushSubscription(id: stale.id, userID: userID)
        }
        return saved
    }

    /// Removes one of `userID`'s subscriptions; false when they have none with that id.
    public func unsubscribe(id: Int64, userID: UserID) async throws -> Bool {
        try await repository.deletePushSubscription(id: id, userID: userID)
    }
}

/// Counts each subscription's receipts in the current minute.
actor ReceiptLimiter {
    private let perMinute: Int
    private var window: (minute: Int, counts: [Int64: Int]) = (0, [:])

    init(perMinute: Int) { self.perMinute = perMinute }

    /// Whether one more receipt from `subscriptionID` fits this minute; counts it if so.
    func admit(_ subscriptionID: Int64, at date: Date) -> Bool {
        let minute = Int(date.timeIntervalSince1970 / 60)
        if minute != window.minute { window = (minute, [:]) }
        let count = window.counts[subscriptionID, default: 0]
        guard count < perMinute else { return false }
        window.counts[subscriptionID] = count + 1
        return true
    }
}
