import Foundation

/// The words of the work screens' actions: a visit done, a reassignment, a pause from the Profile, the language
/// and password forms, training scenarios, and the dashboard's filters.
extension Strings {
    // MARK: Visits and answers from the list

    /// The accessible name of a list row's acknowledge button, its visible word first: `Acknowledge the assignment with
    /// Kari Nordmann`; with no name (the details were erased), `Acknowledge the assignment whose details were removed`.
    public func acknowledgeAssignment(with name: String?) -> String {
        guard let name else {
            return isEnglish ? "Acknowledge the assignment whose details were removed" : "Bekreft oppdraget der opplysningene er fjernet"
        }
        return isEnglish ? "Acknowledge the assignment with \(name)" : "Bekreft oppdraget hos \(name)"
    }

    /// The accessible name of a list row's decline button: `Decline the assignment with Kari Nordmann`; with no name,
    /// `Decline the assignment whose details were removed`.
    public func declineAssignment(with name: String?) -> String {
        guard let name else {
            return isEnglish ? "Decline the assignment whose details were removed" : "Avslå oppdraget der opplysningene er fjernet"
        }
        return isEnglish ? "Decline the assignment with \(name)" : "Avslå oppdraget hos \(name)"
    }

    public var acknowledgeShort: String { isEnglish ? "Acknowledge" : "Bekreft" }
    public var declineShort: String { isEnglish ? "Decline" : "Avslå" }
    public var markVisitDone: String { isEnglish ? "Mark the visit done" : "Marker besøket som gjennomført" }
    public var visitNoteField: String { isEnglish ? "A short note about the visit" : "Et kort notat om besøket" }
    public var visitNoteHint: String {
        isEnglish ? "Only you and the coordinator see it. Up to 1,000 characters." : "Bare du og koordinatoren ser det. Inntil 1000 tegn."
    }
    public var visitNoteHeading: String { isEnglish ? "Note from the visit" : "Notat fra besøket" }
    public var visitDoneConfirmation: String { isEnglish ? "Visit marked done" : "Besøket er markert som gjennomført" }
    public var doneStatus: String { isEnglish ? "You have made this visit." : "Du har gjennomført dette besøket." }
    public var noLongerYours: String {
        isEnglish ? "This assignment was given to another mentor." : "Dette oppdraget er gitt til en annen likeperson."
    }

    // MARK: Reassignment

    public var reassignHeading: String { isEnglish ? "Give the assignment to another mentor" : "Gi oppdraget til en annen likeperson" }
    public var reassignButton: String { isEnglish ? "Reassign" : "Gi videre" }
    public var reassignedConfirmation: String { isEnglish ? "Assignment reassigned" : "Oppdraget er gitt videre" }

    /// The trail's line for a reassignment: `Reassigned to Ola Hansen`.
    public func reassigned(to mentor: String) -> String {
        isEnglish ? "Reassigned to \(mentor)" : "Gitt videre til \(mentor)"
    }

    // MARK: The dashboard's filters

    public var filterHeading: String { isEnglish ? "Filter" : "Filtrer" }
    public var filterShow: String { isEnglish ? "Show" : "Vis" }
    public var filterAll: String { isEnglish ? "All assignments" : "Alle oppdrag" }
    public var filterWaiting: String { isEnglish ? "Waiting for an answer" : "Venter på svar" }
    public var filterOverdue: String { isEnglish ? "Overdue" : "På overtid" }
    public var filterAllMentors: String { isEnglish ? "All mentors" : "Alle likepersoner" }
    public var filterApply: String { isEnglish ? "Apply filter" : "Bruk filteret" }
    /// After a waiting row's time when its answer is overdue.
    public var overdue: String { isEnglish ? "overdue" : "på overtid" }
    public var noMatchingAssignments: String { isEnglish ? "No assignments match the filter." : "Ingen oppdrag passer til filteret." }

    // MARK: Profile

    public var requestPauseHeading: String { isEnglish ? "Request a pause" : "Be om pause" }
    public var pauseFrom: String { isEnglish ? "From" : "Fra" }
    public var pauseUntil: String { isEnglish ? "Until" : "Til" }
    public var requestPause: String { isEnglish ? "Request the pause" : "Be om pausen" }
    public var endPauseNow: String { isEnglish ? "End the pause now" : "Avslutt pausen nå" }
    public var languageHeading: String { isEnglish ? "Language" : "Språk" }
    public var saveLanguage: String { isEnglish ? "Save language" : "Lagre språk" }
    public var languageSaved: String { isEnglish ? "Language saved" : "Språket er lagret" }
    public var passwordHeading: String { isEnglish ? "Change password" : "Bytt passord" }
    public var currentPassword: String { isEnglish ? "Current password" : "Nåværende passord" }
    public var newPassword: String { isEnglish ? "New password" : "Nytt passord" }
    public var newPasswordHint: String {
        isEnglish ? "8 to 72 characters. Your other sessions are signed out." : "8 til 72 tegn. De andre øktene dine blir logget ut."
    }
    public var changePassword: String { isEnglish ? "Change password" : "Bytt passord" }
    public var passwordChanged: String {
        isEnglish ? "Password changed. Other sessions are signed out." : "Passordet er byttet. Andre økter er logget ut."
    }
    public var wrongCurrentPassword: String { isEnglish ? "The current password is not right." : "Det nåværende passordet stemmer ikke." }
    public var pauseRequested: String { isEnglish ? "Pause registered" : "Pausen er registrert" }
    public var pauseEnded: String { isEnglish ? "Pause ended" : "Pausen er avsluttet" }

    /// Profile and Home: a pause booked for later: `Pause booked from 1 December 2026 until 8 December 2026`.
    public func pauseBooked(from: Date, until: Date, timeZone: TimeZone) -> String {
        isEnglish
            ? "Pause booked from \(longDate(from, timeZone: timeZone)) until \(longDate(until, timeZone: timeZone))"
            : "Pause bestilt fra \(longDate(from, timeZone: timeZone)) til \(longDate(until, timeZone: timeZone))"
    }

    public var pauseBookedTitle: String { isEnglish ? "Your pause is booked" : "Pausen din er registrert" }

    /// `You will not get new assignments from 1 December 2026 until 8 December 2026.`
    public func pauseBookedBody(from: Date, until: Date, timeZone: TimeZone) -> String {
        isEnglish
            ? "You will not get new assignments from \(longDate(from, timeZone: timeZone)) until \(longDate(until, timeZone: timeZone))."
            : "Du får ikke nye oppdrag fra \(longDate(from, timeZone: timeZone)) til \(longDate(until, timeZone: timeZone))."
    }

    public var pauseEndedTitle: String { isEnglish ? "Your pause has ended" : "Pausen din er avsluttet" }
    public var pauseEndedBody: String { isEnglish ? "You can get new assignments again." : "Du kan få nye oppdrag igjen." }

    /// A certification's state on the Profile: `Peer mentor certificate: valid until 21 February 2027` or `expired on …`.
    public func certificationState(name: String, expiresAt: Date, now: Date, timeZone: TimeZone) -> String {
        let day = longDate(expiresAt, timeZone: timeZone)
        if expiresAt < now { return isEnglish ? "\(name): expired on \(day)" : "\(name): utløp \(day)" }
        if expiresAt < now.addingTimeInterval(31 * 86400) {
            return isEnglish ? "\(name): expires soon, on \(day)" : "\(name): utløper snart, \(day)"
        }
        return isEnglish ? "\(name): valid until \(day)" : "\(name): gyldig til \(day)"
    }

    // MARK: Scenarios

    /// A scenario's notification: `Training scenario: The first visit`.
    public func scenarioNotificationTitle(_ title: String) -> String {
        isEnglish ? "Training scenario: \(title)" : "Treningsscenario: \(title)"
    }

    public var scenarioNotificationBody: String {
        isEnglish ? "Read it, try it, and write a short reflection." : "Les det, prøv det, og skriv en kort refleksjon."
    }

    public var scenariosTitle: String { isEnglish ? "Training scenarios" : "Treningsscenarioer" }
    public var noScenarios: String { isEnglish ? "You have no training scenarios." : "Du har ingen treningsscenarioer." }

    /// A scenario group's heading with its count: `To do (1)`, `Done (2)`.
    public func scenarioGroupHeading(done: Bool, count: Int) -> String {
        switch (done, isEnglish) {
        case (false, true): "To do (\(number(count)))"
        case (false, false): "Å gjøre (\(number(count)))"
        case (true, true): "Done (\(number(count)))"
        case (true, false): "Gjort (\(number(count)))"
        }
    }

    /// A mentor's scenario row: `The first visit, done on 23 November 2026` or `The first visit, not done yet`.
    public func scenarioRow(title: String, doneAt: Date?, timeZone: TimeZone) -> String {
        guard let doneAt else { return isEnglish ? "\(title), not done yet" : "\(title), ikke gjort ennå" }
        return isEnglish ? "\(title), done on \(longDate(doneAt, timeZone: timeZone))" : "\(title), gjort \(longDate(doneAt, timeZone: timeZone))"
    }

    /// A coordinator's scenario row: `The first visit, 2 of 3 mentors done`.
    public func scenarioProgress(title: String, done: Int, of total: Int) -> String {
        isEnglish
            ? "\(title), \(number(done)) of \(number(total)) mentors done" : "\(title), \(number(done)) av \(number(total)) likepersoner ferdige"
    }

    public var reflectionField: String { isEnglish ? "Your reflection" : "Din refleksjon" }
    public var reflectionHint: String {
        isEnglish
            ? "What went well, and what would you do differently? Up to 2,000 characters."
            : "Hva gikk bra, og hva ville du gjort annerledes? Inntil 2000 tegn."
    }
    public var markScenarioDone: String { isEnglish ? "Mark done and save the reflection" : "Marker som gjort og lagre refleksjonen" }
    public var scenarioSaved: String { isEnglish ? "Scenario marked done" : "Scenarioet er markert som gjort" }
    public var publishScenarioHeading: String { isEnglish ? "Publish a training scenario" : "Publiser et treningsscenario" }
    public var scenarioText: String { isEnglish ? "The scenario" : "Scenarioet" }
    public var publishTo: String { isEnglish ? "Publish to" : "Publiser til" }
    public var allMentors: String { isEnglish ? "All mentors" : "Alle likepersoner" }
    public var chosenMentors: String { isEnglish ? "Chosen mentors" : "Valgte likepersoner" }
    public var publish: String { isEnglish ? "Publish" : "Publiser" }
    public var scenarioPublished: String { isEnglish ? "Scenario published" : "Scenarioet er publisert" }
    public var chooseMentors: String { isEnglish ? "Choose at least one mentor." : "Velg minst én likeperson." }
    public var publishedScenariosHeading: String { isEnglish ? "Published scenarios" : "Publiserte scenarioer" }
    /// The heading over who has done a published scenario.
    public var scenarioProgressHeading: String { isEnglish ? "The mentors' progress" : "Likepersonenes framdrift" }
}

extension Strings {
    public var noCertifications: String { isEnglish ? "No certifications are registered." : "Ingen sertifiseringer er registrert." }
    public var invalidDay: String {
        isEnglish ? "Write a date as year-month-day, like 2026-12-01." : "Skriv en dato som år-måned-dag, for eksempel 2026-12-01."
    }
    public var pauseUntilInFuture: String { isEnglish ? "The end of the pause must be after today." : "Slutten på pausen må være etter i dag." }
    public var pauseFromBeforeUntil: String { isEnglish ? "The pause must start before it ends." : "Pausen må starte før den slutter." }
}
