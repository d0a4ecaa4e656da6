import Foundation

/// The words of passkeys: the Profile's list and its forms, and signing in with one.
extension Strings {
    public var passkeysHeading: String { isEnglish ? "Passkeys" : "Passnøkler" }
    public var passkeysIntro: String {
        isEnglish
            ? "Sign in with your phone's own lock (Face ID, fingerprint or PIN) instead of typing your password."
            : "Logg inn med telefonens egen lås (Face ID, fingeravtrykk eller PIN-kode) i stedet for å skrive passordet."
    }
    public var noPasskeys: String { isEnglish ? "You have no passkeys." : "Du har ingen passnøkler." }

    /// When a passkey was added and last used: "Added 25 November 2026, never used".
    public func passkeyDates(added: Date, lastUsed: Date?, timeZone: TimeZone) -> String {
        let addedText = longDate(added, timeZone: timeZone)
        guard let lastUsed else { return isEnglish ? "Added \(addedText), never used" : "Lagt til \(addedText), aldri brukt" }
        let usedText = longDate(lastUsed, timeZone: timeZone)
        return isEnglish ? "Added \(addedText), last used \(usedText)" : "Lagt til \(addedText), sist brukt \(usedText)"
    }

    public func renamePasskeyField(_ name: String) -> String { isEnglish ? "New name for \(name)" : "Nytt navn på \(name)" }
    public var renameButton: String { isEnglish ? "Rename" : "Gi nytt navn" }
    public var removePasskeyButton: String { isEnglish ? "Remove" : "Fjern" }
    public var passkeyInsteadHeading: String { isEnglish ? "Or add a passkey instead" : "Eller legg til en passnøkkel i stedet" }
    public var addPasskeyHeading: String { isEnglish ? "Add a passkey" : "Legg til en passnøkkel" }
    public var newPasskeyNameField: String { isEnglish ? "Name for the new passkey" : "Navn på den nye passnøkkelen" }
    public var passkeyNameHint: String {
        isEnglish
            ? "So you can tell your passkeys apart, such as \u{201C}My iPhone\u{201D}. At most 60 characters."
            : "Så du kan skille passnøklene fra hverandre, for eksempel «Min iPhone». Høyst 60 tegn."
    }
    public var defaultPasskeyName: String { isEnglish ? "My phone" : "Min telefon" }
    public var addPasskeyButton: String { isEnglish ? "Add a passkey" : "Legg til en passnøkkel" }
    public var passkeyNeedsScript: String {
        isEnglish
            ? "Adding a passkey needs JavaScript and a browser that supports passkeys."
            : "Å legge til en passnøkkel krever JavaScript og en nettleser som støtter passnøkler."
    }
    public var passkeyNotAdded: String {
        isEnglish ? "The passkey was not added. Try again." : "Passnøkkelen ble ikke lagt til. Prøv igjen."
    }
    public var passkeyNameRule: String {
        isEnglish ? "Give the passkey a name of 1 to 60 characters." : "Gi passnøkkelen et navn på 1 til 60 tegn."
    }
    public var lastWayInRefusal: String {
        isEnglish
            ? "This passkey is your only way to sign in: choose a password first."
            : "Denne passnøkkelen er din eneste måte å logge inn på: velg et passord først."
    }
    public var passkeyAdded: String { isEnglish ? "Passkey added." : "Passnøkkelen er lagt til." }
    public var passkeyRenamed: String { isEnglish ? "Passkey renamed." : "Passnøkkelen har fått nytt navn." }
    public var passkeyRemoved: String { isEnglish ? "Passkey removed." : "Passnøkkelen er fjernet." }

    // MARK: Signing in

    public var signInWithPasskey: String { isEnglish ? "Sign in with a passkey" : "Logg inn med passnøkkel" }
    public var orSignInWithPassword: String { isEnglish ? "Or sign in with your password" : "Eller logg inn med passord" }
    public var passkeyNotAccepted: String {
        isEnglish
            ? "The passkey was not accepted. Try again, or sign in with your password."
            : "Passnøkkelen ble ikke godtatt. Prøv igjen, eller logg inn med passord."
    }
}
