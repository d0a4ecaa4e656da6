import Foundation

/// The time of day a person's summary comes: a clock time in their time zone, once a day.
public struct SummaryTime: Sendable, Codable, Hashable {
    /// Minutes after midnight.
    public var minute: Int
    /// The IANA time zone the clock time is in (`Europe/Oslo`).
    public var timeZoneIdentifier: String

    /// The time a summary comes unless the person chooses another: the end of a working day.
    public static let standard = SummaryTime(minute: 16 * 60)

    public init(minute: Int, timeZoneIdentifier: String = QuietHours.defaultTimeZone) {
        self.minute = minute
        self.timeZoneIdentifier = timeZoneIdentifier
    }

    private var calendar: Calendar {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: timeZoneIdentifier) ?? .gmt
        return calendar
    }

    private var components: DateComponents { DateComponents(hour: minute / 60, minute: minute % 60, second: 0) }

    /// The first summary moment after `date`. On the night the clocks go forward past it, the first minute after
    /// the gap; on the night they go back, the first of the two.
    public func next(after date: Date) -> Date {
        guard
            let found = calendar.nextDate(
                after: date, matching: components, matchingPolicy: .nextTime, repeatedTimePolicy: .first, direction: .forward)
        else { return date.addingTimeInterval(24 * 3600) }
        // Asked between the two, Foundation finds the second of a clock time the night repeats: the day had its one.
        return isSecondOfTwo(found) ? next(after: found) : found
    }

    /// Whether `date` is the second time its clock time came that day (the hour the clocks go back repeats).
    private func isSecondOfTwo(_ date: Date) -> Bool {
        let calendar = calendar
        let hourBefore = date.addingTimeInterval(-3600)
        return calendar.dateComponents([.hour, .minute], from: hourBefore) == calendar.dateComponents([.hour, .minute], from: date)
    }

    /// The last summary moment at or before `date`: what a summary that was due while Varsel was stopped covers.
    public func latest(atOrBefore date: Date) -> Date {
        let earlier = calendar.nextDate(
            after: date.addingTimeInterval(1), matching: components, matchingPolicy: .nextTime, repeatedTimePolicy: .first,
            direction: .backward)
        guard let earlier = earlier.map({ min($0, date) }) else { return date }
        return isSecondOfTwo(earlier) ? earlier.addingTimeInterval(-3600) : earlier
    }

    /// `16:00`.
    public var clock: String { QuietHours.clock(minute) }
}
