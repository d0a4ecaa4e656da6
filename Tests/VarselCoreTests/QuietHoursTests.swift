import Foundation
import Testing

@testable import VarselCore

/// Quiet hours in the person's own time zone: across midnight, at their edges, and on the nights the clocks change.
@Suite("Quiet hours")
struct QuietHoursTests {
    /// An instant written in UTC, as `2026-10-25T01:15:00Z`.
    func utc(_ text: String) throws -> Date {
        try #require(ISO8601DateFormatter().date(from: text))
    }

    @Test("22:00–07:00 holds from 22:00 to just before 07:00, until 07:00 the same morning or the next")
    func acrossMidnight() throws {
        // Oslo is UTC+1 in January.
        let night = QuietHours(start: 22 * 60, end: 7 * 60)
        #expect(!night.contains(try utc("2026-01-10T20:59:59Z")))
        #expect(night.contains(try utc("2026-01-10T21:00:00Z")))
        #expect(night.end(after: try utc("2026-01-10T22:30:00Z")) == (try utc("2026-01-11T06:00:00Z")))
        #expect(night.end(after: try utc("2026-01-11T02:00:00Z")) == (try utc("2026-01-11T06:00:00Z")))
        #expect(night.contains(try utc("2026-01-11T05:59:59Z")))
        #expect(!night.contains(try utc("2026-01-11T06:00:00Z")))
        // Outside the window, nothing is held.
        #expect(night.end(after: try utc("2026-01-11T12:00:00Z")) == (try utc("2026-01-11T12:00:00Z")))
    }

    @Test("the window is in the person's own time zone")
    func ownTimeZone() throws {
        let london = QuietHours(start: 22 * 60, end: 7 * 60, timeZoneIdentifier: "Europe/London")
        #expect(london.contains(try utc("2026-01-10T22:30:00Z")))
        #expect(!london.contains(try utc("2026-01-10T21:30:00Z")))
        #expect(london.end(after: try utc("2026-01-10T22:30:00Z")) == (try utc("2026-01-11T07:00:00Z")))
    }

    @Test("on the night the clocks go back, an end in the repeated hour is the next one, not tomorrow's")
    func clocksGoBack() throws {
        // 25 October 2026 in Oslo: 03:00 summer time (01:00 UTC) becomes 02:00 winter time, so 02:00–02:59 comes twice.
        let hours = QuietHours(start: 60, end: 2 * 60 + 30)
        // 02:15 the first time (summer time) ends at the first 02:30.
        #expect(hours.end(after: try utc("2026-10-25T00:15:00Z")) == (try utc("2026-10-25T00:30:00Z")))
        // 02:15 the second time (winter time) ends at the second 02:30, a quarter of an hour later.
        #expect(hours.end(after: try utc("2026-10-25T01:15:00Z")) == (try utc("2026-10-25T01:30:00Z")))
        // A window ending at 07:00 ends at 07:00 winter time.
        let night = QuietHours(start: 22 * 60, end: 7 * 60)
        #expect(night.end(after: try utc("2026-10-24T22:00:00Z")) == (try utc("2026-10-25T06:00:00Z")))
    }

    @Test("on the night the clocks go forward, an end that does not exist that night is the first minute after the gap")
    func clocksGoForward() throws {
        // 29 March 2026 in Oslo: 02:00 winter time (01:00 UTC) becomes 03:00 summer time; 02:30 does not exist.
        let hours = QuietHours(start: 60, end: 2 * 60 + 30)
        #expect(hours.end(after: try utc("2026-03-29T00:45:00Z")) == (try utc("2026-03-29T01:00:00Z")))
        let night = QuietHours(start: 22 * 60, end: 7 * 60)
        #expect(night.end(after: try utc("2026-03-28T22:00:00Z")) == (try utc("2026-03-29T05:00:00Z")))
    }

    @Test(
        "a time typed into the form, with or without a colon or a point, reads as HH:MM; anything else does not",
        arguments: [
            ("22:00", "22:00"), ("22.00", "22:00"), ("2200", "22:00"), ("22", "22:00"), ("7", "07:00"), ("700", "07:00"), ("7:30", "07:30"),
            (" 0730 ", "07:30"), ("0", "00:00"), ("23.59", "23:59"),
        ])
    func typedClock(typed: String, clock: String) {
        #expect(QuietHours.clock(typed: typed) == clock)
    }

    @Test(
        "what is not a time typed is not read as one",
        arguments: ["", "24", "2400", "7:3", "7:300", "12345", "ab", "-1", "+700", "7.5", ":30", "٢٢٠٠"])
    func notTypedClock(typed: String) {
        #expect(QuietHours.clock(typed: typed) == nil)
    }
}
