import Foundation
import HTTPTypes
import Hummingbird
import VarselCore
import VarselService
import VarselStore

/// The coordinator's page: send a notification now or later, see what is scheduled, create an assignment.
struct CoordinatorPages: PageScreen {
    let frame: PageFrame
    let directory: Directory
    let sender: NotificationSender
    let scheduledSends: ScheduledSends
    let now: @Sendable () -> Date
}

extension CoordinatorPages {
    func addRoutes(to router: Router<VarselContext>) {
        router.get("coordinator", use: { try await coordinatorPage($0, $1, errors: [], values: nil) })
        router.post("coordinator/notifications", use: sendNotification)
        router.post("coordinator/assignments", use: createAssignment)
    }

    func coordinatorPage(
        _ request: Request, _ context: VarselContext, errors: [FormError], values: CoordinatorValues?, status: HTTPResponse.Status = .ok
    ) async throws -> Response {
        let identity = try signedIn(request, context).require(.coordinator, .admin)
        let resumePoint = try await self.resumePoint()
        let strings = Strings(identity.user.language)
        // Paused mentors and mentors with an expired certification are not offered an assignment, and the page says
        // why; mentors who have left (deactivated) are offered nothing, and not listed.
        let allMentors = try await directory.activeMentors()
        var mentors: [User] = []
        var notOffered: [String] = []
        for mentor in allMentors {
            switch try await sender.unavailability(of: mentor) {
            case nil: mentors.append(mentor)
            case .deactivated: continue
            case let .paused(until):
                notOffered.append(strings.mentorNotOfferedPaused(mentor.displayName, until: until, timeZone: osloTimeZone))
            case let .certificationExpired(name, on):
                notOffered.append(strings.mentorNotOfferedExpired(mentor.displayName, certification: name, on: on, timeZone: osloTimeZone))
            }
        }
        let names = try await directory.displayNames()
        let scheduled = try await scheduledSends.waiting(for: identity.user).map { send in
            ScheduledSendRow(
                id: "scheduled-\(send.id)",
                description: strings.scheduledSend(
                    title: send.title, kind: send.kind, recipients: send.recipientIDs.map { names[$0] ?? $0.description }, at: send.sendAt,
                    timeZone: osloTimeZone),
                changePath: "/coordinator/scheduled/\(send.id)", changeLabel: strings.changeScheduledSend(send.title),
                cancelAction: "/coordinator/scheduled/\(send.id)/cancel", cancelLabel: strings.cancelScheduledSend(send.title))
        }
        let model = CoordinatorPage(
            chrome: try await chrome(
                identity, resumePoint: resumePoint, title: strings.coordinatorTools, tab: .send,
                flash: flash(request, language: identity.user.language)),
            heading: strings.coordinatorTools, headingId: "coordinator-heading",
            mentors: mentors.map { MentorOption(id: $0.id, name: $0.displayName, isSelected: $0.id == values?.mentor) },
            recipients: allMentors.map { MentorOption(id: $0.id, name: $0.displayName, isSelected: $0.id == values?.recipient) },
            notOffered: notOffered, hasNotOffered: !notOffered.isEmpty,
            mentorDescribedBy: Self.describedBy([
                values?.mentorError == nil ? nil : "assignment-mentor-error",
                notOffered.isEmpty ? nil : "assignment-not-offered",
            ]),
            kinds: [NotificationKind.certificationExpiry, .pauseConfirmation, .scenarioPrompt].map {
                KindOption(value: $0.rawValue, label: strings.kindName($0), isSelected: $0.rawValue == values?.kind)
            },
            errors: errors, hasErrors: !errors.isEmpty,
            values: values
                ?? CoordinatorValues(
                    title: "", body: "", contactName: "", contactAddress: "", contactPhone: "", contactNotes: "", personalDetails: ""),
            scheduled: scheduled, hasScheduled: !scheduled.isEmpty,
            strings: CoordinatorStrings(
                sendHeading: strings.sendNotification, assignmentHeading: strings.createAssignment, recipient: strings.recipient,
                chooseRecipient: strings.chooseRecipient, chooseMentor: strings.chooseMentor,
                kind: strings.kind, title: strings.titleField, titleHint: strings.titleFieldHint, body: strings.bodyField,
                personalDetails: strings.personalDetailsField, personalDetailsHint: strings.personalDetailsFieldHint,
                urgent: strings.urgentField, sendLaterAt: strings.sendLaterAt, sendLaterOn: strings.sendLaterOn,
                sendLaterHint: strings.sendLaterHint, send: strings.send, scheduledHeading: strings.scheduledSends,
                nothingScheduled: strings.nothingScheduled,
                mentor: strings.mentor, contactName: strings.contactName, contactAddress: strings.address, contactPhone: strings.phone,
                contactNotes: strings.notes, create: strings.create, errorSummary: strings.errorSummary))
        return try renderer.page("coordinator", model, status: status)
    }

    func sendNotification(_ request: Request, context: VarselContext) async throws -> Response {
        let identity = try signedIn(request, context).require(.coordinator, .admin)
        let form = try await PageForm.decode(PageForm.Send.self, from: request)
        let strings = Strings(identity.user.language)
        let recipient = form.recipient.flatMap { UserID($0) }
        var values = CoordinatorValues(
            title: form.title ?? "", body: form.body ?? "", contactName: "", contactAddress: "", contactPhone: "", contactNotes: "",
            personalDetails: form.personalDetails ?? "", recipient: recipient, kind: form.kind, isUrgent: form.urgent == "on",
            sendTime: form.sendTime ?? "", sendDay: form.sendDay ?? "")
        var errors: [FormError] = []
        // Only someone the form offers: a mentor who has not left.
        let offered = try await directory.activeMentors().contains { $0.id == recipient }
        if !offered {
            values.recipientError = strings.chooseRecipient
            errors.append(FormError(field: strings.recipient, fieldId: "send-recipient", message: strings.chooseRecipient))
        }
        // The same rules as the API (``Validation``), shown next to the fields.
        var validated: Validation.ValidNotification?
        do {
            validated = try Validation.notification(
                kind: form.kind ?? "", title: values.title, body: values.body,
                urgency: form.urgent == "on" ? Urgency.urgent.rawValue : nil,
                personalDetails: values.personalDetailPhrases, allowAssignment: false)
        } catch {
            errors += Self.place(
                error.issues, strings: strings, values: &values,
                on: [
                    "title": FormField(label: strings.titleField, id: "send-title", inline: \.titleError),
                    "body": FormField(label: strings.bodyField, id: "send-body", inline: \.bodyError),
                    "personalDetails": FormField(label: strings.personalDetailsField, id: "send-details", inline: \.personalDetailsError),
                ], otherwise: FormField(label: strings.kind, id: "send-kind", inline: \.kindError))
        }
        var sendAt: Date?
        do {
            sendAt = try Validation.sendMoment(time: values.sendTime, day: values.sendDay, now: now(), timeField: "sendAt", dayField: "sendDay")
        } catch {
            errors += Self.place(
                error.issues, strings: strings, values: &values, on: Self.sendLaterFields(strings),
                otherwise: Self.sendLaterFields(strings)["sendAt"]!)
        }
        guard errors.isEmpty, let recipient, let validated else {
            return try await coordinatorPage(request, context, errors: errors, values: values, status: .unprocessableContent)
        }
        guard let sendAt else {
            _ = try await sender.send(validated, from: identity.user.id, to: [recipient])
            return .redirect(to: Flash.sent.added(to: "/coordinator"), type: .normal)
        }
        do {
            _ = try await scheduledSends.schedule(validated, from: identity.user.id, to: [recipient], at: sendAt)
        } catch let invalid as InvalidInput {
            var fields = Self.sendLaterFields(strings)
            fields["personalDetails"] = FormField(label: strings.personalDetailsField, id: "send-details", inline: \.personalDetailsError)
            errors += Self.place(invalid.issues, strings: strings, values: &values, on: fields, otherwise: fields["sendAt"]!)
            return try await coordinatorPage(request, context, errors: errors, values: values, status: .unprocessableContent)
        }
        return .redirect(to: Flash.scheduled.added(to: "/coordinator"), type: .normal)
    }

    /// Where the "send later" fields show their errors: the time (`sendAt`, for the moment as a whole) and the day.
    static func sendLaterFields(_ strings: Strings) -> [String: FormField<CoordinatorValues>] {
        [
            "sendAt": FormField(label: strings.sendLaterAt, id: "send-time", inline: \.sendTimeError),
            "sendDay": FormField(label: strings.sendLaterOn, id: "send-day", inline: \.sendDayError),
        ]
    }

    func createAssignment(_ request: Request, context: VarselContext) async throws -> Response {
        let identity = try signedIn(request, context).require(.coordinator, .admin)
        let form = try await PageForm.decode(PageForm.Assignment.self, from: request)
        let strings = Strings(identity.user.language)
        let mentorID = form.mentor.flatMap { UserID($0) }
        var values = CoordinatorValues(
            title: "", body: "", contactName: form.contactName ?? "", contactAddress: form.contactAddress ?? "",
            contactPhone: form.contactPhone ?? "", contactNotes: form.contactNotes ?? "", personalDetails: "", mentor: mentorID)
        var errors: [FormError] = []
        // Only a mentor the page offers (one who exists, has not left, is not paused and is certified): any other is
        // refused on the mentor's field, so the page never comes back with another mentor chosen in their place.
        var mentor: User?
        if let mentorID, let found = try await directory.mentor(mentorID), try await sender.unavailability(of: found) == nil {
            mentor = found
        } else {
            values.mentorError = strings.chooseMentor
            errors.append(FormError(field: strings.mentor, fieldId: "assignment-mentor", message: strings.chooseMentor))
        }
        // The same rules as the API (``Validation``), shown next to the fields.
        var contact: NewContact?
        do {
            contact = try Validation.contact(
                NewContact(
                    name: values.contactName, phone: values.contactPhone, address: values.contactAddress,
                    notes: values.contactNotes), prefix: "")
        } catch {
            errors += Self.place(
                error.issues, strings: strings, values: &values,
                on: [
                    "name": FormField(label: strings.contactName, id: "assignment-name", inline: \.contactNameError),
                    "address": FormField(label: strings.address, id: "assignment-address", inline: \.contactAddressError),
                    "phone": FormField(label: strings.phone, id: "assignment-phone", inline: \.contactPhoneError),
                ], otherwise: FormField(label: strings.notes, id: "assignment-notes", inline: \.contactNotesError))
        }
        guard errors.isEmpty, let contact, let mentor else {
            return try await coordinatorPage(request, context, errors: errors, values: values, status: .unprocessableContent)
        }
        _ = try await sender.assign(mentor: mentor, coordinatorID: identity.user.id, contact: contact, urgency: .normal)
        return .redirect(to: Flash.assignmentCreated.added(to: "/coordinator"), type: .normal)
    }

    /// An `aria-describedby` value of the ids given, in order; nil when there are none.
    static func describedBy(_ ids: [String?]) -> String? {
        let present = ids.compactMap { $0 }
        return present.isEmpty ? nil : present.joined(separator: " ")
    }

    /// Where a field of a coordinator's form (of `Values`, what the form shows) shows its error: its label, its
    /// element id, and its inline message.
    struct FormField<Values> {
        var label: String
        var id: String
        var inline: WritableKeyPath<Values, String?>?
    }

    /// The error summary's entries for `issues`, each on its field (`otherwise` for the rest), inline messages set.
    static func place<Values>(
        _ issues: [Validation.Issue], strings: Strings, values: inout Values,
        on fields: [String: FormField<Values>], otherwise: FormField<Values>
    ) -> [FormError] {
        issues.map { issue in
            let field = fields[issue.field] ?? otherwise
            let message = formMessage(issue, strings: strings)
            if let inline = field.inline { values[keyPath: inline] = message }
            return FormError(field: field.label, fieldId: field.id, message: message)
        }
    }

    /// A validation message for a form, in the user's language where the core has the words for it.
    static func formMessage(_ issue: Validation.Issue, strings: Strings) -> String {
        switch issue.rule {
        case .required where issue.field == "sendAt": strings.sendTimeRequired
        case .required: strings.required
        case let .tooLong(max): strings.tooLong(max)
        case .namesPersonalDetail: strings.titleNamesPersonalDetail
        case .notADay: strings.invalidDay
        case .notATime: strings.invalidClockTime
        case .notInFuture: strings.sendTimeInFuture
        case .tooFarAhead: strings.sendTimeWithinYear
        case .personalDetailsNotScheduled: strings.personalDetailsSentAtOnce
        case .controlCharacters: strings.noControlCharacters
        case .other where issue.field == "personalDetails":
            strings.personalDetailsRule(count: Limits.maxPersonalDetails, length: Limits.maxTitleLength)
        case .other: issue.message
        }
    }
}
