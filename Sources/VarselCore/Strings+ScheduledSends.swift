import Foundation

extension Strings {
    /// Added to the body of a scheduled notification that went long after its time (Varsel was not running then):
    /// `Meant for 30 November 2026 at 09:00; sent late, as Varsel was not running then.`
    public func scheduledFor(_ date: Date, timeZone: TimeZone) -> String {
        let when = dateAndTime(date, timeZone: timeZone)
        return isEnglish
            ? "Meant for \(when); sent late, as Varsel was not running then."
            : "Planlagt til \(when); sendt senere, fordi Varsel ikke kjørte da."
    }
}
