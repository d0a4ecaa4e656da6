import Foundation
import Testing
import VarselCore
import VarselStore

/// Webhook endpoints and their outbox in every store: events queued by the changes themselves, in order per contact.
@Suite("Store contract: webhooks")
struct WebhookStoreContractTests: StoreContract {
    let now = DemoData.now
    let contact = NewContact(name: "Per Olsen", phone: "900 11 222", address: "Torggata 3", notes: "Lost his sight")

    func endpoint(_ store: any VarselRepository, events: Set<WebhookEventType> = Set(WebhookEventType.allCases)) async throws
        -> WebhookEndpoint
    {
        let system = try await store.createIntegration(
            NewUser(
                username: "integration-\(UUID().uuidString.prefix(8))", displayName: "Case system", role: .coordinator, passwordHash: "",
                language: .english), tokenHash: UUID().uuidString, by: nil, at: now)
        return try await store.createWebhookEndpoint(
            NewWebhookEndpoint(
                integrationID: system.id, url: "https://hooks.example.org/varsel", events: events, secret: Data(repeating: 7, count: 32),
                createdBy: nil), at: now)
    }

    func types(_ claimed: [ClaimedWebhook]) -> [WebhookEventType] { claimed.map(\.delivery.type) }

    @Test("an endpoint keeps its URL, events and secret; removing it removes what was queued for it", arguments: StoreKind.allCases)
    func endpoints(kind: StoreKind) async throws {
        let store = try await kind.make()
        let made = try await endpoint(store, events: [.assignmentCreated, .notificationRead])
        let read = try #require(try await store.webhookEndpoint(id: made.id))
        #expect(read == made)
        #expect(try await store.webhookEndpoints(integrationID: made.integrationID).map(\.id) == [made.id])
        #expect(try await store.webhookEndpoints(integrationID: nil).map(\.id) == [made.id])
        let kari = try await mentor(store, "kari")
        _ = try await store.createAssignment(mentorID: kari.id, coordinatorID: nil, contact: contact, at: now) { _, _ in
            note(kari.id, kind: .assignment)
        }
        #expect(try await store.webhookDeliveries(endpointID: made.id, limit: 10).count == 1)
        #expect(try await store.deleteWebhookEndpoint(id: made.id))
        #expect(try await store.deleteWebhookEndpoint(id: made.id) == false)
        #expect(try await store.webhookEndpoint(id: made.id) == nil)
        #expect(try await store.claimDueWebhookDeliveries(at: now + 1, limit: 10, leaseUntil: now + 60).isEmpty)
    }

    @Test(
        "an assignment's life is queued by each change, only the types wanted, with ids and states and none of the person's details",
        arguments: StoreKind.allCases)
    func assignmentLife(kind: StoreKind) async throws {
        let store = try await kind.make()
        let hook = try await endpoint(store, events: Set(WebhookEventType.allCases).subtracting([.notificationRead]))
        let kari = try await mentor(store, "kari")
        let ola = try await mentor(store, "ola")
        let (first, _, item) = try await store.createAssignment(mentorID: kari.id, coordinatorID: nil, contact: contact, at: now) { _, _ in
            note(kari.id, kind: .assignment)
        }
        _ = try await store.setRead(true, notificationID: item.id, userID: kari.id, at: now + 1)
        _ = try await store.respond(to: first.id, status: .acknowledged, at: now + 2)
        let (second, _) = try await store.reassign(assignmentID: first.id, to: ola.id, at: now + 3) { _, _ in note(ola.id, kind: .assignment) }
        _ = try await store.respond(to: second.id, status: .acknowledged, at: now + 4)
        _ = try await store.completeVisit(assignmentID: second.id, note: "Talked for an hour", at: now + 5)
        let deliveries = try await store.webhookDeliveries(endpointID: hook.id, limit: 10).reversed()
        #expect(
            deliveries.map(\.type) == [.assignmentCreated, .assignmentAcknowledged, .assignmentReassigned, .assignmentAcknowledged, .assignmentDone])
        #expect(Set(deliveries.map(\.messageID)).count == 5)
        let bodies = deliveries.map { String(decoding: $0.body, as: UTF8.self) }
        for body in bodies {
            for detail in ["Per", "Olsen", "900", "Torggata", "sight", "Talked"] { #expect(!body.contains(detail), "\(body)") }
        }
        struct Body: Decodable {
            var type: String
            var data: WebhookEventData
        }
        let decoded = try bodies.map { try JSONDecoder().decode(Body.self, from: Data($0.utf8)) }
        #expect(decoded.map(\.type) == deliveries.map(\.type.rawValue))
        #expect(decoded[2].data.assignmentId == second.id.rawValue && decoded[2].data.previousAssignmentId == first.id.rawValue)
        #expect(decoded[2].data.mentorId == ola.id.rawValue)
        #expect(decoded.map(\.data.status) == ["pending", "acknowledged", "pending", "acknowledged", "done"])
    }

    @Test(
        "a contact's later event waits while an earlier one to the same endpoint is unfinished; other contacts' do not", arguments: StoreKind.allCases
    )
    func orderPerContact(kind: StoreKind) async throws {
        let store = try await kind.make()
        let hook = try await endpoint(store)
        let kari = try await mentor(store, "kari")
        let (one, _, _) = try await store.createAssignment(mentorID: kari.id, coordinatorID: nil, contact: contact, at: now) { _, _ in
            note(kari.id, kind: .assignment)
        }
        _ = try await store.respond(to: one.id, status: .declined, at: now + 1)
        let (two, _, _) = try await store.createAssignment(mentorID: kari.id, coordinatorID: nil, contact: contact, at: now + 2) { _, _ in
            note(kari.id, kind: .assignment)
        }
        var claimed = try await store.claimDueWebhookDeliveries(at: now + 10, limit: 10, leaseUntil: now + 70)
        #expect(types(claimed) == [.assignmentCreated, .assignmentCreated])
        #expect(claimed.map(\.delivery.contactID) == [one.contactID, two.contactID])
        #expect(claimed.first?.endpoint == hook && claimed.first?.secret == Data(repeating: 7, count: 32))
        // Leased, and the declined event waits behind its contact's created one.
        #expect(try await store.claimDueWebhookDeliveries(at: now + 11, limit: 10, leaseUntil: now + 70).isEmpty)
        let created = try #require(claimed.first?.delivery)
        try await store.recordWebhookAttempt(id: created.id, .failed(status: 500, error: "The endpoint answered 500.", next: now + 20), at: now + 12)
        #expect(try await store.webhookEndpoint(id: hook.id)?.failingSince == now + 12)
        #expect(try await store.claimDueWebhookDeliveries(at: now + 19, limit: 10, leaseUntil: now + 70).isEmpty, "still waiting")
        claimed = try await store.claimDueWebhookDeliveries(at: now + 20, limit: 10, leaseUntil: now + 80)
        #expect(claimed.map(\.delivery.messageID) == [created.messageID], "the retry keeps its webhook-id")
        #expect(claimed.first?.delivery.attempts == 1 && claimed.first?.delivery.lastStatus == 500)
        try await store.recordWebhookAttempt(id: created.id, .delivered(status: 204), at: now + 21)
        #expect(try await store.webhookEndpoint(id: hook.id)?.failingSince == nil)
        claimed = try await store.claimDueWebhookDeliveries(at: now + 22, limit: 10, leaseUntil: now + 80)
        #expect(types(claimed) == [.assignmentDeclined])
        try await store.recordWebhookAttempt(id: created.id, .delivered(status: 204), at: now + 23)
        #expect(try await store.webhookDeliveries(endpointID: hook.id, limit: 10).first { $0.id == created.id }?.attempts == 2, "taken once")
    }

    @Test("an endpoint turned off drops what waits for it and takes no new events", arguments: StoreKind.allCases)
    func disable(kind: StoreKind) async throws {
        let store = try await kind.make()
        let hook = try await endpoint(store)
        let kari = try await mentor(store, "kari")
        _ = try await store.createAssignment(mentorID: kari.id, coordinatorID: nil, contact: contact, at: now) { _, _ in
            note(kari.id, kind: .assignment)
        }
        #expect(try await store.disableWebhookEndpoint(id: hook.id, at: now + 1))
        #expect(try await store.disableWebhookEndpoint(id: hook.id, at: now + 2) == false)
        #expect(try await store.webhookEndpoint(id: hook.id)?.disabledAt == now + 1)
        #expect(try await store.webhookDeliveries(endpointID: hook.id, limit: 10).map(\.outcome) == [.dropped])
        _ = try await store.createAssignment(mentorID: kari.id, coordinatorID: nil, contact: contact, at: now + 3) { _, _ in
            note(kari.id, kind: .assignment)
        }
        #expect(try await store.webhookDeliveries(endpointID: hook.id, limit: 10).count == 1)
        #expect(try await store.claimDueWebhookDeliveries(at: now + 10, limit: 10, leaseUntil: now + 70).isEmpty)
    }

    @Test(
        "an outbox's event queued again under its fixed id (its attempt made again after a crash) goes out once; others each time",
        arguments: StoreKind.allCases)
    func queuedAgain(kind: StoreKind) async throws {
        let store = try await kind.make()
        let hook = try await endpoint(store)
        let kari = try await mentor(store, "kari")
        let sent = NewWebhookEvent.message(
            sent: true, channel: "push", notificationID: NotificationID(4), recipientID: kari.id, deliveryID: 9, attempt: 2)
        let stopped = NewWebhookEvent.deviceStopped(subscriptionID: 3, userID: kari.id)
        try await store.queueWebhookEvents([sent, stopped], at: now)
        try await store.queueWebhookEvents([sent, stopped], at: now + 1)
        let nextAttempt = NewWebhookEvent.message(
            sent: false, channel: "push", notificationID: NotificationID(4), recipientID: kari.id, deliveryID: 9, attempt: 3)
        let read = NewWebhookEvent(type: .notificationRead, data: WebhookEventData())
        try await store.queueWebhookEvents([nextAttempt, read, read], at: now + 2)
        let queued = try await store.webhookDeliveries(endpointID: hook.id, limit: 10).sorted { $0.id < $1.id }
        #expect(queued.map(\.type) == [.messageSent, .deviceStopped, .messageFailed, .notificationRead, .notificationRead])
        #expect(queued.prefix(3).map(\.messageID) == ["msg_push_9_2", "msg_device_3_stopped", "msg_push_9_3"])
        #expect(Set(queued.map(\.messageID)).count == 5)
        #expect(queued[0].createdAt == now, "the first queueing stands")
    }

    @Test("a revoked integration's endpoints are told of nothing that happens after it", arguments: StoreKind.allCases)
    func revokedIntegration(kind: StoreKind) async throws {
        let store = try await kind.make()
        let hook = try await endpoint(store)
        let kari = try await mentor(store, "kari")
        _ = try await store.createAssignment(mentorID: kari.id, coordinatorID: nil, contact: contact, at: now) { _, _ in
            note(kari.id, kind: .assignment)
        }
        _ = try await store.changeAccount(userID: hook.integrationID, .deactivate, log: [], at: now + 1)
        _ = try await store.createAssignment(mentorID: kari.id, coordinatorID: nil, contact: contact, at: now + 2) { _, _ in
            note(kari.id, kind: .assignment)
        }
        #expect(try await store.webhookDeliveries(endpointID: hook.id, limit: 10).count == 1)
    }

    @Test("erasing a contact tells of its live assignments' withdrawal once; reading notifications tells of each", arguments: StoreKind.allCases)
    func withdrawnAndRead(kind: StoreKind) async throws {
        let store = try await kind.make()
        let hook = try await endpoint(store)
        let kari = try await mentor(store, "kari")
        let (assignment, _, item) = try await store.createAssignment(mentorID: kari.id, coordinatorID: nil, contact: contact, at: now) {
            contactID, assignmentID in
            var told = note(kari.id, kind: .assignment)
            told.deepLink = .contact(contactID: contactID, assignmentID: assignmentID)
            return told
        }
        let other = try await store.createNotifications([note(kari.id)], idempotencyKey: nil, at: now).items[0]
        #expect(try await store.markAllRead(userID: kari.id, at: now + 1) == 2)
        _ = try await store.eraseContact(contactID: assignment.contactID, titles: [.english: "Details removed"], at: now + 2)
        _ = try await store.eraseContact(contactID: assignment.contactID, titles: [.english: "Details removed"], at: now + 3)
        let deliveries = try await store.webhookDeliveries(endpointID: hook.id, limit: 10).reversed()
        #expect(deliveries.map(\.type) == [.assignmentCreated, .notificationRead, .notificationRead, .assignmentWithdrawn])
        let read = deliveries.filter { $0.type == .notificationRead }
        #expect(read.map(\.contactID) == [assignment.contactID, nil])
        #expect(read.map { String(decoding: $0.body, as: UTF8.self) }.allSatisfy { $0.contains("\"recipientId\":\(kari.id.rawValue)") })
        #expect(String(decoding: read[1].body, as: UTF8.self).contains("\"notificationId\":\(other.id.rawValue)"))
        #expect(String(decoding: read[0].body, as: UTF8.self).contains("\"notificationId\":\(item.id.rawValue)"))
    }
}
