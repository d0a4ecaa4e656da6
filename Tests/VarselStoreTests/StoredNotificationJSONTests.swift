import Foundation
import Testing
import VarselCore
import VarselStore

/// ``StoredNotificationJSON`` replaces `JSONEncoder` for the notification every `notification.created` event stores;
/// what it writes must read back as the very same notification, and hold what the encoder's text holds.
@Suite("Hand-written JSON for the event log's notifications")
struct StoredNotificationJSONTests {
    /// Text with every character JSON escapes (all the control characters), and what it leaves alone.
    static let texts = [
        "Plain", #"Kari "Kari" Nordmann"#, #"back\slash"#, "line\nbreak\r\ttab",
        String((0..<0x20).map { Character(Unicode.Scalar(UInt8($0))) }), "\u{7F}", "Æ ø å", "👩🏽‍🦯 on her way",
        "a/b </script>", "\u{2028}\u{2029}", "",
    ]
    static let links: [DeepLinkTarget] = [
        .contact(contactID: 4, assignmentID: 9), .contact(contactID: 4, assignmentID: nil),
        .certification(certificationID: 2), .certification(certificationID: nil), .pause,
        .scenario(scenarioID: 5), .scenario(scenarioID: nil), .notifications, .webhooks(integrationID: 12),
    ]
    /// Seconds since 2001: whole, with fractions that need every digit, tiny, huge and negative.
    static let times: [TimeInterval] = [817_474_823, 817_474_823.579_049_1, 0.1, 1e-7, 1.234_567_890_123_456_8e17, -86_400.25, 0]

    static func items() -> [NotificationItem] {
        var items: [NotificationItem] = []
        var id: Int64 = 1
        for kind in NotificationKind.allCases {
            for urgency in Urgency.allCases {
                for (index, text) in texts.enumerated() {
                    let created = Date(timeIntervalSinceReferenceDate: times[index % times.count])
                    items.append(
                        NotificationItem(
                            id: NotificationID(id), recipientID: UserID(id * 7 + 3), kind: kind, title: text,
                            body: texts[(index + 3) % texts.count], createdAt: created,
                            readAt: index.isMultiple(of: 2) ? nil : Date(timeIntervalSinceReferenceDate: times[(index + 1) % times.count]),
                            urgency: urgency, deepLink: links[index % links.count],
                            personalDetails: index.isMultiple(of: 3) ? [text, "Storgata 1"] : []))
                    id += 1
                }
            }
        }
        return items
    }

    @Test("every notification, deep link and list of personal details reads back whole, and holds what JSONEncoder's text holds")
    func readsBack() throws {
        let decoder = JSONDecoder()
        var compared = 0
        for item in Self.items() {
            let written = try #require(StoredNotificationJSON.encode(item))
            #expect(try decoder.decode(NotificationItem.self, from: Data(written.utf8)) == item)
            // Parsed by another reader, it is the same tree as the encoder's (whose keys come in no fixed order).
            let ours = try JSONSerialization.jsonObject(with: Data(written.utf8)) as? NSDictionary
            let theirs = try JSONSerialization.jsonObject(with: JSONEncoder().encode(item)) as? NSDictionary
            #expect(ours != nil && ours == theirs)
            // The notification table's columns: the deep link and the personal details, each alone.
            let link = StoredNotificationJSON.encode(item.deepLink)
            #expect(try decoder.decode(DeepLinkTarget.self, from: Data(link.utf8)) == item.deepLink)
            #expect(
                try JSONSerialization.jsonObject(with: Data(link.utf8)) as? NSDictionary
                    == JSONSerialization.jsonObject(with: JSONEncoder().encode(item.deepLink)) as? NSDictionary)
            let details = StoredNotificationJSON.encode(item.personalDetails)
            #expect(try decoder.decode([String].self, from: Data(details.utf8)) == item.personalDetails)
            compared += 1
        }
        #expect(compared == NotificationKind.allCases.count * Urgency.allCases.count * Self.texts.count)
    }

    @Test("a date that is not a finite number is left to the encoder, which refuses it")
    func nonFiniteDate() {
        let item = NotificationItem(
            id: 1, recipientID: 2, kind: .assignment, title: "t", body: "b",
            createdAt: Date(timeIntervalSinceReferenceDate: .infinity), deepLink: .pause)
        #expect(StoredNotificationJSON.encode(item) == nil)
        #expect(throws: (any Error).self) { try JSONEncoder().encode(item) }
    }
}
