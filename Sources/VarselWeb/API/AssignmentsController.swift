import Foundation
import Hummingbird
import VarselCore
import VarselService
import VarselStore

/// Assignments: a coordinator creates one (contact + notification), the assigned mentor acknowledges or declines.
struct AssignmentsController {
    let services: VarselServices

    func addRoutes(to router: some RouterMethods<VarselContext>) {
        router.get("assignments", use: list)
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

    /// An assignment on the dashboard's wire: its state, how long it waited, and its history.
    struct SummaryResource: Encodable {
        var id: Int64
        var contactId: Int64
        var mentorName: String
        var state: AssignmentProgress
        var createdAt: Date
        var respondedAt: Date?
        /// The row's full accessible name, as the pages say it.
        var accessibleName: String
        var trail: [AssignmentEvent]
    }

    /// `GET /api/v1/assignments`: a mentor's own, the ones a coordinator created, or all for an admin.
    func list(_ request: Request, context: VarselContext) async throws -> Response {
        let identity = try context.requireUser()
        let user = identity.user
        let assignments: [Assignment] = switch user.role {
        case .mentor: try await services.repository.assignments(forMentor: user.id)
        case .coordinator: try await services.repository.allAssignments().filter { $0.coordinatorID == user.id }
        case .admin: try await services.repository.allAssignments()
        }
        let describer = services.describer(user.language)
        let now = services.now()
        let summaries = try await services.assignmentSummaries(assignments)
        return try JSONCoding.response(summaries.map { summary in
            SummaryResource(id: summary.id, contactId: summary.contactID, mentorName: summary.mentorName, state: summary.progress,
                            createdAt: summary.createdAt, respondedAt: summary.respondedAt,
                            accessibleName: user.role == .mentor ? describer.mentorAssignmentRow(summary, now: now)
                                : describer.coordinatorAssignmentRow(summary, now: now),
                            trail: summary.trail)
        })
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
