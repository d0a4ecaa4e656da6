import Foundation
import Hummingbird
import VarselCore
import VarselService
import VarselStore

/// The page forms, each a `Decodable` type read with Hummingbird's `URLEncodedFormDecoder`.
///
/// Every field is optional text, as a browser may leave any out; the handlers check them with the same
/// ``Validation`` rules as the JSON API. The session's `_csrf` field is checked before any handler runs
/// (``AuthenticationMiddleware``), so no form type holds it.
enum PageForm {
    /// A date as a date field holds it: `2026-11-23`, in Oslo.
    static func day(_ date: Date) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = osloTimeZone
        let parts = calendar.dateComponents([.year, .month, .day], from: date)
        return String(format: "%04d-%02d-%02d", parts.year ?? 0, parts.month ?? 0, parts.day ?? 0)
    }

    /// Reads the request's form body as `Form`; a body that is not a well-formed form is a 400 that quotes none of it.
    static func decode<Form: Decodable>(_ type: Form.Type, from request: Request) async throws -> Form {
        var request = request
        let buffer = try await request.collectBody(upTo: Limits.maxBodyBytes)
        do {
            return try URLEncodedFormDecoder().decode(Form.self, from: Self.lineBreaksAsTyped(String(buffer: buffer)))
        } catch {
            throw Problem.badRequest("The form could not be read. Reload the page and try again.")
        }
    }

    /// A form body with each line break as it was typed: one line feed. A browser sends every line break of a
    /// textarea as CR LF (`%0D%0A`), where its `maxlength` counted one character; the limits, counted in Unicode
    /// scalars, would count two, and refuse a note the field let a person type.
    static func lineBreaksAsTyped(_ body: String) -> String {
        body.replacing(/%0D%0A/.ignoresCase(), with: "%0A")
    }

    /// Whether the request says its body is `application/x-www-form-urlencoded`.
    static func isForm(_ request: Request) -> Bool {
        JSONCoding.mediaType(of: request) == "application/x-www-form-urlencoded"
    }

    /// The session's CSRF token as a form echoes it in `_csrf`.
    struct CSRFField: Decodable {
        var token: String?
        enum CodingKeys: String, CodingKey { case token = "_csrf" }
    }

    struct SignIn: Decodable {
        var username: String?
        var password: String?
        var next: String?
    }

    /// A form that acts on the notification list and comes back to it with the same filter.
    struct ReadAll: Decodable {
        var filter: String?
    }

    /// The list's check boxes (`ids[]`) and the chosen action.
    struct Bulk: Decodable {
        var filter: String?
        /// The page of the list the form was on (a later page's cursor), to come back to.
        var cursor: String?
        var action: String?
        var ids: [Int64]?
    }

    /// The settings switches: the identifiers of those that are on (a check box that is off is not sent).
    struct Settings: Decodable {
        var switchedOn: Set<String>
        /// The quiet hours' times as typed: `22:00`, or empty.
        var quietStart: String
        var quietEnd: String
        /// The summary's time as typed: `16:00`, or empty.
        var summaryTime: String

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: AnyKey.self)
            switchedOn = Set(try container.allKeys.filter { try container.decodeIfPresent(String.self, forKey: $0) == "on" }.map(\.stringValue))
            quietStart = try container.decodeIfPresent(String.self, forKey: AnyKey(stringValue: "quiet-start")) ?? ""
            quietEnd = try container.decodeIfPresent(String.self, forKey: AnyKey(stringValue: "quiet-end")) ?? ""
            summaryTime = try container.decodeIfPresent(String.self, forKey: AnyKey(stringValue: "summary-time")) ?? ""
        }

        struct AnyKey: CodingKey {
            var stringValue: String
            var intValue: Int? { nil }
            init(stringValue: String) { self.stringValue = stringValue }
            init?(intValue: Int) { nil }
        }
    }

    /// A mobile number or an email address, as typed.
    struct ChannelAddress: Decodable { var address: String? }

    /// A verification code, as typed.
    struct ChannelCode: Decodable { var code: String? }

    /// A coordinator's message to one mentor.
    struct Send: Decodable {
        var recipient: String?
        var kind: String?
        var title: String?
        var body: String?
        /// Names and addresses in the message, one a line.
        var personalDetails: String?
        var urgent: String?
        /// When to send it, in Oslo (empty for now): a time as typed, and a day `YYYY-MM-DD` or empty for the next.
        var sendTime: String?
        var sendDay: String?
    }

    /// A scheduled send's new words and time.
    struct ChangeScheduled: Decodable {
        var title: String?
        var body: String?
        var sendTime: String?
        var sendDay: String?
    }

    /// A mentor's visit done, with its note.
    struct VisitDone: Decodable {
        var note: String?
    }

    /// A coordinator's reassignment: the new mentor.
    struct Reassign: Decodable {
        var mentor: String?
    }

    /// A mentor's pause request: `yyyy-mm-dd` days.
    struct Pause: Decodable {
        var from: String?
        var until: String?
    }

    struct LanguageChoice: Decodable {
        var language: String?
    }

    struct PasskeyName: Decodable {
        var name: String?
    }

    struct PasswordChange: Decodable {
        var currentPassword: String?
        var newPassword: String?
    }

    /// A mentor's scenario done, with the reflection.
    struct Reflection: Decodable {
        var reflection: String?
    }

    /// A coordinator's new scenario: its title and text, and to whom (`audience` all, or the chosen `mentors`).
    struct Scenario: Decodable {
        var title: String?
        var body: String?
        var audience: String?
        var mentors: [Int64]?
        /// When to publish it, as typed: empty for now.
        var sendTime: String?
        var sendDay: String?
    }

    /// A coordinator's new assignment: the mentor and the contact to visit.
    struct Erase: Decodable {
        var assignment: String?
    }

    struct NewPerson: Decodable {
        var username: String?
        var displayName: String?
        var language: String?
        var role: String?
    }

    struct NewToken: Decodable {
        var name: String?
        var role: String?
    }

    struct NewEndpoint: Decodable {
        var url: String?
        var events: [String]?
    }

    struct RoleChoice: Decodable {
        var role: String?
    }

    struct CertificationEntry: Decodable {
        var name: String?
        var expiresOn: String?
    }

    struct ChoosePassword: Decodable {
        var password: String?
        var repeated: String?
    }

    struct Assignment: Decodable {
        var mentor: String?
        var contactName: String?
        var contactAddress: String?
        var contactPhone: String?
        var contactNotes: String?
    }
}

/// The confirmation a finished form action shows on the page it redirects to, carried across the redirect as `?done=`.
enum Flash: Equatable {
    case markedRead(count: Int)
    case deleted(count: Int)
    case settingsSaved
    case acknowledged
    case declined
    case sent
    case scheduled
    case scheduledChanged
    case scheduledCancelled
    /// A send that went (or was cancelled) between the list and the person's change.
    case scheduledGone
    case assignmentCreated
    case visitDone
    case reassigned
    case pauseRequested
    case pauseEnded
    case languageSaved
    case passwordChanged
    case scenarioDone
    case scenarioPublished
    case personDeactivated
    case personReactivated
    case roleChanged
    case certificationsSaved
    case passwordChosen
    case erased
    case passkeyAdded
    case passkeyRenamed
    case passkeyRemoved
    case linkShownOnce
    case tokenShownOnce
    case tokenRevoked
    case endpointRemoved
    case codeSent(OutsideChannel)
    /// A code sent for someone else (a coordinator setting a mentor's number), who types it on their own Profile.
    case codeSentToPerson(OutsideChannel)
    case channelVerified(OutsideChannel)
    case channelRemoved(OutsideChannel)

    /// The flash a `?done=` value names; nil for one this server does not write. Names are matched whole
    /// (`pause-ended` is not `pause`); a count follows its name after a hyphen (`readall-3`).
    init?(query: String) {
        switch query {
        case "settings": self = .settingsSaved
        case "acknowledged": self = .acknowledged
        case "declined": self = .declined
        case "sent": self = .sent
        case "scheduled": self = .scheduled
        case "scheduled-changed": self = .scheduledChanged
        case "scheduled-cancelled": self = .scheduledCancelled
        case "scheduled-gone": self = .scheduledGone
        case "assignment": self = .assignmentCreated
        case "visit": self = .visitDone
        case "reassigned": self = .reassigned
        case "pause": self = .pauseRequested
        case "pause-ended": self = .pauseEnded
        case "language": self = .languageSaved
        case "password": self = .passwordChanged
        case "scenario": self = .scenarioDone
        case "published": self = .scenarioPublished
        case "deactivated": self = .personDeactivated
        case "reactivated": self = .personReactivated
        case "role": self = .roleChanged
        case "certifications": self = .certificationsSaved
        case "chosen": self = .passwordChosen
        case "erased": self = .erased
        case "passkey-added": self = .passkeyAdded
        case "passkey-renamed": self = .passkeyRenamed
        case "passkey-removed": self = .passkeyRemoved
        case "link-shown": self = .linkShownOnce
        case "token-shown": self = .tokenShownOnce
        case "token-revoked": self = .tokenRevoked
        case "endpoint-removed": self = .endpointRemoved
        case "code-sent-sms", "code-sent-email": self = .codeSent(query.hasSuffix("sms") ? .textMessage : .email)
        case "code-sent-for-sms", "code-sent-for-email": self = .codeSentToPerson(query.hasSuffix("sms") ? .textMessage : .email)
        case "verified-sms", "verified-email": self = .channelVerified(query.hasSuffix("sms") ? .textMessage : .email)
        case "removed-sms", "removed-email": self = .channelRemoved(query.hasSuffix("sms") ? .textMessage : .email)
        default:
            let parts = query.split(separator: "-", maxSplits: 1)
            guard parts.count == 2, let count = Int(parts[1]) else { return nil }
            switch parts[0] {
            case "readall": self = .markedRead(count: count)
            case "deleted": self = .deleted(count: count)
            default: return nil
            }
        }
    }

    /// The flash for a mentor's answer to an assignment; nil for `pending`, which is no answer.
    init?(answer: AssignmentStatus) {
        switch answer {
        case .acknowledged: self = .acknowledged
        case .declined: self = .declined
        case .done: self = .visitDone
        case .pending: return nil
        }
    }

    /// The `?done=` value.
    var query: String {
        switch self {
        case let .markedRead(count): "readall-\(count)"
        case let .deleted(count): "deleted-\(count)"
        case .settingsSaved: "settings"
        case .acknowledged: "acknowledged"
        case .declined: "declined"
        case .sent: "sent"
        case .scheduled: "scheduled"
        case .scheduledChanged: "scheduled-changed"
        case .scheduledCancelled: "scheduled-cancelled"
        case .scheduledGone: "scheduled-gone"
        case .assignmentCreated: "assignment"
        case .visitDone: "visit"
        case .reassigned: "reassigned"
        case .pauseRequested: "pause"
        case .pauseEnded: "pause-ended"
        case .languageSaved: "language"
        case .passwordChanged: "password"
        case .scenarioDone: "scenario"
        case .scenarioPublished: "published"
        case .personDeactivated: "deactivated"
        case .personReactivated: "reactivated"
        case .roleChanged: "role"
        case .certificationsSaved: "certifications"
        case .passwordChosen: "chosen"
        case .erased: "erased"
        case .passkeyAdded: "passkey-added"
        case .passkeyRenamed: "passkey-renamed"
        case .passkeyRemoved: "passkey-removed"
        case .linkShownOnce: "link-shown"
        case .tokenShownOnce: "token-shown"
        case .tokenRevoked: "token-revoked"
        case .endpointRemoved: "endpoint-removed"
        case let .codeSent(channel): "code-sent-\(channel.rawValue)"
        case let .codeSentToPerson(channel): "code-sent-for-\(channel.rawValue)"
        case let .channelVerified(channel): "verified-\(channel.rawValue)"
        case let .channelRemoved(channel): "removed-\(channel.rawValue)"
        }
    }

    /// `path` with this flash added to its query.
    func added(to path: String) -> String {
        path + (path.contains("?") ? "&" : "?") + "done=" + query
    }

    /// The sentence shown (and, as the page loads, announced) in the user's language.
    func text(_ describer: Describer) -> String? {
        switch self {
        case let .markedRead(count): describer.confirmation(of: .markedAllRead(count: count))
        case let .deleted(count): describer.confirmation(of: .deleted(count: count))
        case .settingsSaved: describer.confirmation(of: .settingsSaved)
        case .acknowledged: describer.confirmation(of: .assignmentAcknowledged)
        case .declined: describer.confirmation(of: .assignmentDeclined)
        case .sent: describer.strings.sent
        case .scheduled: describer.strings.scheduledConfirmation
        case .scheduledChanged: describer.strings.scheduledChangedConfirmation
        case .scheduledCancelled: describer.strings.scheduledCancelledConfirmation
        case .scheduledGone: describer.strings.scheduledSendGone
        case .assignmentCreated: describer.strings.assignmentCreated
        case .visitDone: describer.strings.visitDoneConfirmation
        case .reassigned: describer.strings.reassignedConfirmation
        case .pauseRequested: describer.strings.pauseRequested
        case .pauseEnded: describer.strings.pauseEnded
        case .languageSaved: describer.strings.languageSaved
        case .passwordChanged: describer.strings.passwordChanged
        case .scenarioDone: describer.strings.scenarioSaved
        case .scenarioPublished: describer.strings.scenarioPublished
        case .personDeactivated: describer.strings.personDeactivated
        case .personReactivated: describer.strings.personReactivated
        case .roleChanged: describer.strings.roleChanged
        case .certificationsSaved: describer.strings.certificationsSaved
        case .passwordChosen: describer.strings.passwordChosen
        case .erased: describer.strings.detailsErased
        case .passkeyAdded: describer.strings.passkeyAdded
        case .passkeyRenamed: describer.strings.passkeyRenamed
        case .passkeyRemoved: describer.strings.passkeyRemoved
        case .linkShownOnce: describer.strings.linkShownOnce
        case .tokenShownOnce: describer.strings.tokenShownOnce
        case .tokenRevoked: describer.strings.tokenRevoked
        case .endpointRemoved: describer.strings.endpointRemoved
        case let .codeSent(channel): describer.strings.codeSent(channel)
        case let .codeSentToPerson(channel): describer.strings.codeSentToPerson(channel)
        case let .channelVerified(channel): describer.strings.channelVerified(channel)
        case let .channelRemoved(channel): describer.strings.channelRemoved(channel)
        }
    }
}
