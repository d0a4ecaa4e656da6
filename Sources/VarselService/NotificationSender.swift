import Foundation
import VarselCore
import VarselStore

/// The one place a notification is built and stored: every way one comes to be (a coordinator's message, an
/// assignment, a pause confirmation, a certification warning, the demo) goes through here, and each wakes the
/// event pump, so its live streams hear of it at once.
public struct NotificationSender: Sendable {
    let repository: any VarselRepository
    let pump: EventPump
    let now: @Sendable () -> Date
    let timeZone: TimeZone

    public init(repository: any VarselRepository, pump: EventPump, now: @escaping @Sendable () -> Date, timeZone: TimeZone = osloTimeZone) {
        self.repository = repository
        self.pump = pump
        self.now = now
        self.timeZone = timeZone
    }

    /// Sends a coordinator's validated message to each recipient, once per `idempotencyKey`.
    public func send(_ message: Validation.ValidNotification, from senderID: Int64, to recipientIDs: [Int64],
                     idempotencyKey: IdempotencyKey? = nil) async throws -> CreatedNotifications {
        let news = recipientIDs.map { recipientID in
            NewNotification(recipientID: recipientID, senderID: senderID, kind: message.kind, title: message.title, body: message.body,
                            urgency: message.urgency, deepLink: Validation.deepLink(for: message.kind), personalDetails: message.personalDetails)
        }
        let created = try await repository.createNotifications(news, idempotencyKey: idempotencyKey, at: now())
        pump.wake()
        return created
    }

    /// Creates an assignment for `mentor`: the contact, the assignment, and the notification (in the mentor's
    /// language, deep-linking to the contact, its personal details marked) that tells them.
    public func assign(mentor: User, coordinatorID: Int64, contact: NewContact, urgency: Urgency) async throws -> (Assignment, Contact, NotificationItem) {
        if let reason = try await unavailability(of: mentor) {
            let why = switch reason {
            case .paused: "is paused"
            case .certificationExpired: "has an expired certification"
            }
            throw InvalidInput([.init(field: "mentor", rule: .other(why))], summary: "This mentor \(why) and cannot be given assignments now.")
        }
        let strings = Strings(mentor.language)
        let created = try await repository.createAssignment(mentorID: mentor.id, coordinatorID: coordinatorID, contact: contact, at: now()) { contactID, assignmentID in
            NewNotification(recipientID: mentor.id, senderID: coordinatorID, kind: .assignment, title: strings.newAssignmentTitle,
                            body: strings.assignmentBody(name: contact.name, address: contact.address), urgency: urgency,
                            deepLink: .contact(contactID: contactID, assignmentID: assignmentID),
                            personalDetails: [contact.name, contact.address, contact.phone].filter { !$0.isEmpty })
        }
        pump.wake()
        return created
    }

    /// Why `mentor` cannot be given an assignment now, or nil when they can: a pause in force, or an expired
    /// certification. The coordinator's page leaves them out of its list and says why.
    public func unavailability(of mentor: User) async throws -> MentorUnavailability? {
        let now = now()
        if let until = mentor.pausedUntil, until > now { return .paused(until: until) }
        if let expired = try await repository.certifications(mentorID: mentor.id).first(where: { $0.expiresAt < now }) {
            return .certificationExpired(name: expired.name, on: expired.expiresAt)
        }
        return nil
    }

    /// Pauses `mentor`'s new assignments until the start of `until` and confirms it to them; `until` must be in the future.
    public func pause(_ mentor: User, until: Date) async throws -> NotificationItem {
        guard until > now() else {
            throw InvalidInput([.init(field: "until", rule: .other("in the past"))], summary: "until must be a date in the future.")
        }
        let strings = Strings(mentor.language)
        try await repository.setPausedUntil(until, userID: mentor.id)
        let created = try await repository.createNotifications([
            NewNotification(recipientID: mentor.id, senderID: nil, kind: .pauseConfirmation, title: strings.pauseStartedTitle,
                            body: strings.pauseBody(until: until, timeZone: timeZone), deepLink: .pause),
        ], idempotencyKey: nil, at: now())
        pump.wake()
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
            guard let threshold = thresholds.filter({ daysLeft <= $0 }).min(),
                  let mentor = try await repository.user(id: certification.mentorID) else { continue }
            let strings = Strings(mentor.language)
            let warning = NewNotification(
                recipientID: mentor.id, senderID: nil, kind: .certificationExpiry,
                title: strings.certificationExpiryTitle(daysLeft: daysLeft),
                body: strings.certificationExpiryBody(name: certification.name, expiresAt: certification.expiresAt, timeZone: timeZone),
                urgency: threshold == 1 ? .urgent : .normal, deepLink: .certification(certificationID: certification.id))
            if let item = try await repository.recordExpiryWarning(
                certificationID: certification.id, threshold: threshold,
                alsoCovers: thresholds.filter { $0 > threshold }, notification: warning, at: now) {
                created.append(item)
            }
        }
        if !created.isEmpty { pump.wake() }
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
            let reminder = NewNotification(recipientID: mentor.id, senderID: nil, kind: .assignment, title: mentorWords.reminderTitle,
                                           body: mentorWords.reminderBody(waited: waited), urgency: .urgent, deepLink: link)
            if done[.mentorReminded] == nil,
               let item = try await repository.recordEscalation(assignmentID: assignment.id, step: .mentorReminded, notification: reminder, at: now) {
                created.append(item)
            }
            guard done[.coordinatorTold] == nil, waited >= escalateAfter, let coordinatorID = assignment.coordinatorID,
                  let coordinator = try await repository.user(id: coordinatorID) else { continue }
            let coordinatorWords = Strings(coordinator.language)
            let notice = NewNotification(recipientID: coordinator.id, senderID: nil, kind: .assignment,
                                         title: coordinatorWords.escalationTitle(mentor: mentor.displayName, waited: waited),
                                         body: coordinatorWords.escalationBody, urgency: .urgent, deepLink: link)
            if let item = try await repository.recordEscalation(assignmentID: assignment.id, step: .coordinatorTold, notification: notice, at: now) {
                created.append(item)
            }
        }
        if !created.isEmpty { pump.wake() }
        return created
    }

    /// Stores the demo notifications of ``DemoData`` for `mentor` (some from `coordinator`, as assignments), dated
    /// relative to the clock, oldest first so ids grow with time as they would in use.
    public func sendDemo(to mentor: User, from coordinator: User) async throws {
        let contacts = DemoData.contacts(mentor.language)
        let current = now()
        for entry in DemoData.entries(mentor.language).reversed() {
            let created = current.addingTimeInterval(-entry.age)
            let item: NotificationItem
            if let index = entry.contactIndex {
                let person = contacts[index]
                let (assignment, _, notification) = try await repository.createAssignment(
                    mentorID: mentor.id, coordinatorID: coordinator.id,
                    contact: NewContact(name: person.name, phone: person.phone, address: person.address, notes: person.notes), at: created
                ) { contactID, assignmentID in
                    NewNotification(recipientID: mentor.id, senderID: coordinator.id, kind: entry.kind, title: entry.title, body: entry.body,
                                    urgency: entry.urgency, deepLink: entry.deepLink(contactID: contactID, assignmentID: assignmentID),
                                    personalDetails: entry.personalDetails)
                }
                item = notification
                // The older assignment was answered long ago (the dashboard shows one of each); the new one waits.
                if entry.isRead {
                    _ = try await repository.respond(to: assignment.id, status: .acknowledged, at: created.addingTimeInterval(3600))
                }
            } else {
                item = try await repository.createNotifications([
                    NewNotification(recipientID: mentor.id, senderID: nil, kind: entry.kind, title: entry.title, body: entry.body,
                                    urgency: entry.urgency, deepLink: entry.deepLink(contactID: nil), personalDetails: entry.personalDetails),
                ], idempotencyKey: nil, at: created).items[0]
            }
            if entry.isRead {
                _ = try await repository.setRead(true, notificationID: item.id, userID: mentor.id, at: created.addingTimeInterval(600))
            }
        }
        pump.wake()
    }
}

/// Why a mentor is not offered new assignments.
public enum MentorUnavailability: Sendable, Hashable {
    case paused(until: Date)
    case certificationExpired(name: String, on: Date)
}
