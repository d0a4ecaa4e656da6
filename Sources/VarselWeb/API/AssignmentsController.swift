import Foundation
import Hummingbird
import VarselCore
import VarselService
import VarselStore

/// Assignments: a coordinator creates one (contact + notification), the assigned mentor acknowledges or declines.
struct AssignmentsController {
    let answers: AssignmentAnswers
    let configuration: VarselServices.Configuration
    let contactAccess: ContactAccess
    let directory: Directory
    let erasure: ContactErasure
    let export: DataExport
    let now: @Sendable () -> Date
    let reports: AssignmentReports
    let sender: NotificationSender

    func addRoutes(to router: some RouterMethods<VarselContext>) {
        router.get("assignments", use: list)
        router.post("assignments", use: create)
        router.get("assignments/:id", use: show)
        router.post("assignments/:id/acknowledge", use: { try await respond(.acknowledged, $0, $1) })
        router.post("assignments/:id/decline", use: { try await respond(.declined, $0, $1) })
        router.post("assignments/:id/done", use: done)
        router.post("assignments/:id/reassign", use: reassign)
        router.get("contacts/:id", use: contact)
        router.get("contacts/:id/reads", use: contactReads)
        router.post("contacts/:id/erase", use: eraseContact)
        router.get("contacts/:id/export", use: exportContact)
    }

    struct CreateRequest: Decodable {
        var mentor: Recipient
        var contact: NewContact
        var urgency: String?
    }

    struct CreateResponse: Encodable {
        var assignment: AssignmentResource
        var notificationId: NotificationID
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
        let mentor = try await RecipientResolver(directory: directory).user(body.mentor, field: "mentor")
        guard mentor.role == .mentor else {
            throw RecipientResolver.notAMentor(field: "mentor")
        }
        let (assignment, stored, item) = try await Self.conflicting {
            try await sender.assign(mentor: mentor, coordinatorID: identity.user.id, contact: contact, urgency: urgency)
        }
        context.logger.info("assignment created", metadata: ["assignment.id": "\(assignment.id)", "notification.id": "\(item.id)"])
        return try JSONCoding.response(
            CreateResponse(assignment: AssignmentResource(assignment, contact: stored), notificationId: item.id),
            status: .created)
    }

    /// An assignment on the dashboard's wire: its state, how long it waited, and its history.
    struct SummaryResource: Encodable {
        var id: AssignmentID
        var contactId: ContactID
        var mentorName: String
        var state: AssignmentProgress
        var createdAt: Date
        var respondedAt: Date?
        var mentorId: UserID
        /// Whether it has waited for an answer past the deadline (`--escalate-after`).
        var overdue: Bool
        var doneAt: Date?
        var visitNote: String?
        /// The row's full accessible name, as the pages say it.
        var accessibleName: String
        var trail: [AssignmentEvent]
    }

    /// `GET /api/v1/assignments`: a mentor's own, the ones a coordinator manages, or all for an admin; the current
    /// assignment of each contact (a reassigned one shows through the one that replaced it, history included).
    /// Filtered as the dashboard is: `show=all|waiting|overdue`, `mentor=<id>`.
    func list(_ request: Request, context: VarselContext) async throws -> Response {
        let identity = try context.requireUser()
        let user = identity.user
        let summaries: [AssignmentSummary] =
            if user.role == .mentor {
                try await reports.mentorSummaries(of: user)
            } else {
                try await reports.managedSummaries(of: user)
            }
        let describer = Describer.shared(user.language)
        let now = now()
        let deadline = configuration.answerDeadline
        let filter = try Self.filter(request.uri.queryParameters)
        return try JSONCoding.response(
            summaries.filter { filter.includes($0, now: now, deadline: deadline) }.map { summary in
                SummaryResource(
                    id: summary.id, contactId: summary.contactID, mentorName: summary.mentorName, state: summary.progress,
                    createdAt: summary.createdAt, respondedAt: summary.respondedAt, mentorId: summary.mentorID,
                    overdue: summary.isOverdue(now: now, deadline: deadline), doneAt: summary.doneAt, visitNote: summary.visitNote,
                    accessibleName: user.role == .mentor
                        ? describer.mentorAssignmentRow(summary, now: now)
                        : describer.coordinatorAssignmentRow(summary, now: now, overdueAfter: deadline),
                    trail: summary.trail)
            })
    }

    /// Runs an assignment to a mentor whose state may refuse it (paused, an expired certification, the assignment's
    /// own mentor): the request was well formed, so the refusal is 409, naming the field.
    static func conflicting<T>(_ work: () async throws -> T) async throws -> T {
        do {
            return try await work()
        } catch let invalid as InvalidInput {
            throw Problem.conflict(invalid.summary).with(errors: invalid.issues.map { .init(field: $0.field, message: $0.message) })
        }
    }

    /// The list's filter, refusing a `show` or `mentor` the document does not allow (the pages ignore them instead).
    static func filter(_ query: Parameters) throws -> AssignmentFilter {
        if let show = query["show"], AssignmentFilter.Show(rawValue: String(show)) == nil {
            throw Problem.badRequest("show must be all, waiting or overdue.", errors: [.init(field: "show", message: "unknown")])
        }
        if let mentor = query["mentor"], (Int64(String(mentor)) ?? 0) < 1 {
            throw Problem.badRequest(
                "mentor must be a positive integer, a mentor's user id.", errors: [.init(field: "mentor", message: "not a user id")])
        }
        return AssignmentFilter(query)
    }

    /// The assignment, if the signed-in user may see it: its mentor, the coordinator who manages it, or an admin.
    func visibleAssignment(_ context: VarselContext) async throws -> (Identity, Assignment) {
        let identity = try context.requireUser()
        let id = try PathID.of(context, as: AssignmentID.self)
        guard let assignment = try await contactAccess.assignment(id), contactAccess.canSee(assignment, user: identity.user) else {
            throw Problem.notFound("You have no assignment with that id.")
        }
        return (identity, assignment)
    }

    /// `GET /api/v1/assignments/{id}`: the assignment, its history, and its contact while the reader may see it.
    func show(_ request: Request, context: VarselContext) async throws -> Response {
        let (identity, assignment) = try await visibleAssignment(context)
        let contact = try await contactAccess.read(
            contactID: assignment.contactID, by: identity.user, through: .assignmentAPI,
            sendsDetails: request.method != .head)
        var resource = AssignmentResource(assignment, contact: contact)
        resource.trail = try await reports.assignmentSummaries([assignment]).first?.trail
        return try JSONCoding.response(resource)
    }

    struct DoneRequest: Decodable { var note: String? }

    /// `POST /api/v1/assignments/{id}/done`: the mentor made the visit; a short note closes the assignment.
    func done(_ request: Request, context: VarselContext) async throws -> Response {
        let (identity, assignment) = try await visibleAssignment(context)
        do {
            try answers.requireGiven(assignment, to: identity.user.id)
        } catch {
            throw Problem.forbidden("Only the assigned mentor can mark the visit done.")
        }
        let body = try await JSONCoding.decode(DoneRequest.self, from: request)
        let done = try await answers.completeVisit(assignment, note: body.note ?? "", by: identity.user.id)
        context.logger.info("visit done", metadata: ["assignment.id": "\(assignment.id)"])
        return try JSONCoding.response(AssignmentResource(done, contact: nil))
    }

    struct ReassignRequest: Decodable { var mentor: Recipient }

    /// `POST /api/v1/assignments/{id}/reassign`: the coordinator who manages it (or an admin) gives the contact to
    /// another mentor, who is notified; the first mentor's access to the contact ends.
    func reassign(_ request: Request, context: VarselContext) async throws -> Response {
        let (identity, assignment) = try await visibleAssignment(context)
        guard contactAccess.canManage(assignment, user: identity.user) else {
            throw Problem.forbidden("Only the coordinator who manages the assignment, or an admin, can reassign it.")
        }
        let body = try await JSONCoding.decode(ReassignRequest.self, from: request)
        let mentor = try await RecipientResolver(directory: directory).user(body.mentor, field: "mentor")
        guard mentor.role == .mentor else {
            throw RecipientResolver.notAMentor(field: "mentor")
        }
        let (new, item) = try await Self.conflicting { try await sender.reassign(assignment, to: mentor, by: identity.user.id) }
        context.logger.info("assignment reassigned", metadata: ["assignment.id": "\(assignment.id)", "assignment.new_id": "\(new.id)"])
        return try JSONCoding.response(CreateResponse(assignment: AssignmentResource(new, contact: nil), notificationId: item.id), status: .created)
    }

    func respond(_ status: AssignmentStatus, _ request: Request, _ context: VarselContext) async throws -> Response {
        let (identity, assignment) = try await visibleAssignment(context)
        let answered: Assignment
        do {
            answered = try await answers.answer(assignment, with: status, by: identity.user.id)
        } catch is AssignmentAnswers.Refusal {
            throw Problem.forbidden("Only the assigned mentor can acknowledge or decline this assignment.")
        }
        context.logger.info("assignment answered", metadata: ["assignment.id": "\(assignment.id)", "assignment.status": "\(status.rawValue)"])
        return try JSONCoding.response(AssignmentResource(answered, contact: nil))
    }

    func contact(_ request: Request, context: VarselContext) async throws -> Response {
        let identity = try context.requireUser()
        let id = try PathID.of(context, as: ContactID.self)
        guard
            let contact = try await contactAccess.read(
                contactID: id, by: identity.user, through: .contactAPI,
                sendsDetails: request.method != .head)
        else {
            throw Problem.notFound("You have no contact with that id.")
        }
        return try JSONCoding.response(ContactResource(contact))
    }

    /// `POST /api/v1/contacts/{id}/erase`: erases the contact's details everywhere, at once.
    func eraseContact(_ request: Request, context: VarselContext) async throws -> Response {
        let identity = try context.requireUser()
        let id = try PathID.of(context, as: ContactID.self)
        let contact = try await erasure.erase(contactID: id, by: identity.user)
        context.logger.info("contact details erased", metadata: ["contact.id": "\(id)"])
        return try JSONCoding.response(ContactResource(contact))
    }

    /// `GET /api/v1/contacts/{id}/export`: everything stored about a visited person, for an admin.
    func exportContact(_ request: Request, context: VarselContext) async throws -> Response {
        let identity = try context.requireUser()
        let id = try PathID.of(context, as: ContactID.self)
        let data = try await export.contactData(id, for: identity.user, sendsDetails: request.method != .head)
        return try JSONCoding.response(
            data, headers: [.cacheControl: "no-store", .contentDisposition: "attachment; filename=\"varsel-contact-\(id).json\""])
    }

    struct ContactReadResource: Encodable {
        var userId: UserID
        var channel: ContactReadChannel
        var at: Date
    }

    /// `GET /api/v1/contacts/{id}/reads`: who read the contact's details, for its coordinator and admins.
    func contactReads(_ request: Request, context: VarselContext) async throws -> Response {
        let identity = try context.requireUser()
        let id = try PathID.of(context, as: ContactID.self)
        guard let reads = try await contactAccess.reads(of: id, for: identity.user) else {
            throw Problem.notFound("You have no contact with that id.")
        }
        return try JSONCoding.response(reads.map { ContactReadResource(userId: $0.userID, channel: $0.channel, at: $0.at) })
    }
}
