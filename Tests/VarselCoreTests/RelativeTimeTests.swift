import Foundation
import Testing

@testable import VarselCore

@Suite("Relative time against an injected clock")
struct RelativeTimeTests {
    let now = DemoData.now  // Tuesday 17 November 2026, 10:00 in Oslo

    struct Case: Sendable, CustomTestStringConvertible {
        let language: Language
        let secondsAgo: TimeInterval
        let expected: String
        var testDescription: String { "\(language.tag) \(Int(secondsAgo)) s: \(expected)" }
        init(_ language: Language, _ secondsAgo: TimeInterval, _ expected: String) {
            self.language = language
            self.secondsAgo = secondsAgo
            self.expected = expected
        }
    }

    static let cases: [Case] = [
        Case(.english, 0.0, "just now"),
        Case(.english, 59, "just now"),
        Case(.english, 60, "1 minute ago"),
        Case(.english, 5 * 60, "5 minutes ago"),
        Case(.english, 59 * 60, "59 minutes ago"),
        Case(.english, 3600, "1 hour ago"),
        Case(.english, 2 * 3600, "2 hours ago"),
        Case(.english, 26 * 3600, "yesterday"),
        Case(.english, 3 * 86400, "3 days ago"),
        Case(.english, 9 * 86400, "November 8"),
        Case(.english, 400 * 86400, "October 13, 2025"),
        Case(.norwegianBokmal, 30, "akkurat nå"),
        Case(.norwegianBokmal, 5 * 60, "for 5 minutter siden"),
        Case(.norwegianBokmal, 60, "for 1 minutt siden"),
        Case(.norwegianBokmal, 2 * 3600, "for 2 timer siden"),
        Case(.norwegianBokmal, 26 * 3600, "i går"),
        Case(.norwegianBokmal, 9 * 86400, "8. november"),
    ]

    @Test("edges in English and Norwegian", arguments: cases)
    func phrases(_ example: Case) {
        let formatter = RelativeTime(language: example.language)
        #expect(formatter.phrase(for: now.addingTimeInterval(-example.secondsAgo), now: now) == example.expected)
    }

    @Test("a date slightly in the future (clock skew) reads as just now")
    func futureIsJustNow() {
        #expect(RelativeTime(language: .english).phrase(for: now.addingTimeInterval(30), now: now) == "just now")
    }
}
