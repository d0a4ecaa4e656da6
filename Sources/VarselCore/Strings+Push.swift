import Foundation

/// The words of push notifications, the device switch and the offline page.
extension Strings {
    // MARK: Lock screen

    /// A push notification's title: `Assignment: New assignment`; urgent: `Assignment (urgent): New assignment`.
    public func lockScreenTitle(kind: NotificationKind, title: String, isUrgent: Bool) -> String {
        let kind = kindName(kind)
        guard isUrgent else { return "\(kind): \(title)" }
        return "\(kind) (\(urgentState)): \(title)"
    }

    /// Stands in for a title that names someone, when details are not shown on the lock screen.
    public var lockScreenHiddenTitle: String { isEnglish ? "New notification" : "Nytt varsel" }

    /// Stands in for a body with personal details, when details are not shown on the lock screen.
    public var lockScreenHiddenBody: String { isEnglish ? "Open Varsel to read it." : "Åpne Varsel for å lese det." }

    /// The push notification's button that opens its screen.
    public var lockScreenOpen: String { isEnglish ? "Open" : "Åpne" }

    /// The push notification's button that acknowledges an assignment without opening Varsel.
    public var lockScreenAcknowledge: String { isEnglish ? "Acknowledge" : "Bekreft" }

    /// Shown when acknowledging from the lock screen did not go through.
    public var lockScreenAcknowledgeFailed: String {
        isEnglish
            ? "Could not acknowledge the assignment. Open Varsel to try again."
            : "Kunne ikke bekrefte oppdraget. Åpne Varsel og prøv igjen."
    }

    // MARK: The device switch on the settings screen

    /// The settings section for this phone or computer.
    public var thisDeviceLegend: String { isEnglish ? "This device" : "Denne enheten" }

    /// The switch that subscribes this device to push notifications.
    public var deviceNotificationsLabel: String { isEnglish ? "Notifications on this device" : "Varsler på denne enheten" }

    /// What the device switch does.
    public var deviceNotificationsEffect: String {
        isEnglish
            ? "Tells you about new notifications when Varsel is closed or the phone is locked"
            : "Gir deg beskjed om nye varsler når Varsel er lukket eller telefonen er låst"
    }

    /// Said when the device switch was turned on and the browser allowed notifications.
    public var deviceNotificationsOn: String {
        isEnglish ? "Notifications on this device are on" : "Varsler på denne enheten er slått på"
    }

    /// Said when the device switch was turned off.
    public var deviceNotificationsOff: String {
        isEnglish ? "Notifications on this device are off" : "Varsler på denne enheten er slått av"
    }

    /// Said when the browser refused notifications, with what to do about it.
    public var deviceNotificationsBlocked: String {
        isEnglish
            ? "Notifications are blocked for Varsel in this browser. To allow them, open the browser's site settings for Varsel, allow notifications, and turn this switch on again."
            : "Varsler er blokkert for Varsel i denne nettleseren. For å tillate dem, åpne nettleserens nettstedsinnstillinger for Varsel, tillat varsler og slå på denne bryteren igjen."
    }

    /// Said when this browser cannot receive push notifications, with what to do about it.
    public var deviceNotificationsUnsupported: String {
        isEnglish
            ? "This browser cannot notify you while Varsel is closed. On an iPhone, add Varsel to the Home Screen from the Share menu and open it from there."
            : "Denne nettleseren kan ikke varsle deg når Varsel er lukket. På iPhone legger du Varsel til på Hjem-skjermen fra Del-menyen og åpner den derfra."
    }

    /// Said when subscribing failed for another reason.
    public var deviceNotificationsFailed: String {
        isEnglish
            ? "Could not turn on notifications on this device. Check the connection and try again."
            : "Kunne ikke slå på varsler på denne enheten. Sjekk tilkoblingen og prøv igjen."
    }

    // MARK: Offline

    public var offlineTitle: String { isEnglish ? "You are offline" : "Du er frakoblet" }

    public var offlineBody: String {
        isEnglish
            ? "Varsel needs a connection to show your notifications. Nothing is lost: they will be here when you are back online."
            : "Varsel trenger nettilgang for å vise varslene dine. Ingenting går tapt: de er her når du er på nett igjen."
    }

    public var offlineRetry: String { isEnglish ? "Try again" : "Prøv igjen" }
}
