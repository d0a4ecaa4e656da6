import Foundation
import Testing
import VarselCore
import VarselStore
@testable import VarselSQLite

/// The SQLite store keeps sessions and users it has read (``IdentityCache``); these tests hold it to never answering
/// with what this process has since changed, and to seeing another process's change within its time limit.
@Suite("The SQLite store's cache of sessions and users")
struct IdentityCacheTests {
    let now = DemoData.now

    func file() throws -> String { try temporarySQLitePath("identity") }

    func session(_ hash: String, of user: User) -> Session {
        Session(tokenHash: hash, userID: user.id, csrfToken: "c", createdAt: now, expiresAt: now.addingTimeInterval(3600))
    }

    @Test("a sign-out, a password change, a new language and a pause are seen by the very next read, though the old values were just read")
    func changesAreSeenAtOnce() async throws {
        let store = try SQLiteRepository(path: try file())
        let kari = try await store.createUser(NewUser(username: "kari", displayName: "Kari", role: .mentor, passwordHash: "old", language: .english), at: now)
        try await store.createSession(session("a", of: kari))
        try await store.createSession(session("b", of: kari))
        // Read twice: the second answer comes from the cache.
        for _ in 0..<2 {
            #expect(try await store.session(tokenHash: "a", at: now) != nil)
            #expect(try await store.session(tokenHash: "b", at: now) != nil)
            #expect(try await store.user(id: kari.id)?.language == .english)
        }
        try await store.deleteSession(tokenHash: "a")
        #expect(try await store.session(tokenHash: "a", at: now) == nil, "signed out")
        #expect(try await store.changePassword(userID: kari.id, passwordHash: "new", keeping: nil) == ["b"])
        #expect(try await store.session(tokenHash: "b", at: now) == nil, "ended by the password change")
        #expect(try await store.user(id: kari.id)?.passwordHash == "new")
        try await store.setLanguage(.norwegianBokmal, userID: kari.id)
        #expect(try await store.user(id: kari.id)?.language == .norwegianBokmal)
        try await store.setPause(from: nil, until: now.addingTimeInterval(86_400), userID: kari.id)
        #expect(try await store.user(id: kari.id)?.pausedUntil == now.addingTimeInterval(86_400))
        // A cached session still expires on time.
        try await store.createSession(session("c", of: kari))
        #expect(try await store.session(tokenHash: "c", at: now) != nil)
        #expect(try await store.session(tokenHash: "c", at: now.addingTimeInterval(3601)) == nil)
    }

    @Test("a sign-out written by another process on the same file (the varsel command) takes effect within the cache's time limit")
    func anotherProcessIsSeenInTime() async throws {
        let path = try file()
        let server = try SQLiteRepository(path: path)
        let command = try SQLiteRepository(path: path)
        let kari = try await server.createUser(NewUser(username: "kari", displayName: "Kari", role: .mentor, passwordHash: "x", language: .english), at: now)
        try await server.createSession(session("a", of: kari))
        #expect(try await server.session(tokenHash: "a", at: now) != nil)
        try await command.deleteSession(tokenHash: "a")
        try await Task.sleep(for: IdentityCache.maxAge + .milliseconds(100))
        #expect(try await server.session(tokenHash: "a", at: now) == nil)
    }
}
