import Foundation
import Hummingbird
import VarselCore
import VarselService
import VarselStore

/// Training scenarios: coordinators publish them to all mentors or chosen ones; a mentor reads theirs, marks one
/// done and writes a reflection.
struct ScenariosController {
    let directory: Directory
    let sender: NotificationSender
    let scenarios: ScenarioProgress
    let scheduledSends: ScheduledSends

    func addRoutes(to router: some RouterMethods<VarselContext>) {
        router.get("scenarios", use: list)
        router.post("scenarios", use: publish)
        router.get("scenarios/:id", use: show)
        router.post("scenarios/:id/done", use: done)
    }

    /// A scenario on the wire: for a mentor with their own progress, for a coordinator with every mentor's.
    struct ScenarioResource: Encodable {
        var id: Int64
        var title: String
        var body: String
        var createdAt: Date
        var doneAt: Date?
        var reflection: String?
        var mentors: [MentorProgress]?

        struct MentorProgress: Encodable {
            var mentorId: UserID
            var doneAt: Date?
            var reflection: String
        }

        init(_ copy: MentorScenario) {
            id = copy.scenario.id
            title = copy.scenario.title
            body = copy.scenario.body
            createdAt = copy.scenario.createdAt
            doneAt = copy.doneAt
            reflection = copy.reflection
        }

        init(_ scenario: Scenario, copies: [MentorScenario]) {
            id = scenario.id
            title = scenario.title
            body = scenario.body
            createdAt = scenario.createdAt
            mentors = copies.map { MentorProgress(mentorId: $0.mentorID, doneAt: $0.doneAt, reflection: $0.reflection) }
        }
    }

    func list(_ request: Request, context: VarselContext) async throws -> Response {
        let user = try context.requireUser().user
        if user.role == .mentor {
            return try JSONCoding.response(try await scenarios.scenarios(ofMentor: user.id).map(ScenarioResource.init))
        }
        return try JSONCoding.response(try await scenarios.published(visibleTo: user).map { ScenarioResource($0.0, copies: $0.1) })
    }

    func show(_ request: Request, context: VarselContext) async throws -> Response {
        let user = try context.requireUser().user
        let id = try PathID.of(context)
        if user.role == .mentor {
            guard let copy = try await scenarios.scenarios(ofMentor: user.id).first(where: { $0.scenario.id == id }) else {
                throw Problem.notFound("You have no scenario with that id.")
            }
            return try JSONCoding.response(ScenarioResource(copy))
        }
        guard let (scenario, copies) = try await scenarios.published(visibleTo: user).first(where: { $0.0.id == id }) else {
            throw Problem.notFound("You published no scenario with that id.")
        }
        return try JSONCoding.response(ScenarioResource(scenario, copies: copies))
    }

    struct PublishRequest: Decodable {
        var title: String
        var body: String
        /// The mentors to publish to; absent means every mentor.
        var mentors: [Recipient]?
        /// When to publish it (RFC 3339, in the future, within a year); absent: now.
        var sendAt: String?
    }

    func publish(_ request: Request, context: VarselContext) async throws -> Response {
        let identity = try context.require(.coordinator, .admin)
        let body = try await JSONCoding.decode(PublishRequest.self, from: request)
        let valid = try Validation.scenario(title: body.title, body: body.body)
        let mentors: [User]
        if let chosen = body.mentors {
            mentors = try await RecipientResolver(directory: directory).users(chosen, field: "mentors")
            guard mentors.allSatisfy({ $0.role == .mentor }) else {
                throw RecipientResolver.notAMentor(field: "mentors")
            }
            guard mentors.allSatisfy(\.isActive) else {
                throw Problem.conflict("A mentor in mentors is deactivated: no one reads what is sent to them.")
                    .with(errors: [.init(field: "mentors", message: "deactivated")])
            }
        } else {
            mentors = try await directory.activeMentors()
            guard !mentors.isEmpty else {
                throw Problem.conflict("There are no mentors to publish to.").with(errors: [.init(field: "mentors", message: "empty")])
            }
        }
        if let sendAt = body.sendAt {
            let created = try await scheduledSends.scheduleScenario(
                title: valid.title, body: valid.body, from: identity.user.id, to: mentors.map(\.id), at: try ScheduledSendsController.sendAt(sendAt))
            context.logger.info("scenario scheduled", metadata: ["scheduled_send.id": "\(created.send.id)", "mentor.count": "\(mentors.count)"])
            return try JSONCoding.response(ScheduledSendsController.Resource(created.send), status: .accepted)
        }
        let (scenario, items) = try await sender.publishScenario(title: valid.title, body: valid.body, from: identity.user.id, to: mentors)
        context.logger.info("scenario published", metadata: ["scenario.id": "\(scenario.id)", "notification.count": "\(items.count)"])
        let copies = mentors.map { MentorScenario(scenario: scenario, mentorID: $0.id, doneAt: nil, reflection: "") }
        return try JSONCoding.response(ScenarioResource(scenario, copies: copies), status: .created)
    }

    struct DoneRequest: Decodable { var reflection: String? }

    func done(_ request: Request, context: VarselContext) async throws -> Response {
        let identity = try context.require(.mentor)
        let id = try PathID.of(context)
        let body = try await JSONCoding.decode(DoneRequest.self, from: request)
        let copy = try await scenarios.complete(id, by: identity.user.id, reflection: body.reflection ?? "")
        return try JSONCoding.response(ScenarioResource(copy))
    }
}
