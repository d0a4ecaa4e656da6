import Foundation
import Logging
import VarselPush
import VarselStore

/// The webhook outbox: each queued event POSTed to its endpoint, signed, until the endpoint answers 2xx.
///
/// Events are queued by the changes themselves (in their transactions), so this outbox does not follow the event
/// log. A failed attempt is tried again with a growing backoff, with the same `webhook-id`; an endpoint that has
/// failed for ``WebhookWorker/Configuration/disableAfter`` is turned off, and its admin told
/// (``WebhookTurnedOffNotice``). Redirects are not followed, and an address the endpoint policy refuses (private,
/// loopback) is not called.
struct WebhookOutbox: OutboxChannel {
    typealias Store = WebhookStore & WebhookTurnedOffNotice.Store

    typealias Item = ClaimedWebhook

    /// What one attempt came to.
    enum Outcome: Equatable {
        case delivered(status: Int)
        /// No 2xx: `status` is the answer's, nil when none came; `error` says why in words that name nothing sent.
        case failed(status: Int?, error: String)
        /// The endpoint has failed for too long: it is turned off.
        case disable
        /// Nothing was sent: tried again at once, with no attempt counted.
        case released
    }

    let store: any Store
    let transport: any PushTransport
    let notice: WebhookTurnedOffNotice
    let configuration: WebhookWorker.Configuration
    let now: @Sendable () -> Date
    let logger: Logger

    var followsEventLog: Bool { false }

    func cursor() async throws -> Int64? { nil }

    func enqueue(_ events: [StoredEvent], after cursor: Int64?, through last: Int64) async throws -> Bool { true }

    func claimDue(at date: Date, limit: Int, leaseUntil: Date) async throws -> [Item] {
        try await store.claimDueWebhookDeliveries(at: date, limit: limit, leaseUntil: leaseUntil)
    }

    func failedAttempt(_ item: Item) -> Outcome { .failed(status: nil, error: "The attempt could not be made.") }

    func released(_ item: Item) -> Outcome { .released }

    func wentOut(_ outcome: Outcome) -> Bool {
        if case .delivered = outcome { return true }
        return false
    }

    func metadata(for item: Item) -> Logger.Metadata {
        [
            "webhook.endpoint.id": "\(item.endpoint.id)", "webhook.delivery.id": "\(item.delivery.id)",
            "webhook.type": "\(item.delivery.type.rawValue)",
        ]
    }

    func attempt(_ item: Item) async throws -> Outcome {
        let start = now()
        if let since = item.endpoint.failingSince, start.timeIntervalSince(since) >= configuration.disableAfter { return .disable }
        let url: URL
        do {
            url = try configuration.endpointPolicy.check(item.endpoint.url)
            try await configuration.endpointPolicy.checkResolved(url)
        } catch {
            return .failed(status: nil, error: "The endpoint's address is refused: it must be public.")
        }
        let headers =
            WebhookSignature.headers(key: item.secret, id: item.delivery.messageID, date: start, body: item.delivery.body)
            + [("Content-Type", "application/json"), ("User-Agent", "Varsel-Webhooks")]
        let response: PushResponse
        do {
            response = try await transport.send(PushRequest(endpoint: url, headers: headers, body: item.delivery.body))
        } catch {
            return .failed(status: nil, error: "No answer in time, or the connection failed.")
        }
        switch response.status {
        case 200..<300: return .delivered(status: response.status)
        case 300..<400: return .failed(status: response.status, error: "The endpoint redirected; redirects are not followed.")
        default: return .failed(status: response.status, error: "The endpoint answered \(response.status).")
        }
    }

    func record(_ outcome: Outcome, for item: Item) async throws {
        let date = now()
        switch outcome {
        case let .delivered(status):
            try await store.recordWebhookAttempt(id: item.delivery.id, .delivered(status: status), at: date)
        case let .failed(status, error):
            let attempts = item.delivery.attempts + 1
            let next = date.addingTimeInterval(
                retryDelay(afterAttempt: attempts, initial: configuration.initialBackoff, maximum: configuration.maximumBackoff))
            try await store.recordWebhookAttempt(id: item.delivery.id, .failed(status: status, error: error, next: next), at: date)
        case .disable:
            let admins = try await notice.notify(about: item.endpoint)
            if try await store.disableWebhookEndpoint(id: item.endpoint.id, at: date) {
                let emailed = await notice.email(admins, about: item.endpoint)
                logger.warning(
                    "webhook endpoint turned off after failing too long; its admins told",
                    metadata: [
                        "webhook.endpoint.id": "\(item.endpoint.id)", "notification.count": "\(admins.count)", "email.count": "\(emailed)",
                    ])
            }
        case .released:
            try await store.recordWebhookAttempt(id: item.delivery.id, .released(next: date), at: date)
        }
    }
}
