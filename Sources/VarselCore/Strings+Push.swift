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

    /// Replaces a shown notification its person should no longer see.
    public var lockScreenWithdrawnTitle: String { isEnglish ? "Notification withdrawn" : "Varsel trukket tilbake" }

    /// The body under ``lockScreenWithdrawnTitle``.
    public var lockScreenWithdrawnBody: String {
        isEnglish ? "It was withdrawn. Open Varsel to see what you have." : "Det er trukket tilbake. Åpne Varsel for å se hva du har."
    }

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

// MARK: Devices and their delivery

extension Strings {
    /// The Profile's section that lists the devices that get notifications.
    public var devicesHeading: String { isEnglish ? "Devices that get notifications" : "Enheter som får varsler" }

    /// Says what the device list is, above it.
    public var devicesIntro: String {
        isEnglish
            ? "Each phone or computer where you turned on notifications, and whether it shows them."
            : "Hver telefon eller datamaskin der du har slått på varsler, og om den viser dem."
    }

    /// Stands in for the list when no device gets notifications.
    public var noDevices: String {
        isEnglish
            ? "No device gets notifications. Turn on “Notifications on this device” in Notification settings on your phone."
            : "Ingen enhet får varsler. Slå på «Varsler på denne enheten» i varselinnstillingene på telefonen."
    }

    /// One device and how its delivery stands: `iPhone (Safari), last notification shown today at 2:02 PM`,
    /// `iPhone (Safari), not confirmed since December 3, 2026: open Varsel on this phone to wake it up`.
    public func deviceLine(_ device: PushDeviceStatus, health: PushDeviceStatus.Health, now: Date, timeZone: TimeZone) -> String {
        let state: String =
            switch (health, isEnglish) {
            case (.waiting, true): "no notification sent to it yet"
            case (.waiting, false): "ingen varsler sendt dit ennå"
            case let (.shows(shown), true): "last notification shown \(dayAndTime(shown, now: now, timeZone: timeZone))"
            case let (.shows(shown), false): "siste varsel vist \(dayAndTime(shown, now: now, timeZone: timeZone))"
            case let (.notConfirmed(since), true):
                "not confirmed since \(longDate(since, timeZone: timeZone)): open Varsel on this phone to wake it up"
            case let (.notConfirmed(since), false):
                "ikke bekreftet siden \(longDate(since, timeZone: timeZone)): åpne Varsel på denne telefonen for å vekke den"
            case let (.revoked(at), true):
                "stopped taking notifications on \(longDate(at, timeZone: timeZone)): turn notifications on again on this phone"
            case let (.revoked(at), false):
                "sluttet å ta imot varsler \(longDate(at, timeZone: timeZone)): slå på varsler igjen på denne telefonen"
            }
        return "\(device.name), \(state)"
    }

    /// For a coordinator, on a mentor's page: the mentor turned notifications on on no device.
    public var personNoDevices: String {
        isEnglish ? "Notifications are turned on on none of their devices." : "Varsler er ikke slått på på noen av enhetene deres."
    }

    /// For a coordinator: a mentor none of whose devices can be counted on to show a notification.
    public var noDeviceShowsNotifications: String {
        isEnglish ? "no device shows notifications" : "ingen enhet viser varsler"
    }

    /// `today at 2:02 PM`, `yesterday at 9:15 AM`, `on December 3, 2026 at 2:02 PM` (and in Norwegian `i dag kl. 14:02`).
    public func dayAndTime(_ date: Date, now: Date, timeZone: TimeZone) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let time = date.formatted(
            Date.FormatStyle(
                date: .omitted, time: .shortened, locale: language.locale, calendar: calendar,
                timeZone: timeZone))
        if calendar.isDate(date, inSameDayAs: now) { return isEnglish ? "today at \(time)" : "i dag kl. \(time)" }
        if let yesterday = calendar.date(byAdding: .day, value: -1, to: now), calendar.isDate(date, inSameDayAs: yesterday) {
            return isEnglish ? "yesterday at \(time)" : "i går kl. \(time)"
        }
        return isEnglish ? "on \(longDate(date, timeZone: timeZone)) at \(time)" : "\(longDate(date, timeZone: timeZone)) kl. \(time)"
    }
}
