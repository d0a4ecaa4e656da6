import Crypto
import Foundation
import Logging
import Synchronization
import Testing
import VarselCore
import VarselPushTesting
import VarselSQLite
import VarselStore

@testable import VarselPush
@testable import VarselService

/// A push service that records what it is sent and answers as a test asks.
final class RecordingTransport: PushTransport {
    private let state = Mutex<(requests: [PushRequest], answers: [PushResponse])>(([], []))

    /// Queues answers, used in order; 201 when none is left.
    func answer(_ responses: PushResponse...) { state.withLock { $0.answers += responses } }

    var requests: [PushRequest] { state.withLock { $0.requests } }

    func send(_ request: PushRequest) async throws -> PushResponse {
        state.withLock { state in
            state.requests.append(request)
            return state.answers.isEmpty ? PushResponse(status: 201) : state.answers.removeFirst()
        }
    }

    func shutdown() async throws {}
}

/// A clock the test moves.
final class TestClock: Sendable {
    private let current = Mutex(DemoData.now)
    var now: Date { current.withLock { $0 } }
    func advance(_ seconds: TimeInterval) { current.withLock { $0 = $0.addingTimeInterval(seconds) } }
}

/// The delivery worker against the in-memory store and a recording push service.
@Suite("Push delivery worker")
struct PushDeliveryWorkerTests {
    let store: any VarselRepository = try! SQLiteRepository.inMemory()
    let transport = RecordingTransport()
    let clock = TestClock()
    let metrics = PushMetrics()
    let device = P256.KeyAgreement.PrivateKey()
    let auth = Data((0..<16).map { UInt8($0 * 3) })

    func worker(store: (any VarselRepository)? = nil, contactReads: (any ContactReadRecorder)? = nil) -> PushDeliveryWorker {
        var configuration = PushDeliveryWorker.Configuration(
            subject: "mailto:drift@varsel.example",
            endpointPolicy: PushEndpointPolicy(allowsInsecureEndpoints: true))
        configuration.initialBackoff = 5
        configuration.origin = { URL(string: "https://varsel.example.org/ignored/path")! }
        let clock = clock
        let store = store ?? self.store
        return PushDeliveryWorker(
            store: store, contactReads: contactReads ?? ContactAccess(repository: store, now: { clock.now }), transport: transport,
            vapid: VAPIDKey.generate(), configuration: configuration,
            metrics: metrics, now: { clock.now }, logger: Logger(label: "test"))
    }

    /// A mentor signed in on one device that subscribed; returns the mentor and subscription.
    func subscribedMentor() async throws -> (User, PushSubscription) {
        let mentor = try await store.createUser(
            NewUser(username: "kari", displayName: "Kari", role: .mentor, passwordHash: "x", language: .english), at: clock.now)
        try await store.createSession(
            Session(tokenHash: "phone", userID: mentor.id, csrfToken: "c", createdAt: clock.now, expiresAt: clock.now.addingTimeInterval(86400)))
        let subscription = try await store.savePushSubscription(
            NewPushSubscription(
                userID: mentor.id, sessionTokenHash: "phone", endpoint: "http://127.0.0.1:9/push/phone",
                p256dh: device.publicKey.x963Representation, auth: auth, actionSecret: PushActionToken.newSecret()), at: clock.now)
        return (mentor, subscription)
    }

    func assignment(for mentor: User, urgency: Urgency = .normal) async throws -> NotificationItem {
        let created = try await store.createNotifications(
            [
                NewNotification(
                    recipientID: mentor.id, senderID: nil, kind: .assignment, title: "New assignment", body: "Visit Kari Nordmann at Storgata 1",
                    urgency: urgency, deepLink: .contact(contactID: 4, assignmentID: 9), personalDetails: ["Kari Nordmann", "Storgata 1"])
            ],
            idempotencyKey: nil, at: clock.now)
        return try #require(created.items.first)
    }

    func message(_ request: PushRequest) throws -> PushMessage {
        let plaintext = try BrowserDecryption.decrypt(request.body, receiver: device, auth: auth)
        return try JSONDecoder().decode(PushMessage.self, from: plaintext)
    }

    func header(_ request: PushRequest, _ name: String) -> String? { request.headers.first { $0.0 == name }?.1 }

    @Test("a notification created after start reaches the device encrypted, with the lock-screen text and RFC 8030 headers")
    func deliversNew() async throws {
        let (mentor, subscription) = try await subscribedMentor()
        let worker = worker()
        try await worker.step()  // first start: begins after what exists
        let item = try await assignment(for: mentor, urgency: .urgent)
        clock.advance(2)
        try await worker.step()
        let request = try #require(transport.requests.first)
        #expect(transport.requests.count == 1)
        #expect(request.endpoint.absoluteString == "http://127.0.0.1:9/push/phone")
        #expect(header(request, "Urgency") == "high")
        #expect(header(request, "TTL") == "\(24 * 3600 - 2)")
        #expect(header(request, "Topic") == "varsel-\(item.id)")
        #expect(header(request, "Content-Encoding") == "aes128gcm")
        #expect(header(request, "Authorization")?.hasPrefix("vapid t=") == true)
        // A declarative push message: the core's lock-screen text, an absolute same-origin link, the unread count.
        let message = try message(request)
        let shown = message.notification
        #expect(message.webPush == 8030 && message.mutable)
        #expect(message.appBadge == 1)
        #expect(shown.title == "Assignment (urgent): New assignment")
        #expect(shown.body == "Open Varsel to read it.")
        #expect(shown.requireInteraction)
        #expect(shown.navigate == "https://varsel.example.org/notifications/\(item.id)/open")
        #expect(shown.actions.map(\.navigate) == [shown.navigate, shown.navigate])
        let acknowledge = try #require(shown.data.acknowledge)
        #expect(acknowledge.url == "/api/v1/push-subscriptions/\(subscription.id)/acknowledge")
        #expect(PushActionToken.verifyAcknowledge(acknowledge.token, assignmentID: 9, subscription: subscription))
        #expect(!PushActionToken.verifyAcknowledge(acknowledge.token, assignmentID: 10, subscription: subscription))
        #expect(metrics.counts.sent == 1)
        #expect(try await store.nextPushDeliveryDate() == nil)
        // Nothing is sent twice.
        try await worker.step()
        #expect(transport.requests.count == 1)
    }

    @Test("a push showing the details on the lock screen is recorded as a read of the contact; a hidden one is not")
    func pushWithDetailsIsARead() async throws {
        let (mentor, _) = try await subscribedMentor()
        let worker = worker()
        try await worker.step()
        _ = try await assignment(for: mentor)
        clock.advance(1)
        try await worker.step()
        #expect(transport.requests.count == 1)
        #expect(try await store.contactReads(contactID: 4).isEmpty, "the details were hidden")
        var preferences = try await store.preferences(for: mentor.id)
        preferences.isShowingDetailsOnLockScreen = true
        try await store.setPreferences(preferences, for: mentor.id)
        _ = try await assignment(for: mentor)
        clock.advance(1)
        try await worker.step()
        #expect(transport.requests.count == 2)
        #expect(try message(transport.requests[1]).notification.body == "Visit Kari Nordmann at Storgata 1")
        let reads = try await store.contactReads(contactID: 4)
        #expect(reads.map(\.channel) == [.push])
        #expect(reads.map(\.userID) == [mentor.id])
        #expect(reads.map(\.at) == [clock.now])
    }

    /// Records contact reads after failing the first `failures` as a database that stopped answering does.
    final class FailingReads: ContactReadRecorder {
        let base: any ContactReadRecorder
        private let failures: Mutex<Int>
        init(base: any ContactReadRecorder, failures: Int) {
            self.base = base
            self.failures = Mutex(failures)
        }
        func recordRead(contactID: ContactID, by userID: UserID, through channel: ContactReadChannel) async throws {
            let fails = failures.withLock { left in
                defer { left = max(0, left - 1) }
                return left > 0
            }
            if fails { throw StoreUnavailable.timedOut }
            try await base.recordRead(contactID: contactID, by: userID, through: channel)
        }
    }

    @Test("a push whose attempt the store cut short is sent in the next round, once, not after its lease")
    func storeFailureDuringAnAttemptReleasesThePush() async throws {
        let (mentor, _) = try await subscribedMentor()
        var preferences = try await store.preferences(for: mentor.id)
        preferences.isShowingDetailsOnLockScreen = true
        try await store.setPreferences(preferences, for: mentor.id)
        let worker = worker(contactReads: FailingReads(base: ContactAccess(repository: store, now: { [clock] in clock.now }), failures: 1))
        try await worker.step()
        _ = try await assignment(for: mentor)
        try await worker.step()
        #expect(transport.requests.isEmpty, "the read of the contact failed before the push was sent")
        // The clock stands still: the push is due again at once, not when its lease ends.
        try await worker.step()
        #expect(transport.requests.count == 1)
        #expect(try await store.contactReads(contactID: 4).map(\.channel) == [.push])
        #expect(try await store.nextPushDeliveryDate() == nil)
        #expect(metrics.counts.sent == 1)
    }

    @Test("410 from the push service marks the device revoked, with when, and it gets no more pushes")
    func goneRevokes() async throws {
        let (mentor, subscription) = try await subscribedMentor()
        let worker = worker()
        try await worker.step()
        transport.answer(PushResponse(status: 410))
        _ = try await assignment(for: mentor)
        clock.advance(5)
        try await worker.step()
        let device = try #require(try await store.pushDevices(forAnyOf: [mentor.id]).first)
        #expect(device.id == subscription.id && device.status.revokedAt == clock.now)
        #expect(device.status.health(now: clock.now, staleAfter: 86400) == .revoked(at: clock.now))
        #expect(metrics.counts.removed == 1)
        _ = try await assignment(for: mentor)
        try await worker.step()
        #expect(transport.requests.count == 1)
    }

    @Test("an accepted push is unconfirmed until the device's receipt; three unshown pushes make the device stale")
    func acceptedThenStale() async throws {
        let (mentor, _) = try await subscribedMentor()
        let worker = worker()
        try await worker.step()
        let first = try await assignment(for: mentor)
        clock.advance(1)
        try await worker.step()
        var device = try #require(try await store.pushDevices(forAnyOf: [mentor.id]).first)
        #expect(device.status.unshownCount == 1 && device.status.lastAcceptedAt == clock.now)
        #expect(device.status.health(now: clock.now, staleAfter: 86400) == .waiting)
        // The receipt the push carried confirms it.
        let request = try #require(transport.requests.first)
        let receipt = try #require(try message(request).notification.data.receipt)
        #expect(receipt.notificationID == first.id)
        #expect(try await store.recordPushShown(subscriptionID: device.id, notificationID: receipt.notificationID, at: clock.now) == .recorded)
        device = try #require(try await store.pushDevices(forAnyOf: [mentor.id]).first)
        #expect(device.status.health(now: clock.now, staleAfter: 86400) == .shows(lastShown: clock.now))
        let shownAt = clock.now
        for _ in 0..<3 {
            _ = try await assignment(for: mentor)
            clock.advance(1)
            try await worker.step()
        }
        device = try #require(try await store.pushDevices(forAnyOf: [mentor.id]).first)
        #expect(device.status.unshownCount == 3)
        #expect(device.status.health(now: clock.now, staleAfter: 86400) == .notConfirmed(since: shownAt))
    }

    @Test("a deleted notification's shown push is withdrawn: the same tag and topic, a text that names no one, no receipt asked")
    func deletedIsWithdrawn() async throws {
        let (mentor, subscription) = try await subscribedMentor()
        let other = try await store.createUser(
            NewUser(username: "ola", displayName: "Ola", role: .mentor, passwordHash: "x", language: .english),
            at: clock.now)
        let worker = worker()
        try await worker.step()
        let item = try await assignment(for: mentor)
        _ = try await assignment(for: other)  // another mentor's: nothing of it is withdrawn here
        clock.advance(1)
        try await worker.step()
        #expect(transport.requests.count == 1)
        #expect(try await store.delete(ids: [item.id], userID: mentor.id, at: clock.now) == 1)
        clock.advance(1)
        try await worker.step()
        #expect(transport.requests.count == 2)
        let withdrawal = try #require(transport.requests.last)
        #expect(header(withdrawal, "Topic") == "varsel-\(item.id)")
        let shown = try message(withdrawal)
        #expect(shown.notification.tag == "varsel-notification-\(item.id)")
        #expect(shown.notification.title == "Notification withdrawn" && shown.notification.silent)
        #expect(!shown.notification.body.contains("Kari") && shown.notification.data.receipt == nil && shown.notification.data.acknowledge == nil)
        #expect(shown.appBadge == 0)
        // Only the one accepted push counts as unconfirmed.
        #expect(try await store.pushDevices(forAnyOf: [mentor.id]).first?.status.unshownCount == 1)
        #expect(subscription.userID == mentor.id)
    }

    @Test("429 is retried after Retry-After, not before; 5xx backs off; the push arrives once")
    func retries() async throws {
        let (mentor, _) = try await subscribedMentor()
        let worker = worker()
        try await worker.step()
        transport.answer(PushResponse(status: 429, retryAfter: 30), PushResponse(status: 503))
        _ = try await assignment(for: mentor)
        try await worker.step()
        #expect(transport.requests.count == 1)
        clock.advance(29)
        try await worker.step()
        #expect(transport.requests.count == 1)
        clock.advance(1)
        try await worker.step()
        #expect(transport.requests.count == 2)
        // The 503 backs off about 10 s (5 s doubled, ±20 %).
        clock.advance(7)
        try await worker.step()
        #expect(transport.requests.count == 2)
        clock.advance(6)
        try await worker.step()
        #expect(transport.requests.count == 3)
        #expect(metrics.counts.retried == 2 && metrics.counts.sent == 1)
        #expect(try await store.nextPushDeliveryDate() == nil)
    }

    @Test("a new worker on the same store finishes what the stopped one left (the outbox is durable)")
    func resumesAfterRestart() async throws {
        let (mentor, _) = try await subscribedMentor()
        try await worker().step()
        transport.answer(PushResponse(status: 500), PushResponse(status: 500))
        _ = try await assignment(for: mentor)
        _ = try await assignment(for: mentor)
        try await worker().step()  // both fail once and are rescheduled
        #expect(transport.requests.count == 2)
        clock.advance(3600)
        try await worker().step()  // a "restarted" worker sends them
        #expect(transport.requests.count == 4)
        #expect(metrics.counts.sent == 2)
        #expect(try await store.nextPushDeliveryDate() == nil)
    }

    @Test("a notification gathered for the summary gets no push; the summary gets one, and an urgent one of the kind its own")
    func gatheredForTheSummary() async throws {
        let (mentor, _) = try await subscribedMentor()
        let worker = worker()
        try await worker.step()
        var preferences = NotificationPreferences.standard
        preferences.summaryKinds = [.scenarioPrompt]
        try await store.setPreferences(preferences, for: mentor.id)
        let summaries = Summaries(repository: store, now: { clock.now })
        try await summaries.schedule(for: mentor.id, preferences: preferences)
        clock.advance(1)
        for (title, urgency) in [("Scenario: stairs", Urgency.normal), ("Scenario: today", .normal), ("Scenario: now", .urgent)] {
            _ = try await store.createNotifications(
                [
                    NewNotification(
                        recipientID: mentor.id, senderID: nil, kind: .scenarioPrompt, title: title, body: "", urgency: urgency,
                        deepLink: .scenario(scenarioID: nil))
                ], idempotencyKey: nil, at: clock.now)
        }
        try await worker.step()
        #expect(try transport.requests.map { try message($0).notification.title } == ["Scenario prompt (urgent): Scenario: now"])
        clock.advance(preferences.summaryTime.next(after: clock.now).timeIntervalSince(clock.now))
        #expect(try await summaries.sendDue().map(\.gathered) == [2])
        try await worker.step()
        #expect(
            try transport.requests.map { try message($0).notification.title } == [
                "Scenario prompt (urgent): Scenario: now", "Summary: 2 scenario prompts",
            ])
    }

    @Test("no push when the mentor turned system notifications off, or the notification was deleted")
    func skips() async throws {
        let (mentor, _) = try await subscribedMentor()
        let worker = worker()
        try await worker.step()
        var preferences = NotificationPreferences.standard
        preferences.isSystemNotificationEnabled = false
        try await store.setPreferences(preferences, for: mentor.id)
        _ = try await assignment(for: mentor)
        try await worker.step()
        try await store.setPreferences(.standard, for: mentor.id)
        let deleted = try await assignment(for: mentor)
        try await worker.enqueueNewNotifications()
        // Deleted before its push went: the queued push goes with it, and nothing is withdrawn (nothing was shown).
        _ = try await store.delete(ids: [deleted.id], userID: mentor.id, at: clock.now)
        #expect(try await store.nextPushDeliveryDate() == nil)
        _ = try await worker.sendDue()
        #expect(transport.requests.isEmpty)
        #expect(metrics.counts.skipped == 1)
    }

    /// A real assignment for `mentor` from `coordinator`, with the notification that tells them.
    func realAssignment(for mentor: User, from coordinator: User) async throws -> (Assignment, NotificationItem) {
        let (assignment, _, item) = try await store.createAssignment(
            mentorID: mentor.id, coordinatorID: coordinator.id, contact: NewContact(name: "Per Olsen", phone: "", address: "Torggata 3", notes: ""),
            at: clock.now
        ) { contactID, assignmentID in
            NewNotification(
                recipientID: mentor.id, senderID: coordinator.id, kind: .assignment, title: "New assignment", body: "Visit Per Olsen",
                deepLink: .contact(contactID: contactID, assignmentID: assignmentID), personalDetails: ["Per Olsen"])
        }
        return (assignment, item)
    }

    func coordinator() async throws -> User {
        try await store.createUser(
            NewUser(username: "coord", displayName: "Coord", role: .coordinator, passwordHash: "x", language: .english),
            at: clock.now)
    }

    @Test("a push about someone else's assignment (a coordinator told it is unanswered) has no Acknowledge button")
    func onlyTheAssigneeMayAcknowledge() async throws {
        let (kari, _) = try await subscribedMentor()
        let coordinator = try await coordinator()
        let ola = try await store.createUser(
            NewUser(username: "ola", displayName: "Ola", role: .mentor, passwordHash: "x", language: .english),
            at: clock.now)
        let worker = worker()
        try await worker.step()
        let (olas, _) = try await realAssignment(for: ola, from: coordinator)
        // Told to Kari as the escalation tells a coordinator: the assignment's kind and link, someone else's assignment.
        _ = try await store.createNotifications(
            [
                NewNotification(
                    recipientID: kari.id, senderID: nil, kind: .assignment, title: "Ola has not answered", body: "", urgency: .urgent,
                    deepLink: .contact(contactID: olas.contactID, assignmentID: olas.id))
            ], idempotencyKey: nil, at: clock.now)
        let (mine, _) = try await realAssignment(for: kari, from: coordinator)
        try await worker.step()
        // The two pushes go out concurrently, so they are matched by title, not by the order they were sent in.
        let shown = try transport.requests.map { try message($0).notification }.sorted { $0.title < $1.title }
        #expect(shown.map(\.title) == ["Assignment (urgent): Ola has not answered", "Assignment: New assignment"])
        #expect(shown.map { $0.actions.map(\.action) } == [["open"], ["open", "acknowledge"]])
        #expect(shown.first?.data.acknowledge == nil)
        #expect(shown.last?.data.acknowledge?.assignmentID == mine.id)
    }

    @Test("a push held by quiet hours is not sent once its notification was read or its assignment answered")
    func heldPushOfSomethingSeenIsNotSent() async throws {
        let (kari, _) = try await subscribedMentor()
        let coordinator = try await coordinator()
        // Quiet hours from an hour ago until six hours from now, where Kari lives.
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = try #require(TimeZone(identifier: QuietHours.defaultTimeZone))
        let minute = calendar.component(.hour, from: clock.now) * 60 + calendar.component(.minute, from: clock.now)
        var quiet = NotificationPreferences.standard
        quiet.quietHours = QuietHours(start: (minute + 24 * 60 - 60) % (24 * 60), end: (minute + 6 * 60) % (24 * 60))
        try await store.setPreferences(quiet, for: kari.id)
        let worker = worker()
        try await worker.step()
        let (_, read) = try await realAssignment(for: kari, from: coordinator)
        let (declined, _) = try await realAssignment(for: kari, from: coordinator)
        let (waiting, _) = try await realAssignment(for: kari, from: coordinator)
        try await worker.step()
        #expect(transport.requests.isEmpty, "held by quiet hours")
        // Before the quiet hours end: one read (opened on the computer), one declined, one still waiting.
        _ = try await store.setRead(true, notificationID: read.id, userID: kari.id, at: clock.now)
        _ = try await store.respond(to: declined.id, status: .declined, at: clock.now)
        clock.advance(6 * 3600 + 60)
        try await worker.step()
        let sent = try transport.requests.map { try message($0).notification }
        #expect(sent.count == 1)
        #expect(sent.first?.data.acknowledge?.assignmentID == waiting.id)
        #expect(metrics.counts.skipped == 2)
    }

    @Test("a message longer than a push carries is sent with its body shortened to fit, ending in an ellipsis")
    func longBodyIsShortenedToFit() async throws {
        let (kari, _) = try await subscribedMentor()
        let worker = worker()
        try await worker.step()
        let body = String(repeating: "Øvelse på trappen / ", count: 190)  // 3,800 characters, about 4,200 bytes
        _ = try await store.createNotifications(
            [
                NewNotification(
                    recipientID: kari.id, senderID: nil, kind: .scenarioPrompt, title: "Practice", body: body, deepLink: .scenario(scenarioID: nil))
            ], idempotencyKey: nil, at: clock.now)
        try await worker.step()
        let request = try #require(transport.requests.first)
        let plaintext = try BrowserDecryption.decrypt(request.body, receiver: device, auth: auth)
        #expect(plaintext.count <= WebPushEncryption.maximumPlaintextBytes)
        let shown = try JSONDecoder().decode(PushMessage.self, from: plaintext).notification.body
        #expect(shown.hasSuffix("…") && shown.count < body.count && body.hasPrefix(String(shown.dropLast())))
        #expect(plaintext.count > WebPushEncryption.maximumPlaintextBytes - 64, "only about what does not fit is cut")
        #expect(metrics.counts.sent == 1)
    }

    @Test("a push not accepted within its time to live is given up")
    func expires() async throws {
        let (mentor, _) = try await subscribedMentor()
        let worker = worker()
        try await worker.step()
        transport.answer(PushResponse(status: 503, retryAfter: 25 * 3600))
        _ = try await assignment(for: mentor)
        try await worker.step()
        clock.advance(25 * 3600)
        try await worker.step()
        #expect(transport.requests.count == 1)
        #expect(metrics.counts.failed == 1)
        #expect(try await store.nextPushDeliveryDate() == nil)
    }

    @Test("Retry-After as seconds or as an HTTP date")
    func retryAfterForms() {
        let now = Date(timeIntervalSince1970: 1_784_000_000)
        #expect(PushResponse.retryAfter("120", now: now) == 120)
        #expect(PushResponse.retryAfter(nil, now: now) == nil)
        #expect(PushResponse.retryAfter("soon", now: now) == nil)
        let date = now.addingTimeInterval(90)
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        #expect(PushResponse.retryAfter(formatter.string(from: date), now: now) == 90)
    }
}
