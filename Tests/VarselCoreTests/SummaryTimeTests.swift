import Foundation
import Testing

@testable import VarselCore

/// The summary's time of day across days and clock changes, and its title in both languages.
@Suite("Summary time")
struct SummaryTimeTests {
    let oslo: Calendar = {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "Europe/Oslo")!
        return calendar
    }()

    func date(_ year: Int, _ month: Int, _ day: Int, _ hour: Int, _ minute: Int) -> Date {
        oslo.date(from: DateComponents(year: year, month: month, day: day, hour: hour, minute: minute))!
    }

    @Test("the next moment is today's before the time and tomorrow's at or after it; the latest is the one before")
    func nextAndLatest() {
        let time = SummaryTime(minute: 16 * 60)
        #expect(time.next(after: date(2026, 11, 30, 15, 59)) == date(2026, 11, 30, 16, 0))
        #expect(time.next(after: date(2026, 11, 30, 16, 0)) == date(2026, 12, 1, 16, 0))
        #expect(time.latest(atOrBefore: date(2026, 11, 30, 16, 0)) == date(2026, 11, 30, 16, 0))
        #expect(time.latest(atOrBefore: date(2026, 11, 30, 15, 59)) == date(2026, 11, 29, 16, 0))
        #expect(time.clock == "16:00")
    }

    @Test("on the nights the clocks change, a time in the gap comes just after it, and a repeated one once")
    func clockChanges() {
        // 29 March 2026: 02:00 becomes 03:00 in Oslo; 25 October 2026: 03:00 becomes 02:00.
        let inGap = SummaryTime(minute: 2 * 60 + 30)
        #expect(inGap.next(after: date(2026, 3, 29, 1, 0)) == date(2026, 3, 29, 3, 0))
        #expect(inGap.latest(atOrBefore: date(2026, 3, 29, 12, 0)) == date(2026, 3, 29, 3, 0))
        let repeated = inGap.next(after: date(2026, 10, 25, 1, 0))
        // The first 02:30 of the night; a round a minute after it (or during the second) finds the next day's.
        #expect(inGap.next(after: repeated).timeIntervalSince(repeated) == 25 * 3600)
        #expect(inGap.next(after: repeated.addingTimeInterval(60)).timeIntervalSince(repeated) == 25 * 3600)
        #expect(inGap.next(after: repeated.addingTimeInterval(3600 + 60)).timeIntervalSince(repeated) == 25 * 3600)
        #expect(inGap.latest(atOrBefore: repeated.addingTimeInterval(3 * 3600)) == repeated)
    }

    @Test("the summary's title counts each gathered kind, in the settings' order, in English and Bokmål")
    func title() {
        let counts: [NotificationKind: Int] = [.scenarioPrompt: 1, .certificationExpiry: 2]
        #expect(Strings(.english).summaryTitle(counts) == "2 certification warnings, 1 scenario prompt")
        #expect(Strings(.norwegianBokmal).summaryTitle(counts) == "2 sertifiseringsvarsler, 1 scenariooppgave")
        #expect(Strings(.english).summaryTitle([.pauseConfirmation: 1]) == "1 pause confirmation")
        #expect(Strings(.norwegianBokmal).summaryTitle([.pauseConfirmation: 3]) == "3 pausebekreftelser")
    }

    @Test("a summary is announced, listed and shown on the lock screen after its kind's name")
    func saidWithItsKind() {
        for (language, title, announced, listed) in [
            (
                Language.english, "2 certification warnings, 1 scenario prompt",
                "New notification: Summary: 2 certification warnings, 1 scenario prompt",
                "Summary: 2 certification warnings, 1 scenario prompt"
            ),
            (
                .norwegianBokmal, "2 sertifiseringsvarsler, 1 scenariooppgave",
                "Nytt varsel: Sammendrag: 2 sertifiseringsvarsler, 1 scenariooppgave",
                "Sammendrag: 2 sertifiseringsvarsler, 1 scenariooppgave"
            ),
        ] {
            let item = NotificationItem(
                id: 1, recipientID: 1, kind: .summary, title: title, body: "", createdAt: DemoData.now, deepLink: .notifications)
            let describer = Describer(language: language)
            #expect(describer.arrivalAnnouncement(for: item, preferences: .standard).text == announced)
            #expect(describer.lockScreenNotification(for: item, preferences: .standard, mayAcknowledge: false)?.title == listed)
            #expect(describer.listItem(item, now: DemoData.now).label.hasPrefix(listed + ","))
        }
    }
}
