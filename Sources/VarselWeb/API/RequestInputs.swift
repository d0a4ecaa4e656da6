import Foundation
import Hummingbird
import VarselCore
import VarselService
import VarselStore

/// Typed ids from a route's path: a positive integer written as the server writes it (digits, no sign, no leading
/// zero), or a 400 problem that names the parameter.
enum PathID {
    static func of(_ context: VarselContext, name: String = "id") throws -> Int64 {
        guard let raw = context.parameters.get(name), raw.first != "0", raw.utf8.allSatisfy({ (0x30...0x39).contains($0) }),
            let id = Int64(raw), id > 0
        else {
            throw Problem.badRequest("The \(name) in the path must be a positive integer.")
        }
        return id
    }

    /// The id in the path, typed as what it names.
    static func of<ID: StoredID>(_ context: VarselContext, name: String = "id", as: ID.Type) throws -> ID {
        ID(try of(context, name: name))
    }
}

/// A recipient given by user id or by username, as requests name them.
enum Recipient: Decodable, Hashable {
    case id(UserID)
    case username(String)

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let id = try? UserID(container.decode(Int64.self)) {
            self = .id(id)
        } else if let name = try? container.decode(String.self) {
            self = .username(name)
        } else {
            throw DecodingError.typeMismatch(String.self, .init(codingPath: decoder.codingPath, debugDescription: "a user id or username"))
        }
    }
}

/// Turns the recipients a request names into people, refusing unknown ones by their place in the list; the one place
/// every route that takes recipients (a notification, a scenario, an assignment's mentor) resolves them.
struct RecipientResolver {
    let directory: Directory

    /// Resolves usernames to user ids (any role may receive), refusing unknown ones; duplicates count once.
    ///
    /// Ids are taken as they are: the store checks them in the create's own transaction, so a create does not read
    /// each recipient first (``unknownRecipient(given:in:)`` names the one it refused, from the id the store gives).
    func ids(_ recipients: [Recipient]) async throws -> [UserID] {
        try Self.checkCount(recipients)
        var ids: [UserID] = []
        var seen = Set<UserID>()
        for (index, recipient) in recipients.enumerated() {
            let id: UserID
            switch recipient {
            case let .id(given):
                id = given
            case let .username(name):
                guard let user = try await directory.person(username: name) else { throw Self.unknownRecipient(index) }
                id = user.id
            }
            if seen.insert(id).inserted { ids.append(id) }
        }
        return ids
    }

    /// Resolves ids and usernames to users (any role may receive), refusing unknown ones by `field` and their place in
    /// it; duplicates count once.
    func users(_ recipients: [Recipient], field: String) async throws -> [User] {
        try Self.checkCount(recipients, field: field)
        var users: [User] = []
        var seen = Set<UserID>()
        for (index, recipient) in recipients.enumerated() {
            guard let user = try await user(recipient) else { throw Self.unknownRecipient(index, field: field) }
            if seen.insert(user.id).inserted { users.append(user) }
        }
        return users
    }

    /// Resolves the one person a request names in `field` (an assignment's mentor), refusing an unknown one by it.
    func user(_ recipient: Recipient, field: String) async throws -> User {
        guard let user = try await user(recipient) else {
            throw Problem(.notFound, "\(field) is not a known user.", errors: [.init(field: field, message: "unknown user")])
        }
        return user
    }

    private func user(_ recipient: Recipient) async throws -> User? {
        switch recipient {
        case let .id(id): try await directory.person(id)
        case let .username(name): try await directory.person(username: name)
        }
    }

    private static func checkCount(_ recipients: [Recipient], field: String = "recipients") throws {
        guard !recipients.isEmpty else {
            throw Problem.unprocessable("\(field) must name at least one user.", errors: [.init(field: field, message: "empty")])
        }
        guard recipients.count <= Limits.maxRecipients else {
            throw Problem.unprocessable("At most \(Limits.maxRecipients) \(field) per request.", errors: [.init(field: field, message: "too many")])
        }
    }

    /// The problem for the recipient given as `id` that the store refused, named by its place in `recipients`.
    static func unknownRecipient(given id: UserID, in recipients: [Recipient]) -> Problem {
        guard let index = recipients.firstIndex(of: .id(id)) else {
            return Problem(.notFound, "A recipient is not a known user.", errors: [.init(field: "recipients", message: "unknown user")])
        }
        return unknownRecipient(index)
    }

    /// A recipient well formed but naming nobody: 404, as an id in a path that names nothing.
    static func unknownRecipient(_ index: Int, field: String = "recipients") -> Problem {
        Problem(.notFound, "\(field)[\(index)] is not a known user.", errors: [.init(field: "\(field)[\(index)]", message: "unknown user")])
    }

    /// A person named where a mentor is needed who does not have the mentor role now: 409, a conflict with their
    /// account's state rather than a malformed request.
    static func notAMentor(field: String) -> Problem {
        Problem.conflict("\(field) must name users with the mentor role.").with(errors: [.init(field: field, message: "not a mentor")])
    }
}
