import Foundation
import Testing

@testable import VarselCore

/// The demo's texts agree with the clock they are loaded at.
@Suite struct DemoDataTests {
    /// Thursday 26 November 2026, 10:00 in Oslo.
    let thursday = Date(timeIntervalSince1970: 1_795_683_600)

    @Test func theCertificationWarningAndThePauseAreDatedFromTheClock() throws {
        let english = DemoData.entries(.english, now: thursday)
        let warning = try #require(english.first { $0.kind == .certificationExpiry })
        // Sent two hours ago, seven days before the expiry: 3 December, not a fixed date.
        #expect(warning.title == "Certification expires in 7 days")
        #expect(warning.body == "Your peer mentor certification expires on 3 December. Book a renewal course.")
        let pause = try #require(english.first { $0.kind == .pauseConfirmation })
        #expect(pause.body == "You will not get new assignments until 10 December.")

        let norwegian = DemoData.entries(.norwegianBokmal, now: thursday)
        #expect(
            norwegian.first { $0.kind == .certificationExpiry }?.body
                == "Likepersonsertifiseringen din utløper 3. desember. Meld deg på et fornyelseskurs.")
        #expect(norwegian.first { $0.kind == .pauseConfirmation }?.body == "Du får ikke nye oppdrag før 10. desember.")
    }

    @Test func theTranscriptsFixedDayKeepsItsDates() {
        let entries = DemoData.entries(.english)
        #expect(entries.contains { $0.body == "Your peer mentor certification expires on 24 November. Book a renewal course." })
        #expect(entries.contains { $0.body == "You will not get new assignments until 1 December." })
    }
}
