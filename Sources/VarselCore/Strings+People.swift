import Foundation

/// The words of the coordinator's people screens: the list and its filters, a person's page, adding a person, the
/// one-time set-password link and its page, and the account change log.
extension Strings {
    // MARK: Navigation

    public var peopleTitle: String { isEnglish ? "People" : "Personer" }
    public var sendTab: String { isEnglish ? "Send" : "Send" }
    public var dashboardTab: String { isEnglish ? "Dashboard" : "Oversikt" }
    public var scenariosTab: String { isEnglish ? "Scenarios" : "Scenarioer" }
    public var coordinatorNavigation: String { isEnglish ? "Coordinator" : "Koordinator" }

    // MARK: Roles and states

    public func roleName(_ role: PersonRole) -> String {
        switch role {
        case .mentor: isEnglish ? "peer mentor" : "likeperson"
        case .coordinator: isEnglish ? "coordinator" : "koordinator"
        case .admin: isEnglish ? "administrator" : "administrator"
        }
    }

    public func personFilterName(_ filter: PersonFilter) -> String {
        switch filter {
        case .all: isEnglish ? "Everyone" : "Alle"
        case .needsAttention: isEnglish ? "Needs attention" : "Trenger oppfølging"
        case .active: isEnglish ? "Active" : "Aktive"
        case .paused: isEnglish ? "Paused" : "På pause"
        case .deactivated: isEnglish ? "Deactivated" : "Deaktiverte"
        }
    }

    /// The visible mark beside a deactivated person's row (`Deactivated`); nil for anyone else. The row's own words
    /// say it too, so the mark is for the eye only.
    public func personStateMark(_ person: PersonSummary, now: Date) -> String? {
        person.state(now: now) == .deactivated ? (isEnglish ? "Deactivated" : "Deaktivert") : nil
    }

    /// The state part of a person's row: `active`, `paused until 1 December 2026`, `deactivated`.
    public func personState(_ person: PersonSummary, now: Date, timeZone: TimeZone) -> String {
        switch person.state(now: now) {
        case .deactivated: isEnglish ? "deactivated" : "deaktivert"
        case .paused:
            person.pausedUntil.map {
                isEnglish ? "paused until \(longDate($0, timeZone: timeZone))" : "pause til \(longDate($0, timeZone: timeZone))"
            }
                ?? (isEnglish ? "paused" : "på pause")
        default: isEnglish ? "active" : "aktiv"
        }
    }

    /// The certification part of a row: `Guide certificate expires in 12 days`, `… expires today`,
    /// `… expired on 3 November 2026`; nil without a certification or when it is more than a year away.
    public func certificationStanding(_ person: PersonSummary, now: Date, timeZone: TimeZone) -> String? {
        guard let first = person.firstExpiring, let days = person.daysUntilExpiry(now: now) else { return nil }
        if first.expiresAt <= now {
            return isEnglish
                ? "\(first.name) expired on \(longDate(first.expiresAt, timeZone: timeZone))"
                : "\(first.name) utløp \(longDate(first.expiresAt, timeZone: timeZone))"
        }
        switch days {
        case 0: return isEnglish ? "\(first.name) expires today" : "\(first.name) utløper i dag"
        case 1: return isEnglish ? "\(first.name) expires tomorrow" : "\(first.name) utløper i morgen"
        case 2...PersonFilter.expiringWithinDays:
            return isEnglish ? "\(first.name) expires in \(days) days" : "\(first.name) utløper om \(days) dager"
        default:
            return isEnglish
                ? "\(first.name) valid until \(longDate(first.expiresAt, timeZone: timeZone))"
                : "\(first.name) gyldig til \(longDate(first.expiresAt, timeZone: timeZone))"
        }
    }

    /// `no live assignments`, `1 live assignment`, `3 live assignments`.
    public func liveAssignments(_ count: Int) -> String {
        if isEnglish { return count == 0 ? "no live assignments" : count == 1 ? "1 live assignment" : "\(number(count)) live assignments" }
        return count == 0 ? "ingen aktive oppdrag" : count == 1 ? "1 aktivt oppdrag" : "\(number(count)) aktive oppdrag"
    }

    public var noPeopleMatch: String { isEnglish ? "Nobody matches the filter." : "Ingen passer til filteret." }
    /// `1 person`, `12 people`.
    public func peopleCount(_ count: Int) -> String {
        if isEnglish { return count == 1 ? "1 person" : "\(number(count)) people" }
        return count == 1 ? "1 person" : "\(number(count)) personer"
    }

    // MARK: Adding a person

    public var addPersonHeading: String { isEnglish ? "Add a person" : "Legg til en person" }
    public var displayNameField: String { isEnglish ? "Full name" : "Fullt navn" }
    public var usernameHint: String {
        isEnglish
            ? "What they sign in with: 2 to 64 letters, digits, full stops, hyphens or underscores."
            : "Det de logger inn med: 2 til 64 bokstaver, sifre, punktum, bindestrek eller understrek."
    }
    public var languageField: String { isEnglish ? "Language" : "Språk" }
    public var roleField: String { isEnglish ? "Role" : "Rolle" }
    public var addButton: String { isEnglish ? "Add" : "Legg til" }
    public var usernameTaken: String { isEnglish ? "This username is taken." : "Brukernavnet er tatt." }
    /// A username that breaks the rule; the field's hint says the rule, so the error does not repeat it.
    public var usernameRule: String {
        isEnglish
            ? "This username is too short, too long, or has characters that are not allowed."
            : "Brukernavnet er for kort, for langt eller har tegn som ikke er tillatt."
    }

    // MARK: The one-time link

    /// The heading above a new link: `Set-password link for Kari Nordmann`.
    public func linkHeading(for name: String) -> String {
        isEnglish ? "Set-password link for \(name)" : "Lenke for å velge passord for \(name)"
    }

    /// How to pass the link on, and that it is shown only once.
    public func linkInstructions(for name: String, until date: Date, timeZone: TimeZone) -> String {
        isEnglish
            ? "Pass this on to \(name). It works once, until \(dateAndTime(date, timeZone: timeZone)), and is not shown again."
            : "Gi dette videre til \(name). Det virker én gang, til \(dateAndTime(date, timeZone: timeZone)), og vises ikke igjen."
    }

    /// For reading aloud: `Or go to varsel.example/password and enter the code K7QM-4XHD-9TRB.`
    public func linkCodeInstructions(site: String) -> String {
        isEnglish ? "Or go to \(site)/password and enter this code:" : "Eller gå til \(site)/password og skriv inn denne koden:"
    }

    public var linkLabel: String { isEnglish ? "Link" : "Lenke" }
    public var codeLabel: String { isEnglish ? "Code" : "Kode" }

    // MARK: The set-password page

    public var choosePasswordTitle: String { isEnglish ? "Choose your password" : "Velg passordet ditt" }
    /// The sign-in page's way to the page where a new person types the code their coordinator read to them.
    public var haveCodeLink: String { isEnglish ? "I have a code from my coordinator" : "Jeg har en kode fra koordinatoren min" }
    /// `For Kari Nordmann, who signs in as kari.`
    public func choosePasswordFor(name: String, username: String) -> String {
        isEnglish ? "For \(name), who signs in as \(username)." : "For \(name), som logger inn som \(username)."
    }
    public var passwordRules: String {
        isEnglish
            ? "8 to 72 characters. A few words you will remember make a good password."
            : "8 til 72 tegn. Noen ord du husker, gir et godt passord."
    }
    public var newPasswordField: String { isEnglish ? "New password" : "Nytt passord" }
    public var repeatPasswordField: String { isEnglish ? "The same password again" : "Samme passord en gang til" }
    public var setPasswordButton: String { isEnglish ? "Save the password and sign in" : "Lagre passordet og logg inn" }
    public var passwordsDiffer: String { isEnglish ? "The two passwords are not the same." : "De to passordene er ikke like." }
    public var passwordBreaksRules: String { isEnglish ? "Use 8 to 72 characters." : "Bruk 8 til 72 tegn." }
    public var linkNotValid: String {
        isEnglish
            ? "This link has expired or has been used. Ask your coordinator for a new one."
            : "Denne lenken er utløpt eller brukt. Be koordinatoren om en ny."
    }
    public var codeField: String { isEnglish ? "Code from your coordinator" : "Koden fra koordinatoren" }
    public var continueButton: String { isEnglish ? "Continue" : "Fortsett" }
    public var codeNotValid: String {
        isEnglish
            ? "This code is not valid: it has expired, has been used, or has a typing error. Ask your coordinator if it goes on."
            : "Koden er ikke gyldig: den er utløpt, brukt eller har en skrivefeil. Spør koordinatoren hvis det fortsetter."
    }
    public var accountDeactivated: String {
        isEnglish ? "This account is deactivated. Ask your coordinator." : "Denne kontoen er deaktivert. Spør koordinatoren din."
    }

    // MARK: A person's page

    public var accountHeading: String { isEnglish ? "Account" : "Konto" }
    public var liveAssignmentsHeading: String { isEnglish ? "Live assignments" : "Aktive oppdrag" }
    public var reassignHint: String {
        isEnglish ? "Give each one to another mentor from its page." : "Gi hvert av dem til en annen likeperson fra siden til oppdraget."
    }
    public var changeLogHeading: String { isEnglish ? "Changes to the account" : "Endringer i kontoen" }
    public var newLinkButton: String { isEnglish ? "Make a new set-password link" : "Lag en ny lenke for å velge passord" }
    public var newLinkHint: String {
        isEnglish
            ? "The person is signed out everywhere; their old password stops working once they choose a new one."
            : "Personen logges ut overalt; det gamle passordet slutter å virke når de velger et nytt."
    }
    public var deactivateButton: String { isEnglish ? "Deactivate" : "Deaktiver" }
    public var deactivateHint: String {
        isEnglish
            ? "Signs them out everywhere and refuses sign-in. Nothing is deleted; you can reactivate."
            : "Logger dem ut overalt og nekter innlogging. Ingenting slettes; du kan aktivere igjen."
    }
    public var reactivateButton: String { isEnglish ? "Reactivate" : "Aktiver igjen" }
    public var changeRoleButton: String { isEnglish ? "Change role" : "Endre rolle" }
    public var certificationNameField: String { isEnglish ? "Certification" : "Sertifisering" }
    public var expiresOnField: String { isEnglish ? "Expires on" : "Utløper" }
    public var addCertificationButton: String { isEnglish ? "Add certification" : "Legg til sertifisering" }
    public var addCertificationHeading: String { isEnglish ? "Add a certification" : "Legg til en sertifisering" }
    public var renewButton: String { isEnglish ? "Renew" : "Forny" }
    public var removeButton: String { isEnglish ? "Remove" : "Fjern" }
    /// A renew field's label, naming the certification: `New expiry date for Guide certificate`.
    public func newExpiryField(for name: String) -> String { isEnglish ? "New expiry date for \(name)" : "Ny utløpsdato for \(name)" }
    /// A remove button's accessible name: `Remove Guide certificate`.
    public func removeCertification(_ name: String) -> String { isEnglish ? "Remove \(name)" : "Fjern \(name)" }
    /// A renew button's accessible name: `Renew Guide certificate`.
    public func renewCertification(_ name: String) -> String { isEnglish ? "Renew \(name)" : "Forny \(name)" }
    public var dateRule: String { isEnglish ? "Write a date as 2027-06-30." : "Skriv en dato som 2027-06-30." }
    public var ownAccountNote: String {
        isEnglish
            ? "This is your own account: your role and access are changed by another administrator."
            : "Dette er din egen konto: rollen og tilgangen endres av en annen administrator."
    }

    // MARK: Confirmations

    public func personAdded(_ name: String) -> String { isEnglish ? "\(name) added" : "\(name) er lagt til" }
    /// Said on the person's page when the one-time link's page is opened again: it is shown once only.
    public var linkShownOnce: String {
        isEnglish
            ? "The set-password link was shown once and is not shown again. If it was lost, make a new one."
            : "Lenken for å velge passord ble vist én gang og vises ikke igjen. Lag en ny hvis den ble borte."
    }
    public var linkMade: String {
        isEnglish ? "New set-password link made; the person is signed out everywhere" : "Ny lenke laget; personen er logget ut overalt"
    }
    public var personDeactivated: String { isEnglish ? "Deactivated and signed out everywhere" : "Deaktivert og logget ut overalt" }
    public var personReactivated: String { isEnglish ? "Reactivated" : "Aktivert igjen" }
    public var roleChanged: String { isEnglish ? "Role changed" : "Rollen er endret" }
    public var certificationsSaved: String { isEnglish ? "Certifications saved" : "Sertifiseringene er lagret" }
    public var passwordChosen: String { isEnglish ? "Password saved. You are signed in." : "Passordet er lagret. Du er logget inn." }

    // MARK: Erasing a contact's details

    /// What an erased assignment notification's title becomes: `Details removed`.
    public var detailsRemovedTitle: String { isEnglish ? "Details removed" : "Opplysningene er fjernet" }
    /// In a row, in place of the name and address: `details removed`.
    public var detailsRemovedShort: String { isEnglish ? "details removed" : "opplysningene er fjernet" }
    /// The page of an erased contact: `The details of this person were removed on 25 November 2026 at 14:03.`
    public func detailsRemovedText(on date: Date, timeZone: TimeZone) -> String {
        isEnglish
            ? "The details of this person were removed on \(dateAndTime(date, timeZone: timeZone))."
            : "Opplysningene om denne personen ble fjernet \(dateAndTime(date, timeZone: timeZone))."
    }
    public var eraseButton: String { isEnglish ? "Erase these details" : "Slett disse opplysningene" }
    /// The erasure dialog's title: `Erase the details of Per Olsen?`.
    public func eraseDialogTitle(_ name: String) -> String {
        isEnglish ? "Erase the details of \(name)?" : "Slette opplysningene om \(name)?"
    }
    public var eraseDialogText: String {
        isEnglish
            ? "Their name, address, phone number and notes are removed from Varsel everywhere, at once. The assignment's history stays. This cannot be undone."
            : "Navn, adresse, telefonnummer og notater fjernes fra Varsel overalt, med en gang. Historikken til oppdraget blir. Dette kan ikke angres."
    }
    public var eraseConfirm: String { isEnglish ? "Erase" : "Slett" }
    public var detailsErased: String { isEnglish ? "Details erased" : "Opplysningene er slettet" }

    // MARK: Downloads of stored data

    public var yourDataHeading: String { isEnglish ? "Your data" : "Dine data" }
    public var downloadMyData: String {
        isEnglish ? "Download everything Varsel stores about you (JSON)" : "Last ned alt Varsel lagrer om deg (JSON)"
    }
    public var downloadContactData: String {
        isEnglish ? "Download everything stored about this person (JSON)" : "Last ned alt som er lagret om denne personen (JSON)"
    }

    // MARK: Who read a contact's details

    public var contactReadsHeading: String { isEnglish ? "Who has read these details" : "Hvem har lest disse opplysningene" }

    public func channelName(_ channel: ContactReadChannel) -> String {
        switch channel {
        case .contactPage: isEnglish ? "this page" : "denne siden"
        case .contactAPI: isEnglish ? "the contact API" : "kontakt-API-et"
        case .assignmentAPI: isEnglish ? "the assignment API" : "oppdrags-API-et"
        case .push: isEnglish ? "a lock-screen notification" : "et varsel på låseskjermen"
        case .export: isEnglish ? "a download of everything stored" : "en nedlasting av alt som er lagret"
        }
    }

    /// One read: `Kari Mentor, through this page, 25 November 2026 at 14:03`.
    public func contactReadLine(by name: String, through channel: ContactReadChannel, at date: Date, timeZone: TimeZone) -> String {
        isEnglish
            ? "\(name), through \(channelName(channel)), \(dateAndTime(date, timeZone: timeZone))"
            : "\(name), gjennom \(channelName(channel)), \(dateAndTime(date, timeZone: timeZone))"
    }

    // MARK: The change log

    /// One change: `25 November 2026 at 14:03: Account created as peer mentor, by Coord`.
    public func accountLogLine(action: String, by actor: String?, at date: Date, timeZone: TimeZone) -> String {
        let who = actor.map { isEnglish ? "by \($0)" : "av \($0)" } ?? (isEnglish ? "from the command line" : "fra kommandolinjen")
        return "\(dateAndTime(date, timeZone: timeZone)): \(action), \(who)"
    }

    public func accountCreated(as role: PersonRole) -> String {
        isEnglish ? "Account created as \(roleName(role))" : "Konto opprettet som \(roleName(role))"
    }
    public var linkIssuedChange: String { isEnglish ? "Set-password link made" : "Lenke for å velge passord laget" }
    public var passwordSetChange: String { isEnglish ? "Password chosen with the link" : "Passord valgt med lenken" }
    public var passwordChangedChange: String { isEnglish ? "Password changed" : "Passord endret" }
    public func roleChangedChange(to role: PersonRole) -> String {
        isEnglish ? "Role changed to \(roleName(role))" : "Rolle endret til \(roleName(role))"
    }
    public var deactivatedChange: String { isEnglish ? "Deactivated" : "Deaktivert" }
    public var reactivatedChange: String { isEnglish ? "Reactivated" : "Aktivert igjen" }
    public func certificationAddedChange(_ name: String, expires date: Date?, timeZone: TimeZone) -> String {
        let until = date.map { longDate($0, timeZone: timeZone) } ?? ""
        return isEnglish ? "\(name) added, expires \(until)" : "\(name) lagt til, utløper \(until)"
    }
    public func certificationRenewedChange(_ name: String, expires date: Date?, timeZone: TimeZone) -> String {
        let until = date.map { longDate($0, timeZone: timeZone) } ?? ""
        return isEnglish ? "\(name) renewed until \(until)" : "\(name) fornyet til \(until)"
    }
    public func certificationRemovedChange(_ name: String) -> String { isEnglish ? "\(name) removed" : "\(name) fjernet" }
    public func passkeyAddedChange(_ name: String) -> String { isEnglish ? "Passkey \(name) added" : "Passnøkkelen \(name) lagt til" }
    public func passkeyRemovedChange(_ name: String) -> String { isEnglish ? "Passkey \(name) removed" : "Passnøkkelen \(name) fjernet" }
}
