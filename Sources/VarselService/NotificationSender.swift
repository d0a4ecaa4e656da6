import Foundation
import VarselCore
import VarselStore

/// The one place a notification is built and stored: every way one comes to be (a coordinator's message, an
/// assignment, a pause confirmation, a certification warning, the demo) goes through here. The store tells the event
/// pump of each commit, so the live streams hear of it at once.
public struct NotificationSender: Sendable {
    let repository: any AssignmentStore & IntegrationStore & NotificationStore & TrainingStore & UserStore
    let now: @Sendable () -> Date
    let timeZone: TimeZone

    public init(
        repository: any AssignmentStore & IntegrationStore & NotificationStore & TrainingStore & UserStore, now: @escaping @Sendable () -> Date,
        timeZone: TimeZone = osloTimeZone
    ) {
        self.repository = repository
        self.now = now
        self.timeZone = timeZone
    }

    /// Sends a coordinator's validated message to each recipient, once per `idempotencyKey`.
    public func send(
        _ message: Validation.ValidNotification, from senderID: UserID, to recipientIDs: [UserID],
        idempotencyKey: IdempotencyKey? = nil
    ) async throws -> CreatedNotifications {
        let news = recipientIDs.map { recipientID in
            NewNotification(
                recipientID: recipientID, senderID: senderID, kind: message.kind, title: message.title, body: message.body,
                urgency: message.urgency, deepLink: Validation.deepLink(for: message.kind), personalDetails: message.personalDetails)
        }
        let created = try await repository.createNotifications(news, idempotencyKey: idempotencyKey, at: now())
        return created
    }

    /// Creates an assignment for `mentor`: the contact, the assignment, and the notification (in the mentor's
    /// language, deep-linking to the contact, its personal details marked) that tells them.
    public func assign(mentor: User, coordinatorID: UserID, contact: NewContact, urgency: Urgency) async throws -> (
        Assignment, Contact, NotificationItem
    ) {
        try await requireAvailable(mentor)
        let created = try await repository.createAssignment(mentorID: mentor.id, coordinatorID: coordinatorID, contact: contact, at: now()) {
            contactID, assignmentID in
            Self.assignmentNotification(
                to: mentor, from: coordinatorID, contact: contact, contactID: contactID, assignmentID: assignmentID, urgency: urgency)
        }
        return created
    }

    /// Gives an assignment's contact to `mentor`: the first mentor's access ends, and `mentor` gets the assignment
    /// notification, as for a new assignment. Deactivated and paused mentors, mentors with an expired certification,
    /// and an assignment whose contact's details were erased are refused.
    public func reassign(_ assignment: Assignment, to mentor: User, by coordinatorID: UserID) async throws -> (Assignment, NotificationItem) {
        guard mentor.role == .mentor else {
            throw InvalidInput([.init(field: "mentorId", rule: .other("not a mentor"))], summary: "Only a mentor can be given an assignment.")
        }
        guard mentor.id != assignment.mentorID else {
            throw InvalidInput([.init(field: "mentorId", rule: .other("same mentor"))], summary: "The assignment is already this mentor's.")
        }
        try await requireAvailable(mentor)
        guard let contact = try await repository.contact(id: assignment.contactID) else { throw StoreError.notFound(.assignment) }
        // An erased contact's assignment keeps its history, but there is no one left to visit, and the new mentor's
        // notification would name no one.
        guard contact.erasedAt == nil else {
            throw StoreError.notAllowed("The details of this assignment's contact were removed, so it is not given to another mentor.")
        }
        let details = NewContact(name: contact.name, phone: contact.phone, address: contact.address, notes: contact.notes)
        // An urgent assignment stays urgent with its new mentor: not held by their quiet hours.
        let urgency = try await urgency(of: assignment)
        let created = try await repository.reassign(assignmentID: assignment.id, to: mentor.id, at: now()) { contactID, assignmentID in
            Self.assignmentNotification(
                to: mentor, from: coordinatorID, contact: details, contactID: contactID, assignmentID: assignmentID, urgency: urgency)
        }
        return created
    }

    /// How urgent `assignment` was when its mentor was told; normal when that notification is gone.
    private func urgency(of assignment: Assignment) async throws -> Urgency {
        guard let id = assignment.notificationID, let told = try await repository.notification(id: id) else { return .normal }
        return told.urgency
    }

    /// The notification that tells a mentor of their assignment: in their language, deep-linking to the contact,
    /// its personal details marked.
    static func assignmentNotification(
        to mentor: User, from coordinatorID: UserID, contact: NewContact, contactID: ContactID, assignmentID: AssignmentID,
        urgency: Urgency
    ) -> NewNotification {
        let strings = Strings(mentor.language)
        return NewNotification(
            recipientID: mentor.id, senderID: coordinatorID, kind: .assignment, title: strings.newAssignmentTitle,
            body: strings.assignmentBody(name: contact.name, address: contact.address), urgency: urgency,
            deepLink: .contact(contactID: contactID, assignmentID: assignmentID),
            personalDetails: [contact.name, contact.address, contact.phone].filter { !$0.isEmpty })
    }

    private func requireAvailable(_ mentor: User) async throws {
        guard let reason = try await unavailability(of: mentor) else { return }
        let why =
            switch reason {
            case .deactivated: "is deactivated"
            case .paused: "is paused"
            case .certificationExpired: "has an expired certification"
            }
        throw InvalidInput([.init(field: "mentor", rule: .other(why))], summary: "This mentor \(why) and cannot be given assignments now.")
    }

    /// Publishes a training scenario to `mentors`, each told by a notification in their language that opens it.
    public func publishScenario(title: String, body: String, from coordinatorID: UserID, to mentors: [User]) async throws -> (
        Scenario, [NotificationItem]
    ) {
        let byID = Dictionary(mentors.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        let published = try await repository.publishScenario(
            title: title, body: body, coordinatorID: coordinatorID,
            mentorIDs: Array(byID.keys), at: now()
        ) { scenarioID, mentorID in
            let strings = Strings(byID[mentorID]?.language ?? .norwegianBokmal)
            return NewNotification(
                recipientID: mentorID, senderID: coordinatorID, kind: .scenarioPrompt, title: strings.scenarioNotificationTitle(title),
                body: strings.scenarioNotificationBody, deepLink: .scenario(scenarioID: scenarioID))
        }
        return published
    }

    /// Why `mentor` cannot be given an assignment now, or nil when they can: a deactivated account, a pause in force,
    /// or an expired certification. The coordinator's page leaves them out of its list and says why (a deactivated
    /// mentor is not listed at all: they have left).
    public func unavailability(of mentor: User) async throws -> MentorUnavailability? {
        guard mentor.isActive else { return .deactivated }
        let now = now()
        if mentor.isPaused(at: now), let until = mentor.pausedUntil { return .paused(until: until) }
        if let expired = try await repository.certifications(mentorID: mentor.id).first(where: { $0.expiresAt < now }) {
            return .certificationExpired(name: expired.name, on: expired.expiresAt)
        }
        return nil
    }

    /// Pauses `mentor` as typed: `from` and `until` are days written `YYYY-MM-DD` (`from` empty or nil: now). The one
    /// place a pause's dates are read, for the API and the Profile alike; ``InvalidInput`` names `from` or `until`,
    /// with the rule `notADay` for a date that is not one.
    public func pause(_ mentor: User, fromDay: String?, untilDay: String) async throws -> NotificationItem {
        var issues: [Validation.Issue] = []
        var from: Date?
        var until: Date?
        if let raw = fromDay, !raw.isEmpty {
            do { from = try Validation.day(raw, field: "from") } catch { issues += error.issues }
        }
        do { until = try Validation.day(untilDay, field: "until") } catch { issues += error.issues }
        guard issues.isEmpty, let until else { throw InvalidInput(issues) }
        return try await pause(mentor, from: from, until: until)
    }

    /// Pauses `mentor`'s new assignments from the start of `from` (nil: now) until the start of `until`, and confirms
    /// it to them: "has started" when it is in force, "is booked" when it begins later. `until` must be in the future
    /// and after `from`.
    public func pause(_ mentor: User, from: Date? = nil, until: Date) async throws -> NotificationItem {
        let current = now()
        guard until > current else {
            throw InvalidInput([.init(field: "until", rule: .other("in the past"))], summary: "until must be a date in the future.")
        }
        let from = from.flatMap { $0 > current ? $0 : nil }
        if let from, from >= until {
            throw InvalidInput([.init(field: "from", rule: .other("not before until"))], summary: "from must be before until.")
        }
        let strings = Strings(mentor.language)
        try await repository.setPause(from: from, until: until, userID: mentor.id)
        if let from {
            return try await confirmPause(
                to: mentor, title: strings.pauseBookedTitle,
                body: strings.pauseBookedBody(from: from, until: until, timeZone: timeZone))
        }
        return try await confirmPause(to: mentor, title: strings.pauseStartedTitle, body: strings.pauseBody(until: until, timeZone: timeZone))
    }

    /// Ends `mentor`'s pause (in force or booked) now and confirms it; nil, changing nothing, when there was none.
    public func endPause(_ mentor: User) async throws -> NotificationItem? {
        guard mentor.hasPause(at: now()) else { return nil }
        let strings = Strings(mentor.language)
        try await repository.setPause(from: nil, until: nil, userID: mentor.id)
        return try await confirmPause(to: mentor, title: strings.pauseEndedTitle, body: strings.pauseEndedBody)
    }

    /// The pause confirmation that tells `mentor` what became of their pause; it opens the pause screen.
    private func confirmPause(to mentor: User, title: String, body: String) async throws -> NotificationItem {
        let created = try await repository.createNotifications(
            [
                NewNotification(recipientID: mentor.id, senderID: nil, kind: .pauseConfirmation, title: title, body: body, deepLink: .pause)
            ], idempotencyKey: nil, at: now())
        return created.items[0]
    }

    /// Days before expiry at which a certification warning is due.
    public static let certificationWarningDays = [30, 7, 1]

    /// Sends the certification-expiry warnings due at `now`, 30, 7 and 1 days before expiry: each exactly once, even
    /// across restarts (the store records each one with its notification, in one transaction); urgent on the last day.
    public func sendDueCertificationWarnings(now: Date) async throws -> [NotificationItem] {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let today = calendar.startOfDay(for: now)
        let thresholds = Self.certificationWarningDays
        let horizon = calendar.date(byAdding: .day, value: (thresholds.max() ?? 30) + 1, to: today) ?? now
        var created: [NotificationItem] = []
        for certification in try await repository.certifications(expiringBefore: horizon) where certification.expiresAt >= today {
            let daysLeft = calendar.dateComponents([.day], from: today, to: calendar.startOfDay(for: certification.expiresAt)).day ?? 0
            // Only the nearest threshold is sent; a certification recorded late does not get the earlier ones too.
            // Only to a mentor who has not left: a certification kept after a change of role or a deactivation
            // warns no one (nobody could renew or remove it from their page).
            guard let threshold = thresholds.filter({ daysLeft <= $0 }).min(),
                let mentor = try await repository.user(id: certification.mentorID), mentor.role == .mentor, mentor.isActive
            else { continue }
            let strings = Strings(mentor.language)
            let warning = NewNotification(
                recipientID: mentor.id, senderID: nil, kind: .certificationExpiry,
                title: strings.certificationExpiryTitle(daysLeft: daysLeft),
                body: strings.certificationExpiryBody(name: certification.name, expiresAt: certification.expiresAt, timeZone: timeZone),
                urgency: threshold == 1 ? .urgent : .normal, deepLink: .certification(certificationID: certification.id))
            if let item = try await repository.recordExpiryWarning(
                certificationID: certification.id, threshold: threshold,
                alsoCovers: thresholds.filter { $0 > threshold }, notification: warning, at: now)
            {
                created.append(item)
            }
        }
        return created
    }

    /// When nobody answers an assignment: an urgent reminder to the mentor after `remindAfter`, and after
    /// `escalateAfter` an urgent notice to the coordinator who created it, each in its reader's language, each once
    /// (the store records each step with its notification, in one transaction, so restarts and several instances
    /// do not repeat it). Driven by `now`, so tests move a clock instead of waiting.
    public func sendDueEscalations(now: Date, remindAfter: TimeInterval, escalateAfter: TimeInterval) async throws -> [NotificationItem] {
        var created: [NotificationItem] = []
        for assignment in try await repository.pendingAssignments(createdBefore: now.addingTimeInterval(-remindAfter)) {
            guard let mentor = try await repository.user(id: assignment.mentorID) else { continue }
            let waited = now.timeIntervalSince(assignment.createdAt)
            let link = DeepLinkTarget.contact(contactID: assignment.contactID, assignmentID: assignment.id)
            // A read first, so an assignment already handled costs no write each round; the store still makes each
            // step happen once if two instances get here together.
            let done = try await repository.escalations(assignmentID: assignment.id)
            let mentorWords = Strings(mentor.language)
            let reminder = NewNotification(
                recipientID: mentor.id, senderID: nil, kind: .assignment, title: mentorWords.reminderTitle,
                body: mentorWords.reminderBody(waited: waited), urgency: .urgent, deepLink: link)
            if done[.mentorReminded] == nil,
                let item = try await repository.recordEscalation(assignmentID: assignment.id, step: .mentorReminded, notification: reminder, at: now)
            {
                created.append(item)
            }
            guard done[.coordinatorTold] == nil, waited >= escalateAfter, let coordinatorID = assignment.coordinatorID,
                let coordinator = try await personAnswering(for: coordinatorID)
            else { continue }
            let coordinatorWords = Strings(coordinator.language)
            let notice = NewNotification(
                recipientID: coordinator.id, senderID: nil, kind: .assignment,
                title: coordinatorWords.escalationTitle(mentor: mentor.displayName, waited: waited),
                body: coordinatorWords.escalationBody, urgency: .urgent, deepLink: link)
            if let item = try await repository.recordEscalation(assignmentID: assignment.id, step: .coordinatorTold, notification: notice, at: now) {
                created.append(item)
            }
        }
        return created
    }

    /// The person told when an assignment made by `coordinatorID` goes unanswered: that coordinator; for an
    /// assignment a member system made through its integration token, the admin who made the token, while active (a
    /// system's account has no one reading its notifications).
    func personAnswering(for coordinatorID: UserID) async throws -> User? {
        guard let coordinator = try await repository.user(id: coordinatorID) else { return nil }
        guard coordinator.isIntegration else { return coordinator }
        guard let madeBy = try await repository.integrations().first(where: { $0.id == coordinatorID })?.createdBy,
            let admin = try await repository.user(id: madeBy), admin.isActive
        else { return nil }
        return admin
    }

    /// Stores the demo notifications of ``DemoData`` for `mentor` (some from `coordinator`, as assignments), dated
    /// relative to the clock, oldest first so ids grow with time as they would in use.
    public func sendDemo(to mentor: User, from coordinator: User) async throws {
        let contacts = DemoData.contacts(mentor.language)
        let current = now()
        for entry in DemoData.entries(mentor.language, now: current).reversed() {
            let created = current.addingTimeInterval(-entry.age)
            let item: NotificationItem
            if let index = entry.contactIndex {
                let person = contacts[index]
                let (assignment, _, notification) = try await repository.createAssignment(
                    mentorID: mentor.id, coordinatorID: coordinator.id,
                    contact: NewContact(name: person.name, phone: person.phone, address: person.address, notes: person.notes), at: created
                ) { contactID, assignmentID in
                    NewNotification(
                        recipientID: mentor.id, senderID: coordinator.id, kind: entry.kind, title: entry.title, body: entry.body,
                        urgency: entry.urgency, deepLink: entry.deepLink(contactID: contactID, assignmentID: assignmentID),
                        personalDetails: entry.personalDetails)
                }
                item = notification
                // The older assignment was answered long ago (the dashboard shows one of each); the new one waits.
                if entry.isRead {
                    _ = try await repository.respond(to: assignment.id, status: .acknowledged, at: created.addingTimeInterval(3600))
                }
            } else if entry.kind == .scenarioPrompt {
                // The scenario prompt opens a real scenario, published to the demo mentor.
                let scenario = DemoData.scenario(mentor.language)
                item = try await repository.publishScenario(
                    title: scenario.title, body: scenario.body, coordinatorID: coordinator.id,
                    mentorIDs: [mentor.id], at: created
                ) { scenarioID, mentorID in
                    NewNotification(
                        recipientID: mentorID, senderID: coordinator.id, kind: entry.kind, title: entry.title, body: entry.body,
                        urgency: entry.urgency, deepLink: .scenario(scenarioID: scenarioID), personalDetails: entry.personalDetails)
                }.1[0]
            } else {
                item = try await repository.createNotifications(
                    [
                        NewNotification(
                            recipientID: mentor.id, senderID: nil, kind: entry.kind, title: entry.title, body: entry.body,
                            urgency: entry.urgency, deepLink: entry.deepLink(contactID: nil), personalDetails: entry.personalDetails)
                    ], idempotencyKey: nil, at: created
                ).items[0]
            }
            if entry.isRead {
                _ = try await repository.setRead(true, notificationID: item.id, userID: mentor.id, at: created.addingTimeInterval(600))
            }
        }
    }

    /// Stores the demo's overdue assignment for `mentor` from `coordinator`: created ``DemoData/overdueAge`` ago
    /// and never answered, so the next upkeep reminds the mentor and tells the coordinator.
    public func sendDemoOverdue(to mentor: User, from coordinator: User) async throws {
        let person = DemoData.overdueContact(mentor.language)
        let contact = NewContact(name: person.name, phone: person.phone, address: person.address, notes: person.notes)
        _ = try await repository.createAssignment(
            mentorID: mentor.id, coordinatorID: coordinator.id, contact: contact,
            at: now().addingTimeInterval(-DemoData.overdueAge)
        ) { contactID, assignmentID in
            Self.assignmentNotification(
                to: mentor, from: coordinator.id, contact: contact, contactID: contactID, assignmentID: assignmentID,
                urgency: .normal)
        }
    }
}
