import Foundation

extension Strings {
    /// A summary's title: `2 certification warnings, 1 scenario prompt`. Its kind's name opens it wherever it is
    /// said or shown (`Summary: 2 certification warnings, 1 scenario prompt`). The kinds come in the order the
    /// settings list them; a kind with none is left out.
    public func summaryTitle(_ counts: [NotificationKind: Int]) -> String {
        let parts = NotificationKind.summarisable.compactMap { kind -> String? in
            guard let count = counts[kind], count > 0 else { return nil }
            return "\(number(count)) \(summaryUnit(kind, count: count))"
        }
        return parts.joined(separator: ", ")
    }

    /// A summary's text: the gathered notifications' titles, oldest first, one a line; past fifteen, how many more.
    public func summaryBody(titles: [String]) -> String {
        let shown = 15
        guard titles.count > shown else { return titles.joined(separator: "\n") }
        let more = titles.count - shown
        return (titles.prefix(shown) + [isEnglish ? "and \(number(more)) more" : "og \(number(more)) til"]).joined(separator: "\n")
    }

    /// A notification's title as said or shown outside its list: a summary's, which only counts, after its kind's
    /// name (`Summary: 2 certification warnings`); any other as it is.
    public func titleWithKind(_ item: NotificationItem) -> String {
        item.kind == .summary ? "\(kindName(.summary)): \(item.title)" : item.title
    }

    /// What one gathered notification is called in a summary's title, in the singular or the plural.
    func summaryUnit(_ kind: NotificationKind, count: Int) -> String {
        let one = count == 1
        switch (kind, language) {
        case (.certificationExpiry, .english): return one ? "certification warning" : "certification warnings"
        case (.certificationExpiry, .norwegianBokmal): return one ? "sertifiseringsvarsel" : "sertifiseringsvarsler"
        case (.pauseConfirmation, .english): return one ? "pause confirmation" : "pause confirmations"
        case (.pauseConfirmation, .norwegianBokmal): return one ? "pausebekreftelse" : "pausebekreftelser"
        case (.scenarioPrompt, .english): return one ? "scenario prompt" : "scenario prompts"
        case (.scenarioPrompt, .norwegianBokmal): return one ? "scenariooppgave" : "scenariooppgaver"
        case (.assignment, .english): return one ? "assignment" : "assignments"
        case (.assignment, .norwegianBokmal): return "oppdrag"
        case (.summary, .english): return one ? "summary" : "summaries"
        case (.summary, .norwegianBokmal): return "sammendrag"
        case (.serviceNotice, .english): return one ? "service notice" : "service notices"
        case (.serviceNotice, .norwegianBokmal): return one ? "driftsmelding" : "driftsmeldinger"
        }
    }

    /// The settings screen's group of summary switches and its time field.
    public var summaryLegend: String { isEnglish ? "Summary" : "Sammendrag" }
    public var summaryTimeLabel: String { isEnglish ? "Summary time" : "Tidspunkt for sammendrag" }
    /// What the summary group does, said with the time field.
    public var summaryHint: String {
        isEnglish
            ? "Kinds switched on here come together in one notification a day, at this time, such as 16:00. Assignments and urgent notifications always come at once."
            : "Typer som er slått på her, kommer samlet i ett varsel om dagen, til dette tidspunktet, for eksempel 16:00. Oppdrag og hastevarsler kommer alltid med en gang."
    }
    /// The time field is empty or not a time while a kind is switched on.
    public var summaryTimeInvalid: String {
        isEnglish ? "Write the summary time as hours and minutes, such as 16:00." : "Skriv tidspunktet som timer og minutter, for eksempel 16:00."
    }

    /// The daily email of open assignments, its subject: `Open assignments: 1 unanswered, 1 overdue, 1 declined`;
    /// a state with none is left out.
    public func assignmentDigestSubject(unanswered: Int, overdue: Int, declined: Int) -> String {
        let parts = [
            (unanswered, isEnglish ? "unanswered" : unanswered == 1 ? "ubesvart" : "ubesvarte"),
            (overdue, isEnglish ? "overdue" : "på overtid"),
            (declined, isEnglish ? "declined" : declined == 1 ? "avslått" : "avslåtte"),
        ].filter { $0.0 > 0 }.map { "\(number($0.0)) \($0.1)" }
        return (isEnglish ? "Open assignments: " : "Åpne oppdrag: ") + parts.joined(separator: ", ")
    }

    /// One assignment in the daily email, by number and mentor, never by the person visited:
    /// `Assignment 12: Demo Mentor, waiting for an answer, 2 days, overdue`.
    public func assignmentDigestLine(id: AssignmentID, mentorName: String, progress: AssignmentProgress, waited: String, isOverdue: Bool) -> String {
        (isEnglish ? "Assignment \(id): " : "Oppdrag \(id): ") + "\(mentorName), \(assignmentState(progress, forMentor: false)), \(waited)"
            + (isOverdue ? ", \(overdue)" : "")
    }

    /// The daily email's line before its one link.
    public var assignmentDigestOpenLine: String {
        isEnglish ? "Open the assignments in Varsel to follow them up:" : "Åpne oppdragene i Varsel for å følge dem opp:"
    }

    /// Why a coordinator gets the daily email.
    public var assignmentDigestWhy: String {
        isEnglish
            ? "You get this email once a day because you chose it in Varsel's notification settings. It names no one you visit."
            : "Du får denne e-posten én gang om dagen fordi du valgte det i varslingsinnstillingene i Varsel. Den nevner ingen som får besøk."
    }
}
