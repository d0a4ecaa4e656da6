import Foundation
import VarselCore

/// Checks user input against the documented limits, collecting every problem in one answer.
enum Validation {
    struct ValidNotification {
        var kind: NotificationKind
        var title: String
        var body: String
        var urgency: Urgency
        var personalDetails: [String]
    }

    /// Validates the fields of a notification; `allowAssignment` is false where assignments have their own route.
    static func notification(kind: String, title: String, body: String, urgency: String?, personalDetails: [String],
                             allowAssignment: Bool) throws -> ValidNotification {
        var errors: [Problem.FieldError] = []
        let kinds = NotificationKind.allCases.map(\.rawValue).joined(separator: ", ")
        let parsedKind = NotificationKind(rawValue: kind)
        if parsedKind == nil {
            errors.append(.init(field: "kind", message: "unknown kind '\(kind)'; use one of: \(kinds)"))
        } else if parsedKind == .assignment, !allowAssignment {
            errors.append(.init(field: "kind", message: "assignments are created with POST /api/v1/assignments, which also records the contact"))
        }
        let cleanTitle = title.trimmingCharacters(in: .whitespacesAndNewlines)
        let cleanBody = body.trimmingCharacters(in: .whitespacesAndNewlines)
        errors += text(cleanTitle, field: "title", max: Limits.maxTitleLength)
        errors += text(cleanBody, field: "body", max: Limits.maxBodyLength, allowEmpty: true)
        let parsedUrgency = urgency.map { Urgency(rawValue: $0) } ?? .normal
        if parsedUrgency == nil { errors.append(.init(field: "urgency", message: "must be 'normal' or 'urgent'")) }
        if personalDetails.count > 20 || personalDetails.contains(where: { $0.count > Limits.maxTitleLength }) {
            errors.append(.init(field: "personalDetails", message: "at most 20 phrases of at most \(Limits.maxTitleLength) characters"))
        }
        guard errors.isEmpty, let parsedKind, let parsedUrgency else {
            throw Problem.unprocessable(summary(errors), errors: errors)
        }
        return ValidNotification(kind: parsedKind, title: cleanTitle, body: cleanBody, urgency: parsedUrgency,
                                 personalDetails: personalDetails.filter { !$0.isEmpty })
    }

    /// Problems with a text field: required, length, control characters.
    static func text(_ value: String, field: String, max: Int, allowEmpty: Bool = false) -> [Problem.FieldError] {
        if value.isEmpty { return allowEmpty ? [] : [.init(field: field, message: "required")] }
        if value.count > max { return [.init(field: field, message: "at most \(max) characters (got \(value.count))")] }
        if value.unicodeScalars.contains(where: { $0.properties.generalCategory == .control && $0 != "\n" }) {
            return [.init(field: field, message: "must not contain control characters")]
        }
        return []
    }

    /// One sentence naming every invalid field.
    static func summary(_ errors: [Problem.FieldError]) -> String {
        "Invalid input: " + errors.map { "\($0.field) \($0.message)" }.joined(separator: "; ") + "."
    }

    /// Where a notification of `kind` leads when it was not created with a target of its own.
    static func deepLink(for kind: NotificationKind) -> DeepLinkTarget {
        switch kind {
        case .assignment: .contact(contactID: 0, assignmentID: nil)
        case .certificationExpiry: .certification(certificationID: nil)
        case .pauseConfirmation: .pause
        case .scenarioPrompt: .scenario(scenarioID: nil)
        }
    }

    /// Parses a calendar date `YYYY-MM-DD` as the start of that day in Oslo.
    static func day(_ raw: String, field: String) throws -> Date {
        let parts = raw.split(separator: "-").compactMap { Int($0) }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "Europe/Oslo") ?? .gmt
        guard raw.count == 10, parts.count == 3,
              let date = calendar.date(from: DateComponents(year: parts[0], month: parts[1], day: parts[2])),
              calendar.component(.day, from: date) == parts[2] else {
            throw Problem.unprocessable("\(field) must be a date written YYYY-MM-DD.", errors: [.init(field: field, message: "not a YYYY-MM-DD date")])
        }
        return date
    }
}
