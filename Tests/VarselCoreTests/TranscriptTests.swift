import Testing

@testable import VarselCore

@Suite("varsel transcript")
struct TranscriptTests {
    @Test("the VoiceOver transcript contains the seed's tab, filter and list phrases and the timed announcements")
    func englishVoiceOver() {
        let text = Transcript(language: .english, reader: .voiceOver).render()
        let lines = text.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
        // 003_6ff2725032226ce3.txt, criteria 1-3
        #expect(lines.contains("Notifications, 3 unread, tab, 5 of 5"))
        #expect(lines.contains("Filter: Assignments, active"))
        #expect(lines.contains("Assignment: New assignment, Visit Kari Nordmann at Storgata 1 on Tuesday, 5 minutes ago, unread. Double tap to open"))
        #expect(lines.contains("focus moves to #contact-name-heading"))
        #expect(lines.contains("+1.0 s  polite  main  New notification: New assignment"))
        #expect(lines.contains("+6.0 s  polite  main  3 new notifications"))
        #expect(lines.contains("+11.0 s  polite  main  7 notifications marked as read"))
        #expect(lines.contains("+15.0 s  polite  main  No unread notifications, nothing to mark as read"))
        #expect(lines.contains("+21.0 s  polite  main  New notification: Stairs drill"))
        #expect(lines.contains("+25.0 s  assertive  main  New urgent notification: Guide certificate expires today"))
    }

    @Test("the transcript is deterministic and exists for every reader and language")
    func deterministic() {
        for language in Language.allCases {
            for reader in ScreenReader.allCases {
                let first = Transcript(language: language, reader: reader).render()
                #expect(first == Transcript(language: language, reader: reader).render())
                #expect(first.split(separator: "\n").count > 30)
            }
        }
        #expect(Transcript(language: .norwegianBokmal, reader: .voiceOver).render().contains("Varsler, 3 uleste, fane, 5 av 5"))
    }

    @Test("the transcript never speaks the simulated visitor's name")
    func transcriptPrivacy() {
        let text = Transcript(language: .english, reader: .voiceOver).render()
        #expect(!text.contains("Per Olsen"))
    }
}
