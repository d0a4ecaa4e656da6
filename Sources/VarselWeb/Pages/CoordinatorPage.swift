import Foundation
import HTTPTypes
import Hummingbird
import VarselCore
import VarselService
import VarselStore

/// The coordinator's page: send a notification, create an assignment.
extension PagesController {
    func coordinatorPage(_ request: Request, _ context: VarselContext, errors: [FormError], values: CoordinatorValues?, status: HTTPResponse.Status = .ok) async throws -> Response {
        let identity = try signedIn(request, context).require(.coordinator, .admin)
        let resumePoint = try await self.resumePoint()
        let strings = Strings(identity.user.language)
        // Paused mentors and mentors with an expired certification are not offered an assignment; the page says why.
        let allMentors = try await services.directory.mentors()
        var mentors: [User] = []
        var notOffered: [String] = []
        for mentor in allMentors {
            switch try await services.sender.unavailability(of: mentor) {
            case nil: mentors.append(mentor)
            case let .paused(until):
                notOffered.append(strings.mentorNotOfferedPaused(mentor.displayName, until: until, timeZone: osloTimeZone))
            case let .certificationExpired(name, on):
                notOffered.append(strings.mentorNotOfferedExpired(mentor.displayName, certification: name, on: on, timeZone: osloTimeZone))
            }
        }
        let model = CoordinatorPage(
            chrome: try await chrome(identity, resumePoint: resumePoint, title: strings.coordinatorTools, tab: .send, flash: flash(request, language: identity.user.language)),
            heading: strings.coordinatorTools, headingId: "coordinator-heading",
            mentors: mentors.map { MentorOption(id: $0.id, name: $0.displayName, isSelected: false) },
            recipients: allMentors.map { MentorOption(id: $0.id, name: $0.displayName, isSelected: false) },
            notOffered: notOffered, hasNotOffered: !notOffered.isEmpty,
            kinds: [NotificationKind.certificationExpiry, .pauseConfirmation, .scenarioPrompt].map {
                KindOption(value: $0.rawValue, label: strings.kindName($0), isSelected: false)
            },
            errors: errors, hasErrors: !errors.isEmpty,
            values: values ?? CoordinatorValues(title: "", body: "", contactName: "", contactAddress: "", contactPhone: "", contactNotes: "", personalDetails: ""),
            strings: CoordinatorStrings(
                sendHeading: strings.sendNotification, assignmentHeading: strings.createAssignment, recipient: strings.recipient,
                chooseRecipient: strings.chooseRecipient,
                kind: strings.kind, title: strings.titleField, titleHint: strings.titleFieldHint, body: strings.bodyField,
                personalDetails: strings.personalDetailsField, personalDetailsHint: strings.personalDetailsFieldHint,
                urgent: strings.urgentField, send: strings.send,
                mentor: strings.mentor, contactName: strings.contactName, contactAddress: strings.address, contactPhone: strings.phone,
                contactNotes: strings.notes, create: strings.create, errorSummary: strings.errorSummary))
        return try renderer.page("coordinator", model, status: status)
    }

    func sendNotification(_ request: Request, context: VarselContext) async throws -> Response {
        let identity = try signedIn(request, context).require(.coordinator, .admin)
        let form = try await PageForm.decode(PageForm.Send.self, from: request)
        let strings = Strings(identity.user.language)
        var values = CoordinatorValues(title: form.title ?? "", body: form.body ?? "", contactName: "", contactAddress: "", contactPhone: "", contactNotes: "",
                                       personalDetails: form.personalDetails ?? "")
        var errors: [FormError] = []
        let recipient = form.recipient.flatMap { UserID($0) }
        if recipient == nil {
            values.recipientError = strings.chooseRecipient
            errors.append(FormError(field: strings.recipient, fieldId: "send-recipient", message: strings.chooseRecipient))
        }
        // The same rules as the API (``Validation``), shown next to the fields.
        var validated: Validation.ValidNotification?
        do {
            validated = try Validation.notification(kind: form.kind ?? "", title: values.title, body: values.body,
                                                    urgency: form.urgent == "on" ? Urgency.urgent.rawValue : nil,
                                                    personalDetails: values.personalDetailPhrases, allowAssignment: false)
        } catch {
            errors += Self.place(error.issues, strings: strings, values: &values, on: [
                "title": FormField(label: strings.titleField, id: "send-title", inline: \.titleError),
                "body": FormField(label: strings.bodyField, id: "send-body", inline: \.bodyError),
                "personalDetails": FormField(label: strings.personalDetailsField, id: "send-details", inline: \.personalDetailsError),
            ], otherwise: FormField(label: strings.kind, id: "send-kind"))
        }
        guard errors.isEmpty, let recipient, let validated else {
            return try await coordinatorPage(request, context, errors: errors, values: values, status: .unprocessableContent)
        }
        guard try await services.directory.person(recipient) != nil else { throw Problem.unprocessable("The recipient does not exist.") }
        _ = try await services.sender.send(validated, from: identity.user.id, to: [recipient])
        return .redirect(to: Flash.sent.added(to: "/coordinator"), type: .normal)
    }

    func createAssignment(_ request: Request, context: VarselContext) async throws -> Response {
        let identity = try signedIn(request, context).require(.coordinator, .admin)
        let form = try await PageForm.decode(PageForm.Assignment.self, from: request)
        let strings = Strings(identity.user.language)
        var values = CoordinatorValues(title: "", body: "", contactName: form.contactName ?? "", contactAddress: form.contactAddress ?? "",
                                       contactPhone: form.contactPhone ?? "", contactNotes: form.contactNotes ?? "", personalDetails: "")
        var errors: [FormError] = []
        let mentorID = form.mentor.flatMap { UserID($0) }
        // The same rules as the API (``Validation``), shown next to the fields.
        var contact: NewContact?
        do {
            contact = try Validation.contact(NewContact(name: values.contactName, phone: values.contactPhone, address: values.contactAddress,
                                                        notes: values.contactNotes), prefix: "")
        } catch {
            errors += Self.place(error.issues, strings: strings, values: &values, on: [
                "name": FormField(label: strings.contactName, id: "assignment-name", inline: \.contactNameError),
                "address": FormField(label: strings.address, id: "assignment-address", inline: \.contactAddressError),
                "phone": FormField(label: strings.phone, id: "assignment-phone"),
            ], otherwise: FormField(label: strings.notes, id: "assignment-notes"))
        }
        guard errors.isEmpty, let contact, let mentorID, let mentor = try await services.directory.mentor(mentorID) else {
            return try await coordinatorPage(request, context, errors: errors, values: values, status: .unprocessableContent)
        }
        _ = try await services.sender.assign(mentor: mentor, coordinatorID: identity.user.id, contact: contact, urgency: .normal)
        return .redirect(to: Flash.assignmentCreated.added(to: "/coordinator"), type: .normal)
    }

    /// Where a field of the coordinator's forms shows its error: its label, its element id, and its inline message.
    struct FormField {
        var label: String
        var id: String
        var inline: WritableKeyPath<CoordinatorValues, String?>?
    }

    /// The error summary's entries for `issues`, each on its field (`otherwise` for the rest), inline messages set.
    static func place(_ issues: [Validation.Issue], strings: Strings, values: inout CoordinatorValues,
                      on fields: [String: FormField], otherwise: FormField) -> [FormError] {
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
        case .required: strings.required
        case let .tooLong(max): strings.tooLong(max)
        case .namesPersonalDetail: strings.titleNamesPersonalDetail
        case .notADay: strings.invalidDay
        case .controlCharacters, .other: issue.message
        }
    }
}
