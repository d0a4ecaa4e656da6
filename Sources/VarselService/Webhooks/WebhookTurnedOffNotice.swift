import Foundation
import VarselCore
import VarselStore

/// Tells an admin that an integration's webhook endpoint was turned off after failing for a day: a notification,
/// and an email to their verified address.
///
/// The admin who added the endpoint is told; when none did (it was added from the command line) or they are no
/// longer active, every active admin is. The notification is made under a key of the endpoint's own before the
/// endpoint is turned off, so a round cut short between the two makes it once; the email goes from the round that
/// turned it off, so at most once.
struct WebhookTurnedOffNotice: Sendable {
    typealias Store = NotificationStore & UserStore & ContactChannelStore

    let store: any Store
    let messaging: OutsideMessaging
    let now: @Sendable () -> Date

    /// The idempotency key of the notices about `endpoint`. It holds a control character, which no HTTP header can
    /// carry, so no client's `Idempotency-Key` can ever be it.
    static func idempotencyKey(of endpoint: WebhookEndpoint) -> String {
        "webhook-turned-off\u{1F}\(endpoint.id)"
    }

    /// The endpoint's host, `hooks.example.org`: all a notice shows of its address.
    static func host(of endpoint: WebhookEndpoint) -> String {
        URLComponents(string: endpoint.url)?.host ?? "—"
    }

    /// Who is told about `endpoint`.
    func admins(for endpoint: WebhookEndpoint) async throws -> [User] {
        if let creator = endpoint.createdBy, let admin = try await store.user(id: creator), admin.isActive, admin.role == .admin {
            return [admin]
        }
        return try await store.users().filter { $0.isActive && $0.role == .admin }
    }

    /// Makes the notification about `endpoint` for each admin told, once.
    func notify(about endpoint: WebhookEndpoint) async throws -> [User] {
        let admins = try await admins(for: endpoint)
        guard let first = admins.first else { return [] }
        let integration = try await store.user(id: endpoint.integrationID)?.displayName ?? "—"
        let notices = admins.map { admin in
            let strings = Strings(admin.language)
            return NewNotification(
                recipientID: admin.id, senderID: nil, kind: .serviceNotice, title: strings.webhookTurnedOffTitle(integration: integration),
                body: strings.webhookTurnedOffBody(host: Self.host(of: endpoint)), deepLink: .webhooks(integrationID: endpoint.integrationID))
        }
        let key = Self.idempotencyKey(of: endpoint)
        _ = try await store.createNotifications(notices, idempotencyKey: IdempotencyKey(senderID: first.id, key: key, fingerprint: key), at: now())
        return admins
    }

    /// Emails each of `admins` who has a verified address; returns how many were sent.
    func email(_ admins: [User], about endpoint: WebhookEndpoint) async -> Int {
        guard messaging.offers(.email), !admins.isEmpty else { return 0 }
        let addresses = (try? await store.verifiedContactChannels(forAnyOf: Set(admins.map(\.id))).filter { $0.channel == .email }) ?? []
        let integration = (try? await store.user(id: endpoint.integrationID))??.displayName ?? "—"
        let link = messaging.link(to: DeepLinkTarget.webhooks(integrationID: endpoint.integrationID).path)
        var sent = 0
        for admin in admins {
            guard let address = addresses.first(where: { $0.userID == admin.id }) else { continue }
            let strings = Strings(admin.language)
            let title = strings.webhookTurnedOffTitle(integration: integration)
            let body = strings.webhookTurnedOffBody(host: Self.host(of: endpoint))
            do {
                try await messaging.send(
                    .email, to: address.address, name: admin.displayName, subject: "Varsel: \(title)",
                    text: OutsideMessageText.noticePlainText(
                        name: admin.displayName, title: title, body: body, link: link, why: strings.webhookTurnedOffWhy, strings: strings),
                    html: OutsideMessageText.noticeHTML(
                        name: admin.displayName, title: title, body: body, link: link, why: strings.webhookTurnedOffWhy, strings: strings),
                    language: admin.language)
                sent += 1
            } catch {
                continue
            }
        }
        return sent
    }
}
