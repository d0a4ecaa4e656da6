import Foundation
import Testing

@testable import VarselCore

/// The six acceptance criteria of `003_6ff2725032226ce3.txt`, quoted word for word.
@Suite("Seed 003: the six spoken phrases")
struct SeedPhraseTests {
    let now = DemoData.now
    let voiceOver = SpeechComposer(reader: .voiceOver, language: .english)
    let describer = Describer(language: .english)

    func assignment(minutesAgo: Double, readAt: Date? = nil) -> NotificationItem {
        NotificationItem(
            id: 1, recipientID: 1, kind: .assignment, title: "New assignment",
            body: "Visit Kari Nordmann at Storgata 1 on Tuesday",
            createdAt: now.addingTimeInterval(-minutesAgo * 60), readAt: readAt,
            deepLink: .contact(contactID: 7, assignmentID: 3), personalDetails: ["Kari Nordmann", "Storgata 1"]
        )
    }

    @Test("1. a list item is '[type]: [title], [body], [time ago], [read/unread]'")
    func listItemPhrase() {
        // 003: "each item is announced as '[type]: [title], [body], [time ago], [read/unread]'"
        let phrase = voiceOver.speak(describer.listItem(assignment(minutesAgo: 5), now: now))
        #expect(phrase.text == "Assignment: New assignment, Visit Kari Nordmann at Storgata 1 on Tuesday, 5 minutes ago, unread")
        let read = voiceOver.speak(describer.listItem(assignment(minutesAgo: 5, readAt: now), now: now))
        #expect(read.text.hasSuffix(", 5 minutes ago, read"))
    }

    @Test("2. the tab badge with 3 unread is 'Notifications, 3 unread, tab, 5 of 5'")
    func tabBadgePhrase() {
        // 003: "it announces 'Notifications, 3 unread, tab, 5 of 5'"
        let tab = describer.tab(.notifications, unreadCount: 3, selected: .home)
        #expect(voiceOver.speak(tab).text == "Notifications, 3 unread, tab, 5 of 5")
        #expect(SpeechComposer(reader: .web, language: .english).speak(tab).text == "Notifications, 3 unread, tab, 5 of 5")
    }

    @Test("3. the filter bar with Assignments selected is 'Filter: Assignments, active'")
    func filterBarPhrase() {
        // 003: "it announces 'Filter: Assignments, active'"
        let bar = describer.filterBar(.kind(.assignment))
        #expect(voiceOver.speak(bar).text == "Filter: Assignments, active")
        #expect(SpeechComposer(reader: .talkBack, language: .english).speak(bar).text == "Filter: Assignments, active")
        #expect(voiceOver.speak(describer.filterBar(.all)).text == "Filter: All")
    }

    @Test("4. following an assignment places focus on the contact name heading")
    func deepLinkFocus() {
        // 003: "when the screen opens, then focus is placed on the contact name heading"
        let plan = FocusPlan(following: assignment(minutesAgo: 5).deepLink)
        #expect(plan.screen == .contactDetail)
        #expect(plan.focusElementID == "contact-name-heading")
        let heading = describer.heading(of: .contactDetail, title: "Kari Nordmann")
        #expect(heading.id == plan.focusElementID)
        #expect(voiceOver.speak(heading).text == "Kari Nordmann, heading")
    }

    @Test("5. each settings toggle says its label, current state (on/off) and a hint")
    func settingsTogglePhrases() {
        // 003: "each toggle announces its label, current state (on/off), and hint for interaction"
        var preferences = NotificationPreferences.standard
        preferences.isVibrationEnabled = false
        let sound = voiceOver.speak(describer.settingSwitch(.sound, preferences: preferences))
        #expect(sound.text == "Sound, on, switch button")
        #expect(sound.hint == "Plays a sound when a notification arrives. Double tap to toggle setting")
        let vibration = voiceOver.speak(describer.settingSwitch(.vibration, preferences: preferences))
        #expect(vibration.text == "Vibration, off, switch button")
        // A kind's hint says what the switch does for the mentor, not just which kind it is.
        let assignments = voiceOver.speak(describer.settingSwitch(.kind(.assignment), preferences: preferences))
        #expect(assignments.hint == "Lets you know when a new assignment arrives. Double tap to toggle setting")
        for element in describer.settingSwitches(preferences) {
            let phrase = voiceOver.speak(element)
            #expect(phrase.parts.first == element.label)
            #expect(phrase.parts.contains("on") || phrase.parts.contains("off"))
            #expect(phrase.hint?.isEmpty == false)
        }
    }

    @Test("6. a new notification while the centre is open: polite 'New notification: [title]'")
    func newNotificationAnnouncement() {
        // 003: "a polite live region announces 'New notification: [title]'"
        var announcer = Announcer(language: .english)
        announcer.notificationArrived(assignment(minutesAgo: 0), at: now)
        let due = announcer.announcements(dueBy: now.addingTimeInterval(1))
        #expect(
            due == [Announcement(text: "New notification: New assignment", politeness: .polite, region: .main, deliverAt: now.addingTimeInterval(1))])
    }
}
