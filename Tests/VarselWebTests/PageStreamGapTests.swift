import Foundation
import Hummingbird
import Synchronization
import Testing
import VarselCore
import VarselLive
import VarselSQLite
import VarselService
import VarselStore

@testable import VarselWeb

/// A store that commits one notification for a user between the first two reads a page makes of the list and
/// of the event log's end (in whichever order the page makes them): the window a notification could slip through.
final class WindowInjectingStore: VarselRepository {
    let base: any VarselRepository
    private let armed = Mutex<(notification: NewNotification, date: Date)?>(nil)
    private let reads = Mutex(0)

    init(base: SQLiteRepository) { self.base = base }

    var publishesCommittedEvents: Bool { base.publishesCommittedEvents }
    func followCommittedEvents(_ follower: @escaping @Sendable ([StoredEvent]) -> Void) { base.followCommittedEvents(follower) }
    var health: StoreHealth { base.health }
    func ping() async throws { try await base.ping() }
    func outboxBacklog(at date: Date) async throws -> [OutboxBacklog] { try await base.outboxBacklog(at: date) }

    /// Arms the store: `notification` is committed right after the next list or resume-point read returns.
    func inject(_ notification: NewNotification, at date: Date) {
        armed.withLock { $0 = (notification, date) }
        reads.withLock { $0 = 0 }
    }

    /// After the first of the two reads, commits the armed notification; after the second, nothing.
    private func afterWindowRead() async throws {
        let isFirst = reads.withLock { count in
            count += 1
            return count == 1
        }
        guard isFirst, let armed = armed.withLock({ $0 }) else { return }
        _ = try await base.createNotifications([armed.notification], idempotencyKey: nil, at: armed.date)
    }

    func notifications(for userID: UserID, filter: NotificationFilter, after cursor: NotificationID?, limit: Int) async throws -> NotificationPage {
        let page = try await base.notifications(for: userID, filter: filter, after: cursor, limit: limit)
        try await afterWindowRead()
        return page
    }

    func latestEventID() async throws -> Int64 {
        let latest = try await base.latestEventID()
        try await afterWindowRead()
        return latest
    }

    // Everything else is the in-memory store's.
    func createUser(_ user: NewUser, link: PasswordLink?, by actorID: UserID?, at date: Date) async throws -> User {
        try await base.createUser(user, link: link, by: actorID, at: date)
    }
    func changeAccount(userID: UserID, _ change: AccountChange, log: [NewAccountLogEntry], at date: Date) async throws -> AccountChangeOutcome {
        try await base.changeAccount(userID: userID, change, log: log, at: date)
    }
    func passwordLinkUser(tokenHash: String, at date: Date) async throws -> User? { try await base.passwordLinkUser(tokenHash: tokenHash, at: date) }
    func usePasswordLink(tokenHash: String, passwordHash: String, at date: Date) async throws -> User? {
        try await base.usePasswordLink(tokenHash: tokenHash, passwordHash: passwordHash, at: date)
    }
    func accountLog(userID: UserID) async throws -> [AccountLogEntry] { try await base.accountLog(userID: userID) }
    func user(id: UserID) async throws -> User? { try await base.user(id: id) }
    func user(username: String) async throws -> User? { try await base.user(username: username) }
    func users() async throws -> [User] { try await base.users() }
    func setPause(from: Date?, until: Date?, userID: UserID) async throws { try await base.setPause(from: from, until: until, userID: userID) }
    func setLanguage(_ language: Language, userID: UserID) async throws { try await base.setLanguage(language, userID: userID) }
    func createSession(_ session: Session) async throws { try await base.createSession(session) }
    func session(tokenHash: String, at date: Date) async throws -> Session? { try await base.session(tokenHash: tokenHash, at: date) }
    func deleteSession(tokenHash: String) async throws { try await base.deleteSession(tokenHash: tokenHash) }
    func sessions(userID: UserID) async throws -> [Session] { try await base.sessions(userID: userID) }
    func deleteExpiredSessions(at date: Date) async throws -> Int { try await base.deleteExpiredSessions(at: date) }
    func changePassword(userID: UserID, passwordHash: String, keeping keptSession: String?, at date: Date) async throws -> [String] {
        try await base.changePassword(userID: userID, passwordHash: passwordHash, keeping: keptSession, at: date)
    }
    func createNotifications(_ notifications: [NewNotification], idempotencyKey: IdempotencyKey?, at date: Date) async throws -> CreatedNotifications
    {
        try await base.createNotifications(notifications, idempotencyKey: idempotencyKey, at: date)
    }
    func finishFanOuts(startedBefore date: Date) async throws -> Int { try await base.finishFanOuts(startedBefore: date) }
    func notification(id: NotificationID) async throws -> NotificationItem? { try await base.notification(id: id) }
    func unreadCount(for userID: UserID) async throws -> Int { try await base.unreadCount(for: userID) }
    func setRead(_ isRead: Bool, notificationID: NotificationID, userID: UserID, at date: Date) async throws -> NotificationItem? {
        try await base.setRead(isRead, notificationID: notificationID, userID: userID, at: date)
    }
    func markAllRead(userID: UserID, at date: Date) async throws -> Int { try await base.markAllRead(userID: userID, at: date) }
    func markRead(ids: [NotificationID], userID: UserID, at date: Date) async throws -> Int {
        try await base.markRead(ids: ids, userID: userID, at: date)
    }
    func delete(ids: [NotificationID], userID: UserID, at date: Date) async throws -> Int {
        try await base.delete(ids: ids, userID: userID, at: date)
    }
    func preferences(for userID: UserID) async throws -> NotificationPreferences { try await base.preferences(for: userID) }
    func setPreferences(_ preferences: NotificationPreferences, for userID: UserID) async throws {
        try await base.setPreferences(preferences, for: userID)
    }
    func createAssignment(
        mentorID: UserID, coordinatorID: UserID?, contact: NewContact, at date: Date,
        makeNotification: @escaping @Sendable (ContactID, AssignmentID) -> NewNotification
    ) async throws -> (Assignment, Contact, NotificationItem) {
        try await base.createAssignment(
            mentorID: mentorID, coordinatorID: coordinatorID, contact: contact, at: date, makeNotification: makeNotification)
    }
    func assignment(id: AssignmentID) async throws -> Assignment? { try await base.assignment(id: id) }
    func assignments(_ listing: AssignmentListing) async throws -> [Assignment] { try await base.assignments(listing) }
    func assignmentReports(_ listing: AssignmentListing) async throws -> [AssignmentReportRow] { try await base.assignmentReports(listing) }
    func contact(id: ContactID) async throws -> Contact? { try await base.contact(id: id) }
    func recordContactRead(contactID: ContactID, userID: UserID, channel: ContactReadChannel, at date: Date) async throws {
        try await base.recordContactRead(contactID: contactID, userID: userID, channel: channel, at: date)
    }
    func contactReads(contactID: ContactID) async throws -> [ContactRead] { try await base.contactReads(contactID: contactID) }
    func pruneContactReads(before date: Date) async throws -> Int { try await base.pruneContactReads(before: date) }
    func eraseContact(contactID: ContactID, titles: [Language: String], at date: Date) async throws -> [NotificationItem]? {
        try await base.eraseContact(contactID: contactID, titles: titles, at: date)
    }
    func erasePeopleWithDestroyedKeys(titles: [Language: String], at date: Date) async throws -> Int {
        try await base.erasePeopleWithDestroyedKeys(titles: titles, at: date)
    }
    func movePeopleToTheirKeys(limit: Int) async throws -> Int {
        try await base.movePeopleToTheirKeys(limit: limit)
    }
    func peopleKeyCounts() async throws -> PeopleKeyCounts {
        try await base.peopleKeyCounts()
    }
    func contactsClosed(before date: Date) async throws -> [ContactID] { try await base.contactsClosed(before: date) }
    func resealStale(limit: Int) async throws -> Int { try await base.resealStale(limit: limit) }
    func sealedValueCounts() async throws -> [String: Int] { try await base.sealedValueCounts() }
    func addPasskey(_ passkey: NewPasskey, at date: Date) async throws -> Passkey { try await base.addPasskey(passkey, at: date) }
    func passkeys(userID: UserID) async throws -> [Passkey] { try await base.passkeys(userID: userID) }
    func passkey(credentialID: String) async throws -> Passkey? { try await base.passkey(credentialID: credentialID) }
    func recordPasskeyUse(id: Int64, signCount: UInt32, at date: Date) async throws {
        try await base.recordPasskeyUse(id: id, signCount: signCount, at: date)
    }
    func renamePasskey(id: Int64, userID: UserID, name: String) async throws -> Passkey? {
        try await base.renamePasskey(id: id, userID: userID, name: name)
    }
    func removePasskey(id: Int64, userID: UserID, at date: Date) async throws -> Bool {
        try await base.removePasskey(id: id, userID: userID, at: date)
    }
    func storeChallenge(_ challenge: PasskeyChallenge, at date: Date) async throws { try await base.storeChallenge(challenge, at: date) }
    func takeChallenge(challengeHash: String, at date: Date) async throws -> PasskeyChallenge? {
        try await base.takeChallenge(challengeHash: challengeHash, at: date)
    }
    func usePasswordLink(tokenHash: String, addingPasskey passkey: NewPasskey, at date: Date) async throws -> (User, Passkey)? {
        try await base.usePasswordLink(tokenHash: tokenHash, addingPasskey: passkey, at: date)
    }
    func respond(to assignmentID: AssignmentID, status: AssignmentStatus, at date: Date) async throws -> Assignment {
        try await base.respond(to: assignmentID, status: status, at: date)
    }
    func certifications(mentorID: UserID) async throws -> [Certification] { try await base.certifications(mentorID: mentorID) }
    func certifications(expiringBefore date: Date) async throws -> [Certification] { try await base.certifications(expiringBefore: date) }
    func recordExpiryWarning(certificationID: Int64, threshold: Int, alsoCovers: [Int], notification: NewNotification, at date: Date) async throws
        -> NotificationItem?
    {
        try await base.recordExpiryWarning(
            certificationID: certificationID, threshold: threshold, alsoCovers: alsoCovers, notification: notification, at: date)
    }
    func events(after id: Int64, limit: Int) async throws -> [StoredEvent] { try await base.events(after: id, limit: limit) }
    func events(for userID: UserID, after id: Int64, limit: Int) async throws -> [StoredEvent] {
        try await base.events(for: userID, after: id, limit: limit)
    }
    func prunedThroughEventID() async throws -> Int64 { try await base.prunedThroughEventID() }
    func pruneEvents(before date: Date) async throws -> Int { try await base.pruneEvents(before: date) }
}

@Suite("The centre page and its stream")
struct PageStreamGapTests {
    @Test("a notification committed while the centre page is read is on the page or on the stream it resumes")
    func notificationInTheWindowIsDelivered() async throws {
        let injecting = Mutex<WindowInjectingStore?>(nil)
        let world = try await TestWorld(store: { base in
            let store = WindowInjectingStore(base: base)
            injecting.withLock { $0 = store }
            return store
        })
        let store = try #require(injecting.withLock { $0 })
        let kari = try #require(world.kari)
        try await world.test { client in
            let token = try await client.token("kari")
            store.inject(
                NewNotification(
                    recipientID: kari.id, senderID: nil, kind: .scenarioPrompt, title: "Slipped in the window",
                    body: "", deepLink: .scenario(scenarioID: nil)), at: world.clock.now)
            let page = try await client.call(.get, "/notifications", token: token)
            #expect(page.status == .ok)
            let injected = try #require(
                try await world.repository.notifications(for: kari.id, filter: .all, after: nil, limit: 10).items
                    .first { $0.title == "Slipped in the window" })
            let resumePoint = try #require(Self.lastEventID(in: page.text))
            let onPage = page.text.contains("id=\"notification-\(injected.id)\"")
            // What the page's stream (`/api/v1/events?since=<resume point>`) replays first.
            let replayed = try await world.repository.events(for: kari.id, after: resumePoint, limit: 100)
                .contains { $0.type == .notificationCreated && $0.notificationID == injected.id }
            #expect(onPage || replayed, "the notification is on neither the page nor its stream")
        }
    }

    /// The `data-last-event-id` the page's script resumes its stream from.
    static func lastEventID(in html: String) -> Int64? {
        guard let range = html.range(of: "data-last-event-id=\"") else { return nil }
        return Int64(html[range.upperBound...].prefix { $0.isNumber })
    }
}

/// The assignment pipeline's part of the store, passed through unchanged.
extension WindowInjectingStore {
    func pendingAssignments(createdBefore date: Date) async throws -> [Assignment] { try await base.pendingAssignments(createdBefore: date) }
    func recordEscalation(assignmentID: AssignmentID, step: EscalationStep, notification: NewNotification, at date: Date) async throws
        -> NotificationItem?
    {
        try await base.recordEscalation(assignmentID: assignmentID, step: step, notification: notification, at: date)
    }
    func escalations(assignmentID: AssignmentID) async throws -> [EscalationStep: Date] { try await base.escalations(assignmentID: assignmentID) }
    func reassign(
        assignmentID: AssignmentID, to mentorID: UserID, at date: Date,
        makeNotification: @escaping @Sendable (ContactID, AssignmentID) -> NewNotification
    ) async throws -> (Assignment, NotificationItem) {
        try await base.reassign(assignmentID: assignmentID, to: mentorID, at: date, makeNotification: makeNotification)
    }
    func completeVisit(assignmentID: AssignmentID, note: String, at date: Date) async throws -> Assignment {
        try await base.completeVisit(assignmentID: assignmentID, note: note, at: date)
    }
    func recordLiveDelivery(notificationID: NotificationID, at date: Date) async throws {
        try await base.recordLiveDelivery(notificationID: notificationID, at: date)
    }
    func publishScenario(
        title: String, body: String, coordinatorID: UserID?, mentorIDs: [UserID], scheduledSendID: ScheduledSendID?, at date: Date,
        makeNotification: @escaping @Sendable (Int64, UserID) -> NewNotification
    ) async throws -> (Scenario, [NotificationItem]) {
        try await base.publishScenario(
            title: title, body: body, coordinatorID: coordinatorID, mentorIDs: mentorIDs, scheduledSendID: scheduledSendID, at: date,
            makeNotification: makeNotification)
    }
    func scenarios(forMentor mentorID: UserID) async throws -> [MentorScenario] { try await base.scenarios(forMentor: mentorID) }
    func signInFailures(keys: [String], since: Date) async throws -> [String: SignInFailures] {
        try await base.signInFailures(keys: keys, since: since)
    }
    func recordSignInFailure(keys: [String], at date: Date, forgetBefore: Date) async throws {
        try await base.recordSignInFailure(keys: keys, at: date, forgetBefore: forgetBefore)
    }
    func clearSignInFailures(key: String) async throws { try await base.clearSignInFailures(key: key) }
    func allScenarios() async throws -> [(Scenario, [MentorScenario])] { try await base.allScenarios() }
    func completeScenario(scenarioID: Int64, mentorID: UserID, reflection: String, at date: Date) async throws -> MentorScenario {
        try await base.completeScenario(scenarioID: scenarioID, mentorID: mentorID, reflection: reflection, at: date)
    }
}

/// Web Push's part of the store, passed through unchanged.
extension WindowInjectingStore {
    func vapidPrivateKey(orStore candidate: Data) async throws -> Data { try await base.vapidPrivateKey(orStore: candidate) }
    func savePushSubscription(_ subscription: NewPushSubscription, at date: Date) async throws -> PushSubscription {
        try await base.savePushSubscription(subscription, at: date)
    }
    func pushSubscription(id: Int64) async throws -> PushSubscription? { try await base.pushSubscription(id: id) }
    func pushSubscriptions(for userID: UserID) async throws -> [PushSubscription] { try await base.pushSubscriptions(for: userID) }
    func pushSubscriptions(forAnyOf userIDs: Set<UserID>) async throws -> [PushSubscription] { try await base.pushSubscriptions(forAnyOf: userIDs) }
    func deletePushSubscription(id: Int64, userID: UserID?) async throws -> Bool { try await base.deletePushSubscription(id: id, userID: userID) }
    func pushOutboxCursor() async throws -> Int64? { try await base.pushOutboxCursor() }
    func enqueuePushDeliveries(_ deliveries: [NewPushDelivery], after expectedCursor: Int64?, through eventID: Int64, at date: Date) async throws
        -> Bool
    {
        try await base.enqueuePushDeliveries(deliveries, after: expectedCursor, through: eventID, at: date)
    }
    func claimDuePushDeliveries(at date: Date, limit: Int, leaseUntil: Date) async throws -> [PushDelivery] {
        try await base.claimDuePushDeliveries(at: date, limit: limit, leaseUntil: leaseUntil)
    }
    func nextPushDeliveryDate() async throws -> Date? { try await base.nextPushDeliveryDate() }
    func reschedulePushDelivery(id: Int64, attempts: Int, at date: Date) async throws {
        try await base.reschedulePushDelivery(id: id, attempts: attempts, at: date)
    }
    func finishPushDelivery(id: Int64) async throws { try await base.finishPushDelivery(id: id) }
    func recordPushAccepted(subscriptionID: Int64, notificationID: NotificationID, at date: Date) async throws {
        try await base.recordPushAccepted(subscriptionID: subscriptionID, notificationID: notificationID, at: date)
    }
    func recordPushShown(subscriptionID: Int64, notificationID: NotificationID, at date: Date) async throws -> PushReceiptOutcome {
        try await base.recordPushShown(subscriptionID: subscriptionID, notificationID: notificationID, at: date)
    }
    func revokePushSubscription(id: Int64, at date: Date) async throws { try await base.revokePushSubscription(id: id, at: date) }
    func pushDevices(forAnyOf userIDs: Set<UserID>) async throws -> [PushDevice] { try await base.pushDevices(forAnyOf: userIDs) }
}

extension WindowInjectingStore {
    func createIntegration(_ account: NewUser, tokenHash: String, by actorID: UserID?, at date: Date) async throws -> Integration {
        try await base.createIntegration(account, tokenHash: tokenHash, by: actorID, at: date)
    }
    func integrations() async throws -> [Integration] { try await base.integrations() }
    func integration(tokenHash: String) async throws -> Integration? { try await base.integration(tokenHash: tokenHash) }
    func recordIntegrationUse(userID: UserID, at date: Date) async throws { try await base.recordIntegrationUse(userID: userID, at: date) }
    func contactChannels(of userID: UserID) async throws -> [StoredContactChannel] { try await base.contactChannels(of: userID) }
    func verifiedContactChannels(forAnyOf userIDs: Set<UserID>) async throws -> [StoredContactChannel] {
        try await base.verifiedContactChannels(forAnyOf: userIDs)
    }
    func saveContactChannel(userID: UserID, channel: OutsideChannel, address: String, codeHash: String, expiresAt: Date, at date: Date) async throws {
        try await base.saveContactChannel(userID: userID, channel: channel, address: address, codeHash: codeHash, expiresAt: expiresAt, at: date)
    }
    func recordWrongCode(userID: UserID, channel: OutsideChannel) async throws -> Int {
        try await base.recordWrongCode(userID: userID, channel: channel)
    }
    func markContactChannelVerified(userID: UserID, channel: OutsideChannel, codeHash: String, at date: Date) async throws -> Bool {
        try await base.markContactChannelVerified(userID: userID, channel: channel, codeHash: codeHash, at: date)
    }
    func deleteContactChannel(userID: UserID, channel: OutsideChannel) async throws -> Bool {
        try await base.deleteContactChannel(userID: userID, channel: channel)
    }
    func messageOutboxCursor() async throws -> Int64? { try await base.messageOutboxCursor() }
    func enqueueMessages(_ messages: [NewMessageDelivery], after expectedCursor: Int64?, through eventID: Int64, at date: Date) async throws -> Bool {
        try await base.enqueueMessages(messages, after: expectedCursor, through: eventID, at: date)
    }
    func isUnseen(notificationID: NotificationID) async throws -> Bool { try await base.isUnseen(notificationID: notificationID) }
    func claimDueMessages(at date: Date, limit: Int, leaseUntil: Date) async throws -> [MessageDelivery] {
        try await base.claimDueMessages(at: date, limit: limit, leaseUntil: leaseUntil)
    }
    func rescheduleMessage(id: Int64, attempts: Int, at date: Date) async throws {
        try await base.rescheduleMessage(id: id, attempts: attempts, at: date)
    }
    func finishMessage(id: Int64, outcome: MessageOutcome, at date: Date) async throws {
        try await base.finishMessage(id: id, outcome: outcome, at: date)
    }
    func queuedMessages(notificationID: NotificationID) async throws -> [MessageDelivery] {
        try await base.queuedMessages(notificationID: notificationID)
    }
    func pruneMessages(before date: Date) async throws -> Int { try await base.pruneMessages(before: date) }
    func scheduledSend(requestedWith idempotencyKey: IdempotencyKey) async throws -> ScheduledSendCreated? {
        try await base.scheduledSend(requestedWith: idempotencyKey)
    }
    func scheduleSend(_ new: NewScheduledSend, idempotencyKey: IdempotencyKey?, at date: Date) async throws -> ScheduledSendCreated {
        try await base.scheduleSend(new, idempotencyKey: idempotencyKey, at: date)
    }
    func scheduledSend(id: ScheduledSendID) async throws -> ScheduledSend? { try await base.scheduledSend(id: id) }
    func waitingScheduledSends(senderID: UserID?) async throws -> [ScheduledSend] { try await base.waitingScheduledSends(senderID: senderID) }
    func changeScheduledSend(
        id: ScheduledSendID, sendAt: Date, title: String, body: String, urgency: Urgency, at date: Date
    ) async throws -> ScheduledSend? {
        try await base.changeScheduledSend(id: id, sendAt: sendAt, title: title, body: body, urgency: urgency, at: date)
    }
    func cancelScheduledSend(id: ScheduledSendID, at date: Date) async throws -> Bool { try await base.cancelScheduledSend(id: id, at: date) }
    func takeDueScheduledSends(at date: Date, limit: Int) async throws -> [ScheduledSend] {
        try await base.takeDueScheduledSends(at: date, limit: limit)
    }
    func finishScheduledSend(id: ScheduledSendID, at date: Date) async throws { try await base.finishScheduledSend(id: id, at: date) }
    func scheduleSummary(for userID: UserID, dueAt: Date?, at date: Date) async throws {
        try await base.scheduleSummary(for: userID, dueAt: dueAt, at: date)
    }
    func dueSummaries(at date: Date, limit: Int) async throws -> [DueSummary] { try await base.dueSummaries(at: date, limit: limit) }
    func advanceSummary(_ summary: DueSummary, to nextDueAt: Date, since: Date) async throws -> Bool {
        try await base.advanceSummary(summary, to: nextDueAt, since: since)
    }
    func createWebhookEndpoint(_ endpoint: NewWebhookEndpoint, at date: Date) async throws -> WebhookEndpoint {
        try await base.createWebhookEndpoint(endpoint, at: date)
    }
    func webhookEndpoints(integrationID: UserID?) async throws -> [WebhookEndpoint] { try await base.webhookEndpoints(integrationID: integrationID) }
    func webhookEndpoint(id: Int64) async throws -> WebhookEndpoint? { try await base.webhookEndpoint(id: id) }
    func deleteWebhookEndpoint(id: Int64) async throws -> Bool { try await base.deleteWebhookEndpoint(id: id) }
    func queueWebhookEvents(_ events: [NewWebhookEvent], at date: Date) async throws { try await base.queueWebhookEvents(events, at: date) }
    func claimDueWebhookDeliveries(at date: Date, limit: Int, leaseUntil: Date) async throws -> [ClaimedWebhook] {
        try await base.claimDueWebhookDeliveries(at: date, limit: limit, leaseUntil: leaseUntil)
    }
    func recordWebhookAttempt(id: Int64, _ record: WebhookAttemptRecord, at date: Date) async throws {
        try await base.recordWebhookAttempt(id: id, record, at: date)
    }
    func disableWebhookEndpoint(id: Int64, at date: Date) async throws -> Bool { try await base.disableWebhookEndpoint(id: id, at: date) }
    func webhookDeliveries(endpointID: Int64, limit: Int) async throws -> [WebhookDelivery] {
        try await base.webhookDeliveries(endpointID: endpointID, limit: limit)
    }
    func pruneWebhookDeliveries(before date: Date) async throws -> Int { try await base.pruneWebhookDeliveries(before: date) }
}
