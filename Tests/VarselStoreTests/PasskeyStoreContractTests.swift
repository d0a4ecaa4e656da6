import Foundation
import Testing
import VarselCore
import VarselStore

/// Passkeys and their challenges in every store.
@Suite("Store contract: passkeys")
struct PasskeyStoreContractTests {
    let now = DemoData.now

    func newPasskey(_ userID: UserID, _ credential: String, name: String = "iPhone") -> NewPasskey {
        NewPasskey(userID: userID, credentialID: credential, publicKey: Data([0xA5, 1, 2, 3]), signCount: 0, name: name)
    }

    @Test(
        "a passkey is saved once, found by its credential, used, renamed and removed; the change log has the adding and removing",
        arguments: StoreKind.allCases)
    func lifecycle(kind: StoreKind) async throws {
        let store = try await kind.make()
        let kari = try await store.createUser(
            NewUser(username: "kari", displayName: "Kari", role: .mentor, passwordHash: "h", language: .english), at: now)
        let ola = try await store.createUser(
            NewUser(username: "ola", displayName: "Ola", role: .mentor, passwordHash: "h", language: .english), at: now)
        let phone = try await store.addPasskey(newPasskey(kari.id, "cred-1"), at: now)
        let laptop = try await store.addPasskey(newPasskey(kari.id, "cred-2", name: "Laptop"), at: now.addingTimeInterval(1))
        await #expect(throws: StoreError.conflict("passkey is registered")) { try await store.addPasskey(newPasskey(ola.id, "cred-1"), at: now) }
        await #expect(throws: StoreError.notFound(.user)) { try await store.addPasskey(newPasskey(999, "cred-3"), at: now) }

        #expect(try await store.passkeys(userID: kari.id).map(\.name) == ["iPhone", "Laptop"])
        #expect(try await store.passkey(credentialID: "cred-1") == phone)
        #expect(try await store.passkey(credentialID: "nope") == nil)
        #expect(phone.publicKey == Data([0xA5, 1, 2, 3]) && phone.lastUsedAt == nil)

        try await store.recordPasskeyUse(id: phone.id, signCount: 7, at: now.addingTimeInterval(60))
        let used = try #require(try await store.passkey(credentialID: "cred-1"))
        #expect(used.signCount == 7 && used.lastUsedAt == now.addingTimeInterval(60))

        #expect(try await store.renamePasskey(id: laptop.id, userID: ola.id, name: "Mine") == nil, "only its owner renames it")
        #expect(try await store.renamePasskey(id: laptop.id, userID: kari.id, name: "Work laptop")?.name == "Work laptop")
        #expect(try await store.removePasskey(id: phone.id, userID: ola.id, at: now) == false, "only its owner removes it")
        #expect(try await store.removePasskey(id: phone.id, userID: kari.id, at: now.addingTimeInterval(120)))
        #expect(try await store.passkeys(userID: kari.id).map(\.id) == [laptop.id])
        let log = try await store.accountLog(userID: kari.id)
        #expect(log.map(\.action) == [.created, .passkeyAdded, .passkeyAdded, .passkeyRemoved])
        #expect(log.map(\.subject).suffix(3) == ["iPhone", "Laptop", "iPhone"])
    }

    @Test(
        "a set-password link adds a passkey once, in one step: the link is used up, sessions end, the password stays empty",
        arguments: StoreKind.allCases)
    func passkeyThroughALink(kind: StoreKind) async throws {
        let store = try await kind.make()
        let nina = try await store.createUser(
            NewUser(username: "nina", displayName: "Nina", role: .mentor, passwordHash: "", language: .english),
            link: PasswordLink(tokenHash: "link", expiresAt: now.addingTimeInterval(3600)), by: nil, at: now)
        let ola = try await store.createUser(
            NewUser(username: "ola", displayName: "Ola", role: .mentor, passwordHash: "h", language: .english), at: now)
        try await store.createSession(
            Session(tokenHash: "s1", userID: nina.id, csrfToken: "c", createdAt: now, expiresAt: now.addingTimeInterval(60)))
        #expect(
            try await store.usePasswordLink(tokenHash: "link", addingPasskey: newPasskey(ola.id, "cred-ola"), at: now) == nil,
            "another account's passkey")
        #expect(
            try await store.usePasswordLink(tokenHash: "link", addingPasskey: newPasskey(nina.id, "cred-1"), at: now.addingTimeInterval(3600)) == nil,
            "expired")
        let used = try #require(try await store.usePasswordLink(tokenHash: "link", addingPasskey: newPasskey(nina.id, "cred-1"), at: now))
        #expect(used.0.id == nina.id && used.1.credentialID == "cred-1")
        #expect(try await store.usePasswordLink(tokenHash: "link", addingPasskey: newPasskey(nina.id, "cred-2"), at: now) == nil, "used once")
        #expect(try await store.session(tokenHash: "s1", at: now) == nil)
        #expect(try await store.user(id: nina.id)?.passwordHash == "")
        #expect(try await store.passkeys(userID: nina.id).map(\.credentialID) == ["cred-1"])
        #expect(try await store.passkeys(userID: ola.id).isEmpty)
        #expect(try await store.accountLog(userID: nina.id).map(\.action) == [.created, .passkeyAdded])
    }

    @Test("a challenge is taken once, never after it expired, and expired ones are forgotten", arguments: StoreKind.allCases)
    func challenges(kind: StoreKind) async throws {
        let store = try await kind.make()
        let challenge = PasskeyChallenge(
            challengeHash: "c1", purpose: .signIn, userID: nil, bindingHash: "attempt", expiresAt: now.addingTimeInterval(300))
        try await store.storeChallenge(challenge, at: now)
        try await store.storeChallenge(
            PasskeyChallenge(
                challengeHash: "c2", purpose: .registration, userID: 4, bindingHash: "session",
                expiresAt: now.addingTimeInterval(300)), at: now)
        #expect(try await store.takeChallenge(challengeHash: "c1", at: now) == challenge)
        #expect(try await store.takeChallenge(challengeHash: "c1", at: now) == nil, "single use")
        #expect(try await store.takeChallenge(challengeHash: "c2", at: now.addingTimeInterval(300)) == nil, "expired")
        try await store.storeChallenge(
            PasskeyChallenge(
                challengeHash: "c3", purpose: .signIn, userID: nil, bindingHash: "a",
                expiresAt: now.addingTimeInterval(10)), at: now)
        _ = try await store.takeChallenge(challengeHash: "other", at: now.addingTimeInterval(20))
        try await store.storeChallenge(
            PasskeyChallenge(
                challengeHash: "c3", purpose: .signIn, userID: nil, bindingHash: "b",
                expiresAt: now.addingTimeInterval(400)), at: now.addingTimeInterval(20))
        #expect(
            try await store.takeChallenge(challengeHash: "c3", at: now.addingTimeInterval(20))?.bindingHash == "b",
            "taking forgot the expired one, so its hash could be stored again")
        // Storing forgets expired ones too: options asked for and never answered do not pile up.
        try await store.storeChallenge(
            PasskeyChallenge(
                challengeHash: "c4", purpose: .signIn, userID: nil, bindingHash: "a",
                expiresAt: now.addingTimeInterval(30)), at: now.addingTimeInterval(20))
        try await store.storeChallenge(
            PasskeyChallenge(
                challengeHash: "c5", purpose: .signIn, userID: nil, bindingHash: "a",
                expiresAt: now.addingTimeInterval(100)), at: now.addingTimeInterval(40))
        try await store.storeChallenge(
            PasskeyChallenge(
                challengeHash: "c4", purpose: .signIn, userID: nil, bindingHash: "c",
                expiresAt: now.addingTimeInterval(100)), at: now.addingTimeInterval(40))
        #expect(try await store.takeChallenge(challengeHash: "c4", at: now.addingTimeInterval(40))?.bindingHash == "c")
    }
}
