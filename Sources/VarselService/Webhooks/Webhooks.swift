import Foundation
import VarselCore
import VarselPush
import VarselStore

/// Webhooks: the endpoints an integration's system is told of what happens at, and what was delivered to them.
///
/// An administrator (or the operator at the command line) adds an endpoint to an integration: a URL and the events
/// it wants. Its signing secret is shown once. Only https URLs on public hosts are accepted, unless the server
/// allows private endpoints (for tests on one machine).
public struct Webhooks: Sendable {
    /// Why a change was refused; each sentence is safe to show and names no value typed in.
    public enum Refusal: Error, Sendable, Equatable {
        /// Only an administrator (or the command line) manages webhooks.
        case adminOnly
        /// No integration with that id, or it was revoked.
        case unknownIntegration
        /// No endpoint with that id.
        case unknownEndpoint

        public var sentence: String {
            switch self {
            case .adminOnly: "Only an administrator manages webhooks."
            case .unknownIntegration: "No such integration token, or it was revoked."
            case .unknownEndpoint: "No such webhook endpoint."
            }
        }
    }

    /// An endpoint just added, with its secret to show once.
    public struct Added: Sendable {
        public var endpoint: WebhookEndpoint
        public var secret: String
    }

    /// The most deliveries one endpoint's list shows.
    public static let listedDeliveries = 20

    let repository: any WebhookStore & IntegrationStore
    let policy: PushEndpointPolicy
    let now: @Sendable () -> Date

    public init(repository: any WebhookStore & IntegrationStore, policy: PushEndpointPolicy, now: @escaping @Sendable () -> Date) {
        self.repository = repository
        self.policy = policy
        self.now = now
    }

    /// Adds an endpoint at `url` for `events` (their names, `assignment.created` and the like) to integration
    /// `integrationID`, by `actor` (nil: the command line). Throws ``InvalidInput`` naming `url` or `events`, or a
    /// ``Refusal``.
    public func add(integrationID: UserID, url: String, events: [String], by actor: User?) async throws -> Added {
        try Self.requireAdmin(actor)
        guard let integration = try await repository.integrations().first(where: { $0.id == integrationID }), !integration.isRevoked else {
            throw Refusal.unknownIntegration
        }
        let trimmed = url.trimmingCharacters(in: .whitespaces)
        var issues: [Validation.Issue] = []
        if trimmed.isEmpty {
            issues.append(.init(field: "url", rule: .required))
        } else {
            do {
                _ = try policy.check(trimmed)
            } catch {
                issues.append(.init(field: "url", rule: .other("must be an https URL on a public host, with no user name or fragment")))
            }
        }
        let types = events.compactMap(WebhookEventType.init(rawValue:))
        if events.isEmpty {
            issues.append(.init(field: "events", rule: .required))
        } else if types.count != events.count {
            issues.append(.init(field: "events", rule: .other("must name only the events Varsel sends")))
        }
        guard issues.isEmpty else { throw InvalidInput(issues) }
        let key = WebhookSignature.newKey()
        let endpoint = try await repository.createWebhookEndpoint(
            NewWebhookEndpoint(integrationID: integrationID, url: trimmed, events: Set(types), secret: key, createdBy: actor?.id), at: now())
        return Added(endpoint: endpoint, secret: WebhookSignature.secret(key: key))
    }

    /// The endpoints of integration `integrationID` (every integration's when nil), oldest first.
    public func endpoints(integrationID: UserID?, for actor: User?) async throws -> [WebhookEndpoint] {
        try Self.requireAdmin(actor)
        return try await repository.webhookEndpoints(integrationID: integrationID)
    }

    /// Endpoint `id`; ``Refusal/unknownEndpoint`` for any other id.
    public func endpoint(_ id: Int64, for actor: User?) async throws -> WebhookEndpoint {
        try Self.requireAdmin(actor)
        guard let endpoint = try await repository.webhookEndpoint(id: id) else { throw Refusal.unknownEndpoint }
        return endpoint
    }

    /// Removes endpoint `id` and what was queued for it.
    public func remove(_ id: Int64, by actor: User?) async throws {
        try Self.requireAdmin(actor)
        guard try await repository.deleteWebhookEndpoint(id: id) else { throw Refusal.unknownEndpoint }
    }

    /// Endpoint `id`'s most recent deliveries, newest first.
    public func deliveries(endpointID id: Int64, for actor: User?) async throws -> [WebhookDelivery] {
        _ = try await endpoint(id, for: actor)
        return try await repository.webhookDeliveries(endpointID: id, limit: Self.listedDeliveries)
    }

    /// Administrators who are people, and the command line: a system's own token never manages webhooks.
    private static func requireAdmin(_ actor: User?) throws(Refusal) {
        guard actor.map({ $0.role == .admin && !$0.isIntegration }) ?? true else { throw .adminOnly }
    }
}
