import Foundation
import GRDB
import Synchronization
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
        let kari = try await store.createUser(
            NewUser(username: "kari", displayName: "Kari", role: .mentor, passwordHash: "old", language: .english), at: now)
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
        #expect(try await store.changePassword(userID: kari.id, passwordHash: "new", keeping: nil, at: DemoData.now) == ["b"])
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

    /// A clock that stands still until the test moves it.
    final class ManualClock: Sendable {
        private let instant = Mutex(ContinuousClock.now)
        var now: ContinuousClock.Instant { instant.withLock { $0 } }
        func advance(by duration: Duration) { instant.withLock { $0 += duration } }
    }

    @Test(
        "the cache trusts an entry for its whole time limit and forgets it then, so a sign-out by another process on the file (the varsel command) takes effect in time"
    )
    func anotherProcessIsSeenInTime() async throws {
        let path = try file()
        // The server's connections, watched by a cache on a clock the test moves; the command is another store on the file.
        let server = try DatabasePool(path: path)
        let command = try SQLiteRepository(path: path)
        let clock = ManualClock()
        let cache = IdentityCache(now: { clock.now })
        server.add(transactionObserver: cache, extent: .databaseLifetime)
        let kari = try await command.createUser(
            NewUser(username: "kari", displayName: "Kari", role: .mentor, passwordHash: "x", language: .english), at: now)
        try await command.createSession(session("a", of: kari))
        let read = try #require(try await command.session(tokenHash: "a", at: now))
        cache.keep(session: read, generation: cache.generation)
        try await command.deleteSession(tokenHash: "a")
        // The server's observer did not see the other process's write: until the limit, the cache still answers.
        clock.advance(by: IdentityCache.maxAge - .nanoseconds(1))
        #expect(cache.session(tokenHash: "a") == read, "an entry is trusted for the whole time limit")
        clock.advance(by: .nanoseconds(1))
        #expect(cache.session(tokenHash: "a") == nil, "trusted past the time limit")
        // A write through the server's own connections is seen at once, without the clock moving.
        cache.keep(user: kari, generation: cache.generation)
        #expect(cache.user(id: kari.id) == kari)
        try await server.write { try $0.execute(sql: "UPDATE user SET display_name = 'K' WHERE id = ?", arguments: [kari.id]) }
        #expect(cache.user(id: kari.id) == nil)
    }
}
