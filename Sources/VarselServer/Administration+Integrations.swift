import Foundation
import VarselCore
import VarselService
import VarselStore

/// The work of the `varsel token` subcommands: integration tokens for member and case systems.
extension Administration {
    /// Makes an integration token named `name` with `role` in the store at `database` (which must exist); returns the
    /// token, to print alone on standard output, and the sentence that says what was made where.
    public static func createToken(database: String, name: String, role: String) async throws -> (token: String, summary: String) {
        try await answering {
            try await withServices(database) { services, _ in
                let issued = try await services.integrations.create(name: name, role: role, by: nil)
                let account = issued.integration.account
                return (
                    issued.token,
                    "Made integration token \(account.id) for \"\(account.displayName)\" (\(account.role.rawValue)) in "
                        + "\(shownName(of: database)); it is shown this once: keep it in that system's secrets."
                )
            }
        }
    }

    /// The integration tokens of the store at `database`: a header and one tab-separated line each (id, role, state,
    /// made, last used, name), and a sentence that counts them and names the database.
    public static func tokenList(database: String) async throws -> (lines: [String], summary: String) {
        try await answering {
            try await withServices(database) { services, _ in
                let integrations = try await services.integrations.list(for: nil)
                let lines =
                    ["id\trole\tstate\tmade\tlast used\tname"]
                    + integrations.map {
                        "\($0.id)\t\($0.account.role.rawValue)\t\($0.isRevoked ? "revoked" : "active")\t\(minute($0.account.createdAt))\t"
                            + "\($0.lastUsedAt.map(minute) ?? "never")\t\($0.account.displayName)"
                    }
                let count = integrations.count == 1 ? "1 integration token" : "\(integrations.count) integration tokens"
                return (lines, "\(count) in \(shownName(of: database)).")
            }
        }
    }

    /// Revokes integration token `id` in the store at `database`; returns the line to print.
    public static func revokeToken(database: String, id: Int64) async throws -> String {
        try await answering {
            try await withServices(database) { services, _ in
                let shown = shownName(of: database)
                let integration: Integration
                do {
                    integration = try await services.integrations.integration(UserID(id), for: nil)
                } catch Integrations.Refusal.unknownIntegration {
                    throw Failure("There is no integration token \(id) in \(shown): see `varsel token list`.")
                }
                guard !integration.isRevoked else { return "Integration token \(id) in \(shown) is revoked already; nothing changed." }
                try await services.integrations.revoke(integration.id, by: nil)
                return
                    "Revoked integration token \(id) (\"\(integration.account.displayName)\") in \(shown): it no longer works, and cannot be turned on again."
            }
        }
    }

    /// A moment as the lists print it: UTC, to the minute (`2026-11-27T14:02Z`).
    static func minute(_ date: Date) -> String {
        let seconds = Int64(date.timeIntervalSince1970)
        return String(
            ISO8601DateFormatter.string(
                from: Date(timeIntervalSince1970: TimeInterval(seconds - seconds % 60)), timeZone: .gmt,
                formatOptions: [.withInternetDateTime]
            ).dropLast(4)) + "Z"
    }
}
