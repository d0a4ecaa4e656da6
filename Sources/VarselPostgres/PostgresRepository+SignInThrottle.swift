import Foundation
import Logging
import PostgresNIO
import VarselCore
import VarselStore

/// Failed sign-ins, shared by every instance on the store.
extension PostgresRepository {
    // MARK: Sign-in throttling

    public func signInFailures(keys: [String], since: Date) async throws -> [String: SignInFailures] {
        try await read { c in
            var found: [String: SignInFailures] = [:]
            for row in try await c.query(
                """
                SELECT key, failures, last FROM sign_in_failure WHERE key = ANY(\(keys)) AND last >= \(since.timeIntervalSince1970)
                """, logger: self.logger
            ).collect() {
                let (key, failures, last) = try row.decode((String, Int, Double).self)
                found[key] = SignInFailures(count: failures, last: Self.date(last))
            }
            return found
        }
    }

    public func recordSignInFailure(keys: [String], at date: Date, forgetBefore: Date) async throws {
        try await write { c in
            try await c.query("DELETE FROM sign_in_failure WHERE last < \(forgetBefore.timeIntervalSince1970)", logger: self.logger)
            // One row per key, counted up atomically: instances failing the same key at once both count.
            for key in keys.sorted() {
                try await c.query(
                    """
                    INSERT INTO sign_in_failure (key, failures, last) VALUES (\(key), 1, \(date.timeIntervalSince1970))
                    ON CONFLICT (key) DO UPDATE SET failures = sign_in_failure.failures + 1, last = EXCLUDED.last
                    """, logger: self.logger)
            }
        }
    }

    public func clearSignInFailures(key: String) async throws {
        try await write { c in try await c.query("DELETE FROM sign_in_failure WHERE key = \(key)", logger: self.logger) }
    }
}
