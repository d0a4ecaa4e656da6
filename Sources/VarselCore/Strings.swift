import Foundation

/// Every word Varsel speaks or shows, in English and Norwegian Bokmål, side by side.
///
/// One switch per phrase keeps the two languages in step: a phrase cannot exist in one and be missing in the other.
public struct Strings: Sendable, Hashable {
    public let language: Language

    public init(_ language: Language) {
        self.language = language
    }

    var isEnglish: Bool { language == .english }

    // MARK: Domain names

    /// The kind's name as it opens a list item: `Assignment` in `Assignment: New assignment, …` (003).
    public func kindName(_ kind: NotificationKind) -> String {
        switch (kind, language) {
        case (.assignment, .english): "Assignment"
        case (.assignment, .norwegianBokmal): "Oppdrag"
        case (.certificationExpiry, .english): "Certification expiry"
        case (.certificationExpiry, .norwegianBokmal): "Utløpende sertifisering"
        case (.pauseConfirmation, .english): "Pause confirmation"
        case (.pauseConfirmation, .norwegianBokmal): "Pausebekreftelse"
        case (.scenarioPrompt, .english): "Scenario prompt"
        case (.scenarioPrompt, .norwegianBokmal): "Scenariooppgave"
        case (.summary, .english): "Summary"
        case (.summary, .norwegianBokmal): "Sammendrag"
        case (.serviceNotice, .english): "Service notice"
        case (.serviceNotice, .norwegianBokmal): "Driftsmelding"
        }
    }

    /// A filter's name on the filter bar: `Assignments` in `Filter: Assignments, active` (003).
    public func filterName(_ filter: NotificationFilter) -> String {
        switch filter {
        case .all: isEnglish ? "All" : "Alle"
        case .unread: isEnglish ? "Unread" : "Uleste"
        case .kind(.assignment): isEnglish ? "Assignments" : "Oppdrag"
        case .kind(.certificationExpiry): isEnglish ? "Certifications" : "Sertifiseringer"
        case .kind(.pauseConfirmation): isEnglish ? "Pause confirmations" : "Pausebekreftelser"
        case .kind(.scenarioPrompt): isEnglish ? "Scenario prompts" : "Scenariooppgaver"
        case .kind(.summary): isEnglish ? "Summaries" : "Sammendrag"
        case .kind(.serviceNotice): isEnglish ? "Service notices" : "Driftsmeldinger"
        }
    }

    /// The filter bar's name for the current filter: `Filter: Assignments`.
    public func filterBarLabel(_ filter: NotificationFilter) -> String {
        "Filter: \(filterName(filter))"
    }

    /// Said after the filter bar's name when a filter narrows the list: `active`.
    public var filterActive: String { isEnglish ? "active" : "aktivt" }

    /// `read` or `unread`, ending a list item's phrase.
    public func readState(isUnread: Bool) -> String {
        switch (isUnread, language) {
        case (true, .english): "unread"
        case (false, .english): "read"
        case (true, .norwegianBokmal): "ulest"
        case (false, .norwegianBokmal): "lest"
        }
    }

    public func tabName(_ tab: AppTab) -> String {
        switch tab {
        case .home: isEnglish ? "Home" : "Hjem"
        case .assignments: isEnglish ? "Assignments" : "Oppdrag"
        case .contacts: isEnglish ? "Contacts" : "Kontakter"
        case .profile: isEnglish ? "Profile" : "Profil"
        case .notifications: isEnglish ? "Notifications" : "Varsler"
        case .dashboard: dashboardTab
        case .people: peopleTitle
        case .send: sendTab
        case .scenarios: scenariosTab
        }
    }

    /// The unread count as the badge's value: `1 unread`, `3 unread`, `1 ulest`, `3 uleste`; nil at zero (no badge).
    public func unreadBadge(_ count: Int) -> String? {
        guard count > 0 else { return nil }
        if isEnglish { return "\(number(count)) unread" }
        return count == 1 ? "1 ulest" : "\(number(count)) uleste"
    }

    /// The unread count as a sentence, with a zero case: `No unread notifications`, `1 unread notification`.
    public func unreadSummary(_ count: Int) -> String {
        switch (count, language) {
        case (0, .english): "No unread notifications"
        case (0, .norwegianBokmal): "Ingen uleste varsler"
        case (1, .english): "1 unread notification"
        case (1, .norwegianBokmal): "1 ulest varsel"
        case (_, .english): "\(number(count)) unread notifications"
        case (_, .norwegianBokmal): "\(number(count)) uleste varsler"
        }
    }

    /// A position in a set: `5 of 5`, `5 av 5`.
    public func position(_ position: SetPosition) -> String {
        isEnglish ? "\(position.index) of \(position.count)" : "\(position.index) av \(position.count)"
    }

    /// The heading of a screen; the contact detail's heading is the contact's name, supplied by the caller.
    public func screenTitle(_ screen: Screen) -> String {
        switch screen {
        case .home: isEnglish ? "Home" : "Hjem"
        case .assignments: isEnglish ? "Assignments" : "Oppdrag"
        case .contacts: isEnglish ? "Contacts" : "Kontakter"
        case .profile: isEnglish ? "Profile" : "Profil"
        case .notificationCentre: isEnglish ? "Notifications" : "Varsler"
        case .notificationSettings: isEnglish ? "Notification settings" : "Varselinnstillinger"
        case .contactDetail: isEnglish ? "Contact" : "Kontakt"
        case .certification: isEnglish ? "Certification" : "Sertifisering"
        case .pause: isEnglish ? "Pause" : "Pause"
        case .scenario: isEnglish ? "Training scenario" : "Treningsscenario"
        case .webhooks: "Webhooks"
        }
    }

    // MARK: Settings

    /// A settings switch's visible label.
    public func settingLabel(_ setting: NotificationPreferences.Setting) -> String {
        switch setting {
        case .kind(.assignment): isEnglish ? "Assignments" : "Oppdrag"
        case .kind(.certificationExpiry): isEnglish ? "Certification expiry warnings" : "Varsler om utløpende sertifisering"
        case .kind(.pauseConfirmation): isEnglish ? "Pause confirmations" : "Pausebekreftelser"
        case .kind(.scenarioPrompt): isEnglish ? "Scenario prompts" : "Scenariooppgaver"
        case .kind(.summary): isEnglish ? "Summaries" : "Sammendrag"
        case .kind(.serviceNotice): isEnglish ? "Service notices" : "Driftsmeldinger"
        case .sound: isEnglish ? "Sound" : "Lyd"
        case .vibration: isEnglish ? "Vibration" : "Vibrasjon"
        case .systemNotifications: isEnglish ? "System notifications" : "Systemvarsler"
        case .speakPersonalDetails: isEnglish ? "Speak personal details in announcements" : "Les opp personopplysninger i kunngjøringer"
        case .lockScreenDetails: isEnglish ? "Show details on the lock screen" : "Vis detaljer på låseskjermen"
        case let .textMessage(kind): isEnglish ? "\(filterName(.kind(kind))) by text message" : "\(filterName(.kind(kind))) på SMS"
        case let .email(kind): isEnglish ? "\(filterName(.kind(kind))) by email" : "\(filterName(.kind(kind))) på e-post"
        case let .summary(kind): isEnglish ? "\(filterName(.kind(kind))) in the summary" : "\(filterName(.kind(kind))) i sammendraget"
        case .assignmentDigest: isEnglish ? "Daily email of open assignments" : "Daglig e-post om åpne oppdrag"
        }
    }

    /// What a settings switch does, said before how to operate it.
    public func settingEffect(_ setting: NotificationPreferences.Setting) -> String {
        switch setting {
        case .kind(.assignment):
            isEnglish ? "Lets you know when a new assignment arrives" : "Gir deg beskjed når et nytt oppdrag kommer"
        case .kind(.certificationExpiry):
            isEnglish
                ? "Lets you know before one of your certifications expires"
                : "Gir deg beskjed før en av sertifiseringene dine går ut"
        case .kind(.pauseConfirmation):
            isEnglish
                ? "Lets you know when a pause you asked for is booked, starts or ends"
                : "Gir deg beskjed når en pause du ba om, er registrert, starter eller slutter"
        case .kind(.scenarioPrompt):
            isEnglish
                ? "Lets you know when a coordinator gives you a training scenario"
                : "Gir deg beskjed når en koordinator gir deg et treningsscenario"
        case .kind(.summary):
            isEnglish
                ? "Lets you know when your summary arrives, with what was gathered for it"
                : "Gir deg beskjed når sammendraget ditt kommer, med det som er samlet til det"
        case .kind(.serviceNotice):
            isEnglish ? "Lets you know when something in Varsel needs an admin" : "Gir deg beskjed når noe i Varsel trenger en administrator"
        case .summary:
            isEnglish
                ? "Gathers them into one notification at your summary time instead of telling you of each at once"
                : "Samler dem i ett varsel til tidspunktet for sammendraget i stedet for å si fra om hvert med en gang"
        case .assignmentDigest:
            isEnglish
                ? "At your summary time, emails you the assignments you manage that are unanswered, overdue or declined"
                : "Til tidspunktet for sammendraget får du en e-post om oppdragene du har ansvar for som er ubesvart, på overtid eller avslått"
        case .sound: isEnglish ? "Plays a sound when a notification arrives" : "Spiller en lyd når et varsel kommer"
        case .vibration: isEnglish ? "Vibrates when a notification arrives" : "Vibrerer når et varsel kommer"
        case .systemNotifications:
            isEnglish
                ? "Shows a system notification when Varsel is in the background"
                : "Viser et systemvarsel når Varsel er i bakgrunnen"
        case .speakPersonalDetails:
            isEnglish
                ? "Lets announcements read aloud names and addresses of the people you visit, where a title holds them"
                : "Lar kunngjøringer lese opp navn og adresser til dem du besøker, der en tittel inneholder dem"
        case .lockScreenDetails:
            isEnglish
                ? "Names and addresses of the people you visit are shown in notifications on this phone's lock screen"
                : "Navn og adresser til dem du besøker, vises i varsler på låseskjermen"
        case .textMessage:
            isEnglish
                ? "Sends a text message to your verified mobile number when you have not seen one in time"
                : "Sender en SMS til det bekreftede mobilnummeret ditt når du ikke har sett et varsel i tide"
        case .email:
            isEnglish
                ? "Sends an email to your verified address when you have not seen one in time"
                : "Sender en e-post til den bekreftede adressen din når du ikke har sett et varsel i tide"
        }
    }

    // MARK: Controls

    public var markAllAsRead: String { isEnglish ? "Mark all as read" : "Merk alle som lest" }
    public var markSelectedAsRead: String { isEnglish ? "Mark selected as read" : "Merk valgte som lest" }
    public var deleteSelected: String { isEnglish ? "Delete selected" : "Slett valgte" }
    public var acknowledgeAssignment: String { isEnglish ? "Acknowledge assignment" : "Bekreft oppdraget" }
    public var declineAssignment: String { isEnglish ? "Decline assignment" : "Avslå oppdraget" }
    public var cancel: String { isEnglish ? "Cancel" : "Avbryt" }
    /// The description of a button that opens a dialog, read after its name and role on every engine. (An
    /// `aria-haspopup="dialog"` is read as "opens dialog" by Chromium but makes WebKit call the button a combo box.)
    public var opensDialog: String { isEnglish ? "Opens a dialog" : "Åpner en dialog" }
    public var acknowledgeDialogTitle: String { isEnglish ? "Acknowledge this assignment?" : "Bekrefte dette oppdraget?" }

    /// A list item's check box label, matching its visible text (004): `Select New assignment, 5 minutes ago`.
    public func selectItemLabel(title: String, timeAgo: String) -> String {
        isEnglish ? "Select \(title), \(timeAgo)" : "Velg \(title), \(timeAgo)"
    }

    /// Said after an urgent item's read state, and shown on it: `urgent`, `haster`.
    public var urgentState: String { isEnglish ? "urgent" : "haster" }

    // MARK: Announcements

    /// Criterion 6 of 003: `New notification: [title]`.
    public func newNotification(title: String) -> String {
        isEnglish ? "New notification: \(title)" : "Nytt varsel: \(title)"
    }

    /// An urgent arrival, announced assertively: `New urgent notification: [title]`.
    public func newUrgentNotification(title: String) -> String {
        isEnglish ? "New urgent notification: \(title)" : "Nytt hastevarsel: \(title)"
    }

    /// A coalesced burst of arrivals: `3 new notifications`, `3 nye varsler`.
    public func newNotifications(count: Int) -> String {
        isEnglish ? "\(number(count)) new notifications" : "\(number(count)) nye varsler"
    }

    /// The outcome of "mark all as read", including the nothing-to-do case (002's Clear contacts example).
    public func markedAllRead(count: Int) -> String {
        switch (count, language) {
        case (0, .english): "No unread notifications, nothing to mark as read"
        case (0, .norwegianBokmal): "Ingen uleste varsler, ingenting å merke som lest"
        case (1, .english): "1 notification marked as read"
        case (1, .norwegianBokmal): "1 varsel merket som lest"
        case (_, .english): "\(number(count)) notifications marked as read"
        case (_, .norwegianBokmal): "\(number(count)) varsler merket som lest"
        }
    }

    /// The outcome of deleting selected notifications, including nothing selected.
    public func deleted(count: Int) -> String {
        switch (count, language) {
        case (0, .english): "No notifications selected, nothing deleted"
        case (0, .norwegianBokmal): "Ingen varsler valgt, ingenting slettet"
        case (1, .english): "1 notification deleted"
        case (1, .norwegianBokmal): "1 varsel slettet"
        case (_, .english): "\(number(count)) notifications deleted"
        case (_, .norwegianBokmal): "\(number(count)) varsler slettet"
        }
    }

    public var markedRead: String { isEnglish ? "Marked as read" : "Merket som lest" }
    public var markedUnread: String { isEnglish ? "Marked as unread" : "Merket som ulest" }
    public var assignmentAcknowledged: String { isEnglish ? "Assignment acknowledged" : "Oppdraget er bekreftet" }
    public var assignmentDeclined: String { isEnglish ? "Assignment declined" : "Oppdraget er avslått" }
    public var settingsSaved: String { isEnglish ? "Settings saved" : "Innstillingene er lagret" }

    // MARK: Notification texts the service writes

    public var newAssignmentTitle: String { isEnglish ? "New assignment" : "Nytt oppdrag" }

    /// The body of an assignment notification: `Visit Kari Nordmann at Storgata 1`.
    public func assignmentBody(name: String, address: String) -> String {
        isEnglish ? "Visit \(name) at \(address)" : "Besøk \(name) i \(address)"
    }

    public var pauseStartedTitle: String { isEnglish ? "Your pause has started" : "Pausen din har startet" }

    /// The body of a pause confirmation: `You will not get new assignments until 1 December 2026.`
    public func pauseBody(until date: Date, timeZone: TimeZone) -> String {
        let day = longDate(date, timeZone: timeZone)
        return isEnglish ? "You will not get new assignments until \(day)." : "Du får ikke nye oppdrag før \(day)."
    }

    /// The title of an expiry warning: `Certification expires in 7 days`, `… tomorrow`, `… today`.
    public func certificationExpiryTitle(daysLeft: Int) -> String {
        switch (daysLeft, language) {
        case (...0, .english): "Certification expires today"
        case (...0, .norwegianBokmal): "Sertifiseringen utløper i dag"
        case (1, .english): "Certification expires tomorrow"
        case (1, .norwegianBokmal): "Sertifiseringen utløper i morgen"
        case (_, .english): "Certification expires in \(daysLeft) days"
        case (_, .norwegianBokmal): "Sertifiseringen utløper om \(daysLeft) dager"
        }
    }

    /// The body of an expiry warning: `Peer mentor expires on 24 November 2026. Book a renewal course.`
    public func certificationExpiryBody(name: String, expiresAt: Date, timeZone: TimeZone) -> String {
        let day = longDate(expiresAt, timeZone: timeZone)
        return isEnglish ? "\(name) expires on \(day). Book a renewal course." : "\(name) utløper \(day). Meld deg på et fornyelseskurs."
    }

    /// A date written out in this language: `December 1, 2026`, `1. desember 2026`.
    public func longDate(_ date: Date, timeZone: TimeZone) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        return date.formatted(Date.FormatStyle(date: .long, time: .omitted, locale: language.locale, calendar: calendar, timeZone: timeZone))
    }

    // MARK: Numbers

    /// Formats an integer in this language (Norwegian groups thousands with a no-break space).
    public func number(_ value: Int) -> String {
        value.formatted(.number.locale(language.locale))
    }
}
