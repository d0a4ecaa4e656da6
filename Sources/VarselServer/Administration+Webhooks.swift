import Foundation
import VarselCore
import VarselPush
import VarselService
import VarselStore

/// The work of the `varsel webhook` subcommands: the endpoints integrations are told of events at.
extension Administration {
    /// Adds an endpoint at `url` for `events` to integration `integrationID` in the store at `database` (which must
    /// exist); returns the signing secret, to print alone on standard output, and the sentence that says what was
    /// added where. With `dataKeyFile` the secret is encrypted as it is stored; without, the first upkeep of a server
    /// with a data key encrypts it. `allowsPrivate` accepts http and private addresses (tests on one machine).
    public static func addWebhook(
        database: String, dataKeyFile: String?, integrationID: Int64, url: String, events: [String], allowsPrivate: Bool
    ) async throws -> (secret: String, summary: String) {
        try await answering {
            let keys = try dataKeyFile.map { try DataKeyring.load(path: $0) }
            let policy = PushEndpointPolicy(allowsInsecureEndpoints: allowsPrivate)
            return try await withServices(database, keys: keys, webhookEndpointPolicy: policy) { services, _ in
                let shown = shownName(of: database)
                let added: Webhooks.Added
                do {
                    added = try await services.webhooks.add(integrationID: UserID(integrationID), url: url, events: events, by: nil)
                } catch Webhooks.Refusal.unknownIntegration {
                    throw Failure("There is no active integration token \(integrationID) in \(shown): see `varsel token list`.")
                } catch let invalid as InvalidInput {
                    let field = invalid.issues.first
                    throw Failure("The webhook's \(field?.field ?? "input") \(field?.message ?? "is not valid"); nothing was added to \(shown).")
                }
                let count = added.endpoint.events.count == 1 ? "1 event" : "\(added.endpoint.events.count) events"
                return (
                    added.secret,
                    "Added webhook endpoint \(added.endpoint.id) for integration token \(integrationID) (\(count)) in \(shown); "
                        + "its signing secret is shown this once: keep it in that system's secrets."
                )
            }
        }
    }

    /// The webhook endpoints of the store at `database`: a header and one tab-separated line each (id, integration,
    /// state, made, events, URL), and a sentence that counts them and names the database.
    public static func webhookList(database: String) async throws -> (lines: [String], summary: String) {
        try await answering {
            try await withServices(database) { services, _ in
                let endpoints = try await services.webhooks.endpoints(integrationID: nil, for: nil)
                let lines =
                    ["id\tintegration\tstate\tmade\tevents\turl"]
                    + endpoints.map {
                        "\($0.id)\t\($0.integrationID)\t\($0.disabledAt == nil ? ($0.failingSince == nil ? "on" : "failing") : "off")\t"
                            + "\(minute($0.createdAt))\t\(WebhookEndpoint.storedEvents($0.events).replacingOccurrences(of: " ", with: ","))\t\($0.url)"
                    }
                let count = endpoints.count == 1 ? "1 webhook endpoint" : "\(endpoints.count) webhook endpoints"
                return (lines, "\(count) in \(shownName(of: database)).")
            }
        }
    }

    /// Removes webhook endpoint `id` from the store at `database`; returns the line to print.
    public static func removeWebhook(database: String, id: Int64) async throws -> String {
        try await answering {
            try await withServices(database) { services, _ in
                let shown = shownName(of: database)
                do {
                    try await services.webhooks.remove(id, by: nil)
                } catch Webhooks.Refusal.unknownEndpoint {
                    throw Failure("There is no webhook endpoint \(id) in \(shown): see `varsel webhook list`.")
                }
                return "Removed webhook endpoint \(id) from \(shown), with what was still queued for it."
            }
        }
    }
}

/// The names of the events webhooks carry, as the command line lists them.
public enum WebhookEventNames {
    public static var all: String { WebhookEventType.allCases.map(\.rawValue).joined(separator: ", ") }
}
