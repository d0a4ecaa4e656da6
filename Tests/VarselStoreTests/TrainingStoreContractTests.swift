import Foundation
import Testing
import VarselCore
import VarselStore

/// Certifications in every store: each expiry warning is recorded once.
@Suite("Store contract: training")
struct TrainingStoreContractTests: StoreContract {
    let now = DemoData.now

    @Test("an expiry warning is recorded exactly once per threshold", arguments: StoreKind.allCases)
    func expiryWarnings(kind: StoreKind) async throws {
        let store = try await kind.make()
        let user = try await mentor(store)
        let certs = try await store.changeAccount(
            userID: user.id, .certifications([NewCertification(name: "Peer mentor", expiresAt: now.addingTimeInterval(5 * 86400))]), log: [],
            at: Date()
        ).certifications
        #expect(try await store.certifications(expiringBefore: now.addingTimeInterval(30 * 86400)).map(\.id) == certs.map(\.id))
        let warning = note(user.id, kind: .certificationExpiry)
        #expect(
            try await store.recordExpiryWarning(certificationID: certs[0].id, threshold: 7, alsoCovers: [30], notification: warning, at: now) != nil)
        #expect(
            try await store.recordExpiryWarning(certificationID: certs[0].id, threshold: 7, alsoCovers: [30], notification: warning, at: now) == nil)
        #expect(
            try await store.recordExpiryWarning(certificationID: certs[0].id, threshold: 30, alsoCovers: [], notification: warning, at: now) == nil)
        #expect(try await store.unreadCount(for: user.id) == 1)
        // Re-recording the same certification keeps it (and its warnings).
        let again = try await store.changeAccount(
            userID: user.id, .certifications([NewCertification(name: "Peer mentor", expiresAt: now.addingTimeInterval(5 * 86400))]), log: [],
            at: Date()
        ).certifications
        #expect(again.map(\.id) == certs.map(\.id))
    }
}
