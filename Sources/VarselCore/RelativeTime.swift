import Foundation

/// Says how long ago something happened, relative to an injected "now": `just now`, `5 minutes ago`,
/// `yesterday`, `2 days ago`, then a date.
///
/// Built on `Date.AnchoredRelativeFormatStyle`, which exists on every platform (Linux has no
/// `RelativeDateTimeFormatter`). The anchored style formats its anchor relative to its input, so the
/// anchor is the past date and the input is now.
public struct RelativeTime: Sendable {
    /// How often a screen showing relative times refreshes them: the finest unit said is a minute.
    public static let refreshSeconds: TimeInterval = 60

    public let language: Language
    public let calendar: Calendar

    /// Creates a formatter for `language`, counting calendar days in `timeZone` (Oslo by default).
    public init(language: Language, timeZone: TimeZone = TimeZone(identifier: "Europe/Oslo") ?? .gmt) {
        self.language = language
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        calendar.locale = language.locale
        self.calendar = calendar
    }

    /// How long before `now` the `date` was, in words.
    public func phrase(for date: Date, now: Date) -> String {
        let elapsed = now.timeIntervalSince(date)
        if elapsed < 60 {
            return language == .english ? "just now" : "akkurat nå"
        }
        if elapsed < 24 * 60 * 60 {
            return anchored(date, fields: elapsed < 60 * 60 ? [.minute] : [.hour]).format(now)
        }
        let days =
            calendar.dateComponents(
                [.day], from: calendar.startOfDay(for: date), to: calendar.startOfDay(for: now)
            ).day ?? 0
        if days < 7 {
            return anchored(date, fields: [.day]).format(now)
        }
        let sameYear = calendar.component(.year, from: date) == calendar.component(.year, from: now)
        var style = Date.FormatStyle(date: .long, time: .omitted, locale: language.locale, calendar: calendar, timeZone: calendar.timeZone)
        if sameYear {
            style = Date.FormatStyle(locale: language.locale, calendar: calendar, timeZone: calendar.timeZone)
                .day().month(.wide)
        }
        return date.formatted(style)
    }

    private func anchored(_ date: Date, fields: Set<Date.AnchoredRelativeFormatStyle.Field>) -> Date.AnchoredRelativeFormatStyle {
        var style = Date.AnchoredRelativeFormatStyle(anchor: date, presentation: .named, unitsStyle: .wide)
        style.locale = language.locale
        style.calendar = calendar
        style.allowedFields = fields
        return style
    }
}
