import Foundation
import Hummingbird
import VarselCore
import VarselService
import VarselStore

/// `/api/v1/users`: people and their accounts. Coordinators manage mentors, admins everyone
/// (``UserAdministration`` decides); `POST /api/v1/password` lets a new person choose their password with the code
/// of their one-time link.
struct UsersController {
    let configuration: VarselServices.Configuration
    let now: @Sendable () -> Date
    let users: UserAdministration
    let pushSubscriptions: PushSubscriptions

    func addRoutes(to router: some RouterMethods<VarselContext>) {
        router.get("users", use: list)
        router.post("users", use: create)
        router.get("users/:id", use: show)
        router.get("users/:id/changes", use: changes)
        router.post("users/:id/password-link", use: issueLink)
        router.post("users/:id/deactivate", use: { try await setActive(false, $0, $1) })
        router.post("users/:id/reactivate", use: { try await setActive(true, $0, $1) })
        router.put("users/:id/role", use: changeRole)
        router.post("password", use: choosePassword)
    }

    struct CreateRequest: Decodable {
        var username: String
        /// Given only by an admin creating an account with a password; without it the person gets a one-time link.
        var password: String?
        var role: String
        var displayName: String?
        var locale: String?
    }

    struct LinkResource: Encodable {
        /// The link to pass on; it works once, until `expiresAt`, and is shown only in this answer.
        var url: String
        /// The link's last part, to read aloud: typed at `/password`.
        var code: String
        var expiresAt: Date
    }

    struct InvitedResource: Encodable {
        var user: UserResource
        var setPasswordLink: LinkResource
    }

    struct PersonResource: Encodable {
        var user: UserResource
        /// The core's sentence for the person, as the people list says it.
        var summary: String
        var certifications: [CertificationsController.CertificationResource]
        var liveAssignmentIds: [AssignmentID]
    }

    struct ChangeResource: Encodable {
        var action: AccountAction
        var subject: String
        var date: Date?
        var at: Date
        /// Who made the change; absent for the command line.
        var actorId: UserID?
    }

    struct RoleRequest: Decodable { var role: String }

    struct ChoosePasswordRequest: Decodable {
        var code: String
        var password: String
    }

    func list(_ request: Request, context: VarselContext) async throws -> Response {
        let identity = try context.require(.admin, .coordinator)
        let now = now()
        let filter =
            try request.uri.queryParameters["show"].map { raw in
                guard let filter = PersonFilter(rawValue: String(raw)) else {
                    throw Problem.badRequest("show must be one of: \(PersonFilter.allCases.map(\.rawValue).joined(separator: ", ")).")
                }
                return filter
            } ?? .all
        let people = try await users.people(for: identity.user).filter { filter.includes($0.summary(now: now), now: now) }
        return try JSONCoding.response(people.map { UserResource($0.user) })
    }

    func create(_ request: Request, context: VarselContext) async throws -> Response {
        let identity = try context.require(.admin, .coordinator)
        let body = try await JSONCoding.decode(CreateRequest.self, from: request)
        if let password = body.password {
            _ = try identity.require(.admin)
            let user = try await users.add(
                username: body.username, password: password, role: body.role, displayName: body.displayName,
                locale: body.locale, at: now())
            return try JSONCoding.response(UserResource(user), status: .created)
        }
        let issued = try await users.invite(
            username: body.username, displayName: body.displayName, role: body.role, locale: body.locale,
            by: identity.user)
        context.logger.info("person added", metadata: ["person.id": "\(issued.user.id)"])
        return try JSONCoding.response(
            InvitedResource(user: UserResource(issued.user), setPasswordLink: link(issued, request)), status: .created,
            headers: [.cacheControl: "no-store"])
    }

    func show(_ request: Request, context: VarselContext) async throws -> Response {
        let identity = try context.require(.admin, .coordinator)
        let (person, _) = try await users.details(of: try PathID.of(context, as: UserID.self), for: identity.user)
        let now = now()
        return try JSONCoding.response(
            PersonResource(
                user: UserResource(person.user),
                summary: Describer.shared(identity.user.language).personRow(
                    try await pushSubscriptions.markingDevices([person.summary(now: now)])[0], now: now, timeZone: osloTimeZone),
                certifications: person.certifications.map { .init(id: $0.id, name: $0.name, expiresAt: $0.expiresAt) },
                liveAssignmentIds: person.liveAssignments.map(\.id)))
    }

    func changes(_ request: Request, context: VarselContext) async throws -> Response {
        let identity = try context.require(.admin, .coordinator)
        let log = try await users.log(of: try PathID.of(context, as: UserID.self), for: identity.user)
        return try JSONCoding.response(
            log.map { ChangeResource(action: $0.action, subject: $0.subject, date: $0.date, at: $0.at, actorId: $0.actorID) })
    }

    func issueLink(_ request: Request, context: VarselContext) async throws -> Response {
        let identity = try context.require(.admin, .coordinator)
        let issued = try await users.issueLink(for: try PathID.of(context, as: UserID.self), by: identity.user)
        context.logger.info("set-password link made", metadata: ["person.id": "\(issued.user.id)"])
        return try JSONCoding.response(link(issued, request), status: .created, headers: [.cacheControl: "no-store"])
    }

    func setActive(_ active: Bool, _ request: Request, _ context: VarselContext) async throws -> Response {
        let identity = try context.require(.admin, .coordinator)
        let id = try PathID.of(context, as: UserID.self)
        let outcome = active ? try await users.reactivate(id, by: identity.user) : try await users.deactivate(id, by: identity.user)
        context.logger.info(
            active ? "person reactivated" : "person deactivated",
            metadata: ["person.id": "\(id)", "sessions.ended": "\(outcome.endedSessions.count)"])
        return try JSONCoding.response(UserResource(outcome.user))
    }

    func changeRole(_ request: Request, context: VarselContext) async throws -> Response {
        let identity = try context.require(.admin)
        let body = try await JSONCoding.decode(RoleRequest.self, from: request)
        guard let role = Role(rawValue: body.role) else {
            throw InvalidInput([.init(field: "role", rule: .other("must be mentor, coordinator or admin"))])
        }
        let outcome = try await users.changeRole(of: try PathID.of(context, as: UserID.self), to: role, by: identity.user)
        return try JSONCoding.response(UserResource(outcome.user))
    }

    /// `POST /api/v1/password`: anonymous; the code proves who it is for.
    func choosePassword(_ request: Request, context: VarselContext) async throws -> Response {
        let body = try await JSONCoding.decode(ChoosePasswordRequest.self, from: request)
        _ = try await users.choosePassword(code: body.code, password: body.password, repeated: body.password)
        return Response(status: .noContent)
    }

    func link(_ issued: UserAdministration.IssuedLink, _ request: Request) -> LinkResource {
        let site = PeoplePages.site(configuration.publicURL, request: request)
        return LinkResource(url: "\(site.origin)/password/\(issued.code)", code: issued.code, expiresAt: issued.expiresAt)
    }
}
