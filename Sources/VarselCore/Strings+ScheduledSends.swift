import Foundation

extension Strings {
    /// Added to the body of a scheduled notification that went long after its time (Varsel was not running then):
    /// `Meant for 30 November 2026 at 09:00; sent late, as Varsel was not running then.`
    public func scheduledFor(_ date: Date, timeZone: TimeZone) -> String {
        let when = dateAndTime(date, timeZone: timeZone)
        return isEnglish
            ? "Meant for \(when); sent late, as Varsel was not running then."
            : "Planlagt til \(when); sendt senere, fordi Varsel ikke kjørte da."
    }

    /// The send form's time field: a notification goes now unless it is filled in.
    public var sendLaterAt: String { isEnglish ? "Send later at" : "Send senere klokka" }
    /// The send form's day field, with the time.
    public var sendLaterOn: String { isEnglish ? "On the day" : "På dagen" }
    /// What the two "send later" fields take.
    public var sendLaterHint: String {
        isEnglish
            ? "Leave empty to send now. Norway's time, such as 08:00; with no day, the next time the clock shows it."
            : "La stå tomt for å sende nå. Norsk tid, for eksempel 08:00; uten dag, neste gang klokka viser det."
    }
    public var sendTimeRequired: String {
        isEnglish ? "Write the time to send at, or leave the day empty too." : "Skriv klokkeslettet det skal sendes, eller la dagen også stå tom."
    }
    public var sendTimeInFuture: String { isEnglish ? "The time to send at has passed." : "Tiden for å sende er allerede passert." }
    public var sendTimeWithinYear: String {
        isEnglish ? "A send can be scheduled at most a year ahead." : "En utsending kan planlegges høyst ett år fram i tid."
    }
    public var personalDetailsSentAtOnce: String {
        isEnglish
            ? "Personal details are sent at once only: leave them empty to send later."
            : "Personopplysninger sendes bare med en gang: la dem stå tomme for å sende senere."
    }

    /// The heading over what waits to be sent, and the page's tab.
    public var scheduledSends: String { isEnglish ? "Scheduled sends" : "Planlagte utsendinger" }
    public var nothingScheduled: String { isEnglish ? "Nothing is scheduled." : "Ingenting er planlagt." }

    /// One scheduled send in its list: `Monday's scenario: scenario prompt to Kari Nordmann, 30 November 2026 at 08:00`.
    public func scheduledSend(title: String, kind: NotificationKind, recipients: [String], at date: Date, timeZone: TimeZone) -> String {
        let when = dateAndTime(date, timeZone: timeZone)
        let kindName = kindName(kind).lowercased()
        let names = recipients.formatted(.list(type: .and).locale(language.locale))
        return isEnglish
            ? "\(title): \(kindName) to \(names), \(when)"
            : "\(title): \(kindName) til \(names), \(when)"
    }

    /// The link to change one scheduled send, named for it.
    public func changeScheduledSend(_ title: String) -> String { isEnglish ? "Change \(title)" : "Endre \(title)" }
    /// The button that cancels one scheduled send, named for it.
    public func cancelScheduledSend(_ title: String) -> String { isEnglish ? "Do not send \(title)" : "Ikke send \(title)" }
    public var changeScheduledSendHeading: String { isEnglish ? "Change a scheduled send" : "Endre en planlagt utsending" }
    public var saveScheduledSend: String { isEnglish ? "Save the change" : "Lagre endringen" }
    public var scheduledSendGone: String {
        isEnglish
            ? "This send has already gone or was cancelled, so it can no longer be changed."
            : "Denne utsendingen er allerede sendt eller avlyst, så den kan ikke lenger endres."
    }

    /// Said as the page loads after a notification was scheduled.
    public var scheduledConfirmation: String {
        isEnglish ? "Scheduled: it is listed under Scheduled sends until it goes" : "Planlagt: den står under Planlagte utsendinger til den sendes"
    }
    public var scheduledChangedConfirmation: String { isEnglish ? "Scheduled send changed" : "Den planlagte utsendingen er endret" }
    public var scheduledCancelledConfirmation: String {
        isEnglish ? "Cancelled: it will not be sent" : "Avlyst: den blir ikke sendt"
    }
}
