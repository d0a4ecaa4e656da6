import Foundation
import VarselCore
import VarselStore

/// Adding users, shared by the API and the `varsel user add` command.
public struct UserAdministration: Sendable {
    let repository: any VarselRepository
    let passwords: PasswordHasher

    public init(repository: any VarselRepository, passwords: PasswordHasher) {
        self.repository = repository
        self.passwords = passwords
    }

    /// Validates and creates a user; throws ``InvalidInput`` naming every invalid field.
    public func add(username: String, password: String, role: String, displayName: String?, locale: String?, at date: Date) async throws -> User {
        var issues: [Validation.Issue] = []
        let name = username.trimmingCharacters(in: .whitespaces)
        if name.range(of: "^[A-Za-z0-9._-]{2,64}$", options: .regularExpression) == nil {
            issues.append(.init(field: "username", rule: .other("2 to 64 letters, digits, '.', '_' or '-'")))
        }
        issues += Validation.password(password, field: "password")
        let parsedRole = Role(rawValue: role)
        if parsedRole == nil { issues.append(.init(field: "role", rule: .other("must be mentor, coordinator or admin"))) }
        let language = locale.map { Language(tag: $0) } ?? .english
        if language == nil { issues.append(.init(field: "locale", rule: .other("must be en or nb"))) }
        let display = (displayName ?? name).trimmingCharacters(in: .whitespaces)
        issues += Validation.text(display, field: "displayName", max: Limits.maxDisplayNameLength)
        guard issues.isEmpty, let parsedRole, let language else { throw InvalidInput(issues) }
        let hash = try await passwords.hash(password)
        return try await repository.createUser(
            NewUser(username: name, displayName: display, role: parsedRole, passwordHash: hash, language: language), at: date)
    }

    /// Replaces `mentorID`'s certifications, which drive the expiry warnings; at most ``Limits/maxCertifications``.
    public func setCertifications(_ certifications: [NewCertification], for mentorID: Int64) async throws -> [Certification] {
        guard certifications.count <= Limits.maxCertifications else {
            throw InvalidInput([.init(field: "certifications", rule: .other("at most \(Limits.maxCertifications)"))],
                               summary: "At most \(Limits.maxCertifications) certifications per mentor.")
        }
        return try await repository.setCertifications(certifications, mentorID: mentorID)
    }
}

/// Who may see an assignment and its contact's personal details: the mentor while the assignment is live (not
/// declined, done or reassigned), the coordinator who manages it, and admins. The one place this is decided.
public struct ContactAccess: Sendable {
    let repository: any VarselRepository

    public init(repository: any VarselRepository) {
        self.repository = repository
    }

    /// Whether `user` may see the contact with id `contactID`.
    public func canSee(contactID: Int64, user: User) async throws -> Bool {
        switch user.role {
        case .admin: return true
        case .coordinator: return try await repository.allAssignments().contains { $0.contactID == contactID && $0.coordinatorID == user.id }
        case .mentor: return try await repository.assignments(forMentor: user.id).contains { $0.contactID == contactID && $0.isLive }
        }
    }

    /// Whether `user` may see the assignment: its mentor (even after it closed, without the contact), the
    /// coordinator who manages it, or an admin.
    public func canSee(_ assignment: Assignment, user: User) -> Bool {
        switch user.role {
        case .admin: true
        case .coordinator: assignment.coordinatorID == user.id
        case .mentor: assignment.mentorID == user.id
        }
    }

    /// Whether `user` may change who has the assignment: the coordinator who manages it, or an admin.
    public func canManage(_ assignment: Assignment, user: User) -> Bool {
        user.role != .mentor && canSee(assignment, user: user)
    }

}
