import Foundation

/// The words of text messages, emails, their verification, the quiet hours and the history lines they add.
extension Strings {
    // MARK: Settings

    public var settingsTextMessageLegend: String {
        isEnglish ? "Text message when I have not seen it in time" : "SMS når jeg ikke har sett det i tide"
    }
    public var settingsEmailLegend: String { isEnglish ? "Email when I have not seen it in time" : "E-post når jeg ikke har sett det i tide" }
    public var quietHoursLegend: String { isEnglish ? "Quiet hours" : "Stille timer" }
    public var quietHoursStart: String { isEnglish ? "Quiet hours start" : "Stille timer starter" }
    public var quietHoursEnd: String { isEnglish ? "Quiet hours end" : "Stille timer slutter" }
    public var quietHoursHint: String {
        isEnglish
            ? "Between these times only urgent notifications reach your phone and email; Varsel's page shows everything. Leave both empty for none."
            : "Mellom disse tidene når bare hastevarsler telefonen og e-posten din; Varsels side viser alt. La begge stå tomme for ingen."
    }
    /// Said when only one of the two times is filled in, or they are the same.
    public var quietHoursIncomplete: String {
        isEnglish
            ? "Fill in both times, different from each other, or leave both empty."
            : "Fyll inn begge tidene, ulike hverandre, eller la begge stå tomme."
    }
    public var invalidClockTime: String {
        isEnglish ? "Write a time as hours and minutes, such as 22:00." : "Skriv et klokkeslett som timer og minutter, for eksempel 22:00."
    }
    /// What the settings say of a channel that is not verified: `No verified mobile number: add one on your Profile.`
    public func channelNotVerified(_ channel: OutsideChannel) -> String {
        switch (channel, isEnglish) {
        case (.textMessage, true): "No verified mobile number yet: add one on your Profile."
        case (.textMessage, false): "Ingen bekreftet mobilnummer ennå: legg det til på profilen din."
        case (.email, true): "No verified email address yet: add one on your Profile."
        case (.email, false): "Ingen bekreftet e-postadresse ennå: legg den til på profilen din."
        }
    }

    // MARK: Profile

    public var channelsHeading: String { isEnglish ? "Text messages and email" : "SMS og e-post" }
    public var channelsIntro: String {
        isEnglish
            ? "When you have not seen a notification in time, Varsel can send a text message or an email. It never includes the details of the people you visit."
            : "Når du ikke har sett et varsel i tide, kan Varsel sende en SMS eller en e-post. Den har aldri med opplysninger om dem du besøker."
    }
    /// The field's label: `Mobile number`, `Email address`.
    public func channelAddressLabel(_ channel: OutsideChannel) -> String {
        switch (channel, isEnglish) {
        case (.textMessage, true): "Mobile number"
        case (.textMessage, false): "Mobilnummer"
        case (.email, true): "Email address"
        case (.email, false): "E-postadresse"
        }
    }
    public func channelAddressHint(_ channel: OutsideChannel) -> String {
        switch (channel, isEnglish) {
        case (.textMessage, true): "A Norwegian number as you would write it, or + and the country code. Varsel sends a code to check it."
        case (.textMessage, false): "Et norsk nummer slik du ville skrevet det, eller + og landskoden. Varsel sender en kode for å sjekke det."
        case (.email, true): "Varsel sends a code to check it."
        case (.email, false): "Varsel sender en kode for å sjekke den."
        }
    }
    /// The button that saves an address and sends its code.
    public func sendCode(_ channel: OutsideChannel) -> String {
        switch (channel, isEnglish) {
        case (.textMessage, true): "Send a code to this number"
        case (.textMessage, false): "Send en kode til dette nummeret"
        case (.email, true): "Send a code to this address"
        case (.email, false): "Send en kode til denne adressen"
        }
    }
    /// The code field's label: `Code sent to +47 912 34 567`.
    public func codeLabel(sentTo address: String) -> String { isEnglish ? "Code sent to \(address)" : "Kode sendt til \(address)" }
    /// The code field as an error summary names it.
    public var codeFieldName: String { isEnglish ? "Code" : "Kode" }
    public var codeHint: String { isEnglish ? "Six digits. The code works for 10 minutes." : "Seks sifre. Koden virker i 10 minutter." }
    public func verify(_ channel: OutsideChannel) -> String {
        switch (channel, isEnglish) {
        case (.textMessage, true): "Verify the number"
        case (.textMessage, false): "Bekreft nummeret"
        case (.email, true): "Verify the address"
        case (.email, false): "Bekreft adressen"
        }
    }
    public func removeChannel(_ channel: OutsideChannel) -> String {
        switch (channel, isEnglish) {
        case (.textMessage, true): "Remove the mobile number"
        case (.textMessage, false): "Fjern mobilnummeret"
        case (.email, true): "Remove the email address"
        case (.email, false): "Fjern e-postadressen"
        }
    }
    /// A channel in one line: `Mobile number +47 912 34 567, verified`, `…, not verified: a code was sent`, `Email
    /// address: none`.
    public func channelLine(_ channel: OutsideChannel, state: ContactChannelState?) -> String {
        let name = channelAddressLabel(channel)
        guard let state else { return isEnglish ? "\(name): none" : "\(name): ingen" }
        let shown = Self.readable(state.address, channel: channel)
        let status: String =
            switch (state.isVerified, state.codeExpiresAt != nil, isEnglish) {
            case (true, _, true): "verified"
            case (true, _, false): "bekreftet"
            case (false, true, true): "not verified: a code was sent"
            case (false, true, false): "ikke bekreftet: en kode er sendt"
            case (false, false, true): "not verified"
            case (false, false, false): "ikke bekreftet"
            }
        return "\(name) \(shown), \(status)"
    }
    /// A number written to be read: `+47 912 34 567` for a Norwegian mobile number; other numbers and addresses as stored.
    public static func readable(_ address: String, channel: OutsideChannel) -> String {
        guard channel == .textMessage, address.hasPrefix("+47"), address.count == 11 else { return address }
        let digits = Array(address.dropFirst(3))
        return "+47 \(String(digits[0..<3])) \(String(digits[3..<5])) \(String(digits[5..<8]))"
    }

    // MARK: Verification outcomes

    /// After a code went out: `A code was sent to the mobile number. Type it in the code field.`
    public func codeSent(_ channel: OutsideChannel) -> String {
        switch (channel, isEnglish) {
        case (.textMessage, true): "A code was sent to the mobile number. Type it in the code field."
        case (.textMessage, false): "En kode er sendt til mobilnummeret. Skriv den i kodefeltet."
        case (.email, true): "A code was sent to the email address. Type it in the code field."
        case (.email, false): "En kode er sendt til e-postadressen. Skriv den i kodefeltet."
        }
    }
    /// After a coordinator set someone's number or address: the code went to them, and they type it on their Profile.
    public func codeSentToPerson(_ channel: OutsideChannel) -> String {
        switch (channel, isEnglish) {
        case (.textMessage, true): "A code was sent to the mobile number. Its owner types it on their own Profile."
        case (.textMessage, false): "En kode er sendt til mobilnummeret. Eieren skriver den inn på sin egen profil."
        case (.email, true): "A code was sent to the email address. Its owner types it on their own Profile."
        case (.email, false): "En kode er sendt til e-postadressen. Eieren skriver den inn på sin egen profil."
        }
    }
    public func channelVerified(_ channel: OutsideChannel) -> String {
        switch (channel, isEnglish) {
        case (.textMessage, true): "Your mobile number is verified."
        case (.textMessage, false): "Mobilnummeret ditt er bekreftet."
        case (.email, true): "Your email address is verified."
        case (.email, false): "E-postadressen din er bekreftet."
        }
    }
    public func channelRemoved(_ channel: OutsideChannel) -> String {
        switch (channel, isEnglish) {
        case (.textMessage, true): "The mobile number was removed."
        case (.textMessage, false): "Mobilnummeret er fjernet."
        case (.email, true): "The email address was removed."
        case (.email, false): "E-postadressen er fjernet."
        }
    }
    public func wrongCode(triesLeft: Int) -> String {
        isEnglish
            ? "The code is wrong. \(triesLeft) \(triesLeft == 1 ? "try" : "tries") left."
            : "Koden er feil. \(triesLeft) \(triesLeft == 1 ? "forsøk" : "forsøk") igjen."
    }
    public var codeExpired: String { isEnglish ? "The code has expired. Ask for a new code." : "Koden er utløpt. Be om en ny kode." }
    public var tooManyWrongCodes: String { isEnglish ? "Too many wrong codes. Ask for a new code." : "For mange feil koder. Be om en ny kode." }
    public var noCodeWaiting: String { isEnglish ? "No code waits for this. Ask for a new code." : "Ingen kode venter på dette. Be om en ny kode." }
    public func waitBeforeNewCode(seconds: Int) -> String {
        isEnglish
            ? "A code was sent a moment ago. Ask again in \(seconds) seconds."
            : "En kode ble sendt for et øyeblikk siden. Spør igjen om \(seconds) sekunder."
    }
    public var codeNotSent: String {
        isEnglish ? "The code could not be sent now. Try again in a few minutes." : "Koden kunne ikke sendes nå. Prøv igjen om noen minutter."
    }
    /// Said when the gateway or the mail server refused the number or the address itself.
    public func addressRefused(_ channel: OutsideChannel) -> String {
        switch (channel, isEnglish) {
        case (.textMessage, true): "No text message could be sent to this number. Check it, or use another."
        case (.textMessage, false): "Ingen SMS kunne sendes til dette nummeret. Sjekk det, eller bruk et annet."
        case (.email, true): "No email could be sent to this address. Check it, or use another."
        case (.email, false): "Ingen e-post kunne sendes til denne adressen. Sjekk den, eller bruk en annen."
        }
    }
    public var channelUnavailable: String {
        isEnglish ? "This Varsel does not send these messages." : "Denne Varsel sender ikke slike meldinger."
    }
    public var invalidMobileNumber: String {
        isEnglish
            ? "Write a mobile number, such as 912 34 567 or +46 70 123 45 67."
            : "Skriv et mobilnummer, for eksempel 912 34 567 eller +46 70 123 45 67."
    }
    public var invalidEmailAddress: String {
        isEnglish ? "Write an email address, such as name@example.org." : "Skriv en e-postadresse, for eksempel navn@example.org."
    }
    public var invalidCode: String { isEnglish ? "Write the six digits of the code." : "Skriv de seks sifrene i koden." }

    // MARK: The messages themselves

    /// The text message's link prompt: `Open:`.
    public var textMessageOpen: String { isEnglish ? "Open:" : "Åpne:" }
    public var emailAssignmentSubject: String { isEnglish ? "New assignment in Varsel" : "Nytt oppdrag i Varsel" }
    public func emailGreeting(_ name: String) -> String { isEnglish ? "Hello \(name)," : "Hei \(name)," }
    public var emailOpenLine: String { isEnglish ? "Open Varsel to read it and answer:" : "Åpne Varsel for å lese og svare:" }
    public var emailLinkText: String { isEnglish ? "Open Varsel" : "Åpne Varsel" }
    public var emailWhy: String {
        isEnglish
            ? "You get this email because you had not seen the notification in Varsel. You choose which emails you get in Varsel's notification settings."
            : "Du får denne e-posten fordi du ikke hadde sett varselet i Varsel. Du velger hvilke e-poster du får i varslingsinnstillingene i Varsel."
    }
    public var codeEmailSubject: String { isEnglish ? "Your code for Varsel" : "Koden din til Varsel" }
    /// `Your Varsel code is 123 456. It works for 10 minutes.`
    public func verificationCodeText(_ grouped: String, minutes: Int) -> String {
        isEnglish
            ? "Your Varsel code is \(grouped). It works for \(minutes) minutes."
            : "Koden din til Varsel er \(grouped). Den virker i \(minutes) minutter."
    }
    public var codeEmailWhy: String {
        isEnglish
            ? "Someone added this address to Varsel. If it was not you or your coordinator, you can ignore this email."
            : "Noen la til denne adressen i Varsel. Hvis det ikke var deg eller koordinatoren din, kan du se bort fra denne e-posten."
    }

    // MARK: History and the coordinator's view

    /// `Text message sent to the mentor`, `Email sent to the mentor`.
    public func followUpSent(_ channel: OutsideChannel) -> String {
        switch (channel, isEnglish) {
        case (.textMessage, true): "Text message sent to the mentor"
        case (.textMessage, false): "SMS sendt til likepersonen"
        case (.email, true): "Email sent to the mentor"
        case (.email, false): "E-post sendt til likepersonen"
        }
    }
    /// The coordinator's note while the mentor's quiet hours hold a notification: `The mentor's quiet hours: the
    /// notification waits until 07:00.` Its push goes then; a text message or email only if it is still unseen after
    /// the follow-up delay.
    public func heldForQuietHours(until clock: String) -> String {
        isEnglish
            ? "The mentor's quiet hours: the notification waits until \(clock)."
            : "Likepersonens stille timer: varselet venter til klokken \(clock)."
    }
}
