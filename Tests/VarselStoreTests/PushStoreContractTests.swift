import Foundation
import Testing
import VarselCore
import VarselStore

/// The Web Push part of the store contract: subscriptions bound to a session, the outbox exactly once.
@Suite("Store contract: Web Push")
struct PushStoreContractTests {
    let now = DemoData.now

    func signedIn(_ store: any VarselRepository, _ name: String, session: String) async throws -> User {
        let user = try await store.createUser(
            NewUser(username: name, displayName: name, role: .mentor, passwordHash: "x", language: .english), at: now)
        try await store.createSession(
            Session(tokenHash: session, userID: user.id, csrfToken: "c", createdAt: now, expiresAt: now.addingTimeInterval(3600)))
        return user
    }

    func subscription(_ user: User, session: String, endpoint: String) -> NewPushSubscription {
        NewPushSubscription(
            userID: user.id, sessionTokenHash: session, endpoint: endpoint, p256dh: Data(repeating: 4, count: 65),
            auth: Data(repeating: 1, count: 16), actionSecret: Data(repeating: 9, count: 32))
    }

    @Test("the VAPID key is stored once; a second candidate does not replace it", arguments: StoreKind.allCases)
    func vapidKeyOnce(kind: StoreKind) async throws {
        let store = try await kind.make()
        let first = try await store.vapidPrivateKey(orStore: Data(repeating: 1, count: 32))
        let second = try await store.vapidPrivateKey(orStore: Data(repeating: 2, count: 32))
        #expect(first == Data(repeating: 1, count: 32))
        #expect(second == first)
    }

    @Test("subscriptions are per user; the same endpoint again replaces the earlier one", arguments: StoreKind.allCases)
    func subscriptionsPerUser(kind: StoreKind) async throws {
        let store = try await kind.make()
        let kari = try await signedIn(store, "kari", session: "s1")
        let ola = try await signedIn(store, "ola", session: "s2")
        let first = try await store.savePushSubscription(subscription(kari, session: "s1", endpoint: "https://push.example/a"), at: now)
        _ = try await store.savePushSubscription(subscription(ola, session: "s2", endpoint: "https://push.example/b"), at: now)
        #expect(try await store.pushSubscriptions(for: kari.id).map(\.endpoint) == ["https://push.example/a"])
        #expect(
            try await store.pushSubscriptions(forAnyOf: [kari.id, ola.id, 999]).map(\.endpoint) == [
                "https://push.example/a", "https://push.example/b",
            ])
        #expect(try await store.pushSubscriptions(forAnyOf: []).isEmpty)
        #expect(try await store.pushSubscription(id: first.id)?.actionSecret == Data(repeating: 9, count: 32))
        // Another user cannot delete it; its owner can.
        #expect(try await store.deletePushSubscription(id: first.id, userID: ola.id) == false)
        let again = try await store.savePushSubscription(subscription(ola, session: "s2", endpoint: "https://push.example/a"), at: now)
        #expect(try await store.pushSubscriptions(for: kari.id).isEmpty)
        #expect(try await store.pushSubscriptions(for: ola.id).count == 2)
        #expect(try await store.deletePushSubscription(id: again.id, userID: ola.id))
        #expect(try await store.pushSubscription(id: again.id) == nil)
    }

    @Test("ending the session that subscribed removes the subscription and its queued pushes", arguments: StoreKind.allCases)
    func boundToSession(kind: StoreKind) async throws {
        let store = try await kind.make()
        let kari = try await signedIn(store, "kari", session: "s1")
        try await store.createSession(
            Session(tokenHash: "s3", userID: kari.id, csrfToken: "c", createdAt: now, expiresAt: now.addingTimeInterval(3600)))
        let phone = try await store.savePushSubscription(subscription(kari, session: "s1", endpoint: "https://push.example/phone"), at: now)
        let laptop = try await store.savePushSubscription(subscription(kari, session: "s3", endpoint: "https://push.example/laptop"), at: now)
        #expect(
            try await store.enqueuePushDeliveries([NewPushDelivery(subscriptionID: phone.id, notificationID: 1)], after: nil, through: 5, at: now))
        try await store.deleteSession(tokenHash: "s1")
        #expect(try await store.pushSubscriptions(for: kari.id).map(\.id) == [laptop.id])
        #expect(try await store.claimDuePushDeliveries(at: now, limit: 10, leaseUntil: now).isEmpty)
        // A password change that ends the other sessions ends their subscriptions too.
        _ = try await store.changePassword(userID: kari.id, passwordHash: "y", keeping: nil, at: DemoData.now)
        #expect(try await store.pushSubscriptions(for: kari.id).isEmpty)
    }

    @Test(
        "the outbox queues once: the cursor moves with the deliveries, and a worker with a stale cursor changes nothing",
        arguments: StoreKind.allCases)
    func outboxQueuesOnce(kind: StoreKind) async throws {
        let store = try await kind.make()
        let kari = try await signedIn(store, "kari", session: "s1")
        let phone = try await store.savePushSubscription(subscription(kari, session: "s1", endpoint: "https://push.example/phone"), at: now)
        #expect(try await store.pushOutboxCursor() == nil)
        #expect(try await store.enqueuePushDeliveries([], after: nil, through: 10, at: now))
        #expect(
            try await store.enqueuePushDeliveries(
                [
                    NewPushDelivery(subscriptionID: phone.id, notificationID: 7),
                    NewPushDelivery(subscriptionID: 999, notificationID: 8),
                ], after: 10, through: 12, at: now))
        // A second instance that also read from 10 comes too late and queues nothing.
        #expect(
            try await store.enqueuePushDeliveries([NewPushDelivery(subscriptionID: phone.id, notificationID: 7)], after: 10, through: 12, at: now)
                == false)
        #expect(try await store.pushOutboxCursor() == 12)
        let claimed = try await store.claimDuePushDeliveries(at: now, limit: 10, leaseUntil: now.addingTimeInterval(60))
        #expect(claimed.map(\.notificationID) == [7])
        #expect(claimed.first?.subscription.endpoint == "https://push.example/phone")
        // Claimed: no other worker gets it until the lease ends.
        #expect(try await store.claimDuePushDeliveries(at: now.addingTimeInterval(59), limit: 10, leaseUntil: now.addingTimeInterval(200)).isEmpty)
        #expect(try await store.nextPushDeliveryDate() == now.addingTimeInterval(60))
        let delivery = try #require(claimed.first)
        try await store.reschedulePushDelivery(id: delivery.id, attempts: 1, at: now.addingTimeInterval(30))
        let retried = try await store.claimDuePushDeliveries(at: now.addingTimeInterval(30), limit: 10, leaseUntil: now.addingTimeInterval(90))
        #expect(retried.map(\.attempts) == [1])
        try await store.finishPushDelivery(id: delivery.id)
        #expect(try await store.nextPushDeliveryDate() == nil)
    }

    @Test(
        "an accepted push counts as unshown until its receipt; a receipt is recorded once, an unknown one not at all",
        arguments: StoreKind.allCases)
    func receiptsAndHealth(kind: StoreKind) async throws {
        let store = try await kind.make()
        let kari = try await signedIn(store, "kari", session: "s1")
        var new = subscription(kari, session: "s1", endpoint: "https://push.example/phone")
        new.deviceName = "iPhone (Safari)"
        let phone = try await store.savePushSubscription(new, at: now)
        func device() async throws -> PushDeviceStatus { try #require(try await store.pushDevices(forAnyOf: [kari.id]).first).status }
        #expect(try await device() == PushDeviceStatus(name: "iPhone (Safari)", createdAt: now))
        // Two pushes accepted: both unshown, counted from the first.
        try await store.recordPushAccepted(subscriptionID: phone.id, notificationID: 7, at: now.addingTimeInterval(10))
        try await store.recordPushAccepted(subscriptionID: phone.id, notificationID: 8, at: now.addingTimeInterval(20))
        try await store.recordPushAccepted(subscriptionID: phone.id, notificationID: 8, at: now.addingTimeInterval(25))  // the same push again
        #expect(try await device().unshownCount == 2)
        #expect(try await device().firstUnshownAt == now.addingTimeInterval(10))
        #expect(try await device().lastAcceptedAt == now.addingTimeInterval(20))
        // A receipt for a subscription that does not exist changes nothing.
        #expect(try await store.recordPushShown(subscriptionID: phone.id + 100, notificationID: 7, at: now.addingTimeInterval(30)) == .unknown)
        #expect(try await device().unshownCount == 2)
        // The second push shown: nothing is unconfirmed any more; the same receipt again is a repeat.
        #expect(try await store.recordPushShown(subscriptionID: phone.id, notificationID: 8, at: now.addingTimeInterval(40)) == .recorded)
        #expect(try await store.recordPushShown(subscriptionID: phone.id, notificationID: 8, at: now.addingTimeInterval(50)) == .repeated)
        let shown = try await device()
        #expect(shown.unshownCount == 0 && shown.firstUnshownAt == nil && shown.lastShownAt == now.addingTimeInterval(40))
        // A late receipt of the first does not move "last shown" back.
        #expect(try await store.recordPushShown(subscriptionID: phone.id, notificationID: 7, at: now.addingTimeInterval(35)) == .recorded)
        #expect(try await device().lastShownAt == now.addingTimeInterval(40))
    }

    @Test("a receipt that comes before the push service's answer is recorded, and the answer after it changes nothing", arguments: StoreKind.allCases)
    func receiptBeforeAcceptance(kind: StoreKind) async throws {
        let store = try await kind.make()
        let kari = try await signedIn(store, "kari", session: "s1")
        let phone = try await store.savePushSubscription(subscription(kari, session: "s1", endpoint: "https://push.example/phone"), at: now)
        func device() async throws -> PushDeviceStatus { try #require(try await store.pushDevices(forAnyOf: [kari.id]).first).status }
        try await store.recordPushAccepted(subscriptionID: phone.id, notificationID: 7, at: now.addingTimeInterval(10))
        // The device shows the second push before the push service has answered for it.
        #expect(try await store.recordPushShown(subscriptionID: phone.id, notificationID: 8, at: now.addingTimeInterval(20)) == .recorded)
        var shown = try await device()
        #expect(shown.unshownCount == 0 && shown.firstUnshownAt == nil)
        #expect(shown.lastShownAt == now.addingTimeInterval(20) && shown.lastAcceptedAt == now.addingTimeInterval(20))
        // The answer, then the same receipt again: still shown, nothing counted as unconfirmed.
        try await store.recordPushAccepted(subscriptionID: phone.id, notificationID: 8, at: now.addingTimeInterval(21))
        #expect(try await store.recordPushShown(subscriptionID: phone.id, notificationID: 8, at: now.addingTimeInterval(30)) == .repeated)
        shown = try await device()
        #expect(shown.unshownCount == 0 && shown.firstUnshownAt == nil && shown.lastShownAt == now.addingTimeInterval(20))
        // A later push is unconfirmed until its own receipt, as always.
        try await store.recordPushAccepted(subscriptionID: phone.id, notificationID: 9, at: now.addingTimeInterval(40))
        #expect(try await device().unshownCount == 1)
    }

    @Test("a revoked subscription gets no more pushes, loses its queue, and stays listed with when", arguments: StoreKind.allCases)
    func revoked(kind: StoreKind) async throws {
        let store = try await kind.make()
        let kari = try await signedIn(store, "kari", session: "s1")
        let phone = try await store.savePushSubscription(subscription(kari, session: "s1", endpoint: "https://push.example/phone"), at: now)
        #expect(
            try await store.enqueuePushDeliveries([NewPushDelivery(subscriptionID: phone.id, notificationID: 1)], after: nil, through: 5, at: now))
        try await store.revokePushSubscription(id: phone.id, at: now.addingTimeInterval(60))
        try await store.revokePushSubscription(id: phone.id, at: now.addingTimeInterval(120))  // the first time stands
        #expect(try await store.claimDuePushDeliveries(at: now.addingTimeInterval(200), limit: 10, leaseUntil: now.addingTimeInterval(300)).isEmpty)
        #expect(try await store.nextPushDeliveryDate() == nil)
        #expect(try await store.pushSubscriptions(forAnyOf: [kari.id]).isEmpty)
        #expect(try await store.pushDevices(forAnyOf: [kari.id]).map(\.status.revokedAt) == [now.addingTimeInterval(60)])
        // Subscribing again from the device replaces it with a working one.
        _ = try await store.savePushSubscription(subscription(kari, session: "s1", endpoint: "https://push.example/phone"), at: now)
        #expect(try await store.pushDevices(forAnyOf: [kari.id]).map(\.status.revokedAt) == [nil])
    }

    @Test(
        "reassigning, deleting or erasing withdraws a notification from each device its push was accepted for, once",
        arguments: StoreKind.allCases)
    func withdrawals(kind: StoreKind) async throws {
        let store = try await kind.make()
        let kari = try await signedIn(store, "kari", session: "s1")
        let ola = try await signedIn(store, "ola", session: "s2")
        let phone = try await store.savePushSubscription(subscription(kari, session: "s1", endpoint: "https://push.example/phone"), at: now)
        let revoked = try await store.savePushSubscription(subscription(kari, session: "s1", endpoint: "https://push.example/old"), at: now)
        let contact = NewContact(name: "Per Olsen", phone: "1", address: "Torggata 3", notes: "")
        func assign(to mentor: User) async throws -> (Assignment, NotificationItem) {
            let (assignment, _, item) = try await store.createAssignment(mentorID: mentor.id, coordinatorID: nil, contact: contact, at: now) {
                contactID, id in
                NewNotification(
                    recipientID: mentor.id, senderID: nil, kind: .assignment, title: "New assignment", body: "b",
                    deepLink: .contact(contactID: contactID, assignmentID: id))
            }
            return (assignment, item)
        }
        func due() async throws -> [PushDelivery] {
            let claimed = try await store.claimDuePushDeliveries(at: now.addingTimeInterval(10), limit: 10, leaseUntil: now.addingTimeInterval(20))
            for delivery in claimed { try await store.finishPushDelivery(id: delivery.id) }
            return claimed
        }
        let (first, shown) = try await assign(to: kari)
        let (_, unsent) = try await assign(to: kari)
        let (_, deleted) = try await assign(to: kari)
        for accepted in [shown, deleted] {
            try await store.recordPushAccepted(subscriptionID: phone.id, notificationID: accepted.id, at: now)
            try await store.recordPushAccepted(subscriptionID: revoked.id, notificationID: accepted.id, at: now)
        }
        try await store.revokePushSubscription(id: revoked.id, at: now)
        // The first assignment goes to Ola: Kari's phone gets its withdrawal (not the revoked one).
        _ = try await store.reassign(assignmentID: first.id, to: ola.id, at: now) { contactID, id in
            NewNotification(
                recipientID: ola.id, senderID: nil, kind: .assignment, title: "New assignment", body: "b",
                deepLink: .contact(contactID: contactID, assignmentID: id))
        }
        var withdrawn = try await due()
        #expect(withdrawn.map(\.notificationID) == [shown.id] && withdrawn.allSatisfy { $0.isWithdrawal && $0.subscription.id == phone.id })
        // Deleting one whose push was never accepted withdraws nothing; one that was, withdraws it.
        #expect(try await store.delete(ids: [unsent.id, deleted.id], userID: kari.id, at: now) == 2)
        withdrawn = try await due()
        #expect(withdrawn.map(\.notificationID) == [deleted.id] && withdrawn.allSatisfy(\.isWithdrawal))
        #expect(try await due().isEmpty)
        // Erasing the visited person's details withdraws the notification that named them.
        let (erasedAssignment, named) = try await assign(to: kari)
        try await store.recordPushAccepted(subscriptionID: phone.id, notificationID: named.id, at: now)
        #expect(try await store.eraseContact(contactID: erasedAssignment.contactID, titles: [.english: "Details removed"], at: now) != nil)
        withdrawn = try await due()
        #expect(withdrawn.map(\.notificationID) == [named.id] && withdrawn.allSatisfy(\.isWithdrawal))
    }
}
