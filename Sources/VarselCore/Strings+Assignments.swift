import Foundation

/// The words of the assignment pipeline: the mentor's Home and Assignments, the coordinator's dashboard,
/// reminders and escalations.
extension Strings {
    /// An assignment's state. The mentor hears "waiting for your answer", the coordinator "waiting for an answer".
    public func assignmentState(_ progress: AssignmentProgress, forMentor: Bool) -> String {
        switch (progress, isEnglish) {
        case (.waitingForAnswer, true): forMentor ? "waiting for your answer" : "waiting for an answer"
        case (.waitingForAnswer, false): forMentor ? "venter på svaret ditt" : "venter på svar"
        case (.acknowledged, true): "acknowledged"
        case (.acknowledged, false): "bekreftet"
        case (.declined, true): "declined"
        case (.declined, false): "avslått"
        case (.done, true): "visit done"
        case (.done, false): "besøk gjennomført"
        }
    }

    /// The heading of a group of assignments, with how many: `Waiting for your answer (1)` for the mentor,
    /// `Waiting for an answer (3)` on the coordinators' dashboard.
    public func assignmentGroupHeading(_ progress: AssignmentProgress, count: Int, forMentor: Bool = true) -> String {
        let state = assignmentState(progress, forMentor: forMentor)
        return "\(state.prefix(1).uppercased())\(state.dropFirst()) (\(number(count)))"
    }

    /// How long an assignment waited: `2 hours` while waiting, `answered after 5 minutes` once answered.
    public func waited(since start: Date, until end: Date, answered: Bool) -> String {
        let span = duration(end.timeIntervalSince(start))
        if answered { return isEnglish ? "answered after \(span)" : "besvart etter \(span)" }
        return span
    }

    /// A duration in words: `less than a minute`, `5 minutes`, `2 hours`, `3 days`.
    public func duration(_ seconds: TimeInterval) -> String {
        let minutes = Int(seconds / 60)
        let hours = minutes / 60
        let days = hours / 24
        switch (isEnglish, minutes, hours, days) {
        case (true, ..<1, _, _): return "less than a minute"
        case (false, ..<1, _, _): return "under ett minutt"
        case (true, 1, _, _): return "1 minute"
        case (false, 1, _, _): return "1 minutt"
        case (true, ..<60, _, _): return "\(minutes) minutes"
        case (false, ..<60, _, _): return "\(minutes) minutter"
        case (true, _, 1, _): return "1 hour"
        case (false, _, 1, _): return "1 time"
        case (true, _, ..<48, _): return "\(hours) hours"
        case (false, _, ..<48, _): return "\(hours) timer"
        case (true, _, _, _): return "\(days) days"
        case (false, _, _, _): return "\(days) dager"
        }
    }

    /// An audit-trail step's name.
    public func trailStep(_ step: AssignmentEvent.Step) -> String {
        switch (step, isEnglish) {
        case (.created, true): "Created"
        case (.created, false): "Opprettet"
        case (.notified, true): "Mentor notified"
        case (.notified, false): "Likeperson varslet"
        case (.read, true): "Read by the mentor"
        case (.read, false): "Lest av likepersonen"
        case (.reminded, true): "Reminder sent to the mentor"
        case (.reminded, false): "Påminnelse sendt til likepersonen"
        case (.escalated, true): "Coordinator told it is unanswered"
        case (.escalated, false): "Koordinator varslet om manglende svar"
        case (.acknowledged, true): "Acknowledged"
        case (.acknowledged, false): "Bekreftet"
        case (.declined, true): "Declined"
        case (.declined, false): "Avslått"
        case (.delivered, true): "Delivered to the mentor's open app"
        case (.delivered, false): "Levert til likepersonens åpne app"
        case (.reassigned, true): "Reassigned"
        case (.reassigned, false): "Gitt videre"
        case (.done, true): "Visit done"
        case (.done, false): "Besøk gjennomført"
        case (.textMessageSent, _): followUpSent(.textMessage)
        case (.emailSent, _): followUpSent(.email)
        }
    }

    /// A date and time: `23 November 2026 at 10:05`, `23. november 2026 kl. 10:05`.
    public func dateAndTime(_ date: Date, timeZone: TimeZone) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        return date.formatted(Date.FormatStyle(date: .long, time: .shortened, locale: language.locale, calendar: calendar, timeZone: timeZone))
    }

    // MARK: Home

    /// Home: `1 assignment waits for your answer`, `2 assignments wait for your answer`.
    public func assignmentsWaiting(_ count: Int) -> String {
        switch (count, isEnglish) {
        case (0, true): "No assignments wait for your answer"
        case (0, false): "Ingen oppdrag venter på svaret ditt"
        case (1, true): "1 assignment waits for your answer"
        case (1, false): "1 oppdrag venter på svaret ditt"
        case (_, true): "\(number(count)) assignments wait for your answer"
        case (_, false): "\(number(count)) oppdrag venter på svaret ditt"
        }
    }

    /// Home: the next visit to make, an acknowledged assignment, named by ``Describer/whoAndWhere(_:)``:
    /// `Next visit: Kari Nordmann, Storgata 1`.
    public func nextVisit(_ whoAndWhere: String) -> String {
        isEnglish ? "Next visit: \(whoAndWhere)" : "Neste besøk: \(whoAndWhere)"
    }

    /// Home: a certification about to expire: `Peer mentor certificate expires on 21 February 2027`.
    public func certificationExpires(name: String, on date: Date, timeZone: TimeZone) -> String {
        isEnglish ? "\(name) expires on \(longDate(date, timeZone: timeZone))" : "\(name) utløper \(longDate(date, timeZone: timeZone))"
    }

    /// Home: an active pause: `Paused until 1 December 2026`.
    public func pausedUntil(_ date: Date, timeZone: TimeZone) -> String {
        isEnglish ? "Paused until \(longDate(date, timeZone: timeZone))" : "Pause til \(longDate(date, timeZone: timeZone))"
    }

    /// Home's heading for what needs the mentor now.
    public var needsYouNow: String { isEnglish ? "What needs you now" : "Dette trenger deg nå" }

    /// The Contacts screen when there is nobody to visit.
    public var noContacts: String {
        isEnglish
            ? "You have no one to visit now. People appear here when you have an assignment with them."
            : "Du har ingen å besøke nå. Personer vises her når du har et oppdrag hos dem."
    }

    /// The Assignments screen when there are none.
    public var noAssignments: String { isEnglish ? "You have no assignments." : "Du har ingen oppdrag." }

    /// The Profile screen's sections.
    public var certificationsHeading: String { isEnglish ? "Certifications" : "Sertifiseringer" }
    public var pauseHeading: String { isEnglish ? "Pause" : "Pause" }
    public var notPaused: String { isEnglish ? "You are not paused." : "Du har ikke pause." }

    // MARK: The coordinator's dashboard

    public var dashboardTitle: String { isEnglish ? "Assignments dashboard" : "Oppdragsoversikt" }
    public var trailHeading: String { isEnglish ? "History" : "Historikk" }

    /// Under the coordinator's mentor list: `Ola Hansen is not offered: paused until 1 December 2026`.
    public func mentorNotOfferedPaused(_ name: String, until: Date, timeZone: TimeZone) -> String {
        isEnglish
            ? "\(name) is not offered: paused until \(longDate(until, timeZone: timeZone))"
            : "\(name) vises ikke: pause til \(longDate(until, timeZone: timeZone))"
    }

    /// `Per Olsen is not offered: First aid expired on 1 March 2026`.
    public func mentorNotOfferedExpired(_ name: String, certification: String, on date: Date, timeZone: TimeZone) -> String {
        isEnglish
            ? "\(name) is not offered: \(certification) expired on \(longDate(date, timeZone: timeZone))"
            : "\(name) vises ikke: \(certification) utløp \(longDate(date, timeZone: timeZone))"
    }

    // MARK: Reminders and escalation

    /// The urgent reminder to a mentor who has not answered: `Reminder: an assignment waits for your answer`.
    public var reminderTitle: String {
        isEnglish ? "Reminder: an assignment waits for your answer" : "Påminnelse: et oppdrag venter på svaret ditt"
    }

    /// The reminder's body, without the visited person's details.
    public func reminderBody(waited: TimeInterval) -> String {
        isEnglish
            ? "It has waited \(duration(waited)). Open it to acknowledge or decline."
            : "Det har ventet i \(duration(waited)). Åpne det for å bekrefte eller avslå."
    }

    /// The coordinator's urgent notice: `Unanswered assignment: Demo Mentor has not answered in 2 days`.
    public func escalationTitle(mentor: String, waited: TimeInterval) -> String {
        isEnglish
            ? "Unanswered assignment: \(mentor) has not answered in \(duration(waited))"
            : "Ubesvart oppdrag: \(mentor) har ikke svart på \(duration(waited))"
    }

    public var escalationBody: String {
        isEnglish ? "Contact the mentor, or give the assignment to someone else." : "Kontakt likepersonen, eller gi oppdraget til en annen."
    }
}
