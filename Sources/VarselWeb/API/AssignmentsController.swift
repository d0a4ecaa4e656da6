import Foundation
import Hummingbird
import VarselCore
import VarselService
import VarselStore

/// Assignments: a coordinator creates one (contact + notification), the assigned mentor acknowledges or declines.
struct AssignmentsController {
    let services: VarselServices

    func addRoutes(to router: some RouterMethods<VarselContext>) {
        router.post("assignments", use: create)
        router.get("assignments/:id", use: show)
        router.post("assignments/:id/acknowledge", use: { try await respond(.acknowledged, $0, $1) })
        router.post("assignments/:id/decline", use: { try await respond(.declined, $0, $1) })
        router.get("contacts/:id", use: contact)
    }

    struct CreateRequest: Decodable {
        var mentor: NotificationsController.Recipient
        var contact: NewContact
        var urgency: String?
    }

    struct CreateResponse: Encodable {
        var assignment: AssignmentResource
        var notificationId: Int64
    }

    func create(_ request: Request, context: VarselContext) async throws -> Response {
        let identity = try context.require(.coordinator, .admin)
        let body = try await JSONCoding.decode(CreateRequest.self, from: request)
        var issues: [Validation.Issue] = []
        var contact = body.contact
        var urgency = Urgency.normal
        do { contact = try Validation.contact(body.contact) } catch { issues += error.issues }
        do { urgency = try Validation.urgency(body.urgency) } catch { issues += error.issues }
        guard issues.isEmpty else { throw InvalidInput(issues) }
        guard let mentor = try await NotificationsController(services: services).resolve([body.mentor]).first, mentor.role == .mentor else {
            throw Problem.unprocessable("mentor must name a user with the mentor role.", errors: [.init(field: "mentor", message: "not a mentor")])
        }
        let (assignment, stored, item) = try await services.sender.assign(mentor: mentor, coordinatorID: identity.user.id, contact: contact, urgency: urgency)
        context.logger.info("assignment created", metadata: ["assignment.id": "\(assignment.id)", "notification.id": "\(item.id)"])
        return try JSONCoding.response(CreateResponse(assignment: AssignmentResource(assignment, contact: stored), notificationId: item.id),
                                       status: .created)
    }

    /// The assignment, if the signed-in user may see it: its mentor, or a coordinator or admin.
    func visibleAssignment(_ context: VarselContext) async throws -> (Identity, Assignment) {
        let identity = try context.requireUser()
        let id = try NotificationsController.id(context)
        guard let assignment = try await services.repository.assignment(id: id),
              assignment.mentorID == identity.user.id || identity.user.role != .mentor else {
            throw Problem.notFound("You have no assignment with id \(id).")
        }
        return (identity, assignment)
    }

    func show(_ request: Request, context: VarselContext) async throws -> Response {
        let (_, assignment) = try await visibleAssignment(context)
        let contact = try await services.repository.contact(id: assignment.contactID)
        return try JSONCoding.response(AssignmentResource(assignment, contact: contact))
    }

    func respond(_ status: AssignmentStatus, _ request: Request, _ context: VarselContext) async throws -> Response {
        let (identity, assignment) = try await visibleAssignment(context)
        guard assignment.mentorID == identity.user.id else {
            throw Problem.forbidden("Only the assigned mentor can acknowledge or decline this assignment.")
        }
        let answered = try await services.repository.respond(to: assignment.id, status: status, at: services.now())
        context.logger.info("assignment answered", metadata: ["assignment.id": "\(assignment.id)", "assignment.status": "\(status.rawValue)"])
        return try JSONCoding.response(AssignmentResource(answered, contact: nil))
    }

    func contact(_ request: Request, context: VarselContext) async throws -> Response {
        let identity = try context.requireUser()
        let id = try NotificationsController.id(context)
        guard let contact = try await services.repository.contact(id: id),
              try await services.contactAccess.canSee(contactID: id, user: identity.user) else {
            throw Problem.notFound("You have no contact with id \(id).")
        }
        return try JSONCoding.response(ContactResource(contact))
    }
}
