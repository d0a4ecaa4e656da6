import Crypto
import Foundation
import Logging
import Synchronization
import Testing
import VarselCore
import VarselMessaging
import VarselSQLite
import VarselStore

@testable import VarselPush
@testable import VarselService

/// A mail server that keeps what it is sent.
final class RecordingMail: MailTransport {
    private let sent = Mutex<[MailMessage]>([])
    var messages: [MailMessage] { sent.withLock { $0 } }
    func send(_ message: MailMessage) async throws { sent.withLock { $0.append(message) } }
}

/// The webhook worker against the in-memory store, a recording endpoint and a clock the test moves.
@Suite("Webhook worker")
struct WebhookWorkerTests {
    let store: any VarselRepository = try! SQLiteRepository.inMemory()
    let transport = RecordingTransport()
    let mail = RecordingMail()
    let clock = TestClock()

    func worker() -> WebhookWorker {
        var configuration = WebhookWorker.Configuration(endpointPolicy: PushEndpointPolicy(allowsInsecureEndpoints: true))
        configuration.initialBackoff = 5
        let clock = clock
        return WebhookWorker(
            store: store, transport: transport,
            messaging: OutsideMessaging(mail: mail, origin: { URL(string: "https://varsel.example.org")! }),
            configuration: configuration, now: { clock.now }, logger: Logger(label: "test"))
    }

    /// An integration with an endpoint for every event, added as an administrator would; its secret.
    func endpoint() async throws -> (WebhookEndpoint, String) {
        let clock = clock
        let integrations = Integrations(repository: store, now: { clock.now })
        let issued = try await integrations.create(name: "Case system", role: "coordinator", by: nil)
        let webhooks = Webhooks(repository: store, policy: PushEndpointPolicy(allowsInsecureEndpoints: true), now: { clock.now })
        let added = try await webhooks.add(
            integrationID: issued.integration.id, url: "http://127.0.0.1:9/hooks", events: WebhookEventType.allCases.map(\.rawValue), by: nil)
        return (added.endpoint, added.secret)
    }

    func assignment() async throws {
        let mentor = try await store.createUser(
            NewUser(username: "kari-\(UUID().uuidString.prefix(8))", displayName: "Kari", role: .mentor, passwordHash: "x", language: .english),
            at: clock.now)
        _ = try await store.createAssignment(
            mentorID: mentor.id, coordinatorID: nil, contact: NewContact(name: "Per", phone: "1", address: "Gate 1", notes: ""), at: clock.now
        ) { contactID, assignmentID in
            NewNotification(
                recipientID: mentor.id, senderID: nil, kind: .assignment, title: "New assignment", body: "",
                deepLink: .contact(contactID: contactID, assignmentID: assignmentID))
        }
    }

    @Test("a delivery is signed with the secret shown once: HMAC-SHA256 of id.timestamp.body, and the same id on a retry")
    func signedAndRetried() async throws {
        let (_, secret) = try await endpoint()
        try await assignment()
        transport.answer(PushResponse(status: 503))
        let worker = worker()
        try await worker.step()
        clock.advance(10)
        try await worker.step()
        let requests = transport.requests
        #expect(requests.count == 2)
        let key = try #require(Data(base64Encoded: String(secret.dropFirst(WebhookSignature.secretPrefix.count))))
        for request in requests {
            let header = { (name: String) in request.headers.first { $0.0 == name }?.1 ?? "" }
            let signed = Data("\(header("webhook-id")).\(header("webhook-timestamp")).".utf8) + request.body
            let mac = HMAC<SHA256>.authenticationCode(for: signed, using: SymmetricKey(data: key))
            #expect(header("webhook-signature") == "v1," + Data(mac).base64EncodedString())
            #expect(header("Content-Type") == "application/json")
        }
        #expect(requests[0].headers.first { $0.0 == "webhook-id" }?.1 == requests[1].headers.first { $0.0 == "webhook-id" }?.1)
        #expect(requests[0].body == requests[1].body)
        #expect(requests[0].headers.first { $0.0 == "webhook-timestamp" }?.1 != requests[1].headers.first { $0.0 == "webhook-timestamp" }?.1)
    }

    @Test("an endpoint that has failed every delivery for a day is turned off, and what waits for it is dropped")
    func turnedOffAfterADay() async throws {
        let (endpoint, _) = try await endpoint()
        try await assignment()
        let worker = worker()
        // Every answer is a 500, for a day and more.
        for _ in 0..<40 { transport.answer(PushResponse(status: 500)) }
        try await worker.step()
        #expect(try await store.webhookEndpoint(id: endpoint.id)?.failingSince == clock.now)
        clock.advance(23 * 3600)
        try await worker.step()
        #expect(try await store.webhookEndpoint(id: endpoint.id)?.disabledAt == nil, "23 hours is not yet a day")
        let tried = transport.requests.count
        clock.advance(3600)
        try await worker.step()
        #expect(try await store.webhookEndpoint(id: endpoint.id)?.disabledAt == clock.now)
        #expect(transport.requests.count == tried, "the endpoint was not called again once it had failed a day")
        #expect(try await store.webhookDeliveries(endpointID: endpoint.id, limit: 5).map(\.outcome) == [.dropped])
        try await assignment()
        #expect(try await store.webhookDeliveries(endpointID: endpoint.id, limit: 5).count == 1, "an endpoint turned off takes no new events")
    }

    @Test("the admins are told once when an endpoint is turned off: a notification each, and an email to a verified address")
    func adminsTold() async throws {
        let (endpoint, _) = try await endpoint()
        var admins: [User] = []
        for (name, language) in [("siri", Language.english), ("per", .norwegianBokmal)] {
            admins.append(
                try await store.createUser(
                    NewUser(username: name, displayName: name.capitalized, role: .admin, passwordHash: "x", language: language), at: clock.now))
        }
        try await store.saveContactChannel(
            userID: admins[0].id, channel: .email, address: "siri@example.org", codeHash: "h", expiresAt: clock.now + 600, at: clock.now)
        #expect(try await store.markContactChannelVerified(userID: admins[0].id, channel: .email, codeHash: "h", at: clock.now))
        try await assignment()
        for _ in 0..<40 { transport.answer(PushResponse(status: 500)) }
        let worker = worker()
        try await worker.step()
        clock.advance(24 * 3600)
        try await worker.step()
        try await assignment()
        clock.advance(3600)
        try await worker.step()
        for admin in admins {
            let notices = try await store.notifications(for: admin.id, filter: .kind(.serviceNotice), after: nil, limit: 10).items
            #expect(notices.count == 1)
            #expect(notices.first?.deepLink == .webhooks(integrationID: endpoint.integrationID))
            let notice = try #require(notices.first)
            #expect(notice.urgency == .normal && NotificationPreferences.standard.cuesOnArrival(notice))
        }
        let english = try #require(try await store.notifications(for: admins[0].id, filter: .all, after: nil, limit: 1).items.first)
        #expect(english.title == "Webhook turned off for Case system")
        #expect(english.body.hasPrefix("Every delivery to 127.0.0.1 failed for a day") && !english.body.contains("/hooks"))
        let norwegian = try #require(try await store.notifications(for: admins[1].id, filter: .all, after: nil, limit: 1).items.first)
        #expect(norwegian.title == "Webhook slått av for Case system")
        #expect(mail.messages.map(\.to) == ["siri@example.org"], "one email, to the admin with a verified address")
        #expect(mail.messages.first?.subject == "Varsel: Webhook turned off for Case system")
        #expect(mail.messages.first?.plainText.contains("https://varsel.example.org/integrations/\(endpoint.integrationID)/webhooks") == true)
        // Told once: the round that turned it off, or one cut short before, makes no second notice.
        let notice = WebhookTurnedOffNotice(store: store, messaging: OutsideMessaging(), now: { clock.now })
        #expect(try await notice.notify(about: endpoint).count == 2)
        for admin in admins {
            #expect(try await store.notifications(for: admin.id, filter: .kind(.serviceNotice), after: nil, limit: 10).items.count == 1)
        }
    }

    @Test("a redirect is not followed and counts as a failure; a 2xx ends the endpoint's failing")
    func redirectsFail() async throws {
        let (endpoint, _) = try await endpoint()
        try await assignment()
        transport.answer(PushResponse(status: 301))
        let worker = worker()
        try await worker.step()
        var delivery = try #require(try await store.webhookDeliveries(endpointID: endpoint.id, limit: 1).first)
        #expect(delivery.lastStatus == 301 && delivery.endedAt == nil && delivery.lastError?.contains("redirect") == true)
        clock.advance(10)
        try await worker.step()
        delivery = try #require(try await store.webhookDeliveries(endpointID: endpoint.id, limit: 1).first)
        #expect(delivery.outcome == .delivered && delivery.attempts == 2 && delivery.lastStatus == 201)
        #expect(try await store.webhookEndpoint(id: endpoint.id)?.failingSince == nil)
    }
}
