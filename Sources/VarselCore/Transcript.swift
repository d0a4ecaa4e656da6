import Foundation

/// What a screen reader says, element by element, on the demo notification centre, followed by a timed
/// simulation of arrivals and actions: the text `varsel transcript` prints.
///
/// Everything comes from ``DemoData`` and a fixed clock, so the output is the same on every run.
public struct Transcript: Sendable {
    public let language: Language
    public let reader: ScreenReader

    public init(language: Language, reader: ScreenReader) {
        self.language = language
        self.reader = reader
    }

    /// The whole transcript, one line per element or announcement.
    public func render() -> String {
        let describer = Describer(language: language)
        let composer = SpeechComposer(reader: reader, language: language)
        let now = DemoData.now
        var items = DemoData.notifications(language, now: now)
        let preferences = NotificationPreferences.standard
        var lines: [String] = []
        func say(_ element: AccessibilityElement) { lines.append("  " + composer.speak(element).textWithHint) }
        func unread() -> Int { items.filter(\.isUnread).count }

        lines.append("# Varsel transcript: \(reader.rawValue), \(language.tag)")
        lines.append("# Demo clock: 2026-11-17 10:00 Europe/Oslo. \(Strings(language).unreadSummary(unread())).")
        lines.append("")
        lines.append("Bottom navigation, on the Home screen:")
        describer.tabBar(unreadCount: unread(), selected: .home).forEach(say)
        lines.append("")
        lines.append("Notification centre, filter All:")
        say(describer.heading(of: .notificationCentre))
        say(describer.filterBar(.all))
        for item in items { say(describer.listItem(item, now: now)) }
        lines.append("")
        lines.append("Filter bar, Assignments selected:")
        let assignments = NotificationFilter.kind(.assignment)
        say(describer.filterBar(assignments))
        describer.filterOptions(assignments).forEach(say)
        for item in items where assignments.includes(item) { say(describer.listItem(item, now: now)) }
        lines.append("")
        lines.append("Notification settings:")
        say(describer.heading(of: .notificationSettings))
        describer.settingSwitches(preferences).forEach(say)
        lines.append("")
        lines.append("Following the first assignment:")
        let plan = FocusPlan(following: items[0].deepLink)
        lines.append("  focus moves to #\(plan.focusElementID)")
        lines.append("")

        // The simulation: the centre is open; the announcer is driven by a fixed clock.
        lines.append("Announcements while the centre is open (offset, politeness, region, text):")
        var announcer = Announcer(language: language, preferences: preferences)
        var events: [(TimeInterval, (inout Announcer, Date) -> Void)] = []
        let arrivals = Self.simulatedArrivals(language, firstID: NotificationID(Int64(items.count + 1)), start: now)
        events.append((0, { announcer, at in announcer.notificationArrived(arrivals[0], at: at) }))
        for (offset, item) in zip([5.0, 5.3, 5.6], arrivals.dropFirst()) {
            events.append((offset, { announcer, at in announcer.notificationArrived(item, at: at) }))
        }
        items.insert(contentsOf: arrivals.reversed(), at: 0)
        events.append(
            (
                10,
                { announcer, at in
                    let count = unread()
                    for index in items.indices where items[index].isUnread { items[index].readAt = at }
                    announcer.actionCompleted(.markedAllRead(count: count), at: at)
                }
            ))
        events.append(
            (
                14,
                { announcer, at in
                    announcer.actionCompleted(.markedAllRead(count: unread()), at: at)
                }
            ))
        // A coordinator's message, then an urgent one: each said with its own title.
        let messages = Self.simulatedMessages(language, firstID: NotificationID(Int64(items.count + 1)), start: now)
        for (offset, item) in zip([20.0, 25.0], messages) {
            events.append((offset, { announcer, at in announcer.notificationArrived(item, at: at) }))
        }
        var delivered: [Announcement] = []
        for (offset, event) in events {
            let at = now.addingTimeInterval(offset)
            delivered += announcer.announcements(dueBy: at)
            event(&announcer, at)
        }
        while let deadline = announcer.nextDeadline {
            delivered += announcer.announcements(dueBy: deadline)
        }
        for announcement in delivered {
            let offset = announcement.deliverAt.timeIntervalSince(now)
            let region =
                switch announcement.region {
                case .main: "main"
                case let .modal(id): "modal \(id)"
                }
            lines.append("  +\(String(format: "%.1f", offset)) s  \(announcement.politeness.rawValue)  \(region)  \(announcement.text)")
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// A coordinator's message and an urgent warning that arrive after the burst, each announced with its title.
    static func simulatedMessages(_ language: Language, firstID: NotificationID, start: Date) -> [NotificationItem] {
        let en = language == .english
        return [
            NotificationItem(
                id: firstID, recipientID: 1, kind: .scenarioPrompt, title: en ? "Stairs drill" : "Trappeøvelse",
                body: en ? "Practise guiding on stairs with a partner." : "Øv på ledsaging i trapper sammen med en partner.",
                createdAt: start.addingTimeInterval(20), deepLink: .scenario(scenarioID: nil)),
            NotificationItem(
                id: NotificationID(firstID.rawValue + 1), recipientID: 1, kind: .certificationExpiry,
                title: en ? "Guide certificate expires today" : "Ledsagerbeviset går ut i dag",
                body: en ? "Renew it today." : "Forny det i dag.", createdAt: start.addingTimeInterval(25), urgency: .urgent,
                deepLink: .certification(certificationID: nil)),
        ]
    }

    /// The notifications that arrive during the simulation: one, then a burst of three.
    static func simulatedArrivals(_ language: Language, firstID: NotificationID, start: Date) -> [NotificationItem] {
        let en = language == .english
        let specs: [(NotificationKind, String, String, [String], TimeInterval)] = [
            (
                .assignment, en ? "New assignment" : "Nytt oppdrag",
                en ? "Visit Per Olsen at Torggata 3 on Thursday" : "Besøk Per Olsen i Torggata 3 på torsdag", ["Per Olsen", "Torggata 3"], 0
            ),
            (
                .scenarioPrompt, en ? "Scenario: the first phone call" : "Scenario: den første telefonsamtalen",
                en ? "Plan what you say when you first call." : "Planlegg hva du sier når du ringer første gang.", [], 5
            ),
            (
                .certificationExpiry, en ? "Certification expires tomorrow" : "Sertifiseringen utløper i morgen",
                en ? "Renew today to keep receiving assignments." : "Forny i dag for å fortsatt få oppdrag.", [], 5.3
            ),
            (
                .scenarioPrompt, en ? "Scenario: guiding on stairs" : "Scenario: ledsaging i trapper",
                en ? "Describe the stairs before you reach them." : "Beskriv trappen før dere kommer til den.", [], 5.6
            ),
        ]
        return specs.enumerated().map { index, spec in
            NotificationItem(
                id: NotificationID(firstID.rawValue + Int64(index)), recipientID: 1, kind: spec.0, title: spec.1, body: spec.2,
                createdAt: start.addingTimeInterval(spec.4), urgency: .normal,
                deepLink: spec.0 == .assignment ? .contact(contactID: 3, assignmentID: nil) : .scenario(scenarioID: nil),
                personalDetails: spec.3
            )
        }
    }
}
