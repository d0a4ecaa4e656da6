import Foundation
import OpenAPIRuntime

/// What the member system asks Varsel, through the client generated from Varsel's OpenAPI document.
struct VarselCaseClient {
    /// The generated client.
    let client: Client

    /// The mentor with this username among the people the token's user manages.
    func mentor(username: String) async throws -> Components.Schemas.User {
        let output = try await call("listing the people") { try await client.listUsers() }
        let people: [Components.Schemas.User]
        switch output {
        case .ok(let answer): people = try answer.body.json
        case .badRequest(let problem): throw MemberSystemFailure.refused("listing the people", status: 400, problem: problem)
        case .unauthorized(let problem): throw MemberSystemFailure.refused("listing the people", status: 401, problem: problem)
        case .forbidden(let problem): throw MemberSystemFailure.refused("listing the people", status: 403, problem: problem)
        case .serviceUnavailable(let answer): throw MemberSystemFailure.unavailable("listing the people", status: 503, answer: answer)
        case .undocumented(let status, _): throw MemberSystemFailure.undocumented("listing the people", status: status)
        }
        guard let person = people.first(where: { $0.username == username }) else {
            throw MemberSystemFailure("No one with the username \(username) is among the people this token may assign to")
        }
        guard person.role == .mentor else {
            throw MemberSystemFailure("\(username) is a \(person.role.rawValue), not a mentor")
        }
        return person
    }

    /// Assigns a new contact to the mentor and answers the assignment's id.
    func createAssignment(mentorId: Int64, contact: Components.Schemas.ContactInput) async throws -> Int64 {
        let request = Components.Schemas.CreateAssignmentRequest(mentor: .init(value1: .case1(mentorId)), contact: contact)
        let output = try await call("creating the assignment") { try await client.createAssignment(body: .json(request)) }
        switch output {
        case .created(let answer): return try answer.body.json.assignment.id
        case .badRequest(let problem): throw MemberSystemFailure.refused("creating the assignment", status: 400, problem: problem)
        case .unauthorized(let problem): throw MemberSystemFailure.refused("creating the assignment", status: 401, problem: problem)
        case .forbidden(let problem): throw MemberSystemFailure.refused("creating the assignment", status: 403, problem: problem)
        case .notFound(let problem): throw MemberSystemFailure.refused("creating the assignment", status: 404, problem: problem)
        case .conflict(let problem): throw MemberSystemFailure.refused("creating the assignment", status: 409, problem: problem)
        case .unsupportedMediaType(let problem): throw MemberSystemFailure.refused("creating the assignment", status: 415, problem: problem)
        case .contentTooLarge(let problem): throw MemberSystemFailure.refused("creating the assignment", status: 413, problem: problem)
        case .unprocessableContent(let problem):
            throw MemberSystemFailure.refused("creating the assignment", status: 422, problem: problem)
        case .serviceUnavailable(let answer): throw MemberSystemFailure.unavailable("creating the assignment", status: 503, answer: answer)
        case .code507(let answer): throw MemberSystemFailure.unavailable("creating the assignment", status: 507, answer: answer)
        case .undocumented(let status, _): throw MemberSystemFailure.undocumented("creating the assignment", status: status)
        }
    }

    /// The assignment as Varsel has it now.
    func assignment(id: Int64) async throws -> Components.Schemas.Assignment {
        let action = "reading assignment \(id)"
        let output = try await call(action) { try await client.getAssignment(path: .init(id: id)) }
        switch output {
        case .ok(let answer): return try answer.body.json
        case .badRequest(let problem): throw MemberSystemFailure.refused(action, status: 400, problem: problem)
        case .unauthorized(let problem): throw MemberSystemFailure.refused(action, status: 401, problem: problem)
        case .notFound(let problem): throw MemberSystemFailure.refused(action, status: 404, problem: problem)
        case .serviceUnavailable(let answer): throw MemberSystemFailure.unavailable(action, status: 503, answer: answer)
        case .undocumented(let status, _): throw MemberSystemFailure.undocumented(action, status: status)
        }
    }

    /// Runs one generated operation, turning the runtime's errors into one-sentence failures.
    private func call<Output>(_ action: String, _ operation: () async throws -> Output) async throws -> Output {
        do {
            return try await operation()
        } catch let error as ClientError {
            throw MemberSystemFailure.client(action, error)
        }
    }
}
