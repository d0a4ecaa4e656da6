import Foundation
import Testing

@testable import VarselCore

/// What a push notification shows on a locked phone: no personal details unless the mentor allowed them.
@Suite("Lock-screen notifications")
struct LockScreenTests {
    let now = DemoData.now

    func assignment(urgency: Urgency = .normal, title: String = "New assignment") -> NotificationItem {
        NotificationItem(
            id: 41, recipientID: 1, kind: .assignment, title: title, body: "Visit Kari Nordmann at Storgata 1 on Tuesday",
            createdAt: now, urgency: urgency, deepLink: .contact(contactID: 7, assignmentID: 3),
            personalDetails: ["Kari Nordmann", "Storgata 1"]
        )
    }

    @Test("by default the kind and title show, and the body's personal details never do")
    func defaultHidesPersonalDetails() throws {
        let shown = try #require(Describer(language: .english).lockScreenNotification(for: assignment(), preferences: .standard))
        #expect(shown.title == "Assignment: New assignment")
        #expect(shown.body == "Open Varsel to read it.")
        #expect(!shown.title.contains("Kari") && !shown.body.contains("Kari") && !shown.body.contains("Storgata"))
        #expect(shown.path == "/notifications/41/open")
        #expect(shown.tag == "varsel-notification-41")
        #expect(shown.language == "en")
        #expect(!shown.requiresInteraction)
        #expect(shown.vibration == CuePlan.Haptic.standard.pattern)
    }

    @Test("a title that names someone is replaced, unless details are allowed on the lock screen")
    func titleWithPersonalDetails() throws {
        let item = assignment(title: "Visit Ola Privatnavn today")
        var withName = item
        withName.personalDetails.append("Visit Ola Privatnavn today")
        let hidden = try #require(Describer(language: .english).lockScreenNotification(for: withName, preferences: .standard))
        #expect(hidden.title == "Assignment: New notification")
        var allowed = NotificationPreferences.standard
        allowed.isShowingDetailsOnLockScreen = true
        let shown = try #require(Describer(language: .english).lockScreenNotification(for: withName, preferences: allowed))
        #expect(shown.title == "Assignment: Visit Ola Privatnavn today")
        #expect(shown.body == "Visit Kari Nordmann at Storgata 1 on Tuesday")
    }

    @Test("speaking details aloud does not put them on the lock screen: the two settings are separate")
    func separateFromSpeech() throws {
        var preferences = NotificationPreferences.standard
        preferences.isSpeakingPersonalDetails = true
        let shown = try #require(Describer(language: .english).lockScreenNotification(for: assignment(), preferences: preferences))
        #expect(!shown.body.contains("Kari"))
    }

    @Test("urgent ones stay until acted on, with the core's urgent vibration pattern and 'urgent' in the title")
    func urgent() throws {
        let shown = try #require(Describer(language: .english).lockScreenNotification(for: assignment(urgency: .urgent), preferences: .standard))
        #expect(shown.requiresInteraction)
        #expect(shown.vibration == [200, 100, 200, 100, 200])
        #expect(shown.title == "Assignment (urgent): New assignment")
    }

    @Test("assignments get Open and Acknowledge buttons; other kinds only Open")
    func actions() throws {
        let describer = Describer(language: .english)
        let shown = try #require(describer.lockScreenNotification(for: assignment(), preferences: .standard))
        #expect(shown.actions.map(\.title) == ["Open", "Acknowledge"])
        #expect(shown.acknowledgement?.assignmentID == 3)
        #expect(shown.acknowledgement?.confirmation == "Assignment acknowledged")
        let pause = NotificationItem(
            id: 2, recipientID: 1, kind: .pauseConfirmation, title: "Your pause has started",
            body: "You will not get new assignments until 1 December.", createdAt: now, deepLink: .pause)
        let shownPause = try #require(describer.lockScreenNotification(for: pause, preferences: .standard))
        #expect(shownPause.actions.map(\.id) == ["open"])
        #expect(shownPause.acknowledgement == nil)
        #expect(shownPause.body == "You will not get new assignments until 1 December.")
    }

    @Test("in Norwegian Bokmål")
    func norwegian() throws {
        let shown = try #require(Describer(language: .norwegianBokmal).lockScreenNotification(for: assignment(), preferences: .standard))
        #expect(shown.title == "Oppdrag: New assignment")
        #expect(shown.body == "Åpne Varsel for å lese det.")
        #expect(shown.actions.map(\.title) == ["Åpne", "Bekreft"])
        #expect(shown.language == "nb")
    }

    @Test("no push when the kind is muted or system notifications are off; silent and still when sound and vibration are off")
    func respectsPreferences() throws {
        let describer = Describer(language: .english)
        var muted = NotificationPreferences.standard
        muted.enabledKinds.remove(.assignment)
        #expect(describer.lockScreenNotification(for: assignment(), preferences: muted) == nil)
        var noSystem = NotificationPreferences.standard
        noSystem.isSystemNotificationEnabled = false
        #expect(describer.lockScreenNotification(for: assignment(), preferences: noSystem) == nil)
        var quiet = NotificationPreferences.standard
        quiet.isSoundEnabled = false
        quiet.isVibrationEnabled = false
        let shown = try #require(describer.lockScreenNotification(for: assignment(), preferences: quiet))
        #expect(shown.isSilent && shown.vibration.isEmpty)
    }

    @Test(
        "silent means neither sound nor vibration: a silent one never carries a pattern, and vibration on is never silent",
        arguments: [(true, true), (true, false), (false, true), (false, false)])
    func silentAndVibration(sound: Bool, vibration: Bool) throws {
        var preferences = NotificationPreferences.standard
        preferences.isSoundEnabled = sound
        preferences.isVibrationEnabled = vibration
        let describer = Describer(language: .english)
        for urgency in [Urgency.normal, .urgent] {
            let shown = try #require(describer.lockScreenNotification(for: assignment(urgency: urgency), preferences: preferences))
            // Browsers refuse to show a silent notification with a vibration pattern (the Notifications API's rule).
            #expect(shown.isSilent == (!sound && !vibration), "sound \(sound), vibration \(vibration)")
            #expect(shown.vibration == (vibration ? (urgency == .urgent ? CuePlan.Haptic.urgent : .standard).pattern : []))
        }
        let withdrawn = describer.withdrawnLockScreenNotification(notificationID: 41)
        #expect(withdrawn.isSilent && withdrawn.vibration.isEmpty)
    }

    @Test("preferences stored before the lock-screen setting existed read as off")
    func oldPreferencesDecode() throws {
        let json =
            #"{"enabledKinds":["assignment"],"isSoundEnabled":true,"isVibrationEnabled":false,"isSystemNotificationEnabled":true,"isSpeakingPersonalDetails":false}"#
        let preferences = try JSONDecoder().decode(NotificationPreferences.self, from: Data(json.utf8))
        #expect(!preferences.isShowingDetailsOnLockScreen)
        #expect(!preferences.isVibrationEnabled)
        let roundTrip = try JSONDecoder().decode(NotificationPreferences.self, from: JSONEncoder().encode(preferences))
        #expect(roundTrip == preferences)
    }
}
