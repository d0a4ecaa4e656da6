import Foundation
import Testing
import VarselCore
import VarselStore

/// The event log in every store: each change appends its events in order, and pruning records how far it went.
@Suite("Store contract: event log")
struct EventLogStoreContractTests: StoreContract {
    let now = DemoData.now

    @Test("every change appends its events in order, with the new unread count", arguments: StoreKind.allCases)
    func eventLog(kind: StoreKind) async throws {
        let store = try await kind.make()
        let user = try await mentor(store)
        let other = try await mentor(store, "other")
        let item = try await store.createNotifications([note(user.id)], idempotencyKey: nil, at: now).items[0]
        _ = try await store.createNotifications([note(other.id)], idempotencyKey: nil, at: now)
        _ = try await store.setRead(true, notificationID: item.id, userID: user.id, at: now)
        _ = try await store.delete(ids: [item.id], userID: user.id, at: now)
        let mine = try await store.events(for: user.id, after: 0, limit: 100)
        #expect(mine.map(\.type) == [.notificationCreated, .unreadCount, .notificationUpdated, .unreadCount, .notificationDeleted, .unreadCount])
        #expect(mine.compactMap { if case let .unreadCount(count) = $0.payload { count } else { nil } } == [1, 0, 0])
        #expect(mine[0].payload == .notificationCreated(item))
        #expect(mine.allSatisfy { $0.notificationID == nil || $0.notificationID == item.id })
        #expect(zip(mine, mine.dropFirst()).allSatisfy { $0.id < $1.id })
        let all = try await store.events(after: 0, limit: 100)
        #expect(all.count == 8)
        #expect(try await store.latestEventID() == all.last?.id)
        #expect(try await store.events(after: all[3].id, limit: 2).map(\.id) == [all[4].id, all[5].id])
    }

    @Test("pruning old events records how far it went", arguments: StoreKind.allCases)
    func pruning(kind: StoreKind) async throws {
        let store = try await kind.make()
        let user = try await mentor(store)
        _ = try await store.createNotifications([note(user.id)], idempotencyKey: nil, at: now)
        _ = try await store.createNotifications([note(user.id)], idempotencyKey: nil, at: now.addingTimeInterval(3600))
        #expect(try await store.pruneEvents(before: now.addingTimeInterval(1)) == 2)
        #expect(try await store.prunedThroughEventID() == 2)
        #expect(try await store.events(for: user.id, after: 0, limit: 10).map(\.id) == [3, 4])
        #expect(try await store.latestEventID() == 4)
    }
}
