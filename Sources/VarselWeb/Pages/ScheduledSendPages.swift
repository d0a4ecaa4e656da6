import Foundation
import HTTPTypes
import Hummingbird
import VarselCore
import VarselService
import VarselStore

/// The page of one scheduled send: its words and time changed, or the send cancelled, before it goes. Every rule is
/// ``ScheduledSends``'s; the list is on the coordinator's page.
struct ScheduledSendPages: PageScreen {
    let frame: PageFrame
    let directory: Directory
    let scheduledSends: ScheduledSends
    let now: @Sendable () -> Date
}

extension ScheduledSendPages {
    func addRoutes(to router: Router<VarselContext>) {
        router.get(
            "coordinator/scheduled/:id",
            use: { request, context in
                try await unlessGone { try await changePage(request, context, errors: [], values: nil, status: .ok) }
            })
        router.post("coordinator/scheduled/:id", use: { request, context in try await unlessGone { try await change(request, context: context) } })
        router.post(
            "coordinator/scheduled/:id/cancel", use: { request, context in try await unlessGone { try await cancel(request, context: context) } })
    }

    /// The page's answer, or, when the send went or was cancelled meanwhile, the coordinator's page saying so.
    func unlessGone(_ answer: () async throws -> Response) async throws -> Response {
        do {
            return try await answer()
        } catch ScheduledSends.Refusal.noLongerWaiting {
            return .redirect(to: Flash.scheduledGone.added(to: "/coordinator"), type: .normal)
        }
    }

    /// The send the path names, when the signed-in coordinator may see it; ``ScheduledSends/Refusal/unknown`` otherwise.
    func send(_ context: VarselContext, for person: User) async throws -> ScheduledSend {
        guard let id = context.parameters.get("id").flatMap({ ScheduledSendID($0) }) else { throw ScheduledSends.Refusal.unknown }
        return try await scheduledSends.send(id, for: person)
    }

    func changePage(
        _ request: Request, _ context: VarselContext, errors: [FormError], values: ScheduledSendValues?, status: HTTPResponse.Status
    ) async throws -> Response {
        let identity = try signedIn(request, context).require(.coordinator, .admin)
        let send = try await send(context, for: identity.user)
        guard send.state == .waiting else { throw ScheduledSends.Refusal.noLongerWaiting }
        let resumePoint = try await self.resumePoint()
        let strings = Strings(identity.user.language)
        let names = try await directory.displayNames()
        let model = ScheduledSendPage(
            chrome: try await chrome(identity, resumePoint: resumePoint, title: strings.changeScheduledSendHeading, tab: .send, flash: nil),
            heading: strings.changeScheduledSendHeading, headingId: "scheduled-send-heading",
            description: strings.scheduledSend(
                title: send.title, kind: send.kind, recipients: send.recipientIDs.map { names[$0] ?? $0.description }, at: send.sendAt,
                timeZone: osloTimeZone),
            errors: errors, hasErrors: !errors.isEmpty, action: "/coordinator/scheduled/\(send.id)",
            cancelAction: "/coordinator/scheduled/\(send.id)/cancel", values: values ?? ScheduledSendValues(send),
            strings: ScheduledSendStrings(
                title: strings.titleField, titleHint: strings.titleFieldHint, body: strings.bodyField, sendAt: strings.sendLaterAt,
                sendOn: strings.sendLaterOn, save: strings.saveScheduledSend, cancel: strings.cancelScheduledSend(send.title),
                back: strings.coordinatorTools, errorSummary: strings.errorSummary))
        return try renderer.page("scheduled-send", model, status: status)
    }

    func change(_ request: Request, context: VarselContext) async throws -> Response {
        let identity = try signedIn(request, context).require(.coordinator, .admin)
        let send = try await send(context, for: identity.user)
        let form = try await PageForm.decode(PageForm.ChangeScheduled.self, from: request)
        let strings = Strings(identity.user.language)
        var values = ScheduledSendValues(
            title: form.title ?? "", body: form.body ?? "", sendTime: form.sendTime ?? "", sendDay: form.sendDay ?? "")
        let shown = ScheduledSendValues(send)
        var fields = Self.fields(strings)
        var errors: [FormError] = []
        var message: Validation.ValidNotification?
        do {
            message = try Validation.notification(
                kind: send.kind.rawValue, title: values.title, body: values.body, urgency: send.urgency.rawValue, personalDetails: [],
                allowAssignment: false)
        } catch {
            errors += Self.place(error.issues, strings: strings, values: &values, on: fields)
        }
        var sendAt: Date?
        do throws(InvalidInput) {
            // Here the time is never left empty: a send that waits has one.
            if values.sendTime.trimmingCharacters(in: .whitespaces).isEmpty {
                throw InvalidInput([.init(field: "sendTime", rule: .required)])
            }
            if values.sendTime == shown.sendTime && values.sendDay == shown.sendDay {
                // The time as it was, to the second (the form shows minutes): a change of words alone keeps it.
                sendAt = send.sendAt
            } else {
                sendAt = try Validation.sendMoment(
                    time: values.sendTime, day: values.sendDay, now: now(), timeField: "sendAt", dayField: "sendDay")
            }
        } catch {
            errors += Self.place(error.issues, strings: strings, values: &values, on: fields)
        }
        if errors.isEmpty, let message, let sendAt {
            do {
                _ = try await scheduledSends.change(send.id, by: identity.user, to: message, at: sendAt)
                return .redirect(to: Flash.scheduledChanged.added(to: "/coordinator"), type: .normal)
            } catch let invalid as InvalidInput {
                fields["personalDetails"] = fields["sendAt"]
                errors += Self.place(invalid.issues, strings: strings, values: &values, on: fields)
            }
        }
        return try await changePage(request, context, errors: errors, values: values, status: .unprocessableContent)
    }

    func cancel(_ request: Request, context: VarselContext) async throws -> Response {
        let identity = try signedIn(request, context).require(.coordinator, .admin)
        let send = try await send(context, for: identity.user)
        _ = try await scheduledSends.cancel(send.id, by: identity.user)
        return .redirect(to: Flash.scheduledCancelled.added(to: "/coordinator"), type: .normal)
    }

    /// Where each field of the form shows its error.
    static func fields(_ strings: Strings) -> [String: CoordinatorPages.FormField<ScheduledSendValues>] {
        [
            "title": .init(label: strings.titleField, id: "scheduled-title", inline: \.titleError),
            "body": .init(label: strings.bodyField, id: "scheduled-body", inline: \.bodyError),
            "sendAt": .init(label: strings.sendLaterAt, id: "scheduled-time", inline: \.sendTimeError),
            "sendTime": .init(label: strings.sendLaterAt, id: "scheduled-time", inline: \.sendTimeError),
            "sendDay": .init(label: strings.sendLaterOn, id: "scheduled-day", inline: \.sendDayError),
        ]
    }

    /// The error summary's entries for `issues`, each on its field (the time for the rest), inline messages set.
    static func place(
        _ issues: [Validation.Issue], strings: Strings, values: inout ScheduledSendValues,
        on fields: [String: CoordinatorPages.FormField<ScheduledSendValues>]
    ) -> [FormError] {
        CoordinatorPages.place(issues, strings: strings, values: &values, on: fields, otherwise: fields["sendAt"]!)
    }
}

/// The change form's fields, as stored or as typed, with their mistakes.
struct ScheduledSendValues {
    var title: String
    var body: String
    var sendTime: String
    var sendDay: String
    var titleError: String?
    var bodyError: String?
    var sendTimeError: String?
    var sendDayError: String?
}

extension ScheduledSendValues {
    /// The form filled in with the send as it is: its time and day in Oslo.
    init(_ send: ScheduledSend) {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = osloTimeZone
        let parts = calendar.dateComponents([.hour, .minute], from: send.sendAt)
        self.init(
            title: send.title, body: send.body, sendTime: QuietHours.clock((parts.hour ?? 0) * 60 + (parts.minute ?? 0)),
            sendDay: PageForm.day(send.sendAt))
    }
}

/// The page that changes or cancels one scheduled send.
struct ScheduledSendPage {
    var chrome: PageChrome
    var heading: String
    var headingId: String
    var description: String
    var errors: [FormError]
    var hasErrors: Bool
    var action: String
    var cancelAction: String
    var values: ScheduledSendValues
    var strings: ScheduledSendStrings
}

struct ScheduledSendStrings {
    var title: String
    var titleHint: String
    var body: String
    var sendAt: String
    var sendOn: String
    var save: String
    var cancel: String
    var back: String
    var errorSummary: String
}
