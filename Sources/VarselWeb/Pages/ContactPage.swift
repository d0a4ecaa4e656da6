import Foundation
import HTTPTypes
import Hummingbird
import VarselCore
import VarselService
import VarselStore

/// A contact's page, which is also the assignment's page: for the mentor, the assignment dialog and the visit-done
/// form; for the coordinator who manages it, its state, history, visit note and the reassignment form.
struct ContactPages: PageScreen {
    let frame: PageFrame
    let answers: AssignmentAnswers
    let configuration: VarselServices.Configuration
    let contactAccess: ContactAccess
    let directory: Directory
    let erasure: ContactErasure
    let now: @Sendable () -> Date
    let reports: AssignmentReports
    let sender: NotificationSender
    let channels: ContactChannels
}

extension ContactPages {
    func addRoutes(to router: Router<VarselContext>) {
        router.get("contacts/:id", use: contact)
        router.post("contacts/:id/erase", use: eraseContact)
        router.post("assignments/:id/acknowledge", use: { try await answer(.acknowledged, $0, $1) })
        router.post("assignments/:id/decline", use: { try await answer(.declined, $0, $1) })
        router.post("assignments/:id/done", use: visitDone)
        router.post("assignments/:id/reassign", use: reassign)
    }

    func contact(_ request: Request, context: VarselContext) async throws -> Response {
        try await contactPage(
            request, context, contactID: try PathID.of(context, as: ContactID.self),
            assignmentID: request.uri.queryParameters["assignment"].flatMap { AssignmentID(String($0)) })
    }

    /// The contact's page, as the assignment `assignmentID` shows it; after a refused visit-done form, with the note
    /// as typed and what is wrong with it.
    func contactPage(
        _ request: Request, _ context: VarselContext, contactID id: ContactID, assignmentID: AssignmentID?,
        visitNote: (text: String, errors: [FormError])? = nil, status: HTTPResponse.Status = .ok
    ) async throws -> Response {
        let identity = try signedIn(request, context)
        let resumePoint = try await self.resumePoint()
        guard
            let contact = try await contactAccess.read(
                contactID: id, by: identity.user, through: .contactPage,
                sendsDetails: request.method != .head)
        else {
            // A mentor following an old notification of an assignment that has closed learns why, without the
            // contact's details.
            if let assignmentID, let closed = try await contactAccess.assignment(assignmentID),
                closed.contactID == id, closed.mentorID == identity.user.id, !closed.isLive
            {
                try await markFollowedNotificationRead(request, identity)
                return try await closedAssignmentPage(closed, request, identity, resumePoint: resumePoint)
            }
            throw Problem.notFound("You have no contact with that id.")
        }
        try await markFollowedNotificationRead(request, identity)
        let user = identity.user
        let describer = Describer.shared(user.language)
        let strings = describer.strings
        var assignmentView: AssignmentView?
        var manageView: ManageView?
        let isRemoved = contact.erasedAt != nil
        if let assignmentID, let assignment = try await contactAccess.assignment(assignmentID), assignment.contactID == id {
            if assignment.mentorID == user.id, assignment.isLive, !isRemoved {
                // The mentor has now seen their assignment: its notification is read, wherever they came from
                // (the notification, the Assignments tab, Home), and the coordinator's history says so.
                if request.method != .head, let notificationID = assignment.notificationID,
                    let item = try await inbox.item(notificationID, of: user.id),
                    item.isUnread
                {
                    _ = try await inbox.setRead(true, notificationID: notificationID, userID: user.id)
                }
                assignmentView = AssignmentView(
                    id: assignment.id, statusText: strings.assignmentStatus(assignment.status.rawValue), isPending: assignment.status == .pending,
                    acknowledge: strings.acknowledgeAssignment, decline: strings.declineAssignment, cancel: strings.cancel,
                    dialogTitle: strings.acknowledgeDialogTitle, dialogText: strings.acknowledgeDialogText,
                    contactId: id,
                    showInlineConfirmation: request.uri.queryParameters["confirm"] == "acknowledge",
                    isAcknowledged: assignment.status == .acknowledged, markDone: strings.markVisitDone,
                    noteLabel: strings.visitNoteField, noteHint: strings.visitNoteHint,
                    note: visitNote?.text ?? "", noteError: visitNote?.errors.first?.message)
            } else if contactAccess.canManage(assignment, user: user) {
                // An old link (an escalation notice, say) to an assignment since given to another mentor shows the
                // one that replaced it, whose history includes it.
                manageView = try await managedAssignment(
                    try await reports.currentAssignment(replacing: assignment), for: user, describer: describer)
            }
        }
        let mayErase = isRemoved ? false : try await erasure.mayErase(contactID: id, user: user)
        let model = DetailPage(
            chrome: try await chrome(
                identity, resumePoint: resumePoint, title: strings.screenTitle(.contactDetail),
                tab: user.role == .mentor ? .contacts : nil, flash: flash(request, language: user.language)),
            heading: contact.erasedAt == nil ? contact.name : strings.detailsRemovedTitle, headingId: Screen.contactDetail.headingElementID,
            focusHeading: request.uri.queryParameters["from"] == "notification",
            paragraphs: contact.erasedAt.map { [strings.detailsRemovedText(on: $0, timeZone: osloTimeZone)] } ?? [],
            contact: ContactView(
                phoneLabel: strings.phone, phone: contact.phone, addressLabel: strings.address, address: contact.address,
                notesLabel: strings.notes, notes: contact.notes, assignment: assignmentView, manage: manageView,
                reads: try await readsView(of: contact.id, for: user, strings: strings), isRemoved: isRemoved,
                erase: mayErase
                    ? EraseView(
                        contactId: id, assignmentId: assignmentID, label: strings.eraseButton,
                        title: strings.eraseDialogTitle(contact.name), text: strings.eraseDialogText,
                        confirm: strings.eraseConfirm, cancel: strings.cancel,
                        isInline: request.uri.queryParameters["confirm"] == "erase") : nil,
                download: user.role == .admin ? LinkItem(text: strings.downloadContactData, href: "/api/v1/contacts/\(id)/export") : nil),
            errors: visitNote?.errors ?? [], hasErrors: visitNote?.errors.isEmpty == false,
            strings: ErrorSummaryStrings(errorSummary: strings.errorSummary))
        return try renderer.page("detail", model, status: status)
    }

    /// Erases the contact's details (the dialog's confirmation), then shows the page saying they were removed.
    func eraseContact(_ request: Request, context: VarselContext) async throws -> Response {
        let identity = try signedIn(request, context)
        let id = try PathID.of(context, as: ContactID.self)
        let form = try await PageForm.decode(PageForm.Erase.self, from: request)
        try await erasure.erase(contactID: id, by: identity.user)
        let assignment = form.assignment.flatMap { AssignmentID($0) }.map { "?assignment=\($0)" } ?? ""
        return .redirect(to: Flash.erased.added(to: "/contacts/\(id)" + assignment), type: .normal)
    }

    /// Who read the contact's details, newest first, when `user` may see that.
    func readsView(of contactID: ContactID, for user: User, strings: Strings) async throws -> ContactReadsView? {
        guard let reads = try await contactAccess.reads(of: contactID, for: user) else { return nil }
        var names: [UserID: String] = [:]
        for read in reads where names[read.userID] == nil {
            names[read.userID] = try await directory.person(read.userID)?.displayName ?? "#\(read.userID)"
        }
        return ContactReadsView(
            heading: strings.contactReadsHeading,
            lines: reads.reversed().map {
                strings.contactReadLine(by: names[$0.userID] ?? "", through: $0.channel, at: $0.at, timeZone: osloTimeZone)
            })
    }

    /// The page for an assignment that is no longer the mentor's: given to someone else, declined, or done.
    func closedAssignmentPage(_ assignment: Assignment, _ request: Request, _ identity: Identity, resumePoint: Int64) async throws -> Response {
        let strings = Strings(identity.user.language)
        var text =
            assignment.reassignedAt != nil
            ? strings.noLongerYours
            : assignment.status == .done ? strings.doneStatus : strings.assignmentStatus(assignment.status.rawValue)
        if let erasedAt = try await contactAccess.erasedAt(contactID: assignment.contactID) {
            text += " " + strings.detailsRemovedText(on: erasedAt, timeZone: osloTimeZone)
        }
        let title = strings.screenTitle(.contactDetail)
        let model = DetailPage(
            chrome: try await chrome(
                identity, resumePoint: resumePoint, title: title, tab: .contacts, flash: flash(request, language: identity.user.language)),
            heading: title, headingId: Screen.contactDetail.headingElementID,
            focusHeading: request.uri.queryParameters["from"] == "notification", paragraphs: [text], contact: nil)
        return try renderer.page("detail", model)
    }

    /// What the coordinator sees of an assignment on its page: the row's full name, its history, the visit note,
    /// and the mentors it can be given to (and why others are not offered).
    func managedAssignment(_ assignment: Assignment, for user: User, describer: Describer) async throws -> ManageView {
        let strings = describer.strings
        let now = now()
        guard let summary = try await reports.assignmentSummaries([assignment]).first else { throw Problem.notFound("No such assignment.") }
        var options: [MentorOption] = []
        var notOffered: [String] = []
        if assignment.refusalToReassign == nil {
            for mentor in try await directory.activeMentors() where mentor.id != assignment.mentorID {
                switch try await sender.unavailability(of: mentor) {
                case nil: options.append(MentorOption(id: mentor.id, name: mentor.displayName, isSelected: false))
                case .deactivated: continue
                case let .paused(until):
                    notOffered.append(strings.mentorNotOfferedPaused(mentor.displayName, until: until, timeZone: osloTimeZone))
                case let .certificationExpired(name, on):
                    notOffered.append(strings.mentorNotOfferedExpired(mentor.displayName, certification: name, on: on, timeZone: osloTimeZone))
                }
            }
        }
        // While the mentor's quiet hours hold its notification, the coordinator sees until when.
        var heldUntil: Date?
        if summary.progress == .waitingForAnswer, let notificationID = assignment.notificationID {
            heldUntil = try await channels.heldUntil(notificationID: notificationID)
        }
        return ManageView(
            assignmentId: assignment.id,
            quietNote: heldUntil.map { strings.heldForQuietHours(until: Self.clock($0)) },
            state: describer.coordinatorAssignmentRow(summary, now: now, overdueAfter: configuration.answerDeadline),
            trailHeading: strings.trailHeading, trail: summary.trail.map(describer.trailLine),
            noteHeading: strings.visitNoteHeading, note: summary.visitNote,
            canReassign: assignment.refusalToReassign == nil && !options.isEmpty && summary.detailsRemovedAt == nil,
            reassignHeading: strings.reassignHeading,
            mentorLabel: strings.mentor, mentors: options, notOffered: notOffered, hasNotOffered: !notOffered.isEmpty,
            reassign: strings.reassignButton)
    }

    /// `07:00`: a time of day in Oslo.
    static func clock(_ date: Date) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = osloTimeZone
        let parts = calendar.dateComponents([.hour, .minute], from: date)
        return QuietHours.clock((parts.hour ?? 0) * 60 + (parts.minute ?? 0))
    }

    /// The mentor's answer from the contact page or the Assignments list. An acknowledgement comes back to the
    /// contact; a decline ends the mentor's access to the contact, so it goes to the Assignments list.
    func answer(_ status: AssignmentStatus, _ request: Request, _ context: VarselContext) async throws -> Response {
        let identity = try signedIn(request, context)
        let id = try PathID.of(context, as: AssignmentID.self)
        let assignment: Assignment
        do {
            assignment = try await answers.assignment(id, givenTo: identity.user.id)
        } catch is AssignmentAnswers.Refusal {
            throw Problem.notFound("You have no assignment with that id.")
        }
        do {
            _ = try await answers.answer(assignment, with: status, by: identity.user.id)
        } catch StoreError.alreadyResponded {
            // Answering twice changes nothing; the page shows the standing answer.
        }
        let path = status == .acknowledged ? "/contacts/\(assignment.contactID)?assignment=\(id)" : "/assignments"
        return .redirect(to: Flash(answer: status)?.added(to: path) ?? path, type: .normal)
    }

    /// The mentor marks an acknowledged visit done with a short note; the assignment closes.
    func visitDone(_ request: Request, context: VarselContext) async throws -> Response {
        let identity = try signedIn(request, context).require(.mentor)
        let id = try PathID.of(context, as: AssignmentID.self)
        let form = try await PageForm.decode(PageForm.VisitDone.self, from: request)
        do {
            _ = try await answers.completeVisit(id, note: form.note ?? "", by: identity.user.id)
        } catch is AssignmentAnswers.Refusal {
            throw Problem.notFound("You have no assignment with that id.")
        } catch let invalid as InvalidInput {
            // The note breaks a rule: the page again, the note as typed, the rule beside it; unless the page no longer
            // has the form (the visit not acknowledged, or the details erased), where the refusal stands as it is.
            let strings = Strings(identity.user.language)
            let assignment = try await answers.assignment(id, givenTo: identity.user.id)
            guard assignment.status == .acknowledged, assignment.isLive,
                try await contactAccess.erasedAt(contactID: assignment.contactID) == nil
            else { throw invalid }
            let errors = invalid.issues.map {
                FormError(field: strings.visitNoteField, fieldId: "visit-note", message: CoordinatorPages.formMessage($0, strings: strings))
            }
            return try await contactPage(
                request, context, contactID: assignment.contactID, assignmentID: id,
                visitNote: (form.note ?? "", errors), status: .unprocessableContent)
        }
        return .redirect(to: Flash.visitDone.added(to: "/assignments"), type: .normal)
    }

    /// The coordinator gives the assignment to another mentor, who is notified; the first mentor's access ends.
    func reassign(_ request: Request, context: VarselContext) async throws -> Response {
        let identity = try signedIn(request, context).require(.coordinator, .admin)
        let id = try PathID.of(context, as: AssignmentID.self)
        let form = try await PageForm.decode(PageForm.Reassign.self, from: request)
        guard let assignment = try await contactAccess.assignment(id), contactAccess.canManage(assignment, user: identity.user)
        else {
            throw Problem.notFound("You manage no assignment with that id.")
        }
        guard let mentorID = form.mentor.flatMap({ UserID($0) }), let mentor = try await directory.person(mentorID) else {
            throw Problem.unprocessable("Choose the mentor to give the assignment to.", errors: [.init(field: "mentor", message: "required")])
        }
        let (new, _) = try await sender.reassign(assignment, to: mentor, by: identity.user.id)
        return .redirect(to: Flash.reassigned.added(to: "/contacts/\(new.contactID)?assignment=\(new.id)"), type: .normal)
    }
}

/// The coordinator's part of an assignment's page.
/// The coordinator's button that erases the contact's details, and its confirmation dialog (inline without script).
struct EraseView {
    var contactId: ContactID
    var assignmentId: AssignmentID?
    var label: String
    var title: String
    var text: String
    var confirm: String
    var cancel: String
    var isInline: Bool
}

struct ManageView {
    var assignmentId: AssignmentID
    /// While the mentor's quiet hours hold the notification: until when.
    var quietNote: String?
    var state: String
    var trailHeading: String
    var trail: [String]
    var noteHeading: String
    var note: String?
    var canReassign: Bool
    var reassignHeading: String
    var mentorLabel: String
    var mentors: [MentorOption]
    var notOffered: [String]
    var hasNotOffered: Bool
    var reassign: String
}
