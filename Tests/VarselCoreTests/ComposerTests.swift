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

    @Test("the web mapping gives the tab its role, posinset and setsize, and the count as description")
    func webTab() {
        let web = WebAccessibility(describer.tab(.notifications, unreadCount: 3, selected: nil), language: .english)
        #expect(web.role == "tab")
        #expect(web.name == "Notifications")
        #expect(web.description == "3 unread")
        #expect(web[attribute: "aria-posinset"] == "5")
        #expect(web[attribute: "aria-setsize"] == "5")
        #expect(web[attribute: "aria-selected"] == "false")
    }

    @Test("the web mapping gives a settings switch role switch, aria-checked and the hint as description")
    func webSwitch() {
        var preferences = NotificationPreferences.standard
        preferences.isSpeakingPersonalDetails = false
        let web = WebAccessibility(describer.settingSwitch(.speakPersonalDetails, preferences: preferences), language: .english)
        #expect(web.role == "switch")
        #expect(web.name == "Speak personal details in announcements")
        #expect(web[attribute: "aria-checked"] == "false")
        #expect(web.description == "Names and addresses of the people you visit are read aloud when a notification arrives. Press Space to toggle")
    }

    @Test("004: a check box is named by its visible label; button on iOS, checkbox on Android and the web")
    func checkBoxPerSeed004() {
        let item = DemoData.notifications(.english)[1]
        let checked = describer.selectionCheckbox(for: item, isChecked: true)
        let unchecked = describer.selectionCheckbox(for: item, isChecked: false)
        let disabled = describer.selectionCheckbox(for: item, isChecked: false, isDisabled: true)
        let voiceOver = SpeechComposer(reader: .voiceOver, language: .english)
        let talkBack = SpeechComposer(reader: .talkBack, language: .english)
        // 004: "Name describes the purpose of the control and matches the visible label"
        #expect(checked.label == "Select Certification expires in 7 days")
        // 004: "Identifies itself as a Check box in Android and a Button in iOS"; states "checked, not checked, disabled/dimmed"
        #expect(voiceOver.speak(checked).text == "Select Certification expires in 7 days, checked, button")
        #expect(voiceOver.speak(unchecked).text == "Select Certification expires in 7 days, not checked, button")
        #expect(voiceOver.speak(disabled).text == "Select Certification expires in 7 days, not checked, dimmed, button")
        #expect(talkBack.speak(checked).text == "checked, Select Certification expires in 7 days, checkbox")
        #expect(talkBack.speak(disabled).text == "not checked, disabled, Select Certification expires in 7 days, checkbox")
        #expect(voiceOver.speak(disabled).hint == nil)
        let web = WebAccessibility(checked, language: .english)
        #expect(web.role == "checkbox")
        #expect(web[attribute: "aria-checked"] == "true")
        #expect(WebAccessibility(disabled, language: .english)[attribute: "aria-disabled"] == "true")
    }

    @Test("001: a dialog is named by its visible title and is a dialog or an alert, modal")
    func dialogPerSeed001() {
        let strings = Strings(.english)
        let dialog = describer.dialog(id: "acknowledge-dialog", title: strings.acknowledgeDialogTitle, isAlert: false)
        let alert = describer.dialog(id: "urgent", title: "Certification expires tomorrow", isAlert: true)
        #expect(SpeechComposer(reader: .voiceOver, language: .english).speak(dialog).text == "Acknowledge this assignment?, dialog")
        #expect(SpeechComposer(reader: .voiceOver, language: .english).speak(alert).text == "Certification expires tomorrow, alert")
        #expect(SpeechComposer(reader: .web, language: .english).speak(alert).text == "Certification expires tomorrow, alert dialog, modal")
        let web = WebAccessibility(dialog, language: .english)
        #expect(web.role == "dialog")
        #expect(web.name == strings.acknowledgeDialogTitle)
        #expect(web[attribute: "aria-modal"] == "true")
        #expect(WebAccessibility(alert, language: .english).role == "alertdialog")
    }

    @Test("the web reader names heading levels")
    func webHeading() {
        let heading = describer.heading(of: .notificationCentre)
        #expect(SpeechComposer(reader: .web, language: .english).speak(heading).text == "Notifications, heading, level 1")
        #expect(SpeechComposer(reader: .web, language: .norwegianBokmal).speak(Describer(language: .norwegianBokmal).heading(of: .notificationCentre)).text
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
        #expect(composer.stateWords(for: describer.selectionCheckbox(for: item, isChecked: true)) == ["avmerket"])
        #expect(composer.stateWords(for: describer.selectionCheckbox(for: item, isChecked: false, isDisabled: true)) == ["ikke avmerket", "nedtonet"])
        #expect(SpeechComposer(reader: .talkBack, language: .english).stateWords(for: Describer(language: .english).selectionCheckbox(for: item, isChecked: false, isDisabled: true))
            == ["not checked", "disabled"])
    }
}
