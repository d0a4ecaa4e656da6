/// The visible words of the screens, beyond what is spoken for notifications.
extension Strings {
    private var en: Bool { language == .english }

    public var skipToContent: String { en ? "Skip to content" : "Hopp til innholdet" }
    public var signOut: String { en ? "Sign out" : "Logg ut" }
    public var signIn: String { en ? "Sign in" : "Logg inn" }
    public var username: String { en ? "Username" : "Brukernavn" }
    public var password: String { en ? "Password" : "Passord" }
    public var signInFailed: String { en ? "The username or password is wrong." : "Brukernavnet eller passordet er feil." }
    public var mainNavigation: String { en ? "Main" : "Hovedmeny" }
    public var notificationList: String { en ? "Notification list" : "Varselliste" }
    /// The centre's link to the next page of the list, when it holds more than one page.
    public var olderNotifications: String { en ? "Older notifications" : "Eldre varsler" }
    /// On a later page of the list, the link back to its first.
    public var newestNotifications: String { en ? "Newest notifications" : "Nyeste varsler" }
    public var noNotifications: String { en ? "No notifications here." : "Ingen varsler her." }
    /// The heading of the page a browser gets for an address that is no page.
    public var pageNotFound: String { en ? "Page not found" : "Fant ikke siden" }
    /// What the page for an address that is no page says under its heading.
    public var pageNotFoundExplanation: String {
        en
            ? "There is no page at this address. The link may be old or mistyped."
            : "Det finnes ingen side på denne adressen. Lenken kan være gammel eller skrevet feil."
    }
    /// Its way home, for a signed-in person: `Go to your notifications`.
    public var goToNotifications: String { en ? "Go to your notifications" : "Gå til varslene dine" }
    /// Its way in, for someone not signed in.
    public var goToSignIn: String { en ? "Go to sign-in" : "Gå til innloggingen" }
    public var coordinatorTools: String { en ? "Send notifications" : "Send varsler" }
    public var save: String { en ? "Save settings" : "Lagre innstillingene" }
    public var settingsKindsLegend: String { en ? "Notify me about" : "Gi meg beskjed om" }
    public var settingsChannelsLegend: String { en ? "How I am told" : "Hvordan jeg får beskjed" }
    public var settingsPrivacyLegend: String { en ? "Privacy" : "Personvern" }
    public var phone: String { en ? "Phone" : "Telefon" }
    public var address: String { en ? "Address" : "Adresse" }
    public var notes: String { en ? "Notes" : "Notater" }
    public var acknowledgeDialogText: String {
        en
            ? "You confirm that you will visit and that the coordinator may count on you."
            : "Du bekrefter at du skal på besøk, og at koordinatoren kan regne med deg."
    }
    public func assignmentStatus(_ status: String) -> String {
        switch (status, en) {
        case ("acknowledged", true): "You have acknowledged this assignment."
        case ("acknowledged", false): "Du har bekreftet dette oppdraget."
        case ("declined", true): "You have declined this assignment."
        case ("declined", false): "Du har avslått dette oppdraget."
        case (_, true): "This assignment waits for your answer."
        case (_, false): "Dette oppdraget venter på svaret ditt."
        }
    }
    public var sendNotification: String { en ? "Send a notification" : "Send et varsel" }
    public var createAssignment: String { en ? "Create an assignment" : "Opprett et oppdrag" }
    public var recipient: String { en ? "Recipient" : "Mottaker" }
    public var kind: String { en ? "Kind" : "Type" }
    public var titleField: String { en ? "Title" : "Tittel" }
    public var bodyField: String { en ? "Message" : "Melding" }
    /// Said with the send form's Title field: a title is public by contract.
    public var titleFieldHint: String {
        en
            ? "Read aloud when the notification arrives and shown on lock screens, so it must not name anyone."
            : "Leses opp når varselet kommer og vises på låseskjermen, så den må ikke nevne noen ved navn."
    }
    public var personalDetailsField: String { en ? "Names and addresses in the message" : "Navn og adresser i meldingen" }
    /// Said with the send form's personal-details field.
    public var personalDetailsFieldHint: String {
        en
            ? "One per line. They are never read aloud when the notification arrives and are hidden on lock screens unless the mentor allows it."
            : "Én per linje. De leses aldri opp når varselet kommer, og skjules på låseskjermen med mindre likepersonen tillater det."
    }
    /// A title that names a listed personal detail.
    public var titleNamesPersonalDetail: String {
        en
            ? "The title must not contain a name or address listed below: it is read aloud and shown on lock screens."
            : "Tittelen kan ikke inneholde et navn eller en adresse som står nedenfor: den leses opp og vises på låseskjermen."
    }
    public var urgentField: String { en ? "Urgent" : "Haster" }
    public var send: String { en ? "Send" : "Send" }
    public var mentor: String { en ? "Mentor" : "Likeperson" }
    /// The assignment form's error when no mentor who can take it was chosen.
    public var chooseMentor: String { en ? "Choose a mentor who can take the assignment." : "Velg en likeperson som kan ta oppdraget." }
    public var contactName: String { en ? "Name of the person to visit" : "Navnet til den som skal besøkes" }
    public var create: String { en ? "Create assignment" : "Opprett oppdrag" }
    public var errorSummary: String { en ? "Please correct the following:" : "Rett opp dette:" }
    public var required: String { en ? "This field is required." : "Feltet må fylles ut." }
    public func tooLong(_ max: Int) -> String { en ? "At most \(max) characters." : "Høyst \(max) tegn." }
    /// A field holding a control character (a tab pasted in, say) or an invisible formatting character.
    public var noControlCharacters: String {
        en
            ? "Remove the tabs and other control characters; line breaks are fine where the field has several lines."
            : "Fjern tabulatorer og andre kontrolltegn; linjeskift går fint der feltet har flere linjer."
    }
    /// The send form's personal details when there are too many, one is too long, or one holds a control character.
    public func personalDetailsRule(count: Int, length: Int) -> String {
        en
            ? "At most \(count) lines of at most \(length) characters each, without tabs or other control characters."
            : "Høyst \(count) linjer på høyst \(length) tegn hver, uten tabulatorer eller andre kontrolltegn."
    }
    /// Sign-in refused for a while after too many wrong attempts: `Too many sign-in attempts. Try again in 60 seconds.`
    public func tooManySignInAttempts(seconds: Int) -> String {
        en ? "Too many sign-in attempts. Try again in \(inSeconds(seconds))." : "For mange innloggingsforsøk. Prøv igjen om \(inSeconds(seconds))."
    }
    /// A password change refused for a while after too many wrong current passwords.
    public func tooManyWrongPasswords(seconds: Int) -> String {
        en ? "Too many wrong passwords. Try again in \(inSeconds(seconds))." : "For mange feil passord. Prøv igjen om \(inSeconds(seconds))."
    }
    private func inSeconds(_ seconds: Int) -> String {
        switch (en, seconds == 1) {
        case (true, true): "1 second"
        case (true, false): "\(seconds) seconds"
        case (false, true): "1 sekund"
        case (false, false): "\(seconds) sekunder"
        }
    }
    public var chooseRecipient: String { en ? "Choose a recipient." : "Velg en mottaker." }
    public var sent: String { en ? "Notification sent" : "Varselet er sendt" }
    public var assignmentCreated: String { en ? "Assignment created" : "Oppdraget er opprettet" }
}
