import Foundation
import Testing
import VarselCore
import VarselStore

/// Notifications in every store: created once, listed, read, unread and deleted by their owner only.
@Suite("Store contract: notifications")
struct NotificationStoreContractTests: StoreContract {
    let now = DemoData.now

    @Test("created notifications are listed newest first, filtered, and paged by cursor", arguments: StoreKind.allCases)
    func listing(kind: StoreKind) async throws {
        let store = try await kind.make()
        let user = try await mentor(store)
        let other = try await mentor(store, "other")
        let batch = (1...5).map { note(user.id, title: "N\($0)", kind: $0 % 2 == 0 ? .assignment : .scenarioPrompt) } + [note(other.id)]
        let created = try await store.createNotifications(batch, idempotencyKey: nil, at: now)
        #expect(created.items.count == 6)
        #expect(!created.isReplay)
        let first = try await store.notifications(for: user.id, filter: .all, after: nil, limit: 2)
        #expect(first.items.map(\.title) == ["N5", "N4"])
        let second = try await store.notifications(for: user.id, filter: .all, after: first.nextCursor, limit: 2)
        #expect(second.items.map(\.title) == ["N3", "N2"])
        let last = try await store.notifications(for: user.id, filter: .all, after: second.nextCursor, limit: 2)
        #expect(last.items.map(\.title) == ["N1"])
        #expect(last.nextCursor == nil)
        #expect(try await store.notifications(for: user.id, filter: .kind(.assignment), after: nil, limit: 10).items.map(\.title) == ["N4", "N2"])
        #expect(try await store.unreadCount(for: user.id) == 5)
        #expect(try await store.notification(id: created.items[0].id) == created.items[0])
    }

    @Test("an idempotency key returns the first result and creates nothing new; another body is refused", arguments: StoreKind.allCases)
    func idempotency(kind: StoreKind) async throws {
        let store = try await kind.make()
        let user = try await mentor(store)
        let key = IdempotencyKey(senderID: 99, key: "k1", fingerprint: "f1")
        let first = try await store.createNotifications([note(user.id)], idempotencyKey: key, at: now)
        let retry = try await store.createNotifications([note(user.id)], idempotencyKey: key, at: now.addingTimeInterval(5))
        #expect(retry.isReplay)
        #expect(retry.items == first.items)
        #expect(try await store.unreadCount(for: user.id) == 1)
        await #expect(throws: StoreError.idempotencyKeyReused) {
            try await store.createNotifications(
                [self.note(user.id)], idempotencyKey: IdempotencyKey(senderID: 99, key: "k1", fingerprint: "f2"), at: self.now)
        }
        // The same key from another sender is a different key.
        let otherSender = try await store.createNotifications(
            [note(user.id)], idempotencyKey: IdempotencyKey(senderID: 7, key: "k1", fingerprint: "f1"), at: now)
        #expect(!otherSender.isReplay)
    }

    @Test("a create naming an unknown recipient changes nothing", arguments: StoreKind.allCases)
    func unknownRecipient(kind: StoreKind) async throws {
        let store = try await kind.make()
        let user = try await mentor(store)
        await #expect(throws: StoreError.unknownRecipient(12345), "the store names the first unknown recipient") {
            try await store.createNotifications([self.note(user.id), self.note(12345)], idempotencyKey: nil, at: self.now)
        }
        #expect(try await store.notifications(for: user.id, filter: .all, after: nil, limit: 10).items.isEmpty)
        #expect(try await store.latestEventID() == 0)
    }

    @Test("read, unread, mark all and delete touch only the owner's notifications", arguments: StoreKind.allCases)
    func ownership(kind: StoreKind) async throws {
        let store = try await kind.make()
        let owner = try await mentor(store)
        let stranger = try await mentor(store, "stranger")
        let items = try await store.createNotifications([note(owner.id), note(owner.id), note(owner.id)], idempotencyKey: nil, at: now).items
        #expect(try await store.setRead(true, notificationID: items[0].id, userID: stranger.id, at: now) == nil)
        #expect(try await store.delete(ids: [items[0].id], userID: stranger.id, at: now) == 0)
        #expect(try await store.markRead(ids: items.map(\.id), userID: stranger.id, at: now) == 0)
        let read = try await store.setRead(true, notificationID: items[0].id, userID: owner.id, at: now)
        #expect(read?.readAt == now)
        #expect(try await store.setRead(false, notificationID: items[0].id, userID: owner.id, at: now)?.isUnread == true)
        #expect(try await store.markAllRead(userID: owner.id, at: now) == 3)
        #expect(try await store.markAllRead(userID: owner.id, at: now) == 0)
        #expect(try await store.delete(ids: [items[1].id, items[1].id], userID: owner.id, at: now) == 1)
        #expect(try await store.notification(id: items[1].id) == nil)
    }
}
