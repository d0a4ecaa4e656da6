import Foundation
import Hummingbird
import VarselCore
import VarselService
import VarselStore

/// `GET`/`PUT /api/v1/mentors/{id}/certifications`: coordinators record mentors' certifications.
struct CertificationsController {
    let directory: Directory
    let users: UserAdministration

    func addRoutes(to router: some RouterMethods<VarselContext>) {
        router.get("mentors/:id/certifications", use: list)
        router.put("mentors/:id/certifications", use: replace)
    }

    struct CertificationBody: Codable {
        var name: String
        var expiresOn: String
    }

    struct CertificationResource: Encodable {
        var id: Int64
        var name: String
        var expiresAt: Date
    }

    func mentor(_ context: VarselContext) async throws -> User {
        let identity = try context.requireUser()
        let id = try PathID.of(context, as: UserID.self)
        if identity.user.role == .mentor, identity.user.id != id {
            throw Problem.notFound("You have no access to mentor \(id).")
        }
        guard let mentor = try await directory.mentor(id) else {
            throw Problem.notFound("There is no mentor with that id.")
        }
        return mentor
    }

    func list(_ request: Request, context: VarselContext) async throws -> Response {
        let mentor = try await mentor(context)
        let certifications = try await users.certifications(of: mentor.id)
        return try JSONCoding.response(certifications.map { CertificationResource(id: $0.id, name: $0.name, expiresAt: $0.expiresAt) })
    }

    func replace(_ request: Request, context: VarselContext) async throws -> Response {
        let identity = try context.require(.coordinator, .admin)
        let mentor = try await mentor(context)
        let body = try await JSONCoding.decode([CertificationBody].self, from: request)
        var news: [NewCertification] = []
        for (index, entry) in body.enumerated() {
            let name = entry.name.trimmingCharacters(in: .whitespacesAndNewlines)
            let issues = Validation.text(entry.name, field: "[\(index)].name", max: Limits.maxCertificationNameLength)
            guard issues.isEmpty else { throw InvalidInput(issues) }
            news.append(NewCertification(name: name, expiresAt: try Validation.day(entry.expiresOn, field: "[\(index)].expiresOn")))
        }
        let stored = try await users.setCertifications(news, for: mentor.id, by: identity.user)
        return try JSONCoding.response(stored.map { CertificationResource(id: $0.id, name: $0.name, expiresAt: $0.expiresAt) })
    }
}
