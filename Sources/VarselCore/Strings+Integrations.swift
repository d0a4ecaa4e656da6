import Foundation

/// An integration token as its list describes it: the system it is for and what is known of its use.
public struct IntegrationSummary: Sendable, Hashable {
    public var name: String
    public var role: PersonRole
    public var madeAt: Date
    /// Who made it; nil for the command line.
    public var madeBy: String?
    public var lastUsedAt: Date?
    /// When it was revoked; nil while it works.
    public var revokedAt: Date?

    public init(name: String, role: PersonRole, madeAt: Date, madeBy: String?, lastUsedAt: Date?, revokedAt: Date?) {
        self.name = name
        self.role = role
        self.madeAt = madeAt
        self.madeBy = madeBy
        self.lastUsedAt = lastUsedAt
        self.revokedAt = revokedAt
    }
}

/// The words of the administrator's integration tokens screens: the list, making a token, and the page that shows
/// a new token once.
extension Strings {
    public var integrationsTitle: String { isEnglish ? "Integration tokens" : "Integrasjonsnøkler" }

    public var integrationsIntro: String {
        isEnglish
            ? "A member or case system uses a token to create assignments and read their state without anyone's password. Everything it changes is recorded under its name."
            : "Et medlems- eller saksbehandlingssystem bruker en nøkkel til å opprette oppdrag og lese hvordan det går med dem, uten noens passord. Alt det endrer, står oppført under navnet dets."
    }

    /// How many tokens the list holds: `No integration tokens yet`, `1 integration token`, `3 integration tokens`.
    public func integrationsCount(_ count: Int) -> String {
        switch (count, isEnglish) {
        case (0, true): "No integration tokens yet."
        case (0, false): "Ingen integrasjonsnøkler ennå."
        case (1, true): "1 integration token."
        case (1, false): "1 integrasjonsnøkkel."
        case (_, true): "\(number(count)) integration tokens."
        case (_, false): "\(number(count)) integrasjonsnøkler."
        }
    }

    /// One token in the list, whole: `Member system, coordinator, made 27 November 2026 by Anne Admin, last used 5
    /// minutes ago`; a revoked one ends `revoked 28 November 2026`.
    public func integrationRow(_ summary: IntegrationSummary, now: Date, timeZone: TimeZone) -> String {
        let relative = RelativeTime(language: language, timeZone: timeZone)
        let made = longDate(summary.madeAt, timeZone: timeZone)
        let madePart =
            summary.madeBy.map { isEnglish ? "made \(made) by \($0)" : "laget \(made) av \($0)" }
            ?? (isEnglish ? "made \(made) on the command line" : "laget \(made) på kommandolinjen")
        let usePart =
            summary.lastUsedAt.map {
                isEnglish ? "last used \(relative.phrase(for: $0, now: now))" : "sist brukt \(relative.phrase(for: $0, now: now))"
            }
            ?? (isEnglish ? "never used" : "aldri brukt")
        let statePart = summary.revokedAt.map {
            isEnglish ? "revoked \(longDate($0, timeZone: timeZone))" : "trukket tilbake \(longDate($0, timeZone: timeZone))"
        }
        return ([summary.name, roleName(summary.role), madePart, usePart] + (statePart.map { [$0] } ?? [])).joined(separator: ", ")
    }

    /// The visible mark beside a revoked token (`Revoked`), for the eye: the row's words say it too.
    public var revokedMark: String { isEnglish ? "Revoked" : "Trukket tilbake" }
    public var revokeButton: String { isEnglish ? "Revoke" : "Trekk tilbake" }

    public var makeTokenHeading: String { isEnglish ? "Make a token" : "Lag en nøkkel" }
    public var tokenNameField: String { isEnglish ? "System's name" : "Systemets navn" }
    public var tokenNameHint: String {
        isEnglish
            ? "As logs and histories will show it, for example Member system." : "Slik logger og historikk viser det, for eksempel Medlemssystem."
    }
    public var tokenRoleField: String { isEnglish ? "What it may do" : "Hva det får gjøre" }
    public var makeTokenButton: String { isEnglish ? "Make token" : "Lag nøkkel" }

    /// The heading of the page that shows a new token: `Token for Member system`.
    public func tokenHeading(for name: String) -> String { isEnglish ? "Token for \(name)" : "Nøkkel for \(name)" }

    public func tokenInstructions(for name: String) -> String {
        isEnglish
            ? "Copy this token into \(name) now. It is shown this once: Varsel keeps only a fingerprint of it. Whoever holds it can act as \(name), so keep it secret."
            : "Kopier denne nøkkelen inn i \(name) nå. Den vises bare denne ene gangen: Varsel tar bare vare på et fingeravtrykk av den. Den som har den, kan handle som \(name), så hold den hemmelig."
    }
    public var tokenLabel: String { isEnglish ? "Token" : "Nøkkel" }

    /// The confirmation on the page that shows a new token: `Made a token for Member system`.
    public func tokenMade(for name: String) -> String { isEnglish ? "Made a token for \(name)" : "Laget en nøkkel for \(name)" }

    public var tokenShownOnce: String {
        isEnglish
            ? "That token was shown once and cannot be shown again. If it was lost, revoke it and make a new one."
            : "Den nøkkelen ble vist én gang og kan ikke vises igjen. Hvis den ble borte, trekk den tilbake og lag en ny."
    }
    public var tokenRevoked: String {
        isEnglish ? "Token revoked: the system's next request is refused." : "Nøkkelen er trukket tilbake: systemets neste forespørsel blir avvist."
    }
}
