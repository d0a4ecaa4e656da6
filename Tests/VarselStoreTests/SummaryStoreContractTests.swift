import Foundation
import Testing
import VarselCore
import VarselStore

/// When each person's summary is due, in every store: set, kept gathering from where it was, moved on once, removed.
@Suite("Store contract: summaries")
struct SummaryStoreContractTests: StoreContract {
    let now = DemoData.now

    @Test("a summary is due from its time, earliest first; a new time keeps where it gathers from; nil removes it", arguments: StoreKind.allCases)
    func dueAndRescheduled(kind: StoreKind) async throws {
        let store = try await kind.make()
        let (kari, ola) = (try await mentor(store, "kari"), try await mentor(store, "ola"))
        try await store.scheduleSummary(for: kari.id, dueAt: now + 7200, at: now)
        try await store.scheduleSummary(for: ola.id, dueAt: now + 3600, at: now + 10)
        #expect(try await store.dueSummaries(at: now + 3599, limit: 10).isEmpty)
        #expect(
            try await store.dueSummaries(at: now + 7200, limit: 10) == [
                DueSummary(userID: ola.id, dueAt: now + 3600, since: now + 10), DueSummary(userID: kari.id, dueAt: now + 7200, since: now),
            ])
        #expect(try await store.dueSummaries(at: now + 7200, limit: 1).map(\.userID) == [ola.id])
        // A new time, as when the person changes it: what came since `now` still waits for it.
        try await store.scheduleSummary(for: kari.id, dueAt: now + 60, at: now + 30)
        #expect(try await store.dueSummaries(at: now + 60, limit: 10) == [DueSummary(userID: kari.id, dueAt: now + 60, since: now)])
        try await store.scheduleSummary(for: kari.id, dueAt: nil, at: now + 30)
        #expect(try await store.dueSummaries(at: now + 7200, limit: 10).map(\.userID) == [ola.id])
    }

    @Test("a due summary moves on once: a second instance that read it due too finds it moved", arguments: StoreKind.allCases)
    func movesOnOnce(kind: StoreKind) async throws {
        let store = try await kind.make()
        let kari = try await mentor(store, "kari")
        try await store.scheduleSummary(for: kari.id, dueAt: now + 3600.25, at: now + 0.5)
        let due = try #require(try await store.dueSummaries(at: now + 3600.25, limit: 10).first)
        #expect(try await store.advanceSummary(due, to: now + 90000, since: now + 3600.25))
        #expect(try await store.advanceSummary(due, to: now + 90000, since: now + 3600.25) == false)
        #expect(try await store.dueSummaries(at: now + 90000, limit: 10) == [DueSummary(userID: kari.id, dueAt: now + 90000, since: now + 3600.25)])
    }
}
