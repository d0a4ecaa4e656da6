import Foundation
import Testing
import VarselCore
import VarselStore

/// Writes that arrive together: the SQLite store commits them as one transaction (group commit), and every
/// store must keep each write all or nothing and the event log in commit order.
@Suite("Store contract: concurrent writes")
struct ConcurrentWriteTests {
    let now = Date(timeIntervalSince1970: 1_900_000_000)

    @Test(
        "of many creates at once, the one naming an unknown recipient fails alone; the rest commit, each with its events in id order",
        arguments: StoreKind.allCases)
    func failingWriteAmongMany(kind: StoreKind) async throws {
        let store = try await kind.make()
        let mentor = try await store.createUser(
            NewUser(username: "kari", displayName: "K", role: .mentor, passwordHash: "x", language: .english), at: now)
        let before = try await store.latestEventID()
        let failing = 20
        let outcomes = try await withThrowingTaskGroup(of: (Int, Bool).self) { group in
            for index in 0..<40 {
                group.addTask {
                    let recipient = index == failing ? UserID(mentor.id.rawValue + 1000) : mentor.id
                    do {
                        _ = try await store.createNotifications(
                            [
                                NewNotification(
                                    recipientID: recipient, senderID: nil, kind: .scenarioPrompt, title: "n\(index)", body: "b",
                                    deepLink: .scenario(scenarioID: nil))
                            ], idempotencyKey: nil, at: now)
                        return (index, true)
                    } catch StoreError.unknownRecipient(recipient) {
                        return (index, false)
                    }
                }
            }
            return try await group.reduce(into: [Int: Bool]()) { $0[$1.0] = $1.1 }
        }
        #expect(outcomes.filter { !$0.value }.map(\.key) == [failing])
        let page = try await store.notifications(for: mentor.id, filter: .all, after: nil, limit: 100)
        #expect(page.items.count == 39)
        #expect(Set(page.items.map(\.title)) == Set((0..<40).filter { $0 != failing }.map { "n\($0)" }))
        // Each create logged its notification and then the new unread count, ids growing, nothing else.
        let events = try await store.events(after: before, limit: 1000)
        #expect(events.count == 78)
        #expect(events.map(\.id) == events.map(\.id).sorted())
        let created = events.compactMap { event -> NotificationID? in
            if case let .notificationCreated(item) = event.payload { item.id } else { nil }
        }
        #expect(Set(created) == Set(page.items.map(\.id)))
        let counts = events.compactMap { event -> Int? in
            if case let .unreadCount(count) = event.payload { count } else { nil }
        }
        #expect(counts == Array(1...39))
        #expect(
            events.map(\.payload.type) == Array(repeating: [EventType.notificationCreated, .unreadCount], count: 39).flatMap { $0 },
            "each create's notification, then the count it made, before the next create's")
    }
}
