import Foundation
import HTTPTypes
import Hummingbird
import VarselCore
import VarselService
import VarselStore

/// A contact's page, with the assignment dialog, and the mentor's answer to an assignment.
extension PagesController {
    func contact(_ request: Request, context: VarselContext) async throws -> Response {
        let identity = try signedIn(request, context)
        let resumePoint = try await self.resumePoint()
        let id = try NotificationsController.id(context)
        guard let contact = try await services.repository.contact(id: id),
              try await services.contactAccess.canSee(contactID: id, user: identity.user) else {
            throw Problem.notFound("You have no contact with id \(id).")
        }
        try await markFollowedNotificationRead(request, identity)
        let strings = Strings(identity.user.language)
        var assignmentView: AssignmentView?
        let assignmentID = request.uri.queryParameters["assignment"].flatMap { Int64(String($0)) }
        if let assignmentID, let assignment = try await services.repository.assignment(id: assignmentID),
           assignment.contactID == id, assignment.mentorID == identity.user.id {
            // The mentor has now seen their assignment: its notification is read, wherever they came from
            // (the notification, the Assignments tab, Home), and the coordinator's history says so.
            if let notificationID = assignment.notificationID, let item = try await services.repository.notification(id: notificationID),
               item.recipientID == identity.user.id, item.isUnread {
                _ = try await services.inbox.setRead(true, notificationID: notificationID, userID: identity.user.id)
            }
            assignmentView = AssignmentView(
                id: assignment.id, statusText: strings.assignmentStatus(assignment.status.rawValue), isPending: assignment.status == .pending,
                acknowledge: strings.acknowledgeAssignment, decline: strings.declineAssignment, cancel: strings.cancel,
                dialogTitle: strings.acknowledgeDialogTitle, dialogText: strings.acknowledgeDialogText,
                contactId: id,
                showInlineConfirmation: request.uri.queryParameters["confirm"] == "acknowledge")
        }
        let model = DetailPage(
            chrome: try await chrome(identity, resumePoint: resumePoint, title: strings.screenTitle(.contactDetail), tab: .contacts, flash: flash(request, language: identity.user.language)),
            heading: contact.name, headingId: Screen.contactDetail.headingElementID,
            focusHeading: request.uri.queryParameters["from"] == "notification", paragraphs: [],
            contact: ContactView(phoneLabel: strings.phone, phone: contact.phone, addressLabel: strings.address, address: contact.address,
                                 notesLabel: strings.notes, notes: contact.notes, assignment: assignmentView))
        return try renderer.page("detail", model)
    }

    func answer(_ status: AssignmentStatus, _ request: Request, _ context: VarselContext) async throws -> Response {
        let identity = try signedIn(request, context)
        let id = try NotificationsController.id(context)
        guard let assignment = try await services.repository.assignment(id: id), assignment.mentorID == identity.user.id else {
            throw Problem.notFound("You have no assignment with id \(id).")
        }
        do {
            _ = try await services.repository.respond(to: id, status: status, at: services.now())
        } catch StoreError.alreadyResponded {
            // Answering twice changes nothing; the page shows the standing answer.
        }
        let path = "/contacts/\(assignment.contactID)?assignment=\(id)"
        return .redirect(to: Flash(answer: status)?.added(to: path) ?? path, type: .normal)
    }
}
