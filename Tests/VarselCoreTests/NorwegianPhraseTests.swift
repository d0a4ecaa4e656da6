import Foundation
import Testing

@testable import VarselCore

/// The six phrases of `003_6ff2725032226ce3.txt` in natural Norwegian Bokmål, and plurals in both languages.
@Suite("Norwegian Bokmål phrases and plurals")
struct NorwegianPhraseTests {
    let now = DemoData.now
    let voiceOver = SpeechComposer(reader: .voiceOver, language: .norwegianBokmal)
    let describer = Describer(language: .norwegianBokmal)

    @Test("a list item in Norwegian: 'Oppdrag: Nytt oppdrag, …, for 5 minutter siden, ulest'")
    func listItem() {
        let item = DemoData.notifications(.norwegianBokmal, now: now)[0]
        #expect(
            voiceOver.speak(describer.listItem(item, now: now)).text
                == "Oppdrag: Nytt oppdrag, Besøk Kari Nordmann i Storgata 1 på tirsdag, for 5 minutter siden, ulest")
    }

    @Test("the tab badge in Norwegian: 'Varsler, 3 uleste, fane, 5 av 5'")
    func tabBadge() {
        #expect(voiceOver.speak(describer.tab(.notifications, unreadCount: 3, selected: nil)).text == "Varsler, 3 uleste, fane, 5 av 5")
        #expect(voiceOver.speak(describer.tab(.notifications, unreadCount: 1, selected: nil)).text == "Varsler, 1 ulest, fane, 5 av 5")
    }

    @Test("the filter bar, a switch and an arrival in Norwegian")
    func filterSwitchArrival() {
        #expect(voiceOver.speak(describer.filterBar(.kind(.assignment))).text == "Filter: Oppdrag, aktivt")
        let sound = voiceOver.speak(describer.settingSwitch(.sound, preferences: .standard))
        #expect(sound.text == "Lyd, på, bryterknapp")
        #expect(sound.hint == "Spiller en lyd når et varsel kommer. Dobbelttrykk for å endre innstillingen")
        let assignments = voiceOver.speak(describer.settingSwitch(.kind(.assignment), preferences: .standard))
        #expect(assignments.hint == "Gir deg beskjed når et nytt oppdrag kommer. Dobbelttrykk for å endre innstillingen")
        var announcer = Announcer(language: .norwegianBokmal)
        announcer.notificationArrived(DemoData.notifications(.norwegianBokmal, now: now)[0], at: now)
        #expect(announcer.announcements(dueBy: now.addingTimeInterval(5)).map(\.text) == ["Nytt varsel: Nytt oppdrag"])
    }

    @Test(
        "unread counts: zero hides the badge, one and many agree in number",
        arguments: [
            (Language.english, 0, nil as String?, "No unread notifications"),
            (.english, 1, "1 unread", "1 unread notification"),
            (.english, 3, "3 unread", "3 unread notifications"),
            (.norwegianBokmal, 0, nil, "Ingen uleste varsler"),
            (.norwegianBokmal, 1, "1 ulest", "1 ulest varsel"),
            (.norwegianBokmal, 3, "3 uleste", "3 uleste varsler"),
        ])
    func unreadPlurals(language: Language, count: Int, badge: String?, summary: String) {
        let strings = Strings(language)
        #expect(strings.unreadBadge(count) == badge)
        #expect(strings.unreadSummary(count) == summary)
    }

    @Test("the tab with nothing unread says no count")
    func zeroUnreadTab() {
        let english = SpeechComposer(reader: .voiceOver, language: .english)
        #expect(
            english.speak(Describer(language: .english).tab(.notifications, unreadCount: 0, selected: nil)).text
                == "Notifications, tab, 5 of 5")
    }

    @Test("large counts use the language's grouping: 1,234 and 1 234 with a no-break space")
    func largeCounts() {
        #expect(Strings(.english).unreadBadge(1234) == "1,234 unread")
        #expect(Strings(.norwegianBokmal).unreadBadge(1234) == "1\u{00A0}234 uleste")
    }

    @Test(
        "outcomes of mark all as read, including nothing to do, in both languages",
        arguments: [
            (Language.english, 0, "No unread notifications, nothing to mark as read"),
            (.english, 1, "1 notification marked as read"),
            (.english, 4, "4 notifications marked as read"),
            (.norwegianBokmal, 0, "Ingen uleste varsler, ingenting å merke som lest"),
            (.norwegianBokmal, 1, "1 varsel merket som lest"),
            (.norwegianBokmal, 4, "4 varsler merket som lest"),
        ])
    func markAllReadOutcomes(language: Language, count: Int, expected: String) {
        #expect(Strings(language).markedAllRead(count: count) == expected)
    }

    @Test("Accept-Language picks nb, no and nn as Bokmål and honours q-values")
    func acceptLanguage() {
        #expect(Language.preferred(fromAcceptLanguage: "nb-NO,nb;q=0.9,en;q=0.8") == .norwegianBokmal)
        #expect(Language.preferred(fromAcceptLanguage: "de, en;q=0.5, nn;q=0.7") == .norwegianBokmal)
        #expect(Language.preferred(fromAcceptLanguage: "fr") == .english)
        #expect(Language.preferred(fromAcceptLanguage: nil) == .english)
        #expect(Language.preferred(fromAcceptLanguage: "en-GB, nb;q=0") == .english)
    }
}
