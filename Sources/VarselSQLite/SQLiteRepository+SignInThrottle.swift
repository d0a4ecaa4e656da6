import Foundation
import GRDB
import VarselCore
import VarselStore

/// Failed sign-ins, shared by every instance on the store.
extension SQLiteRepository {
    // MARK: Sign-in throttling

    public func signInFailures(keys: [String], since: Date) async throws -> [String: SignInFailures] {
        try read { db in
            var found: [String: SignInFailures] = [:]
            for key in keys {
                if let row = try Row.fetchOne(
                    db, sql: "SELECT failures, last FROM sign_in_failure WHERE key = ? AND last >= ?",
                    arguments: [key, since.timeIntervalSince1970])
                {
                    found[key] = SignInFailures(count: row["failures"], last: Self.date(row["last"]))
                }
            }
            return found
        }
    }

    public func recordSignInFailure(keys: [String], at date: Date, forgetBefore: Date) async throws {
        try await commits.write { db in
            try db.execute(sql: "DELETE FROM sign_in_failure WHERE last < ?", arguments: [forgetBefore.timeIntervalSince1970])
            for key in keys {
                try db.execute(
                    sql: """
                        INSERT INTO sign_in_failure (key, failures, last) VALUES (?, 1, ?)
                        ON CONFLICT(key) DO UPDATE SET failures = failures + 1, last = excluded.last
                        """, arguments: [key, date.timeIntervalSince1970])
            }
        }
    }

    public func clearSignInFailures(key: String) async throws {
        try await commits.write { db in try db.execute(sql: "DELETE FROM sign_in_failure WHERE key = ?", arguments: [key]) }
    }
}
