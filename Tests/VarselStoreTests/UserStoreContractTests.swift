import Foundation
import Testing
import VarselCore
import VarselStore

/// Users, sessions and preferences in every store.
@Suite("Store contract: users, sessions and preferences")
struct UserStoreContractTests: StoreContract {
    let now = DemoData.now

    @Test("users are unique by username, case-insensitively", arguments: StoreKind.allCases)
    func uniqueUsernames(kind: StoreKind) async throws {
        let store = try await kind.make()
        let created = try await mentor(store, "kari")
        #expect(try await store.user(username: "KARI")?.id == created.id)
        await #expect(throws: StoreError.conflict("username is taken")) { try await self.mentor(store, "Kari") }
        #expect(try await store.users().count == 1)
    }

    @Test("sessions expire and can be deleted", arguments: StoreKind.allCases)
    func sessions(kind: StoreKind) async throws {
        let store = try await kind.make()
        let user = try await mentor(store)
        let session = Session(tokenHash: "h", userID: user.id, csrfToken: "c", createdAt: now, expiresAt: now.addingTimeInterval(60))
        try await store.createSession(session)
        #expect(try await store.session(tokenHash: "h", at: now) == session)
        #expect(try await store.session(tokenHash: "h", at: now.addingTimeInterval(61)) == nil)
        #expect(try await store.deleteExpiredSessions(at: now.addingTimeInterval(61)) == 1)
        try await store.createSession(session)
        try await store.deleteSession(tokenHash: "h")
        #expect(try await store.session(tokenHash: "h", at: now) == nil)
    }

    @Test("a session is read together with its user, as each is read alone, until it expires", arguments: StoreKind.allCases)
    func sessionWithUser(kind: StoreKind) async throws {
        let store = try await kind.make()
        _ = try await mentor(store, "first")
        let user = try await mentor(store, "ingrid")
        try await store.setPause(from: now.addingTimeInterval(3600), until: now.addingTimeInterval(7200), userID: user.id)
        try await store.setLanguage(.norwegianBokmal, userID: user.id)
        let session = Session(tokenHash: "h", userID: user.id, csrfToken: "c", createdAt: now, expiresAt: now.addingTimeInterval(60))
        try await store.createSession(session)
        let read = try #require(try await store.signedIn(tokenHash: "h", at: now))
        #expect(read.session == session)
        #expect(read.user == (try await store.user(id: user.id)))
        #expect(read.user.language == .norwegianBokmal && read.user.pausedUntil == now.addingTimeInterval(7200))
        #expect(try await store.signedIn(tokenHash: "h", at: now.addingTimeInterval(61)) == nil, "expired")
        #expect(try await store.signedIn(tokenHash: "unknown", at: now) == nil)
    }

    @Test("changing a password replaces the hash and ends every other session of that user", arguments: StoreKind.allCases)
    func passwordChange(kind: StoreKind) async throws {
        let store = try await kind.make()
        let user = try await mentor(store)
        let other = try await store.createUser(
            NewUser(username: "other", displayName: "O", role: .mentor, passwordHash: "x", language: .english), at: now)
        for (hash, owner) in [("kept", user.id), ("ended", user.id), ("theirs", other.id)] {
            try await store.createSession(
                Session(tokenHash: hash, userID: owner, csrfToken: "c", createdAt: now, expiresAt: now.addingTimeInterval(60)))
        }
        #expect(try await store.changePassword(userID: user.id, passwordHash: "new-hash", keeping: "kept", at: now) == ["ended"])
        #expect(try await store.user(id: user.id)?.passwordHash == "new-hash")
        #expect(try await store.session(tokenHash: "kept", at: now) != nil)
        #expect(try await store.session(tokenHash: "ended", at: now) == nil)
        #expect(try await store.session(tokenHash: "theirs", at: now) != nil)
    }

    @Test("preferences default to the standard set and persist", arguments: StoreKind.allCases)
    func preferences(kind: StoreKind) async throws {
        let store = try await kind.make()
        let user = try await mentor(store)
        #expect(try await store.preferences(for: user.id) == .standard)
        var changed = NotificationPreferences.standard
        changed.isSoundEnabled = false
        changed.enabledKinds = [.assignment]
        try await store.setPreferences(changed, for: user.id)
        #expect(try await store.preferences(for: user.id) == changed)
    }
}
