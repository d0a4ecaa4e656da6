import Foundation
import VarselStore

/// Limits sign-in attempts so that passwords cannot be guessed quickly, without letting anyone lock a mentor out.
///
/// Three budgets, each checked and reserved in one step *before* the password is checked, so parallel attempts
/// cannot all slip through while bcrypt runs:
/// - per account and client (`kari` from 203.0.113.9): a few free failures, then a delay that doubles with
///   each failure. Someone else's failures, from another address, never delay the mentor's own sign-in.
/// - per client across accounts: stops one address from trying one password on many accounts (spraying).
/// - a global ceiling on checks in progress, so a flood cannot take every bcrypt thread.
/// An attempt in progress counts as a failure until it ends; a success clears its account-and-client budget.
///
/// Failures are counted in the store as well (under a hash of the key, so it holds no usernames or addresses):
/// every instance on one database sees them, and trying one instance after another gains nothing. Attempts in
/// progress stay per instance; if the store cannot be reached, this instance's own counts still hold.
public actor LoginThrottle {
    /// The limits.
    public struct Configuration: Sendable {
        /// Free failures for one account from one client before the delay starts.
        public var accountFailures = 5
        /// Free failures from one client, across all accounts, before the delay starts.
        public var clientFailures = 20
        /// Password checks allowed to run at once across the whole server.
        public var concurrentChecks = 16
        /// The first delay; each further failure doubles it, up to `maximumDelay`.
        public var baseDelay: TimeInterval = 1
        public var maximumDelay: TimeInterval = 300
        /// Failures older than this are forgotten.
        public var memory: TimeInterval = 900

        public init() {}
    }

    /// A reserved attempt: pass it back to ``succeeded(_:)`` or ``failed(_:)``.
    public struct Attempt: Sendable {
        let keys: [String]
    }

    /// What ``reserve(account:client:)`` decided.
    public enum Decision: Sendable {
        case proceed(Attempt)
        /// Refused; the client may try again after this many seconds.
        case retry(after: TimeInterval)
    }

    private struct Entry {
        var failures = 0
        var pending = 0
        var last: Date
    }

    public let configuration: Configuration
    private let now: @Sendable () -> Date
    private let shared: (any SignInThrottleStore)?
    private var entries: [String: Entry] = [:]
    private var checksInProgress = 0
    /// Bumped by every attempt that ends, so a store read that raced one is not taken as the whole truth.
    private var revision = 0

    public init(configuration: Configuration = .init(), now: @escaping @Sendable () -> Date, shared: (any SignInThrottleStore)? = nil) {
        self.configuration = configuration
        self.now = now
        self.shared = shared
    }

    /// Reserves an attempt for `account` from `client`, or says how long to wait.
    public func reserve(account: String, client: String) async -> Decision {
        let keys = [
            ("account:" + account.lowercased() + "|client:" + client, configuration.accountFailures),
            ("client:" + client, configuration.clientFailures),
        ]
        await catchUp(keys.map(\.0))
        // From here to the reservation nothing waits, so parallel attempts cannot all pass the same check.
        let current = now()
        guard checksInProgress < configuration.concurrentChecks else { return .retry(after: 1) }
        let wait = keys.map { key, free in delay(for: key, free: free, at: current) }.max() ?? 0
        guard wait <= 0 else { return .retry(after: wait) }
        for (key, _) in keys {
            var entry = fresh(key, at: current)
            entry.pending += 1
            entries[key] = entry
        }
        checksInProgress += 1
        return .proceed(Attempt(keys: keys.map(\.0)))
    }

    /// The attempt's password was right: its account-and-client failures are forgotten, here and in the store.
    public func succeeded(_ attempt: Attempt) async {
        end(attempt, failed: false)
        if let shared, let key = attempt.keys.first { try? await shared.clearSignInFailures(key: Self.storedKey(key)) }
    }

    /// The attempt's password was wrong (or the account does not exist): counted in the store, then here. It stays
    /// in progress (and so counted) until the store has it.
    public func failed(_ attempt: Attempt) async {
        let current = now()
        try? await shared?.recordSignInFailure(
            keys: attempt.keys.map(Self.storedKey), at: current,
            forgetBefore: current.addingTimeInterval(-configuration.memory))
        end(attempt, failed: true)
    }

    /// Takes the failures every instance counted for `keys` from the store: when it answers, its counts are the
    /// truth (a right password on another instance cleared them); when it does not, this instance's own stand.
    private func catchUp(_ keys: [String]) async {
        guard let shared else { return }
        let current = now()
        let seen = revision
        guard let counted = try? await shared.signInFailures(keys: keys.map(Self.storedKey), since: current.addingTimeInterval(-configuration.memory))
        else { return }
        for key in keys {
            var entry = fresh(key, at: current)
            let failures = counted[Self.storedKey(key)]
            // An attempt that ended while the store was read may be missing from what it said: keep the larger.
            entry.failures = revision == seen ? failures?.count ?? 0 : max(entry.failures, failures?.count ?? 0)
            entry.last = max(entry.last, failures?.last ?? entry.last)
            entries[key] = entry.failures == 0 && entry.pending == 0 ? nil : entry
        }
    }

    /// The key as the store keeps it: a hash, so the table holds no usernames or client addresses.
    static func storedKey(_ key: String) -> String { Tokens.hash(key) }

    /// How many password checks are running now.
    public var inProgress: Int { checksInProgress }

    private func end(_ attempt: Attempt, failed: Bool) {
        let current = now()
        revision += 1
        checksInProgress = max(0, checksInProgress - 1)
        for (index, key) in attempt.keys.enumerated() {
            guard var entry = entries[key] else { continue }
            entry.pending = max(0, entry.pending - 1)
            if failed {
                entry.failures += 1
                entry.last = current
            } else if index == 0 {
                entry.failures = 0
            }
            entries[key] = entry.failures == 0 && entry.pending == 0 ? nil : entry
        }
        // Forget idle entries, so the table cannot grow without bound.
        if entries.count > 10_000 {
            entries = entries.filter { $0.value.pending > 0 || current.timeIntervalSince($0.value.last) < configuration.memory }
        }
    }

    /// The entry for `key`, its failures forgotten when they are old.
    private func fresh(_ key: String, at current: Date) -> Entry {
        guard var entry = entries[key] else { return Entry(last: current) }
        if entry.pending == 0, current.timeIntervalSince(entry.last) >= configuration.memory { entry.failures = 0 }
        return entry
    }

    /// Seconds `key` must wait: attempts in progress count as failures, so the budget cannot be overdrawn.
    private func delay(for key: String, free: Int, at current: Date) -> TimeInterval {
        let entry = fresh(key, at: current)
        let used = entry.failures + entry.pending
        guard used >= free else { return 0 }
        // Over budget with checks still running: wait for them to finish.
        if entry.failures < free { return 1 }
        let delay = min(configuration.maximumDelay, configuration.baseDelay * pow(2, Double(entry.failures - free)))
        let remaining = entry.last.addingTimeInterval(delay).timeIntervalSince(current)
        return entry.pending > 0 ? max(1, remaining) : remaining
    }
}
