import Foundation
import GRDB
import Testing
import VarselCore
import VarselSQLite
import VarselStore

@Suite("Stored values the SQLite store cannot read")
struct StoredValueTests {
    /// A store over a queue the test can also write to directly, with one mentor and one notification.
    func storeWithOneNotification() async throws -> (DatabaseQueue, SQLiteRepository, NotificationItem) {
        let queue = try DatabaseQueue()
        let store = try SQLiteRepository(writer: queue)
        let mentor = try await store.createUser(
            NewUser(username: "kari", displayName: "Kari", role: .mentor, passwordHash: "x", language: .english),
            at: DemoData.now)
        let item = try await store.createNotifications(
            [
                NewNotification(recipientID: mentor.id, senderID: nil, kind: .pauseConfirmation, title: "Paused", body: "", deepLink: .pause)
            ], idempotencyKey: nil, at: DemoData.now
        ).items[0]
        return (queue, store, item)
    }

    @Test("an unknown notification kind is an error naming the column, not a silent scenario prompt")
    func unknownKind() async throws {
        let (queue, store, item) = try await storeWithOneNotification()
        try await queue.write { db in try db.execute(sql: "UPDATE notification SET kind = 'birthday'") }
        await #expect(throws: StoreError.unknownStoredValue(column: "notification.kind")) {
            _ = try await store.notification(id: item.id)
        }
    }

    @Test("an unknown event type is an error, not a silent unread count")
    func unknownEventType() async throws {
        let (queue, store, _) = try await storeWithOneNotification()
        try await queue.write { db in try db.execute(sql: "UPDATE event SET type = 'notification.exploded'") }
        await #expect(throws: StoreError.unknownStoredValue(column: "event.type")) {
            _ = try await store.events(after: 0, limit: 10)
        }
    }

    @Test("an unknown role is an error, not a silent mentor")
    func unknownRole() async throws {
        let (queue, store, item) = try await storeWithOneNotification()
        try await queue.write { db in try db.execute(sql: "UPDATE user SET role = 'superuser'") }
        await #expect(throws: StoreError.unknownStoredValue(column: "user.role")) {
            _ = try await store.user(id: item.recipientID)
        }
    }
}
