import Foundation
import VarselCore

/// Failed sign-ins, counted in the store so that every instance on it shares the limits.
public protocol SignInThrottleStore: Sendable {
    /// The failed sign-ins counted under each of `keys` whose last failure is at or after `since`.
    func signInFailures(keys: [String], since: Date) async throws -> [String: SignInFailures]
    /// Counts one failed sign-in under each of `keys` at `date`; a count whose last failure is before `forgetBefore`
    /// starts again at one, and such stale counts are removed.
    func recordSignInFailure(keys: [String], at date: Date, forgetBefore: Date) async throws
    /// Forgets the failures counted under `key` (its password was right).
    func clearSignInFailures(key: String) async throws
}
