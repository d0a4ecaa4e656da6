import Foundation
import Synchronization
import Testing
import VarselCore
import VarselService
import VarselStore

/// Sign-in throttling is shared by every instance on one store.
@Suite("Store contract: shared sign-in throttling")
struct SharedThrottleTests {
    let now = DemoData.now

    @Test("failure counts are kept per key, read since a time, forgotten when stale, and cleared", arguments: StoreKind.allCases)
    func failureCounts(kind: StoreKind) async throws {
        let store = try await kind.make()
        try await store.recordSignInFailure(keys: ["a", "b"], at: now, forgetBefore: now.addingTimeInterval(-900))
        try await store.recordSignInFailure(keys: ["a"], at: now.addingTimeInterval(10), forgetBefore: now.addingTimeInterval(-890))
        let counted = try await store.signInFailures(keys: ["a", "b", "c"], since: now.addingTimeInterval(-900))
        #expect(counted == ["a": SignInFailures(count: 2, last: now.addingTimeInterval(10)), "b": SignInFailures(count: 1, last: now)])
        #expect(try await store.signInFailures(keys: ["a", "b"], since: now.addingTimeInterval(5)).keys.sorted() == ["a"])
        // A failure long after: the stale counts go, and "b" starts again at one.
        let later = now.addingTimeInterval(3600)
        try await store.recordSignInFailure(keys: ["b"], at: later, forgetBefore: later.addingTimeInterval(-900))
        #expect(try await store.signInFailures(keys: ["a", "b"], since: .distantPast) == ["b": SignInFailures(count: 1, last: later)])
        try await store.clearSignInFailures(key: "b")
        #expect(try await store.signInFailures(keys: ["b"], since: .distantPast).isEmpty)
    }

    @Test("wrong passwords tried through one instance slow the next attempt on another; a right one clears them", arguments: StoreKind.allCases)
    func twoInstances(kind: StoreKind) async throws {
        let store = try await kind.make()
        let clock = Mutex(now)
        var configuration = LoginThrottle.Configuration()
        configuration.accountFailures = 3
        configuration.baseDelay = 60
        let first = LoginThrottle(configuration: configuration, now: { clock.withLock { $0 } }, shared: store)
        let second = LoginThrottle(configuration: configuration, now: { clock.withLock { $0 } }, shared: store)
        for _ in 0..<3 {
            guard case let .proceed(attempt) = await first.reserve(account: "kari", client: "203.0.113.9") else {
                Issue.record("the free failures were refused")
                return
            }
            await first.failed(attempt)
        }
        guard case let .retry(after) = await second.reserve(account: "Kari", client: "203.0.113.9") else {
            Issue.record("the other instance let a fourth guess through at once")
            return
        }
        #expect(after > 0)
        // Someone else's failures from another address never delay the mentor's own sign-in.
        guard case let .proceed(own) = await second.reserve(account: "kari", client: "198.51.100.7") else {
            Issue.record("another address was delayed")
            return
        }
        await second.succeeded(own)
        clock.withLock { $0 = $0.addingTimeInterval(after) }
        guard case let .proceed(attempt) = await second.reserve(account: "kari", client: "203.0.113.9") else {
            Issue.record("the delay did not end")
            return
        }
        await second.succeeded(attempt)
        // The right password cleared the count for every instance: on the first, one more wrong guess is the first
        // of a fresh budget, not the fourth.
        guard case let .proceed(again) = await first.reserve(account: "kari", client: "203.0.113.9") else {
            Issue.record("a right password on another instance did not clear the failures")
            return
        }
        await first.failed(again)
        guard case .proceed = await first.reserve(account: "kari", client: "203.0.113.9") else {
            Issue.record("the first instance still counted the failures a right password cleared")
            return
        }
    }
}
