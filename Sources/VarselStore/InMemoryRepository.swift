import Foundation
import VarselCore

/// A ``VarselRepository`` kept in memory: for tests, and the reference the contract suite holds SQLite to.
public actor InMemoryRepository: VarselRepository {
    private var usersByID: [Int64: User] = [:]
    private var sessions: [String: Session] = [:]
    private var items: [Int64: NotificationItem] = [:]
    private var senders: [Int64: Int64] = [:]
    private var idempotency: [String: (fingerprint: String, ids: [Int64])] = [:]
    private var preferencesByUser: [Int64: NotificationPreferences] = [:]
    private var contacts: [Int64: Contact] = [:]
    private var assignmentsByID: [Int64: Assignment] = [:]
    private var certificationsByID: [Int64: Certification] = [:]
    private var expiryWarnings: Set<String> = []
    private var escalationsByAssignment: [Int64: [EscalationStep: Date]] = [:]
    private var scenariosByID: [Int64: Scenario] = [:]
    private var signInFailuresByKey: [String: SignInFailures] = [:]
    /// Unused one-time password links by token hash, with the user each is for.
    var passwordLinks: [String: (userID: Int64, link: PasswordLink)] = [:]
    private var accountLogEntries: [AccountLogEntry] = []
    private var contactReadLog: [ContactRead] = []
    private var mentorScenarios: [Int64: [Int64: MentorScenario]] = [:]
    private var eventLog: [StoredEvent] = []
    private var prunedThrough: Int64 = 0
    private var nextIDs: [String: Int64] = [:]
    /// Web Push's tables (InMemoryRepository+Push.swift).
    var push = InMemoryPushTables()
    /// Passkeys by id, and challenges by hash (InMemoryRepository+Passkeys.swift).
    var passkeysByID: [Int64: Passkey] = [:]
    var challenges: [String: PasskeyChallenge] = [:]

    public init() {}

    func nextID(_ table: String) -> Int64 {
        let id = (nextIDs[table] ?? 0) + 1
        nextIDs[table] = id
        return id
    }

    // MARK: Users

    public func createUser(_ user: NewUser, link: PasswordLink?, by actorID: Int64?, at date: Date) throws -> User {
        guard !usersByID.values.contains(where: { $0.username.lowercased() == user.username.lowercased() }) else {
            throw StoreError.conflict("username is taken")
        }
        let created = User(id: nextID("user"), username: user.username, displayName: user.displayName, role: user.role,
                           passwordHash: user.passwordHash, language: user.language, createdAt: date)
        usersByID[created.id] = created
        if let link { passwordLinks[link.tokenHash] = (created.id, link) }
        appendLog([NewAccountLogEntry(actorID: actorID, action: .created, subject: user.role.rawValue)], userID: created.id, at: date)
        return created
    }

    public func user(id: Int64) -> User? { usersByID[id] }

    public func user(username: String) -> User? {
        usersByID.values.first { $0.username.lowercased() == username.lowercased() }
    }

    public func users() -> [User] { usersByID.values.sorted { $0.id < $1.id } }

    public func setLanguage(_ language: Language, userID: Int64) throws {
        guard usersByID[userID] != nil else { throw StoreError.notFound(.user) }
        usersByID[userID]?.language = language
    }

    public func setPause(from: Date?, until: Date?, userID: Int64) throws {
        guard usersByID[userID] != nil else { throw StoreError.notFound(.user) }
        usersByID[userID]?.pausedFrom = until == nil ? nil : from
        usersByID[userID]?.pausedUntil = until
    }

    // MARK: Sessions

    public func createSession(_ session: Session) { sessions[session.tokenHash] = session }

    public func session(tokenHash: String, at date: Date) -> Session? {
        guard let session = sessions[tokenHash], session.expiresAt > date else { return nil }
        return session
    }

    public func sessions(userID: Int64) -> [Session] {
        sessions.values.filter { $0.userID == userID }.sorted { ($0.createdAt, $0.tokenHash) < ($1.createdAt, $1.tokenHash) }
    }

    public func deleteSession(tokenHash: String) {
        sessions[tokenHash] = nil
        push.sessionsEnded([tokenHash])
    }

    public func changePassword(userID: Int64, passwordHash: String, keeping keptSession: String?, at date: Date) throws -> [String] {
        guard var user = usersByID[userID] else { throw StoreError.notFound(.user) }
        user.passwordHash = passwordHash
        usersByID[userID] = user
        appendLog([NewAccountLogEntry(actorID: userID, action: .passwordChanged)], userID: userID, at: date)
        return endSessions(of: userID, keeping: keptSession)
    }

    /// Deletes `userID`'s sessions but `keptSession`, and the push subscriptions made by them; returns their hashes.
    func endSessions(of userID: Int64, keeping keptSession: String? = nil) -> [String] {
        let ended = sessions.filter { $0.value.userID == userID && $0.key != keptSession }.map(\.key)
        ended.forEach { sessions[$0] = nil }
        push.sessionsEnded(ended)
        return ended
    }

    // MARK: Accounts

    public func changeAccount(userID: Int64, _ change: AccountChange, log: [NewAccountLogEntry], at date: Date) throws -> AccountChangeOutcome {
        guard var user = usersByID[userID] else {
            if case .certifications = change { throw StoreError.notFound(.mentor) }
            throw StoreError.notFound(.user)
        }
        var ended: [String] = []
        switch change {
        case let .role(role):
            user.role = role
        case .deactivate:
            user.deactivatedAt = user.deactivatedAt ?? date
            ended = endSessions(of: userID)
            passwordLinks = passwordLinks.filter { $0.value.userID != userID }
            appendEvent(userID: userID, .accountDeactivated, at: date)
        case .reactivate:
            user.deactivatedAt = nil
        case let .passwordLink(link):
            passwordLinks = passwordLinks.filter { $0.value.userID != userID }
            passwordLinks[link.tokenHash] = (userID, link)
            ended = endSessions(of: userID)
        case let .certifications(list):
            replaceCertifications(list, mentorID: userID)
        }
        usersByID[userID] = user
        appendLog(log, userID: userID, at: date)
        return AccountChangeOutcome(user: user, endedSessions: ended, certifications: certifications(mentorID: userID))
    }

    public func passwordLinkUser(tokenHash: String, at date: Date) -> User? {
        guard let entry = passwordLinks[tokenHash], entry.link.expiresAt > date, let user = usersByID[entry.userID], user.isActive else { return nil }
        return user
    }

    public func usePasswordLink(tokenHash: String, passwordHash: String, at date: Date) -> User? {
        guard var user = passwordLinkUser(tokenHash: tokenHash, at: date) else { return nil }
        passwordLinks[tokenHash] = nil
        user.passwordHash = passwordHash
        usersByID[user.id] = user
        _ = endSessions(of: user.id)
        appendLog([NewAccountLogEntry(actorID: user.id, action: .passwordSet)], userID: user.id, at: date)
        return user
    }

    public func accountLog(userID: Int64) -> [AccountLogEntry] {
        accountLogEntries.filter { $0.userID == userID }
    }

    func appendLog(_ entries: [NewAccountLogEntry], userID: Int64, at date: Date) {
        for entry in entries {
            accountLogEntries.append(AccountLogEntry(id: nextID("account_log"), userID: userID, actorID: entry.actorID, action: entry.action,
                                                     subject: entry.subject, date: entry.date, at: date))
        }
    }

    public func deleteExpiredSessions(at date: Date) -> Int {
        let expired = sessions.filter { $0.value.expiresAt <= date }.map(\.key)
        expired.forEach { sessions[$0] = nil }
        push.sessionsEnded(expired)
        passwordLinks = passwordLinks.filter { $0.value.link.expiresAt > date }
        return expired.count
    }

    // MARK: Notifications

    public func createNotifications(_ notifications: [NewNotification], idempotencyKey: IdempotencyKey?, at date: Date) throws -> CreatedNotifications {
        if let key = idempotencyKey {
            let scoped = "\(key.senderID):\(key.key)"
            if let earlier = idempotency[scoped] {
                guard earlier.fingerprint == key.fingerprint else { throw StoreError.idempotencyKeyReused }
                return CreatedNotifications(items: earlier.ids.compactMap { items[$0] }, isReplay: true)
            }
        }
        for new in notifications where usersByID[new.recipientID] == nil { throw StoreError.notFound(.recipient) }
        let created = notifications.map { insert($0, at: date) }
        appendUnreadCounts(for: created.map(\.recipientID), at: date)
        if let key = idempotencyKey {
            idempotency["\(key.senderID):\(key.key)"] = (key.fingerprint, created.map(\.id))
        }
        return CreatedNotifications(items: created, isReplay: false)
    }

    private func insert(_ new: NewNotification, at date: Date) -> NotificationItem {
        let item = NotificationItem(id: nextID("notification"), recipientID: new.recipientID, kind: new.kind, title: new.title,
                                    body: new.body, createdAt: date, urgency: new.urgency, deepLink: new.deepLink,
                                    personalDetails: new.personalDetails)
        items[item.id] = item
        senders[item.id] = new.senderID
        appendEvent(userID: item.recipientID, .notificationCreated(item), at: date)
        return item
    }

    private func appendEvent(userID: Int64, _ payload: EventPayload, at date: Date) {
        eventLog.append(StoredEvent(id: nextID("event"), userID: userID, payload: payload, createdAt: date))
    }

    private func appendUnreadCounts(for userIDs: [Int64], at date: Date) {
        var seen = Set<Int64>()
        for userID in userIDs where seen.insert(userID).inserted {
            appendEvent(userID: userID, .unreadCount(unreadCount(for: userID)), at: date)
        }
    }

    public func notification(id: Int64) -> NotificationItem? { items[id] }

    public func notifications(for userID: Int64, filter: NotificationFilter, after cursor: Int64?, limit: Int) -> NotificationPage {
        let matching = items.values
            .filter { item in item.recipientID == userID && filter.includes(item) && item.id < (cursor ?? .max) }
            .sorted { $0.id > $1.id }
        let page = Array(matching.prefix(limit))
        return NotificationPage(items: page, nextCursor: matching.count > limit ? page.last?.id : nil)
    }

    public func unreadCount(for userID: Int64) -> Int {
        items.values.filter { $0.recipientID == userID && $0.isUnread }.count
    }

    public func setRead(_ isRead: Bool, notificationID: Int64, userID: Int64, at date: Date) -> NotificationItem? {
        guard var item = items[notificationID], item.recipientID == userID else { return nil }
        guard item.isUnread == isRead else { return item }
        item.readAt = isRead ? date : nil
        items[item.id] = item
        appendEvent(userID: userID, .notificationUpdated(item), at: date)
        appendUnreadCounts(for: [userID], at: date)
        return item
    }

    public func markAllRead(userID: Int64, at date: Date) -> Int {
        let ids = items.values.filter { $0.recipientID == userID && $0.isUnread }.map(\.id)
        return markRead(ids: ids, userID: userID, at: date)
    }

    public func markRead(ids: [Int64], userID: Int64, at date: Date) -> Int {
        var changed = 0
        for id in Set(ids).sorted() {
            guard var item = items[id], item.recipientID == userID, item.isUnread else { continue }
            item.readAt = date
            items[id] = item
            appendEvent(userID: userID, .notificationUpdated(item), at: date)
            changed += 1
        }
        if changed > 0 { appendUnreadCounts(for: [userID], at: date) }
        return changed
    }

    public func delete(ids: [Int64], userID: Int64, at date: Date) -> Int {
        var deleted = 0
        for id in Set(ids).sorted() {
            guard let item = items[id], item.recipientID == userID else { continue }
            items[id] = nil
            appendEvent(userID: userID, .notificationDeleted(notificationID: id), at: date)
            deleted += 1
        }
        if deleted > 0 { appendUnreadCounts(for: [userID], at: date) }
        return deleted
    }

    // MARK: Preferences

    public func preferences(for userID: Int64) -> NotificationPreferences { preferencesByUser[userID] ?? .standard }

    public func setPreferences(_ preferences: NotificationPreferences, for userID: Int64) { preferencesByUser[userID] = preferences }

    // MARK: Contacts and assignments

    public func createAssignment(
        mentorID: Int64, coordinatorID: Int64?, contact: NewContact, at date: Date,
        makeNotification: @Sendable (Int64, Int64) -> NewNotification
    ) throws -> (Assignment, Contact, NotificationItem) {
        guard usersByID[mentorID] != nil else { throw StoreError.notFound(.mentor) }
        let stored = Contact(id: nextID("contact"), name: contact.name, phone: contact.phone, address: contact.address, notes: contact.notes)
        contacts[stored.id] = stored
        let assignmentID = nextID("assignment")
        let item = insert(makeNotification(stored.id, assignmentID), at: date)
        appendUnreadCounts(for: [item.recipientID], at: date)
        let assignment = Assignment(id: assignmentID, mentorID: mentorID, contactID: stored.id, coordinatorID: coordinatorID,
                                    status: .pending, createdAt: date, respondedAt: nil, notificationID: item.id)
        assignmentsByID[assignmentID] = assignment
        return (assignment, stored, item)
    }

    public func assignment(id: Int64) -> Assignment? { assignmentsByID[id] }

    public func assignments(forMentor mentorID: Int64) -> [Assignment] {
        assignmentsByID.values.filter { $0.mentorID == mentorID }.sorted { $0.id > $1.id }
    }

    public func allAssignments() -> [Assignment] { assignmentsByID.values.sorted { $0.id > $1.id } }

    public func pendingAssignments(createdBefore date: Date) -> [Assignment] {
        assignmentsByID.values.filter { $0.status == .pending && $0.reassignedAt == nil && $0.createdAt < date }.sorted { $0.id < $1.id }
    }

    public func recordEscalation(assignmentID: Int64, step: EscalationStep, notification: NewNotification, at date: Date) throws -> NotificationItem? {
        guard assignmentsByID[assignmentID] != nil else { throw StoreError.notFound(.assignment) }
        guard escalationsByAssignment[assignmentID, default: [:]][step] == nil else { return nil }
        escalationsByAssignment[assignmentID, default: [:]][step] = date
        let item = insert(notification, at: date)
        appendUnreadCounts(for: [item.recipientID], at: date)
        return item
    }

    public func escalations(assignmentID: Int64) -> [EscalationStep: Date] { escalationsByAssignment[assignmentID] ?? [:] }

    public func contact(id: Int64) -> Contact? { contacts[id] }

    public func eraseContact(contactID: Int64, titles: [Language: String], at date: Date) -> [NotificationItem]? {
        guard var contact = contacts[contactID] else { return nil }
        if contact.erasedAt == nil {
            contact = Contact(id: contactID, name: "", phone: "", address: "", notes: "", erasedAt: date)
            contacts[contactID] = contact
        }
        var erased: [NotificationItem] = []
        for assignment in assignmentsByID.values.sorted(by: { $0.id < $1.id }) where assignment.contactID == contactID {
            if assignmentsByID[assignment.id]?.visitNote != nil { assignmentsByID[assignment.id]?.visitNote = "" }
            guard let id = assignment.notificationID, var item = items[id] else { continue }
            let language = usersByID[item.recipientID]?.language ?? .english
            if item.title != (titles[language] ?? "") || !item.body.isEmpty || !item.personalDetails.isEmpty {
                item.title = (titles[language] ?? "")
                item.body = ""
                item.personalDetails = []
                items[id] = item
                eventLog = eventLog.map { event in
                    switch event.payload {
                    case let .notificationCreated(old) where old.id == id:
                        var copy = event
                        copy.payload = .notificationCreated(item)
                        return copy
                    case let .notificationUpdated(old) where old.id == id:
                        var copy = event
                        copy.payload = .notificationUpdated(item)
                        return copy
                    default: return event
                    }
                }
                push.deliveries = push.deliveries.filter { $0.value.notificationID != id }
                appendEvent(userID: item.recipientID, .notificationUpdated(item), at: date)
            }
            erased.append(item)
        }
        return erased
    }

    /// Nothing is at rest in memory: nothing to seal.
    public func resealStale(limit: Int) -> Int { 0 }

    public func sealedValueCounts() -> [String: Int] { [:] }

    public func contactsClosed(before date: Date) -> [Int64] {
        let byContact = Dictionary(grouping: assignmentsByID.values, by: \.contactID)
        return byContact.compactMap { contactID, assignments -> Int64? in
            guard contacts[contactID]?.erasedAt == nil, !assignments.contains(where: \.isLive) else { return nil }
            let closed = assignments.compactMap { $0.reassignedAt ?? $0.doneAt ?? $0.respondedAt }.max()
            return closed.map { $0 < date } == true ? contactID : nil
        }.sorted()
    }

    public func recordContactRead(contactID: Int64, userID: Int64, channel: ContactReadChannel, at date: Date) {
        contactReadLog.append(ContactRead(id: nextID("contact_read"), contactID: contactID, userID: userID, channel: channel, at: date))
    }

    public func contactReads(contactID: Int64) -> [ContactRead] { contactReadLog.filter { $0.contactID == contactID } }

    public func pruneContactReads(before date: Date) -> Int {
        let before = contactReadLog.count
        contactReadLog.removeAll { $0.at < date }
        return before - contactReadLog.count
    }

    public func respond(to assignmentID: Int64, status: AssignmentStatus, at date: Date) throws -> Assignment {
        guard var assignment = assignmentsByID[assignmentID] else { throw StoreError.notFound(.assignment) }
        if let refusal = assignment.refusalToRespond { throw refusal }
        assignment.status = status
        assignment.respondedAt = date
        assignmentsByID[assignmentID] = assignment
        return assignment
    }

    public func reassign(
        assignmentID: Int64, to mentorID: Int64, at date: Date,
        makeNotification: @Sendable (Int64, Int64) -> NewNotification
    ) throws -> (Assignment, NotificationItem) {
        guard var old = assignmentsByID[assignmentID] else { throw StoreError.notFound(.assignment) }
        guard usersByID[mentorID] != nil else { throw StoreError.notFound(.mentor) }
        if let refusal = old.refusalToReassign { throw refusal }
        old.reassignedAt = date
        assignmentsByID[assignmentID] = old
        let newID = nextID("assignment")
        let item = insert(makeNotification(old.contactID, newID), at: date)
        appendUnreadCounts(for: [item.recipientID], at: date)
        let new = Assignment(id: newID, mentorID: mentorID, contactID: old.contactID, coordinatorID: old.coordinatorID, status: .pending,
                             createdAt: date, respondedAt: nil, notificationID: item.id, previousID: assignmentID)
        assignmentsByID[newID] = new
        return (new, item)
    }

    public func completeVisit(assignmentID: Int64, note: String, at date: Date) throws -> Assignment {
        guard var assignment = assignmentsByID[assignmentID] else { throw StoreError.notFound(.assignment) }
        if let refusal = assignment.refusalToComplete { throw refusal }
        assignment.status = .done
        assignment.doneAt = date
        assignment.visitNote = note
        assignmentsByID[assignmentID] = assignment
        return assignment
    }

    public func recordLiveDelivery(notificationID: Int64, at date: Date) {
        guard let id = assignmentsByID.values.first(where: { $0.notificationID == notificationID && $0.deliveredAt == nil })?.id else { return }
        assignmentsByID[id]?.deliveredAt = date
    }

    // MARK: Sign-in throttling

    public func signInFailures(keys: [String], since: Date) -> [String: SignInFailures] {
        signInFailuresByKey.filter { keys.contains($0.key) && $0.value.last >= since }
    }

    public func recordSignInFailure(keys: [String], at date: Date, forgetBefore: Date) {
        signInFailuresByKey = signInFailuresByKey.filter { $0.value.last >= forgetBefore }
        for key in keys {
            signInFailuresByKey[key] = SignInFailures(count: (signInFailuresByKey[key]?.count ?? 0) + 1, last: date)
        }
    }

    public func clearSignInFailures(key: String) { signInFailuresByKey[key] = nil }

    // MARK: Scenarios

    public func publishScenario(
        title: String, body: String, coordinatorID: Int64?, mentorIDs: [Int64], at date: Date,
        makeNotification: @Sendable (Int64, Int64) -> NewNotification
    ) throws -> (Scenario, [NotificationItem]) {
        guard mentorIDs.allSatisfy({ usersByID[$0] != nil }) else { throw StoreError.notFound(.mentor) }
        let scenario = Scenario(id: nextID("scenario"), title: title, body: body, coordinatorID: coordinatorID, createdAt: date)
        scenariosByID[scenario.id] = scenario
        var items: [NotificationItem] = []
        for mentorID in Set(mentorIDs).sorted() {
            mentorScenarios[scenario.id, default: [:]][mentorID] = MentorScenario(scenario: scenario, mentorID: mentorID, doneAt: nil, reflection: "")
            items.append(insert(makeNotification(scenario.id, mentorID), at: date))
        }
        appendUnreadCounts(for: items.map(\.recipientID), at: date)
        return (scenario, items)
    }

    public func scenarios(forMentor mentorID: Int64) -> [MentorScenario] {
        mentorScenarios.values.compactMap { $0[mentorID] }.sorted { $0.scenario.id > $1.scenario.id }
    }

    public func allScenarios() -> [(Scenario, [MentorScenario])] {
        scenariosByID.values.sorted { $0.id > $1.id }.map { scenario in
            (scenario, (mentorScenarios[scenario.id] ?? [:]).values.sorted { $0.mentorID < $1.mentorID })
        }
    }

    public func completeScenario(scenarioID: Int64, mentorID: Int64, reflection: String, at date: Date) throws -> MentorScenario {
        guard var copy = mentorScenarios[scenarioID]?[mentorID] else { throw StoreError.notFound(.scenario) }
        copy.doneAt = copy.doneAt ?? date
        copy.reflection = reflection
        mentorScenarios[scenarioID]?[mentorID] = copy
        return copy
    }

    // MARK: Certifications

    private func replaceCertifications(_ certifications: [NewCertification], mentorID: Int64) {
        // Replacing keeps the id (and so the warnings sent) of a certification whose name and expiry are unchanged.
        let existing = certificationsByID.values.filter { $0.mentorID == mentorID }
        var result: [Certification] = []
        for new in certifications {
            if let same = existing.first(where: { $0.name == new.name && $0.expiresAt == new.expiresAt }) {
                result.append(same)
            } else {
                let created = Certification(id: nextID("certification"), mentorID: mentorID, name: new.name, expiresAt: new.expiresAt)
                certificationsByID[created.id] = created
                result.append(created)
            }
        }
        for old in existing where !result.contains(old) { certificationsByID[old.id] = nil }
    }

    public func certifications(mentorID: Int64) -> [Certification] {
        certificationsByID.values.filter { $0.mentorID == mentorID }.sorted { $0.id < $1.id }
    }

    public func certifications(expiringBefore date: Date) -> [Certification] {
        certificationsByID.values.filter { $0.expiresAt < date }.sorted { $0.id < $1.id }
    }

    public func recordExpiryWarning(certificationID: Int64, threshold: Int, alsoCovers: [Int], notification: NewNotification, at date: Date) -> NotificationItem? {
        guard expiryWarnings.insert("\(certificationID):\(threshold)").inserted else { return nil }
        for other in alsoCovers { expiryWarnings.insert("\(certificationID):\(other)") }
        let item = insert(notification, at: date)
        appendUnreadCounts(for: [item.recipientID], at: date)
        return item
    }

    // MARK: Event log

    public func events(after id: Int64, limit: Int) -> [StoredEvent] {
        Array(eventLog.lazy.filter { $0.id > id }.prefix(limit))
    }

    public func events(for userID: Int64, after id: Int64, limit: Int) -> [StoredEvent] {
        Array(eventLog.lazy.filter { $0.id > id && $0.userID == userID }.prefix(limit))
    }

    public func latestEventID() -> Int64 { nextIDs["event"] ?? 0 }

    public func prunedThroughEventID() -> Int64 { prunedThrough }

    public func pruneEvents(before date: Date) -> Int {
        let pruned = eventLog.filter { $0.createdAt < date }
        eventLog.removeAll { $0.createdAt < date }
        if let last = pruned.last { prunedThrough = max(prunedThrough, last.id) }
        return pruned.count
    }
}
