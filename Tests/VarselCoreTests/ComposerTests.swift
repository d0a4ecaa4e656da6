import Foundation
import Testing

@testable import VarselCore

@Suite("Speech composers and the web mapping")
struct ComposerTests {
    let describer = Describer(language: .english)

    @Test("VoiceOver says 'selected' before the label, as it does for the current tab")
    func voiceOverSelectedTab() {
        let home = describer.tab(.home, unreadCount: 3, selected: .home)
        #expect(SpeechComposer(reader: .voiceOver, language: .english).speak(home).text == "selected, Home, tab, 1 of 5")
    }

    @Test("TalkBack joins state, name and role and drops case-insensitive repeats")
    func talkBackDropsRepeats() {
        let element = AccessibilityElement(id: "x", label: "Button", role: .button)
        #expect(SpeechComposer(reader: .talkBack, language: .english).speak(element).text == "Button")
        let sound = describer.settingSwitch(.sound, preferences: .standard)
        let phrase = SpeechComposer(reader: .talkBack, language: .english).speak(sound)
        #expect(phrase.text == "on, Sound, switch")
        #expect(phrase.hint == "Plays a sound when a notification arrives. Double-tap to toggle")
    }

    @Test("the web mapping names the tab from its content, count included, with role, posinset and setsize")
    func webTab() {
        let web = WebAccessibility(describer.tab(.notifications, unreadCount: 3, selected: nil))
        #expect(web.role == "tab")
        // Orca reads a description after the role, or not at all in browse mode: the count is in the name.
        #expect(web.name == "Notifications, 3 unread")
        #expect(web.description == nil)
        #expect(web[attribute: "aria-posinset"] == "5")
        #expect(web[attribute: "aria-setsize"] == "5")
        #expect(web[attribute: "aria-selected"] == "false")
    }

    @Test("the web mapping gives a settings switch role switch, aria-checked and its effect, no key hint, as description")
    func webSwitch() {
        var preferences = NotificationPreferences.standard
        preferences.isSpeakingPersonalDetails = false
        let web = WebAccessibility(describer.settingSwitch(.speakPersonalDetails, preferences: preferences))
        #expect(web.role == "switch")
        #expect(web.name == "Speak personal details in announcements")
        #expect(web[attribute: "aria-checked"] == "false")
        // "Press Space" is wrong on a touch screen, and the screen reader says how to toggle a switch itself.
        #expect(web.description == "Lets announcements read aloud names and addresses of the people you visit, where a title holds them")
    }

    @Test("the web filter bar is a group named 'Filter: Assignments, active' around pressed/not pressed toggle buttons")
    func webFilterBar() {
        let filter = NotificationFilter.kind(.assignment)
        let web = SpeechComposer(reader: .web, language: .english)
        // 003_6ff2725032226ce3.txt criterion 3: "it announces 'Filter: Assignments, active'"
        #expect(WebAccessibility(describer.filterBar(filter)).name == "Filter: Assignments, active")
        #expect(web.speak(describer.filterBar(filter)).text == "Filter: Assignments, active, group")
        let options = describer.filterOptions(filter)
        #expect(options.map { WebAccessibility($0)[attribute: "aria-pressed"] } == ["false", "false", "true", "false", "false", "false"])
        // A button has no position in ARIA: the page exposes none, so the web reader says none.
        #expect(web.speak(options[2]).text == "Assignments, toggle button, pressed")
        #expect(web.speak(options[0]).text == "All, toggle button, not pressed")
        #expect(WebAccessibility(describer.filterBar(.all)).name == "Filter: All")
    }

    @Test("an urgent item says so in its name, after its read state; the web reader adds no key hint to a list item")
    func urgentListItem() {
        var item = DemoData.notifications(.english)[2]
        item.urgency = .urgent
        let element = describer.listItem(item, now: DemoData.now)
        #expect(WebAccessibility(element).name.hasSuffix(", yesterday, unread, urgent"))
        let phrase = SpeechComposer(reader: .web, language: .english).speak(element)
        #expect(phrase.parts.last == "link")
        #expect(phrase.hint == nil)
        #expect(
            SpeechComposer(reader: .web, language: .norwegianBokmal)
                .speak(Describer(language: .norwegianBokmal).listItem(item, now: DemoData.now)).text.hasSuffix(", ulest, haster, lenke"))
    }

    @Test("004: a check box is named by its visible label; button on iOS, checkbox on Android and the web")
    func checkBoxPerSeed004() {
        let item = DemoData.notifications(.english)[1]
        let now = DemoData.now
        let checked = describer.selectionCheckbox(for: item, now: now, isChecked: true)
        let unchecked = describer.selectionCheckbox(for: item, now: now, isChecked: false)
        let disabled = describer.selectionCheckbox(for: item, now: now, isChecked: false, isDisabled: true)
        let voiceOver = SpeechComposer(reader: .voiceOver, language: .english)
        let talkBack = SpeechComposer(reader: .talkBack, language: .english)
        // 004: "Name describes the purpose of the control and matches the visible label"
        #expect(checked.label == "Select Certification expires in 7 days, 2 hours ago")
        // 004: "Identifies itself as a Check box in Android and a Button in iOS"; states "checked, not checked, disabled/dimmed"
        #expect(voiceOver.speak(checked).text == "Select Certification expires in 7 days, 2 hours ago, checked, button")
        #expect(voiceOver.speak(unchecked).text == "Select Certification expires in 7 days, 2 hours ago, not checked, button")
        #expect(voiceOver.speak(disabled).text == "Select Certification expires in 7 days, 2 hours ago, not checked, dimmed, button")
        #expect(talkBack.speak(checked).text == "checked, Select Certification expires in 7 days, 2 hours ago, checkbox")
        #expect(talkBack.speak(disabled).text == "not checked, disabled, Select Certification expires in 7 days, 2 hours ago, checkbox")
        #expect(voiceOver.speak(disabled).hint == nil)
        let web = WebAccessibility(checked)
        #expect(web.role == "checkbox")
        #expect(web[attribute: "aria-checked"] == "true")
        #expect(WebAccessibility(disabled)[attribute: "aria-disabled"] == "true")
    }

    @Test("001: a dialog is named by its visible title and is a dialog or an alert, modal")
    func dialogPerSeed001() {
        let strings = Strings(.english)
        let dialog = describer.dialog(id: "acknowledge-dialog", title: strings.acknowledgeDialogTitle, isAlert: false)
        let alert = describer.dialog(id: "urgent", title: "Certification expires tomorrow", isAlert: true)
        #expect(SpeechComposer(reader: .voiceOver, language: .english).speak(dialog).text == "Acknowledge this assignment?, dialog")
        #expect(SpeechComposer(reader: .voiceOver, language: .english).speak(alert).text == "Certification expires tomorrow, alert")
        #expect(SpeechComposer(reader: .web, language: .english).speak(alert).text == "Certification expires tomorrow, alert dialog, modal")
        let web = WebAccessibility(dialog)
        #expect(web.role == "dialog")
        #expect(web.name == strings.acknowledgeDialogTitle)
        #expect(web[attribute: "aria-modal"] == "true")
        #expect(WebAccessibility(alert).role == "alertdialog")
    }

    @Test("the web reader names heading levels")
    func webHeading() {
        let heading = describer.heading(of: .notificationCentre)
        #expect(SpeechComposer(reader: .web, language: .english).speak(heading).text == "Notifications, heading, level 1")
        #expect(
            SpeechComposer(reader: .web, language: .norwegianBokmal).speak(Describer(language: .norwegianBokmal).heading(of: .notificationCentre))
                .text
                == "Varsler, overskrift, nivå 1")
    }

    @Test("descriptions are values: equal, hashable and round-trip through JSON")
    func descriptionsAreValues() throws {
        let element = describer.tab(.notifications, unreadCount: 3, selected: .notifications)
        let data = try JSONEncoder().encode(element)
        #expect(try JSONDecoder().decode(AccessibilityElement.self, from: data) == element)
        #expect(Set([element, element]).count == 1)
    }
}

@Suite("State words for platform bridges")
struct StateWordTests {
    @Test("the composer gives a check box's state words in the reader's language (004: checked, not checked, dimmed)")
    func stateWords() {
        let item = DemoData.notifications(.norwegianBokmal)[0]
        let describer = Describer(language: .norwegianBokmal)
        let composer = SpeechComposer(reader: .voiceOver, language: .norwegianBokmal)
        #expect(composer.stateWords(for: describer.selectionCheckbox(for: item, now: DemoData.now, isChecked: true)) == ["avmerket"])
        #expect(
            composer.stateWords(for: describer.selectionCheckbox(for: item, now: DemoData.now, isChecked: false, isDisabled: true)) == [
                "ikke avmerket", "nedtonet",
            ])
        #expect(
            SpeechComposer(reader: .talkBack, language: .english).stateWords(
                for: Describer(language: .english).selectionCheckbox(for: item, now: DemoData.now, isChecked: false, isDisabled: true))
                == ["not checked", "disabled"])
    }
}
