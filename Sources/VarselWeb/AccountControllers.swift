import Foundation
import Hummingbird
import VarselCore
import VarselStore

/// `GET`/`PUT /api/v1/preferences`: the signed-in user's own notification preferences.
struct PreferencesController {
    let services: VarselServices

    func addRoutes(to router: some RouterMethods<VarselContext>) {
        router.get("preferences", use: show)
        router.put("preferences", use: update)
    }

    func show(_ request: Request, context: VarselContext) async throws -> Response {
        let identity = try context.requireUser()
        return try JSONCoding.response(PreferencesResource(try await services.repository.preferences(for: identity.user.id)))
    }

    func update(_ request: Request, context: VarselContext) async throws -> Response {
        let identity = try context.requireUser()
        let body = try await JSONCoding.decode(PreferencesResource.self, from: request)
        let preferences = try Validation.preferences(body)
        try await services.repository.setPreferences(preferences, for: identity.user.id)
        services.broker.preferencesChanged(userID: identity.user.id)
        return try JSONCoding.response(PreferencesResource(preferences))
    }
}

/// `GET`/`POST /api/v1/users`: user administration, for admins.
struct UsersController {
    let services: VarselServices

    func addRoutes(to router: some RouterMethods<VarselContext>) {
        router.get("users", use: list)
        router.post("users", use: create)
    }

    struct CreateRequest: Decodable {
        var username: String
        var password: String
        var role: String
        var displayName: String?
        var locale: String?
    }

    func list(_ request: Request, context: VarselContext) async throws -> Response {
        _ = try context.require(.admin, .coordinator)
        return try JSONCoding.response(try await services.repository.users().map(UserResource.init))
    }

    func create(_ request: Request, context: VarselContext) async throws -> Response {
        _ = try context.require(.admin)
        let body = try await JSONCoding.decode(CreateRequest.self, from: request)
        let user = try await UserAdministration(repository: services.repository, passwords: services.passwords)
            .add(username: body.username, password: body.password, role: body.role, displayName: body.displayName,
                 locale: body.locale, at: services.now())
        return try JSONCoding.response(UserResource(user), status: .created)
    }
}

/// Adding users, shared by the API and the `varsel user add` command.
public struct UserAdministration: Sendable {
    let repository: any VarselRepository
    let passwords: PasswordHasher

    public init(repository: any VarselRepository, passwords: PasswordHasher) {
        self.repository = repository
        self.passwords = passwords
    }

    /// Validates and creates a user; throws a ``Problem`` describing every invalid field.
    public func add(username: String, password: String, role: String, displayName: String?, locale: String?, at date: Date) async throws -> User {
        var errors: [Problem.FieldError] = []
        let name = username.trimmingCharacters(in: .whitespaces)
        if name.range(of: "^[A-Za-z0-9._-]{2,64}$", options: .regularExpression) == nil {
            errors.append(.init(field: "username", message: "2 to 64 letters, digits, '.', '_' or '-'"))
        }
        errors += Validation.password(password, field: "password").map(\.fieldError)
        let parsedRole = Role(rawValue: role)
        if parsedRole == nil { errors.append(.init(field: "role", message: "must be mentor, coordinator or admin")) }
        let language = locale.map { Language(tag: $0) } ?? .english
        if language == nil { errors.append(.init(field: "locale", message: "must be en or nb")) }
        let display = (displayName ?? name).trimmingCharacters(in: .whitespaces)
        errors += Validation.text(display, field: "displayName", max: Limits.maxDisplayNameLength).map(\.fieldError)
        guard errors.isEmpty, let parsedRole, let language else { throw Problem.unprocessable(Validation.summary(errors), errors: errors) }
        let hash = try await passwords.hash(password)
        return try await repository.createUser(
            NewUser(username: name, displayName: display, role: parsedRole, passwordHash: hash, language: language), at: date)
    }
}
