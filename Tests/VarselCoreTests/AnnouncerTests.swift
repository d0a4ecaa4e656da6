import Foundation
import Testing

@testable import VarselCore

@Suite("The announcer, driven by an injected clock")
struct AnnouncerTests {
    let start = DemoData.now

    func item(
        _ id: NotificationID, title: String = "Title", kind: NotificationKind = .scenarioPrompt, urgency: Urgency = .normal, personal: [String] = []
    ) -> NotificationItem {
        NotificationItem(
            id: id, recipientID: 1, kind: kind, title: title, body: "Body", createdAt: start,
            urgency: urgency, deepLink: .scenario(scenarioID: nil), personalDetails: personal)
    }

    func at(_ seconds: TimeInterval) -> Date { start.addingTimeInterval(seconds) }

    @Test("a single arrival is announced once the coalescing window closes, politely")
    func singleArrival() {
        var announcer = Announcer(language: .english)
        announcer.notificationArrived(item(1, title: "Scenario ready"), at: start)
        #expect(announcer.announcements(dueBy: at(0.5)).isEmpty)
        #expect(announcer.nextDeadline == at(1))
        let due = announcer.announcements(dueBy: at(1))
        #expect(due.map(\.text) == ["New notification: Scenario ready"])
        #expect(due.map(\.politeness) == [.polite])
        #expect(announcer.nextDeadline == nil)
    }

    @Test("arrivals within the window coalesce into one sentence")
    func burstCoalesces() {
        var announcer = Announcer(language: .english)
        announcer.notificationArrived(item(1), at: at(0))
        announcer.notificationArrived(item(2), at: at(0.3))
        announcer.notificationArrived(item(3), at: at(0.9))
        announcer.notificationArrived(item(4), at: at(1.5))  // after the window: a burst of its own
        let first = announcer.announcements(dueBy: at(1.2))
        #expect(first.map(\.text) == ["3 new notifications"])
        #expect(first.first?.deliverAt == at(1))
        #expect(announcer.announcements(dueBy: at(3)).map(\.text) == ["New notification: Title"])
    }

    @Test("urgent items are announced at once, assertively, and are not coalesced")
    func urgentIsAssertive() {
        var announcer = Announcer(language: .english)
        announcer.notificationArrived(item(1), at: at(0))
        announcer.notificationArrived(item(2, title: "Certification expires today", urgency: .urgent), at: at(0.2))
        let due = announcer.announcements(dueBy: at(0.2))
        #expect(due.map(\.text) == ["New urgent notification: Certification expires today"])
        #expect(due.map(\.politeness) == [.assertive])
        #expect(announcer.announcements(dueBy: at(1)).map(\.politeness) == [.polite])
    }

    @Test("feedback for the user's own action waits a second (002), and 'nothing to do' is said")
    func actionFeedbackDeferred() {
        var announcer = Announcer(language: .english)
        announcer.actionCompleted(.markedAllRead(count: 3), at: at(0))
        #expect(announcer.announcements(dueBy: at(0.99)).isEmpty)
        #expect(announcer.announcements(dueBy: at(1)).map(\.text) == ["3 notifications marked as read"])
        announcer.actionCompleted(.markedAllRead(count: 0), at: at(2))
        // 002: "Contact list empty – no contacts deleted": the nothing-to-do outcome is announced, not silence.
        #expect(announcer.announcements(dueBy: at(3)).map(\.text) == ["No unread notifications, nothing to mark as read"])
    }

    @Test("the same notification is never announced twice, even when delivered again")
    func noDuplicateArrivals() {
        var announcer = Announcer(language: .english)
        announcer.notificationArrived(item(7), at: at(0))
        announcer.notificationArrived(item(7), at: at(0.1))
        #expect(announcer.announcements(dueBy: at(2)).map(\.text) == ["New notification: Title"])
        announcer.notificationArrived(item(7), at: at(5))
        #expect(announcer.announcements(dueBy: at(10)).isEmpty)
    }

    @Test("a confirmation already waiting is not queued twice")
    func noDuplicateConfirmations() {
        var announcer = Announcer(language: .english)
        announcer.actionCompleted(.markedRead, at: at(0))
        announcer.actionCompleted(.markedRead, at: at(0.2))
        #expect(announcer.announcements(dueBy: at(5)).map(\.text) == ["Marked as read"])
    }

    @Test("a toggled switch is not announced: the screen reader speaks its new state natively")
    func toggleIsSilent() {
        var announcer = Announcer(language: .english)
        announcer.actionCompleted(.toggledFocusedControl, at: at(0))
        #expect(announcer.nextDeadline == nil)
        #expect(announcer.announcements(dueBy: at(10)).isEmpty)
    }

    @Test("the title is spoken on arrival for every kind, whatever the privacy setting; a body with listed details never is")
    func titleSpokenBodyNever() {
        for speaking in [false, true] {
            var preferences = NotificationPreferences.standard
            preferences.isSpeakingPersonalDetails = speaking
            // A summary, whose title only counts, is said after its kind's name (the summary's own tests).
            for kind in NotificationKind.allCases where kind != .summary {
                var announcer = Announcer(language: .english, preferences: preferences)
                var arrival = item(1, title: "Stairs drill", kind: kind, personal: ["Kari Nordmann"])
                arrival.body = "With Kari Nordmann at Storgata 1"
                announcer.notificationArrived(arrival, at: at(0))
                #expect(announcer.announcements(dueBy: at(2)).map(\.text) == ["New notification: Stairs drill"], "\(kind), speaking \(speaking)")
                announcer.notificationArrived(item(2, title: "Renew today", kind: kind, urgency: .urgent, personal: ["Kari Nordmann"]), at: at(3))
                #expect(announcer.announcements(dueBy: at(3)).map(\.text) == ["New urgent notification: Renew today"])
            }
        }
        var norwegian = Announcer(language: .norwegianBokmal)
        norwegian.notificationArrived(item(1, title: "Trappeøvelse"), at: at(0))
        #expect(norwegian.announcements(dueBy: at(2)).map(\.text) == ["Nytt varsel: Trappeøvelse"])
    }

    @Test("a stored title that lists itself as a personal detail (written before titles were public) is replaced unless allowed")
    func privacy() {
        let visit = item(1, title: "Visit Kari Nordmann today", kind: .assignment, personal: ["Kari Nordmann"])
        var guarded = Announcer(language: .english)
        guarded.notificationArrived(visit, at: at(0))
        let text = guarded.announcements(dueBy: at(2)).map(\.text)
        #expect(text == ["New notification: Assignment"])
        #expect(!text.joined().contains("Kari"))

        var preferences = NotificationPreferences.standard
        preferences.isSpeakingPersonalDetails = true
        var open = Announcer(language: .english, preferences: preferences)
        open.notificationArrived(visit, at: at(0))
        #expect(open.announcements(dueBy: at(2)).map(\.text) == ["New notification: Visit Kari Nordmann today"])
    }

    @Test("kinds the mentor turned off are not announced")
    func mutedKind() {
        var preferences = NotificationPreferences.standard
        preferences.enabledKinds.remove(.scenarioPrompt)
        var announcer = Announcer(language: .english, preferences: preferences)
        announcer.notificationArrived(item(1, kind: .scenarioPrompt), at: at(0))
        #expect(announcer.nextDeadline == nil)
    }

    @Test("while a modal is open, announcements go to a region inside it; after it closes, to the page")
    func modalRouting() {
        var announcer = Announcer(language: .english)
        announcer.notificationArrived(item(1), at: at(0))
        announcer.modalOpened(id: "acknowledge-dialog")
        #expect(announcer.announcements(dueBy: at(1)).map(\.region) == [.modal(id: "acknowledge-dialog")])
        announcer.modalClosed(id: "acknowledge-dialog")
        announcer.actionCompleted(.assignmentAcknowledged, at: at(2))
        let after = announcer.announcements(dueBy: at(3))
        #expect(after.map(\.region) == [.main])
        #expect(after.map(\.text) == ["Assignment acknowledged"])
    }

    @Test("announcements are delivered in time order, arrivals and feedback interleaved")
    func timeOrder() {
        var announcer = Announcer(language: .english)
        announcer.actionCompleted(.settingsSaved, at: at(0.5))  // due 1.5
        announcer.notificationArrived(item(1, title: "A"), at: at(0))  // due 1.0
        let due = announcer.announcements(dueBy: at(2))
        #expect(due.map(\.text) == ["New notification: A", "Settings saved"])
        #expect(due.map(\.deliverAt) == [at(1), at(1.5)])
    }

    @Test("every announcement is one short sentence")
    func oneSentence() {
        for language in Language.allCases {
            let strings = Strings(language)
            let all = [
                strings.newNotification(title: "New assignment"), strings.newNotifications(count: 12),
                strings.markedAllRead(count: 0), strings.markedAllRead(count: 4), strings.deleted(count: 0),
                strings.assignmentAcknowledged, strings.settingsSaved,
            ]
            for text in all {
                #expect(!text.dropLast().contains(". "), "\(text) is more than one sentence")
                #expect(text.split(separator: " ").count <= 10, "\(text) is long")
            }
        }
    }
}

@Suite("Focus plans and the modal stack")
struct FocusTests {
    @Test(
        "every deep link focuses its screen's heading",
        arguments: [
            (DeepLinkTarget.contact(contactID: 1, assignmentID: 2), "contact-name-heading"),
            (.certification(certificationID: nil), "certification-heading"),
            (.pause, "pause-heading"),
            (.scenario(scenarioID: 4), "scenario-heading"),
        ])
    func deepLinkHeadings(target: DeepLinkTarget, heading: String) {
        #expect(FocusPlan(following: target).focusElementID == heading)
    }

    @Test("001: Escape closes the dialog and returns focus to the button that launched it")
    func escapeReturnsFocus() {
        var stack = ModalStack()
        let initial = stack.open(OpenModal(id: "ack", isAlert: false, launcherID: "acknowledge-button", initialFocusID: "ack-confirm"))
        #expect(initial == "ack-confirm")
        #expect(stack.escape(fallbackFocusID: "main-heading") == "acknowledge-button")
        #expect(stack.topmost == nil)
    }

    @Test("Escape acts on the topmost modal only, and focus stays inside the one beneath")
    func escapeTopmostOnly() {
        var stack = ModalStack()
        _ = stack.open(OpenModal(id: "outer", isAlert: false, launcherID: "open-outer", initialFocusID: "outer-first"))
        _ = stack.open(OpenModal(id: "inner", isAlert: false, launcherID: "open-inner", initialFocusID: "inner-first"))
        #expect(stack.escape(fallbackFocusID: "h1") == "open-inner")
        #expect(stack.topmost?.id == "outer")
        #expect(stack.close(id: "nope", fallbackFocusID: "h1") == nil)
    }

    @Test("an alert dialog is not dismissed by Escape")
    func alertIgnoresEscape() {
        var stack = ModalStack()
        _ = stack.open(OpenModal(id: "alert", isAlert: true, launcherID: "b", initialFocusID: "ok"))
        #expect(stack.escape(fallbackFocusID: "h1") == nil)
        #expect(stack.topmost?.id == "alert")
        #expect(stack.close(id: "alert", fallbackFocusID: "h1") == "b")
    }

    @Test("when the launcher is gone, focus goes to the stated fallback")
    func fallbackWhenLauncherGone() {
        var stack = ModalStack()
        _ = stack.open(OpenModal(id: "d", isAlert: false, launcherID: "gone", initialFocusID: "x"))
        #expect(
            stack.close(id: "d", fallbackFocusID: "notificationCentre-heading", launcherExists: { _ in false })
                == "notificationCentre-heading")
    }
}

@Suite("Cue plans: visible, audible and felt (seed 000)")
struct CuePlanTests {
    let item = DemoData.notifications(.english)[0]

    @Test("000: every notification is visible and audible by default, and felt")
    func defaults() {
        let plan = CuePlan(for: item, preferences: .standard, isAppInForeground: true)
        #expect(plan.isVisible)
        #expect(plan.earcon == .standard)
        #expect(plan.haptic == .standard)
        #expect(plan.isAnnounced)
        #expect(!plan.showsSystemNotification)
    }

    @Test("with sounds off the screen reader still announces it")
    func soundOffStillAnnounced() {
        var preferences = NotificationPreferences.standard
        preferences.isSoundEnabled = false
        preferences.isVibrationEnabled = false
        let plan = CuePlan(for: item, preferences: preferences, isAppInForeground: true)
        #expect(plan.earcon == nil)
        #expect(plan.haptic == nil)
        #expect(plan.isAnnounced)
        #expect(plan.isVisible)
    }

    @Test("urgent items get a distinct earcon and vibration; background shows a system notification")
    func urgentAndBackground() {
        var urgent = item
        urgent.urgency = .urgent
        let plan = CuePlan(for: urgent, preferences: .standard, isAppInForeground: false)
        #expect(plan.earcon == .urgent)
        #expect(plan.haptic?.pattern.count == 5)
        #expect(plan.showsSystemNotification)
        #expect(!plan.isAnnounced)
    }

    @Test("a muted kind stays visible but makes no sound")
    func mutedKindVisible() {
        var preferences = NotificationPreferences.standard
        preferences[.kind(.assignment)] = false
        let plan = CuePlan(for: item, preferences: preferences, isAppInForeground: true)
        #expect(plan.isVisible)
        #expect(plan.earcon == nil)
        #expect(!plan.isAnnounced)
    }
}
