import Foundation
import Testing
import VarselCore
import VarselStore

/// Integration tokens and their accounts in every store.
@Suite("Store contract: integration tokens")
struct IntegrationStoreContractTests: StoreContract {
    let now = DemoData.now

    func system(_ name: String = "integration-one", role: Role = .coordinator) -> NewUser {
        NewUser(username: name, displayName: "Member system", role: role, passwordHash: "", language: .english)
    }

    @Test("an integration is an account marked as one, found by its token's hash, with who made it and its change log", arguments: StoreKind.allCases)
    func createAndFind(kind: StoreKind) async throws {
        let store = try await kind.make()
        let admin = try await store.createUser(
            NewUser(username: "anne", displayName: "Anne", role: .admin, passwordHash: "x", language: .english), at: now)
        let made = try await store.createIntegration(system(), tokenHash: "hash-1", by: admin.id, at: now)
        #expect(made.account.isIntegration)
        #expect(made.account.role == .coordinator)
        #expect(made.createdBy == admin.id)
        #expect(made.lastUsedAt == nil)
        #expect(try await store.user(id: made.id)?.isIntegration == true)
        #expect(try await store.user(id: admin.id)?.isIntegration == false)
        let found = try #require(try await store.integration(tokenHash: "hash-1"))
        #expect(found.account == made.account)
        #expect(found.createdBy == admin.id)
        #expect(try await store.integration(tokenHash: "hash-2") == nil)
        #expect(try await store.integrations().map(\.id) == [made.id])
        let log = try await store.accountLog(userID: made.id)
        #expect(log.map(\.action) == [.created])
        #expect(log.first?.actorID == admin.id)
    }

    @Test("a token's last use is recorded, and a deactivated account reads as revoked", arguments: StoreKind.allCases)
    func useAndRevoke(kind: StoreKind) async throws {
        let store = try await kind.make()
        let made = try await store.createIntegration(system(), tokenHash: "hash-1", by: nil, at: now)
        let later = now.addingTimeInterval(90)
        try await store.recordIntegrationUse(userID: made.id, at: later)
        #expect(try await store.integration(tokenHash: "hash-1")?.lastUsedAt == later)
        #expect(try await store.integrations().first?.isRevoked == false)
        _ = try await store.changeAccount(userID: made.id, .deactivate, log: [NewAccountLogEntry(actorID: nil, action: .deactivated)], at: later)
        #expect(try await store.integration(tokenHash: "hash-1")?.isRevoked == true)
        #expect(try await store.integrations().first?.isRevoked == true)
        await #expect(throws: StoreError.notFound(.user)) { try await store.recordIntegrationUse(userID: UserID(made.id.rawValue + 99), at: later) }
    }

    @Test("an integration's username is unique among every account's", arguments: StoreKind.allCases)
    func uniqueUsername(kind: StoreKind) async throws {
        let store = try await kind.make()
        _ = try await mentor(store, "integration-one")
        await #expect(throws: StoreError.conflict("username is taken")) {
            try await store.createIntegration(self.system("Integration-One"), tokenHash: "hash-1", by: nil, at: self.now)
        }
        #expect(try await store.integrations().isEmpty)
    }
}
