import Foundation
import NIOCore
import Testing
import VarselCore

@testable import VarselLive
@testable import VarselWeb

/// ``HotJSON`` replaces `JSONEncoder` on the path of every notification; it must write the very same bytes.
@Suite("Hand-written JSON for the payloads of every notification")
struct HotJSONTests {
    /// Text with everything JSON escapes, and what it must leave alone (slashes, Norwegian letters, emoji).
    static let texts = [
        "Plain", #"Kari "Kari" Nordmann"#, #"back\slash"#, "line\nbreak\r\ttab", "bell\u{07}unit\u{1F}",
        "\u{08}\u{0C}", "Æ ø å", "👩🏽‍🦯 on her way", "a/b </script>", "",
    ]
    static let links: [DeepLinkTarget] = [
        .contact(contactID: 4, assignmentID: 9), .contact(contactID: 4, assignmentID: nil),
        .certification(certificationID: 2), .certification(certificationID: nil), .pause,
        .scenario(scenarioID: 5), .scenario(scenarioID: nil),
    ]

    /// Notifications of every kind, urgency, link and read state, with each text as title and body, at times with
    /// and without a fraction of a second.
    static func items() -> [NotificationItem] {
        var items: [NotificationItem] = []
        var id: NotificationID = 1
        for kind in NotificationKind.allCases {
            for urgency in Urgency.allCases {
                for (index, text) in texts.enumerated() {
                    let created = DemoData.now.addingTimeInterval(-Double(index) * 3_700.999)
                    items.append(
                        NotificationItem(
                            id: id, recipientID: 3, kind: kind, title: text, body: texts[(index + 3) % texts.count],
                            createdAt: created, readAt: index.isMultiple(of: 2) ? nil : created.addingTimeInterval(59.5),
                            urgency: urgency, deepLink: links[index % links.count],
                            personalDetails: index.isMultiple(of: 3) ? [text] : []))
                    id = NotificationID(id.rawValue + 1)
                }
            }
        }
        return items
    }

    @Test("the live stream's notification event is byte for byte what JSONEncoder writes, in both languages")
    func notificationEvent() throws {
        var compared = 0
        for language in Language.allCases {
            let describer = Describer(language: language)
            for preferences in [NotificationPreferences.standard, NotificationPreferences(isSpeakingPersonalDetails: true)] {
                for item in Self.items() {
                    let resource = NotificationResource(item, describer: describer, preferences: preferences, now: DemoData.now)
                    let expected = try JSONCoding.encoder.encode(LiveFrames.CreatedPayload(notification: resource))
                    // Appended after what the buffer already holds, as a stream's next write does.
                    var written = ByteBuffer(string: "data: ")
                    HotJSON.notificationEvent(resource, into: &written)
                    #expect(String(buffer: written) == "data: " + String(decoding: expected, as: UTF8.self))
                    compared += 1
                }
            }
        }
        #expect(compared == 2 * 2 * NotificationKind.allCases.count * Urgency.allCases.count * Self.texts.count)
    }

    /// Preferences that change a cue: sound, vibration and system notifications each off, details on the lock screen.
    static let cuePreferences = [
        NotificationPreferences.standard, NotificationPreferences(isSoundEnabled: false), NotificationPreferences(isVibrationEnabled: false),
        NotificationPreferences(isSystemNotificationEnabled: false), NotificationPreferences(isShowingDetailsOnLockScreen: true),
        NotificationPreferences(isSoundEnabled: false, isVibrationEnabled: false, isSystemNotificationEnabled: false),
    ]

    @Test("a web page's cue for an arrival is byte for byte what JSONEncoder writes, in both languages")
    func cue() throws {
        var compared = 0
        var variants = Set<String>()
        for language in Language.allCases {
            for preferences in Self.cuePreferences {
                let announcer = Announcer(language: language, preferences: preferences)
                for item in Self.items() {
                    let payload = LiveFrames.CuePayload(item, announcer: announcer)
                    let expected = try WireJSON.encoder.encode(payload)
                    var written = ByteBuffer(string: "data: ")
                    HotJSON.cue(payload, into: &written)
                    #expect(String(buffer: written) == "data: " + String(decoding: expected, as: UTF8.self))
                    // Which members were present, to show every optional was both written and left out.
                    variants.insert(
                        [
                            payload.earcon == nil, payload.tones == nil, payload.vibration == nil,
                            payload.systemNotification == nil,
                        ].map { $0 ? "-" : "+" }.joined())
                    compared += 1
                }
            }
        }
        #expect(compared == 2 * Self.cuePreferences.count * Self.items().count)
        #expect(variants.isSuperset(of: ["++++", "--++", "++-+", "+++-", "----"]), "\(variants.sorted())")
    }

    @Test("a web page's announcement is byte for byte what JSONEncoder writes")
    func announcement() throws {
        for text in Self.texts {
            for politeness in [Politeness.polite, .assertive] {
                let resource = AnnouncementResource(text: text, politeness: politeness)
                var written = ByteBuffer()
                HotJSON.announcement(resource, into: &written)
                #expect(String(buffer: written) == String(decoding: try WireJSON.encoder.encode(resource), as: UTF8.self))
            }
        }
    }

    @Test("the answer to a create is byte for byte what JSONEncoder writes")
    func createResponse() throws {
        let items = Self.items().map {
            CreatedNotification(
                id: $0.id, recipientId: $0.recipientID, kind: $0.kind, title: $0.title, urgency: $0.urgency,
                createdAt: $0.createdAt)
        }
        for count in [0, 1, 3, items.count] {
            let slice = Array(items.prefix(count))
            let expected = try JSONCoding.encoder.encode(NotificationsController.CreateResponse(items: slice))
            #expect(String(buffer: HotJSON.createResponse(slice)) == String(decoding: expected, as: UTF8.self))
        }
    }
}
