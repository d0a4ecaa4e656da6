import Foundation

/// Where one webhook delivery stands, as its row says it.
public enum WebhookDeliveryState: Sendable, Hashable {
    /// Queued, not yet tried.
    case waiting
    /// Tried and refused; tried again later. `reason` is the last attempt's, in words that name nothing sent.
    case failing(reason: String)
    case delivered
    /// Dropped: its endpoint was turned off.
    case dropped
}

/// The words of an integration's webhooks page: its endpoints, their recent deliveries, and adding one.
extension Strings {
    /// `Webhooks for Member system`.
    public func webhooksTitle(for name: String) -> String { isEnglish ? "Webhooks for \(name)" : "Webhooker for \(name)" }

    public func webhooksIntro(for name: String) -> String {
        isEnglish
            ? "Varsel tells \(name) what happens to its assignments by sending each event to these addresses, signed with the address's secret."
            : "Varsel forteller \(name) hva som skjer med oppdragene ved å sende hver hendelse til disse adressene, signert med adressens hemmelighet."
    }

    /// `No webhook addresses yet.`, `1 webhook address.`, `2 webhook addresses.`
    public func webhooksCount(_ count: Int) -> String {
        switch (count, isEnglish) {
        case (0, true): "No webhook addresses yet."
        case (0, false): "Ingen webhook-adresser ennå."
        case (1, true): "1 webhook address."
        case (1, false): "1 webhook-adresse."
        case (_, true): "\(number(count)) webhook addresses."
        case (_, false): "\(number(count)) webhook-adresser."
        }
    }

    /// One address, whole: `https://cases.example.org/varsel, on, 4 events, added 29 November 2026`; a failing one
    /// says since when, one turned off says when.
    public func webhookEndpointRow(
        url: String, eventCount: Int, addedAt: Date, failingSince: Date?, turnedOffAt: Date?, timeZone: TimeZone
    ) -> String {
        let state: String
        if let turnedOffAt {
            state =
                isEnglish
                ? "turned off \(longDate(turnedOffAt, timeZone: timeZone)) after failing for a day"
                : "slått av \(longDate(turnedOffAt, timeZone: timeZone)) etter å ha feilet i et døgn"
        } else if let failingSince {
            state =
                isEnglish
                ? "failing since \(longDate(failingSince, timeZone: timeZone))" : "feiler siden \(longDate(failingSince, timeZone: timeZone))"
        } else {
            state = isEnglish ? "on" : "på"
        }
        let events =
            isEnglish
            ? (eventCount == 1 ? "1 event" : "\(number(eventCount)) events") : (eventCount == 1 ? "1 hendelse" : "\(number(eventCount)) hendelser")
        let added = isEnglish ? "added \(longDate(addedAt, timeZone: timeZone))" : "lagt til \(longDate(addedAt, timeZone: timeZone))"
        return [url, state, events, added].joined(separator: ", ")
    }

    /// The heading of an address's recent deliveries: `Recent deliveries to https://cases.example.org/varsel`.
    public func recentDeliveries(to url: String) -> String { isEnglish ? "Recent deliveries to \(url)" : "Siste leveranser til \(url)" }
    public var noDeliveries: String { isEnglish ? "Nothing sent yet." : "Ingenting sendt ennå." }

    /// One delivery: `Assignment acknowledged, delivered after 2 attempts`, `Assignment created, failing after 3
    /// attempts: The endpoint answered 500.`
    public func webhookDeliveryRow(event: String, state: WebhookDeliveryState, attempts: Int) -> String {
        let name = webhookEventName(event)
        let tries =
            isEnglish ? (attempts == 1 ? "1 attempt" : "\(number(attempts)) attempts") : (attempts == 1 ? "1 forsøk" : "\(number(attempts)) forsøk")
        switch (state, isEnglish) {
        case (.waiting, true): return "\(name), waiting to be sent"
        case (.waiting, false): return "\(name), venter på å bli sendt"
        case (.delivered, true): return "\(name), delivered after \(tries)"
        case (.delivered, false): return "\(name), levert etter \(tries)"
        case let (.failing(reason), true): return "\(name), failing after \(tries): \(reason)"
        case let (.failing(reason), false): return "\(name), feiler etter \(tries): \(reason)"
        case (.dropped, true): return "\(name), dropped when the address was turned off"
        case (.dropped, false): return "\(name), droppet da adressen ble slått av"
        }
    }

    /// What an event is called on the page; its name as sent (`assignment.created`) is the checkbox's value.
    public func webhookEventName(_ event: String) -> String {
        let english: [String: String] = [
            "assignment.created": "Assignment created", "assignment.acknowledged": "Assignment acknowledged",
            "assignment.declined": "Assignment declined", "assignment.reassigned": "Assignment reassigned",
            "assignment.done": "Visit done", "assignment.escalated": "Assignment unanswered: reminder or coordinator told",
            "assignment.withdrawn": "Assignment withdrawn", "notification.read": "Notification read",
            "message.sent": "Message sent", "message.failed": "Message failed", "device.stopped": "Device stopped taking notifications",
        ]
        let norwegian: [String: String] = [
            "assignment.created": "Oppdrag opprettet", "assignment.acknowledged": "Oppdrag bekreftet",
            "assignment.declined": "Oppdrag avslått", "assignment.reassigned": "Oppdrag gitt til en annen",
            "assignment.done": "Besøk gjort", "assignment.escalated": "Oppdrag ubesvart: påminnelse eller koordinator varslet",
            "assignment.withdrawn": "Oppdrag trukket tilbake", "notification.read": "Varsel lest",
            "message.sent": "Melding sendt", "message.failed": "Melding feilet", "device.stopped": "Enhet tar ikke lenger imot varsler",
        ]
        return (isEnglish ? english : norwegian)[event] ?? event
    }

    public var addEndpointHeading: String { isEnglish ? "Add an address" : "Legg til en adresse" }
    public var endpointURLField: String { isEnglish ? "Address" : "Adresse" }
    public var endpointURLHint: String {
        isEnglish
            ? "An https address on the system's own server, for example https://cases.example.org/varsel-events"
            : "En https-adresse på systemets egen server, for eksempel https://cases.example.org/varsel-events"
    }
    public var endpointEventsLegend: String { isEnglish ? "Events to send" : "Hendelser som sendes" }
    public var addEndpointButton: String { isEnglish ? "Add address" : "Legg til adresse" }
    public var removeEndpointButton: String { isEnglish ? "Remove" : "Fjern" }
    public var endpointURLError: String {
        isEnglish
            ? "Enter an https address on a public server, with no user name or password in it"
            : "Skriv en https-adresse på en offentlig server, uten brukernavn eller passord"
    }
    public var endpointEventsError: String { isEnglish ? "Choose at least one event" : "Velg minst én hendelse" }

    /// The confirmation after adding an address: `Added an address for Member system`.
    public func endpointAdded(for name: String) -> String { isEnglish ? "Added an address for \(name)" : "La til en adresse for \(name)" }
    public var endpointRemoved: String {
        isEnglish ? "Address removed: nothing more is sent to it." : "Adressen er fjernet: ingenting mer sendes dit."
    }
    public func secretInstructions(for name: String) -> String {
        isEnglish
            ? "Copy this secret into \(name) now. It is shown this once. \(name) checks each request's signature with it."
            : "Kopier denne hemmeligheten inn i \(name) nå. Den vises bare denne gangen. \(name) sjekker signaturen på hver forespørsel med den."
    }
    public var secretLabel: String { isEnglish ? "Signing secret" : "Signeringshemmelighet" }
}

extension Strings {
    /// The title of an admin's notice that an endpoint was turned off: `Webhook turned off for Member system`.
    public func webhookTurnedOffTitle(integration: String) -> String {
        isEnglish ? "Webhook turned off for \(integration)" : "Webhook slått av for \(integration)"
    }

    /// What the notice says: which host (not the whole address, whose path or query may hold a secret), why, and what
    /// to do.
    public func webhookTurnedOffBody(host: String) -> String {
        isEnglish
            ? "Every delivery to \(host) failed for a day, so Varsel has stopped sending to it. Mend the endpoint, then add it again."
            : "Alle leveranser til \(host) feilet i et døgn, så Varsel har sluttet å sende dit. Rett opp mottakeren, og legg den til igjen."
    }

    /// Why the admin gets the notice by email.
    public var webhookTurnedOffWhy: String {
        isEnglish
            ? "You get this email because you added this webhook in Varsel, or are its admin."
            : "Du får denne e-posten fordi du la til denne webhooken i Varsel, eller er administrator for den."
    }
}
