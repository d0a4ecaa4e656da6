import Foundation
import Testing
import VarselCore
import VarselStore

@testable import VarselPush

/// The push message's JSON as browsers take it: a silent notification never carries a vibration pattern.
@Suite("Push message")
struct PushMessageTests {
    let subscription = PushSubscription(
        id: 5, userID: 1, sessionTokenHash: "hash", endpoint: "https://push.example/5",
        p256dh: Data(repeating: 4, count: 65), auth: Data(repeating: 1, count: 16),
        actionSecret: Data(repeating: 7, count: 32), createdAt: DemoData.now)
    let origin = URL(string: "https://varsel.example.org")!

    func item(urgency: Urgency) -> NotificationItem {
        NotificationItem(
            id: 41, recipientID: 1, kind: .assignment, title: "New assignment", body: "Visit Kari Nordmann",
            createdAt: DemoData.now, urgency: urgency, deepLink: .contact(contactID: 7, assignmentID: 3),
            personalDetails: ["Kari Nordmann"])
    }

    /// The `notification` member of the message for `shown`, as the JSON a device decrypts.
    func notificationJSON(_ shown: LockScreenNotification) throws -> [String: Any] {
        let message = PushMessage(shown, notificationID: 41, subscription: subscription, origin: origin, unreadCount: 1)
        let object = try JSONSerialization.jsonObject(with: JSONEncoder().encode(message)) as? [String: Any]
        return try #require(object?["notification"] as? [String: Any])
    }

    @Test(
        "with sound and vibration in any combination, `vibrate` is absent when silent and holds the core's pattern otherwise",
        arguments: [(true, true), (true, false), (false, true), (false, false)])
    func silentHasNoVibration(sound: Bool, vibration: Bool) throws {
        var preferences = NotificationPreferences.standard
        preferences.isSoundEnabled = sound
        preferences.isVibrationEnabled = vibration
        for urgency in [Urgency.normal, .urgent] {
            let shown = try #require(Describer(language: .english).lockScreenNotification(for: item(urgency: urgency), preferences: preferences))
            let json = try notificationJSON(shown)
            let silent = try #require(json["silent"] as? Bool)
            #expect(silent == (!sound && !vibration))
            // Browsers refuse `silent` with `vibrate`, even an empty list: the member is left out instead.
            #expect((json["vibrate"] as? [Int]) == (vibration ? shown.vibration : nil))
            #expect(!(silent && json["vibrate"] != nil))
        }
    }

    @Test("a withdrawal is silent and has no `vibrate` member")
    func withdrawalHasNoVibration() throws {
        let json = try notificationJSON(Describer(language: .english).withdrawnLockScreenNotification(notificationID: 41))
        #expect(json["silent"] as? Bool == true)
        #expect(json["vibrate"] == nil)
    }
}
