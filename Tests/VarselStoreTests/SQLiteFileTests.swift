import Foundation
import Testing
import VarselCore
import VarselSQLite
import VarselStore

@Suite("SQLite store on disk")
struct SQLiteDurabilityTests {
    @Test("data written survives closing and reopening the same file")
    func reopen() async throws {
        let path = try temporarySQLitePath("reopen")
        do {
            let store = try SQLiteRepository(path: path)
            let user = try await store.createUser(
                NewUser(username: "kari", displayName: "Kari", role: .mentor, passwordHash: "x", language: .norwegianBokmal), at: DemoData.now)
            _ = try await store.createNotifications(
                [NewNotification(recipientID: user.id, senderID: nil, kind: .pauseConfirmation, title: "Pause", body: "B", deepLink: .pause)],
                idempotencyKey: nil, at: DemoData.now)
        }
        let reopened = try SQLiteRepository(path: path)
        let user = try #require(try await reopened.user(username: "kari"))
        #expect(user.language == .norwegianBokmal)
        #expect(try await reopened.unreadCount(for: user.id) == 1)
        #expect(try await reopened.latestEventID() == 2)
    }
}
