import Foundation
import VarselCore
import VarselStore

/// Who is who: the people a page or a form names or offers, looked up without the managing rules of
/// ``UserAdministration`` (which decides who may change whom).
public struct Directory: Sendable {
    let repository: any UserStore

    public init(repository: any UserStore) {
        self.repository = repository
    }

    /// Every person, in the order they were added; not the accounts of integration tokens.
    public func everyone() async throws -> [User] {
        try await repository.users().filter { !$0.isIntegration }
    }

    /// Every mentor, in the order they were added, deactivated ones too (a filter over past work).
    public func mentors() async throws -> [User] {
        try await repository.users().filter { $0.role == .mentor }
    }

    /// The mentors who have not left (their accounts not deactivated), in the order they were added: whom a form
    /// may send to, assign, reassign or publish to.
    public func activeMentors() async throws -> [User] {
        try await mentors().filter(\.isActive)
    }

    /// The person with id `id`, active or not.
    public func person(_ id: UserID) async throws -> User? {
        try await repository.user(id: id)
    }

    /// The person signed in as `username` (compared case-insensitively), active or not.
    public func person(username: String) async throws -> User? {
        try await repository.user(username: username)
    }

    /// The mentor with id `id`; nil for anyone else.
    public func mentor(_ id: UserID) async throws -> User? {
        guard let user = try await repository.user(id: id), user.role == .mentor else { return nil }
        return user
    }

    /// Everyone's display name by id, for naming who did what in a log.
    public func displayNames() async throws -> [UserID: String] {
        Dictionary(uniqueKeysWithValues: try await repository.users().map { ($0.id, $0.displayName) })
    }
}
