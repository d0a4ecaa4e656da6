import Foundation

/// A way to reach a person outside Varsel's page and app: a text message or an email, used only once verified.
public enum OutsideChannel: String, Sendable, Codable, Hashable, CaseIterable {
    case textMessage = "sms"
    case email
}

/// Where one person can be reached outside Varsel, and whether they proved it is theirs.
public struct ContactChannelState: Sendable, Hashable {
    public var channel: OutsideChannel
    /// The number in E.164 (`+4791234567`) or the email address.
    public var address: String
    public var verifiedAt: Date?
    /// When the last code sent there stops working; nil when none waits.
    public var codeExpiresAt: Date?

    public init(channel: OutsideChannel, address: String, verifiedAt: Date?, codeExpiresAt: Date?) {
        self.channel = channel
        self.address = address
        self.verifiedAt = verifiedAt
        self.codeExpiresAt = codeExpiresAt
    }

    /// Whether Varsel may use it for notifications.
    public var isVerified: Bool { verifiedAt != nil }
}

/// A daily window, in the person's own time zone, when only urgent notifications reach them outside the open page.
///
/// `22:00–07:00` spans midnight; the end is not part of the window. The page itself is never held.
public struct QuietHours: Sendable, Codable, Hashable {
    /// Minutes after midnight when the window begins.
    public var start: Int
    /// Minutes after midnight when it ends.
    public var end: Int
    /// The IANA time zone the two times are in (`Europe/Oslo`).
    public var timeZoneIdentifier: String

    /// The time zone quiet hours are in unless the person chooses another.
    public static let defaultTimeZone = "Europe/Oslo"
    /// The time zones a person may choose: the Nordic countries', and those mentors travel to most.
    public static let timeZones = [
        "Europe/Oslo", "Europe/Stockholm", "Europe/Copenhagen", "Europe/Helsinki", "Atlantic/Reykjavik", "Europe/London", "Europe/Berlin",
        "Europe/Paris", "Europe/Madrid", "Europe/Rome", "Europe/Athens", "Europe/Lisbon", "Atlantic/Canary", "UTC",
    ]

    public init(start: Int, end: Int, timeZoneIdentifier: String = QuietHours.defaultTimeZone) {
        self.start = start
        self.end = end
        self.timeZoneIdentifier = timeZoneIdentifier
    }

    var calendar: Calendar {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: timeZoneIdentifier) ?? .gmt
        return calendar
    }

    private func minuteOfDay(_ date: Date) -> Int {
        let parts = calendar.dateComponents([.hour, .minute], from: date)
        return (parts.hour ?? 0) * 60 + (parts.minute ?? 0)
    }

    /// Whether `date` falls in the window.
    public func contains(_ date: Date) -> Bool {
        let minute = minuteOfDay(date)
        if start == end { return false }
        return start < end ? (minute >= start && minute < end) : (minute >= start || minute < end)
    }

    /// When the window that holds `date` ends; `date` itself when it is outside the window.
    ///
    /// The first instant after `date` whose clock time is the window's end: today's, the same clock time an hour
    /// later on the night the clocks go back (when it comes twice), or tomorrow's. On the night they go forward, an
    /// end that does not exist that night is the first minute after the gap.
    public func end(after date: Date) -> Date {
        guard contains(date) else { return date }
        let calendar = calendar
        let today = calendar.startOfDay(for: date)
        var candidates: [Date] = []
        for day in [today, calendar.date(byAdding: .day, value: 1, to: today)].compactMap({ $0 }) {
            guard let first = calendar.date(bySettingHour: end / 60, minute: end % 60, second: 0, of: day) else { continue }
            candidates.append(first)
            let repeated = first.addingTimeInterval(3600)
            if minuteOfDay(repeated) == end { candidates.append(repeated) }
        }
        return candidates.filter { $0 > date }.min() ?? date
    }

    /// `22:00` for 1,320 minutes.
    public static func clock(_ minutes: Int) -> String {
        String(format: "%02d:%02d", minutes / 60, minutes % 60)
    }

    /// A clock time as people type it into a form, written `HH:MM`: `22:00`, `22.00`, `2200`, `22`, `7`, `700` or
    /// `7:30`. An iPhone's number pad, which a numeric field opens, has no colon, so digits alone must do. Nil for
    /// anything else (which the form then refuses as it is).
    public static func clock(typed text: String) -> String? {
        let typed = text.trimmingCharacters(in: .whitespaces)
        let hours: Substring
        let minutes: Substring
        if let separator = typed.firstIndex(where: { $0 == ":" || $0 == "." }) {
            hours = typed[..<separator]
            minutes = typed[typed.index(after: separator)...]
            guard minutes.count == 2 else { return nil }
        } else if typed.count <= 2 {
            (hours, minutes) = (typed[...], "00")
        } else {
            (hours, minutes) = (typed.dropLast(2), typed.suffix(2))
        }
        guard (1...2).contains(hours.count), (hours + minutes).allSatisfy({ $0.isASCII && $0.isNumber }),
            let hour = Int(hours), let minute = Int(minutes), hour < 24, minute < 60
        else { return nil }
        return clock(hour * 60 + minute)
    }

    /// Reads `HH:MM` (00:00–23:59) into minutes after midnight; nil for anything else.
    public static func minutes(_ text: String) -> Int? {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, parts[0].count == 2, parts[1].count == 2,
            parts.allSatisfy({ $0.allSatisfy { $0.isASCII && $0.isNumber } }),
            let hour = Int(parts[0]), let minute = Int(parts[1]), hour < 24, minute < 60
        else { return nil }
        return hour * 60 + minute
    }
}

/// The GSM 03.38 alphabet a text message is counted in: 160 characters fit one message.
public enum GSM7 {
    /// The basic alphabet, each one septet.
    static let basic: Set<Character> = Set(
        "@£$¥èéùìòÇ\nØø\rÅåΔ_ΦΓΛΩΠΨΣΘΞÆæßÉ !\"#¤%&'()*+,-./0123456789:;<=>?¡ABCDEFGHIJKLMNOPQRSTUVWXYZÄÖÑÜ§¿abcdefghijklmnopqrstuvwxyzäöñüà")
    /// The extension table, each two septets (an escape and the character).
    static let extended: Set<Character> = Set("^{}\\[~]|€")

    /// How many septets `text` takes; nil when a character is in neither table.
    public static func length(_ text: String) -> Int? {
        var count = 0
        for character in text {
            if basic.contains(character) { count += 1 } else if extended.contains(character) { count += 2 } else { return nil }
        }
        return count
    }

    /// `text` with each character outside the alphabet replaced by its nearest one (`–` by `-`, `’` by `'`), or by
    /// `?` when it has none.
    public static func transliterated(_ text: String) -> String {
        String(
            text.map { character -> Character in
                if basic.contains(character) || extended.contains(character) { return character }
                switch character {
                case "–", "—", "‐", "−": return "-"
                case "‘", "’", "‚", "′": return "'"
                case "“", "”", "„", "«", "»": return "\""
                case "…": return "."
                case "\u{00A0}", "\t": return " "
                default:
                    let folded = String(character).folding(options: [.diacriticInsensitive, .widthInsensitive], locale: nil)
                    if folded.count == 1, let first = folded.first, basic.contains(first) { return first }
                    return "?"
                }
            })
    }
}

/// The words of a text message or an email that tells a person of a notification: its public title and one link
/// that opens Varsel; never the details of the person visited, which travel only in the signed-in page.
public struct OutsideMessageText: Sendable, Hashable {
    /// A text message of at most 160 GSM 03.38 characters: `Varsel: New assignment. Open: https://…`; a long title is
    /// shortened with `...`.
    public static func textMessage(title: String, link: String, strings: Strings) -> String {
        let limit = 160
        let tail = " \(strings.textMessageOpen) \(GSM7.transliterated(link))"
        let head = "Varsel: "
        var title = GSM7.transliterated(title)
        func compose() -> String { head + title + "." + tail }
        while let length = GSM7.length(compose()), length > limit, !title.isEmpty {
            title = String(title.dropLast(title.hasSuffix("...") ? 4 : 1)).trimmingCharacters(in: .whitespaces)
            title += "..."
            if title == "..." { break }
        }
        return compose()
    }

    /// An email's subject: `New assignment in Varsel` for an assignment, else `Varsel: <title>`.
    public static func emailSubject(kind: NotificationKind, title: String, strings: Strings) -> String {
        kind == .assignment ? strings.emailAssignmentSubject : "Varsel: \(title)"
    }

    /// An email's plain text: a greeting, the title, the one link, and why the person gets it.
    public static func emailPlainText(name: String, title: String, link: String, strings: Strings) -> String {
        """
        \(strings.emailGreeting(name))

        \(title).

        \(strings.emailOpenLine)
        \(link)

        \(strings.emailWhy)
        """
    }

    /// The same as a simple HTML document, in the person's language.
    public static func emailHTML(name: String, title: String, link: String, strings: Strings) -> String {
        """
        <!doctype html>
        <html lang="\(strings.language.rawValue)"><head><meta charset="utf-8"><title>\(escaped(title))</title></head>
        <body>
        <p>\(escaped(strings.emailGreeting(name)))</p>
        <h1>\(escaped(title))</h1>
        <p><a href="\(escaped(link))">\(escaped(strings.emailLinkText))</a></p>
        <p>\(escaped(strings.emailWhy))</p>
        </body></html>
        """
    }

    /// A verification code's text message or email line: `Your Varsel code is 123 456. It works for 10 minutes.`
    public static func code(_ code: String, minutes: Int, strings: Strings) -> String {
        strings.verificationCodeText(grouped(code), minutes: minutes)
    }

    /// A verification code's email as plain text and as HTML: the code's line, then why the person gets it.
    public static func codeEmail(_ code: String, minutes: Int, strings: Strings) -> (plainText: String, html: String) {
        let line = Self.code(code, minutes: minutes, strings: strings)
        return (
            "\(line)\n\n\(strings.codeEmailWhy)",
            """
            <!doctype html>
            <html lang="\(strings.language.rawValue)"><head><meta charset="utf-8"><title>\(escaped(strings.codeEmailSubject))</title></head>
            <body><p>\(escaped(line))</p><p>\(escaped(strings.codeEmailWhy))</p></body></html>
            """
        )
    }

    /// `text` escaped for HTML's text and attribute values.
    /// A notice to an admin by email, as plain text: a greeting, the title, what it says, the one link, and why.
    public static func noticePlainText(name: String, title: String, body: String, link: String, why: String, strings: Strings) -> String {
        """
        \(strings.emailGreeting(name))

        \(title).

        \(body)

        \(link)

        \(why)
        """
    }

    /// The same notice as HTML.
    public static func noticeHTML(name: String, title: String, body: String, link: String, why: String, strings: Strings) -> String {
        """
        <!doctype html>
        <html lang="\(strings.language.rawValue)"><head><meta charset="utf-8"><title>\(escaped(title))</title></head>
        <body>
        <p>\(escaped(strings.emailGreeting(name)))</p>
        <h1>\(escaped(title))</h1>
        <p>\(escaped(body))</p>
        <p><a href="\(escaped(link))">\(escaped(strings.emailLinkText))</a></p>
        <p>\(escaped(why))</p>
        </body></html>
        """
    }

    /// The daily email of open assignments as plain text: a greeting, one line per assignment, the one link, and why.
    public static func assignmentDigestPlainText(name: String, lines: [String], link: String, strings: Strings) -> String {
        """
        \(strings.emailGreeting(name))

        \(lines.joined(separator: "\n"))

        \(strings.assignmentDigestOpenLine)
        \(link)

        \(strings.assignmentDigestWhy)
        """
    }

    /// The same email as HTML: the subject as its heading and the assignments as a list.
    public static func assignmentDigestHTML(name: String, subject: String, lines: [String], link: String, strings: Strings) -> String {
        """
        <!doctype html>
        <html lang="\(strings.language.rawValue)"><head><meta charset="utf-8"><title>\(escaped(subject))</title></head>
        <body>
        <p>\(escaped(strings.emailGreeting(name)))</p>
        <h1>\(escaped(subject))</h1>
        <ul>
        \(lines.map { "<li>\(escaped($0))</li>" }.joined(separator: "\n"))
        </ul>
        <p><a href="\(escaped(link))">\(escaped(strings.emailLinkText))</a></p>
        <p>\(escaped(strings.assignmentDigestWhy))</p>
        </body></html>
        """
    }

    static func escaped(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }

    /// `123 456`: a code in two groups of three, read as two short numbers rather than one long one.
    public static func grouped(_ code: String) -> String {
        guard code.count == 6 else { return code }
        return "\(code.prefix(3)) \(code.suffix(3))"
    }
}
