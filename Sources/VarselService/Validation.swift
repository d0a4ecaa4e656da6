import Foundation
import VarselCore
import VarselStore

/// Checks user input against the documented limits, for the JSON API and the page forms alike, collecting every
/// problem in one answer.
///
/// Lengths are counted in Unicode scalars, as the OpenAPI document says: a grapheme count would let one letter
/// carry thousands of combining marks. Messages name the field and the rule, never the value.
public enum Validation {
    /// One broken rule of one field.
    public struct Issue: Sendable, Equatable {
        public var field: String
        public var rule: Rule

        public init(field: String, rule: Rule) {
            self.field = field
            self.rule = rule
        }

        /// What is wrong with a field.
        public enum Rule: Sendable, Equatable {
            case required
            case tooLong(Int)
            case controlCharacters
            /// A title names a phrase the sender listed as a personal detail (titles are spoken and shown on lock
            /// screens, so they must not name anyone).
            case namesPersonalDetail
            /// Not a real calendar date written `YYYY-MM-DD`.
            case notADay
            /// Not a clock time (`HH:MM`, or as people type one: ``QuietHours/clock(typed:)``).
            case notATime
            /// A time to send at that has already passed.
            case notInFuture
            /// A time to send at further ahead than a send may be scheduled.
            case tooFarAhead
            /// Personal details with a time to send at: they are sent at once or not at all.
            case personalDetailsNotScheduled
            /// Any other rule, described in English.
            case other(String)
        }

        /// The rule in English, as the API's field errors say it.
        public var message: String {
            switch rule {
            case .required: "required"
            case let .tooLong(max): "at most \(max) characters (Unicode scalars)"
            case .controlCharacters: "must not contain control characters"
            case .namesPersonalDetail:
                "must not contain a phrase listed in personalDetails: a title is spoken when it arrives and shown on lock screens"
            case .notADay: "not a YYYY-MM-DD calendar date"
            case .notATime: "not a time of day written HH:MM"
            case .notInFuture: "must be in the future"
            case .tooFarAhead: "must be within a year from now"
            case .personalDetailsNotScheduled: "must be empty when sendAt is given: personal details are sent at once"
            case let .other(message): message
            }
        }
    }

    /// A notification that passed validation: trimmed, its kind and urgency parsed, the phrases its sender listed as
    /// personal details kept.
    public struct ValidNotification: Sendable, Equatable {
        public var kind: NotificationKind
        public var title: String
        public var body: String
        public var urgency: Urgency
        public var personalDetails: [String]
    }

    /// Validates the fields of a notification; `allowAssignment` is false where assignments have their own route.
    ///
    /// Titles are public by contract: a title is what a screen reader speaks when the notification arrives and what a
    /// lock screen shows, so it must not name anyone. Personal details travel only in the body, listed by the sender
    /// in `personalDetails` (or, for an assignment, as the contact's structured fields), and a title containing any
    /// listed phrase is refused.
    public static func notification(
        kind: String, title: String, body: String, urgency: String?, personalDetails: [String],
        allowAssignment: Bool
    ) throws(InvalidInput) -> ValidNotification {
        var issues: [Issue] = []
        let kinds = NotificationKind.sendable.map(\.rawValue).joined(separator: ", ")
        let parsedKind = NotificationKind(rawValue: kind).flatMap { NotificationKind.sendable.contains($0) ? $0 : nil }
        if parsedKind == nil {
            issues.append(.init(field: "kind", rule: .other("is not a known kind; use one of: \(kinds)")))
        } else if parsedKind == .assignment, !allowAssignment {
            issues.append(.init(field: "kind", rule: .other("assignments are created with POST /api/v1/assignments, which also records the contact")))
        }
        let cleanTitle = title.trimmingCharacters(in: .whitespacesAndNewlines)
        let cleanBody = body.trimmingCharacters(in: .whitespacesAndNewlines)
        let details = personalDetails.map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }.filter { !$0.isEmpty }
        let titleIssues = text(title, field: "title", max: Limits.maxTitleLength)
        issues += titleIssues
        if titleIssues.isEmpty, NotificationItem.text(cleanTitle, containsAnyOf: details) {
            issues.append(.init(field: "title", rule: .namesPersonalDetail))
        }
        issues += text(body, field: "body", max: Limits.maxBodyLength, allowEmpty: true, allowsNewlines: true)
        let parsedUrgency = urgency.map { Urgency(rawValue: $0) } ?? .normal
        if parsedUrgency == nil { issues.append(.init(field: "urgency", rule: .other("must be 'normal' or 'urgent'"))) }
        if personalDetails.count > Limits.maxPersonalDetails
            || personalDetails.contains(where: { $0.unicodeScalars.count > Limits.maxTitleLength || hasControlCharacters($0, allowsNewlines: false) })
        {
            issues.append(
                .init(
                    field: "personalDetails",
                    rule: .other(
                        "at most \(Limits.maxPersonalDetails) phrases of at most \(Limits.maxTitleLength) characters, without control characters")))
        }
        guard issues.isEmpty, let parsedKind, let parsedUrgency else { throw InvalidInput(issues) }
        return ValidNotification(kind: parsedKind, title: cleanTitle, body: cleanBody, urgency: parsedUrgency, personalDetails: details)
    }

    /// Validates and trims a mentor's note from a visit (it may be empty).
    public static func visitNote(_ note: String, field: String = "note") throws(InvalidInput) -> String {
        let clean = note.trimmingCharacters(in: .whitespacesAndNewlines)
        let issues = text(note, field: field, max: Limits.maxVisitNoteLength, allowEmpty: true, allowsNewlines: true)
        guard issues.isEmpty else { throw InvalidInput(issues) }
        return clean
    }

    /// Validates and trims a mentor's reflection on a scenario (it may be empty).
    public static func reflection(_ text: String, field: String = "reflection") throws(InvalidInput) -> String {
        let clean = text.trimmingCharacters(in: .whitespacesAndNewlines)
        let issues = Self.text(text, field: field, max: Limits.maxReflectionLength, allowEmpty: true, allowsNewlines: true)
        guard issues.isEmpty else { throw InvalidInput(issues) }
        return clean
    }

    /// Validates and trims a training scenario's title and text.
    public static func scenario(title: String, body: String) throws(InvalidInput) -> (title: String, body: String) {
        let cleanTitle = title.trimmingCharacters(in: .whitespacesAndNewlines)
        let cleanBody = body.trimmingCharacters(in: .whitespacesAndNewlines)
        let issues =
            text(title, field: "title", max: Limits.maxTitleLength)
            + text(body, field: "body", max: Limits.maxBodyLength, allowsNewlines: true)
        guard issues.isEmpty else { throw InvalidInput(issues) }
        return (cleanTitle, cleanBody)
    }

    /// Validates and trims a contact (a person a mentor visits); `prefix` names the fields (`contact.`).
    public static func contact(_ contact: NewContact, prefix: String = "contact.") throws(InvalidInput) -> NewContact {
        let clean = NewContact(
            name: contact.name.trimmingCharacters(in: .whitespacesAndNewlines),
            phone: contact.phone.trimmingCharacters(in: .whitespacesAndNewlines),
            address: contact.address.trimmingCharacters(in: .whitespacesAndNewlines),
            notes: contact.notes.trimmingCharacters(in: .whitespacesAndNewlines))
        var issues = text(contact.name, field: prefix + "name", max: Limits.maxContactNameLength)
        issues += text(contact.address, field: prefix + "address", max: Limits.maxContactAddressLength)
        issues += text(contact.phone, field: prefix + "phone", max: Limits.maxContactPhoneLength, allowEmpty: true)
        issues += text(contact.notes, field: prefix + "notes", max: Limits.maxContactFieldLength, allowEmpty: true, allowsNewlines: true)
        guard issues.isEmpty else { throw InvalidInput(issues) }
        return clean
    }

    /// Validates an urgency given by name; nil means normal.
    public static func urgency(_ raw: String?, field: String = "urgency") throws(InvalidInput) -> Urgency {
        guard let urgency = raw.map({ Urgency(rawValue: $0) }) ?? .normal else {
            throw InvalidInput([.init(field: field, rule: .other("must be 'normal' or 'urgent'"))])
        }
        return urgency
    }

    /// Validates the kinds a user enables: each at most once (`uniqueItems`).
    public static func enabledKinds(_ kinds: [NotificationKind], field: String = "enabledKinds") throws(InvalidInput) {
        guard Set(kinds).count == kinds.count else {
            throw InvalidInput([.init(field: field, rule: .other("must not list a kind twice"))])
        }
    }

    /// Problems with a new password: 8 to 72 Unicode scalars, as the OpenAPI document's `minLength` and `maxLength` count,
    /// and no control characters (which nobody types, and a NUL would end bcrypt's input early).
    public static func password(_ password: String, field: String) -> [Issue] {
        guard (Limits.minPasswordLength...Limits.maxPasswordLength).contains(password.unicodeScalars.count) else {
            return [.init(field: field, rule: .other("\(Limits.minPasswordLength) to \(Limits.maxPasswordLength) characters (Unicode scalars)"))]
        }
        let control = password.unicodeScalars.contains { $0.properties.generalCategory == .control }
        return control ? [.init(field: field, rule: .controlCharacters)] : []
    }

    /// Problems with a text field as sent: its length in Unicode scalars, control characters, and, unless
    /// `allowEmpty`, something other than white space (the value is stored trimmed).
    public static func text(_ value: String, field: String, max: Int, allowEmpty: Bool = false, allowsNewlines: Bool = false) -> [Issue] {
        if !allowEmpty, value.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty { return [.init(field: field, rule: .required)] }
        if value.unicodeScalars.count > max { return [.init(field: field, rule: .tooLong(max))] }
        if hasControlCharacters(value, allowsNewlines: allowsNewlines) { return [.init(field: field, rule: .controlCharacters)] }
        return []
    }

    /// Whether `value` holds control characters (NUL, BEL, ESC, …) or invisible format characters (bidi overrides);
    /// line breaks are allowed where `allowsNewlines`.
    public static func hasControlCharacters(_ value: String, allowsNewlines: Bool) -> Bool {
        value.unicodeScalars.contains { scalar in
            if allowsNewlines, scalar == "\n" || scalar == "\r" { return false }
            return isControlOrFormat(scalar)
        }
    }

    /// Whether `scalar` is a control character, or an invisible format character of the Basic Multilingual Plane (bidi
    /// overrides, zero-width spaces) other than the zero-width joiner, which emoji sequences need.
    ///
    /// The format characters beyond it (the tags of a subdivision's flag emoji, hieroglyph and shorthand format
    /// controls) are allowed: they belong to what they format, and the OpenAPI document's patterns, which state this
    /// rule, can name only characters of the Basic Multilingual Plane (schemathesis 4 reads a pattern naming one beyond
    /// it as one nothing matches).
    static func isControlOrFormat(_ scalar: Unicode.Scalar) -> Bool {
        let category = scalar.properties.generalCategory
        return category == .control || (category == .format && scalar != "\u{200D}" && scalar.value <= 0xFFFF)
    }

    /// Whether `name` is a username: ``TextPatterns/username``, checked without a regular expression engine's reading of `$`.
    public static func isUsername(_ name: String) -> Bool {
        (2...Limits.maxUsernameLength).contains(name.unicodeScalars.count)
            && name.unicodeScalars.allSatisfy { $0.isASCII && (CharacterSet.alphanumerics.contains($0) || "._-".unicodeScalars.contains($0)) }
    }

    /// Whether `tag` is a language tag as ``TextPatterns/languageTag`` states: `en`, `nb`, `no` or `nn` (any case),
    /// then subtags of 1 to 8 ASCII letters or digits, each after `-` or `_`.
    public static func isLanguageTag(_ tag: String) -> Bool {
        let parts = tag.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "-" || $0 == "_" })
        guard let first = parts.first, ["en", "nb", "no", "nn"].contains(first.lowercased()) else { return false }
        return parts.dropFirst().allSatisfy { part in
            (1...8).contains(part.unicodeScalars.count) && part.unicodeScalars.allSatisfy { $0.isASCII && CharacterSet.alphanumerics.contains($0) }
        }
    }

    /// One sentence naming every invalid field.
    public static func summary(_ issues: [Issue]) -> String {
        "Invalid input: " + issues.map { "\($0.field) \($0.message)" }.joined(separator: "; ") + "."
    }

    /// Where a notification of `kind` leads when it was not created with a target of its own.
    public static func deepLink(for kind: NotificationKind) -> DeepLinkTarget {
        switch kind {
        case .assignment: .contact(contactID: 0, assignmentID: nil)
        case .certificationExpiry: .certification(certificationID: nil)
        case .pauseConfirmation: .pause
        case .scenarioPrompt: .scenario(scenarioID: nil)
        case .summary, .serviceNotice: .notifications
        }
    }

    /// The moment a form's "send later" fields name, in Oslo: nil when the time is empty (send now).
    ///
    /// The time is taken as people type it (`8`, `0800`, `08.00`); with no day, it is the next time the clock shows
    /// it after `now`. A day with no time is refused on `timeField`, as is a time that is not one. Whether the moment
    /// is in the future is the scheduler's rule (``ScheduledSends``).
    public static func sendMoment(time: String, day: String, now: Date, timeField: String, dayField: String) throws(InvalidInput) -> Date? {
        let typedTime = time.trimmingCharacters(in: .whitespaces)
        let typedDay = day.trimmingCharacters(in: .whitespaces)
        if typedTime.isEmpty {
            guard typedDay.isEmpty else { throw InvalidInput([.init(field: timeField, rule: .required)]) }
            return nil
        }
        guard let clock = QuietHours.clock(typed: typedTime), let minutes = QuietHours.minutes(clock) else {
            throw InvalidInput([.init(field: timeField, rule: .notATime)])
        }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = osloTimeZone
        let (hour, minute) = (minutes / 60, minutes % 60)
        if !typedDay.isEmpty {
            let start = try Self.day(typedDay, field: dayField)
            guard let moment = calendar.date(bySettingHour: hour, minute: minute, second: 0, of: start) else {
                throw InvalidInput([.init(field: timeField, rule: .notATime)])
            }
            return moment
        }
        guard
            let moment = calendar.nextDate(
                after: now, matching: DateComponents(hour: hour, minute: minute, second: 0), matchingPolicy: .nextTime)
        else { throw InvalidInput([.init(field: timeField, rule: .notATime)]) }
        return moment
    }

    /// Parses a real calendar date `YYYY-MM-DD` (no 2031-13-01, no 2031-02-30) as the start of that day in Oslo.
    public static func day(_ raw: String, field: String) throws(InvalidInput) -> Date {
        let invalid = InvalidInput(
            [.init(field: field, rule: .notADay)],
            summary: "\(field) must be a real calendar date written YYYY-MM-DD.")
        let scalars = Array(raw.unicodeScalars)
        guard scalars.count == 10, scalars[4] == "-", scalars[7] == "-",
            scalars.enumerated().allSatisfy({ $0.offset == 4 || $0.offset == 7 || ("0"..."9").contains($0.element) })
        else { throw invalid }
        let parts = raw.split(separator: "-").compactMap { Int($0) }
        guard parts.count == 3, (1...9999).contains(parts[0]), (1...12).contains(parts[1]), (1...31).contains(parts[2]) else { throw invalid }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = osloTimeZone
        guard let date = calendar.date(from: DateComponents(year: parts[0], month: parts[1], day: parts[2])) else { throw invalid }
        let back = calendar.dateComponents([.year, .month, .day], from: date)
        guard back.year == parts[0], back.month == parts[1], back.day == parts[2] else { throw invalid }
        return date
    }

    /// Quiet hours from two clock times written `HH:MM` and a time zone of ``QuietHours/timeZones``; both times empty
    /// means none (nil). ``InvalidInput`` names `<field>.start`, `<field>.end` or `<field>.timeZone`.
    public static func quietHours(start: String, end: String, timeZone: String, field: String) throws(InvalidInput) -> QuietHours? {
        let start = start.trimmingCharacters(in: .whitespaces)
        let end = end.trimmingCharacters(in: .whitespaces)
        if start.isEmpty && end.isEmpty { return nil }
        var issues: [Issue] = []
        let from = QuietHours.minutes(start)
        let until = QuietHours.minutes(end)
        if from == nil { issues.append(Issue(field: "\(field).start", rule: start.isEmpty ? .required : .other("a time written HH:MM"))) }
        if until == nil { issues.append(Issue(field: "\(field).end", rule: end.isEmpty ? .required : .other("a time written HH:MM"))) }
        if let from, let until, from == until { issues.append(Issue(field: "\(field).end", rule: .other("different from start"))) }
        if !QuietHours.timeZones.contains(timeZone) { issues.append(Issue(field: "\(field).timeZone", rule: .other("one of the listed time zones"))) }
        guard issues.isEmpty, let from, let until else { throw InvalidInput(issues) }
        return QuietHours(start: from, end: until, timeZoneIdentifier: timeZone)
    }
}
