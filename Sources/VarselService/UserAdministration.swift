import Foundation
import VarselCore
import VarselStore

/// People and their accounts: adding them, one-time set-password links, deactivation, roles and certifications,
/// each change recorded in the account's change log. Shared by the pages, the API and the `varsel user` commands;
/// the one place that decides who may change whose account.
///
/// Coordinators manage mentors; admins manage everyone; nobody changes their own role or deactivates themself.
/// An `actor` of nil is the operator at the command line, who may do anything.
public struct UserAdministration: Sendable {
    /// Why a change to an account was refused; each message is safe to show and names no one.
    public enum Refusal: Error, Sendable, Equatable {
        /// The person does not exist, or is not someone the actor manages.
        case unknownPerson
        /// Only an administrator may do this (change a role, manage a coordinator or an administrator).
        case adminOnly
        /// Nobody changes their own role or access, or makes a set-password link for themself.
        case ownAccount
        /// The set-password link is unknown, used, expired, or its account deactivated.
        case linkNotValid
    }

    /// A new one-time set-password link, to show once.
    public struct IssuedLink: Sendable {
        public var user: User
        /// The code that is the link's last part, readable aloud: `K7QM-4XHD-9TRB`.
        public var code: String
        public var expiresAt: Date
    }

    /// A person as the people list shows them, with what the list needs to say about them.
    public struct Person: Sendable {
        public var user: User
        public var certifications: [Certification]
        public var liveAssignments: [Assignment]

        /// The core's summary of this person at `now`.
        public func summary(now: Date) -> PersonSummary {
            let first = certifications.min { $0.expiresAt < $1.expiresAt }
            return PersonSummary(
                id: user.id, displayName: user.displayName, username: user.username, role: user.role,
                deactivatedAt: user.deactivatedAt, pausedUntil: user.isPaused(at: now) ? user.pausedUntil : nil,
                firstExpiring: first.map { ($0.name, $0.expiresAt) }, liveAssignments: liveAssignments.count)
        }
    }

    /// How long a set-password link works.
    public static let linkLifetime: TimeInterval = 72 * 3600

    let repository: any AssignmentStore & TrainingStore & UserStore
    let passwords: PasswordHasher
    let broker: EventBroker?
    let now: @Sendable () -> Date

    public init(
        repository: any AssignmentStore & TrainingStore & UserStore, passwords: PasswordHasher, broker: EventBroker? = nil,
        now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.repository = repository
        self.passwords = passwords
        self.broker = broker
        self.now = now
    }

    // MARK: Adding people

    /// Validates and creates a user with a password (the command line, the demo, the API's admin call); throws
    /// ``InvalidInput`` naming every invalid field.
    public func add(username: String, password: String, role: String, displayName: String?, locale: String?, at date: Date) async throws -> User {
        var issues = Validation.password(password, field: "password")
        let fields = try Self.validate(username: username, displayName: displayName, role: role, locale: locale, issues: &issues)
        let hash = try await passwords.hash(password)
        return try await repository.createUser(
            NewUser(username: fields.username, displayName: fields.displayName, role: fields.role, passwordHash: hash, language: fields.language),
            at: date)
    }

    /// Checks a new user's fields as ``add(username:password:role:displayName:locale:at:)`` (with a password) and
    /// ``invite(username:displayName:role:locale:by:)`` (without) do, before anything is stored: throws
    /// ``InvalidInput`` naming every invalid field.
    public static func check(username: String, password: String?, role: String, displayName: String?, locale: String?) throws {
        var issues = password.map { Validation.password($0, field: "password") } ?? []
        _ = try validate(username: username, displayName: displayName, role: role, locale: locale, issues: &issues)
    }

    /// Adds a person without a password: they choose one through the one-time link returned. Coordinators add
    /// mentors only. Throws ``InvalidInput`` for invalid fields, ``StoreError/conflict(_:)`` for a taken username,
    /// ``Refusal/adminOnly``.
    public func invite(username: String, displayName: String?, role: String, locale: String?, by actor: User?) async throws -> IssuedLink {
        // Who may add whom is decided before the fields are checked: a coordinator asking for an admin is refused.
        if let asked = Role(rawValue: role) { try Self.requireManages(actor, role: asked) }
        var issues: [Validation.Issue] = []
        let fields = try Self.validate(username: username, displayName: displayName, role: role, locale: locale, issues: &issues)
        let code = SetPasswordCode.generate()
        let expiresAt = now().addingTimeInterval(Self.linkLifetime)
        // An empty hash matches no password: the account cannot be signed in to until the link is used.
        let user = try await repository.createUser(
            NewUser(username: fields.username, displayName: fields.displayName, role: fields.role, passwordHash: "", language: fields.language),
            link: PasswordLink(tokenHash: SetPasswordCode.hash(code), expiresAt: expiresAt), by: actor?.id, at: now())
        return IssuedLink(user: user, code: code, expiresAt: expiresAt)
    }

    private struct Fields {
        var username: String
        var displayName: String
        var role: Role
        var language: Language
    }

    private static func validate(username: String, displayName: String?, role: String, locale: String?, issues: inout [Validation.Issue]) throws
        -> Fields
    {
        let name = username
        if !Validation.isUsername(username) {
            issues.append(.init(field: "username", rule: .other("2 to \(Limits.maxUsernameLength) letters, digits, '.', '_' or '-'")))
        }
        let parsedRole = Role(rawValue: role)
        if parsedRole == nil { issues.append(.init(field: "role", rule: .other("must be mentor, coordinator or admin"))) }
        let language = locale.map { Validation.isLanguageTag($0) ? Language(tag: $0) : nil } ?? .english
        if language == nil { issues.append(.init(field: "locale", rule: .other("must be en or nb"))) }
        // No display name, or only white space, means the username.
        let given = displayName ?? ""
        issues += Validation.text(given, field: "displayName", max: Limits.maxDisplayNameLength, allowEmpty: true)
        let trimmed = given.trimmingCharacters(in: .whitespacesAndNewlines)
        let display = trimmed.isEmpty ? name : trimmed
        // With neither a display name nor a username, the form's name field is as empty as the username's.
        if display.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty, !issues.contains(where: { $0.field == "displayName" }) {
            issues.append(.init(field: "displayName", rule: .required))
        }
        guard issues.isEmpty, let parsedRole, let language else { throw InvalidInput(issues) }
        return Fields(username: name, displayName: display, role: parsedRole, language: language)
    }

    // MARK: Who manages whom

    /// Whether `actor` manages accounts of `role`: admins and the command line everyone, coordinators mentors.
    public static func manages(_ actor: User?, role: Role) -> Bool {
        guard let actor else { return true }
        switch actor.role {
        case .admin: return true
        case .coordinator: return role == .mentor
        case .mentor: return false
        }
    }

    private static func requireManages(_ actor: User?, role: Role) throws(Refusal) {
        guard manages(actor, role: role) else { throw actor?.role == .coordinator ? .adminOnly : .unknownPerson }
    }

    /// The person `id` if `actor` manages them; ``Refusal/unknownPerson`` otherwise (a coordinator asking about an
    /// administrator learns nothing). An integration token's account is no one's person: ``Integrations`` manages it.
    public func person(_ id: UserID, for actor: User?) async throws -> User {
        guard let user = try await repository.user(id: id), !user.isIntegration, Self.manages(actor, role: user.role) || actor?.id == id,
            actor.map({ $0.role != .mentor }) ?? true
        else { throw Refusal.unknownPerson }
        return user
    }

    /// `mentorID`'s certifications, soonest expiry first as the store keeps them.
    public func certifications(of mentorID: UserID) async throws -> [Certification] {
        try await repository.certifications(mentorID: mentorID)
    }

    /// The people `actor` manages, with their certifications and live assignments, in the order they were added.
    public func people(for actor: User?) async throws -> [Person] {
        let users = try await repository.users().filter { !$0.isIntegration && Self.manages(actor, role: $0.role) }
        let assignments = Dictionary(grouping: try await repository.assignments(AssignmentListing(scope: .live)), by: \.mentorID)
        var people: [Person] = []
        for user in users {
            let certifications = user.role == .mentor ? try await repository.certifications(mentorID: user.id) : []
            people.append(Person(user: user, certifications: certifications, liveAssignments: assignments[user.id] ?? []))
        }
        return people
    }

    /// One person with their certifications, live assignments and change log (oldest first), for their page.
    public func details(of id: UserID, for actor: User?) async throws -> (person: Person, log: [AccountLogEntry]) {
        let user = try await person(id, for: actor)
        // Certifications are a mentor's: kept after a change of role, but not shown or counted for anyone else.
        let certifications = user.role == .mentor ? try await repository.certifications(mentorID: user.id) : []
        let live = try await repository.assignments(.mentor(user.id, scope: .live))
        return (Person(user: user, certifications: certifications, liveAssignments: live), try await repository.accountLog(userID: user.id))
    }

    // MARK: Changes

    /// A new one-time link for `id` (a forgotten password); the person's sessions and live streams end at once.
    public func issueLink(for id: UserID, by actor: User?) async throws -> IssuedLink {
        let user = try await person(id, for: actor)
        // One's own password is changed on the Profile, with the current one.
        guard actor?.id != id else { throw Refusal.ownAccount }
        guard user.isActive else { throw Refusal.linkNotValid }
        let code = SetPasswordCode.generate()
        let expiresAt = now().addingTimeInterval(Self.linkLifetime)
        let outcome = try await change(
            user, .passwordLink(PasswordLink(tokenHash: SetPasswordCode.hash(code), expiresAt: expiresAt)),
            log: [NewAccountLogEntry(actorID: actor?.id, action: .passwordLinkIssued)])
        return IssuedLink(user: outcome.user, code: code, expiresAt: expiresAt)
    }

    /// Deactivates `id`: sign-in refused, sessions and live streams ended, push subscriptions removed; data kept.
    @discardableResult
    public func deactivate(_ id: UserID, by actor: User?) async throws -> AccountChangeOutcome {
        let user = try await person(id, for: actor)
        guard actor?.id != id else { throw Refusal.ownAccount }
        guard user.isActive else { return AccountChangeOutcome(user: user, endedSessions: [], certifications: []) }
        return try await change(user, .deactivate, log: [NewAccountLogEntry(actorID: actor?.id, action: .deactivated)], reason: .deactivated)
    }

    /// Lets `id` sign in again.
    @discardableResult
    public func reactivate(_ id: UserID, by actor: User?) async throws -> AccountChangeOutcome {
        let user = try await person(id, for: actor)
        guard actor?.id != id else { throw Refusal.ownAccount }
        guard !user.isActive else { return AccountChangeOutcome(user: user, endedSessions: [], certifications: []) }
        return try await change(user, .reactivate, log: [NewAccountLogEntry(actorID: actor?.id, action: .reactivated)])
    }

    /// Gives `id` a new role: administrators only, never their own.
    @discardableResult
    public func changeRole(of id: UserID, to role: Role, by actor: User?) async throws -> AccountChangeOutcome {
        guard actor.map({ $0.role == .admin }) ?? true else { throw Refusal.adminOnly }
        let user = try await person(id, for: actor)
        guard actor?.id != id else { throw Refusal.ownAccount }
        guard user.role != role else { return AccountChangeOutcome(user: user, endedSessions: [], certifications: []) }
        return try await change(user, .role(role), log: [NewAccountLogEntry(actorID: actor?.id, action: .roleChanged, subject: role.rawValue)])
    }

    /// Replaces `mentorID`'s certifications (which drive the expiry warnings), recording what was added, renewed
    /// and removed; at most ``Limits/maxCertifications``.
    public func setCertifications(_ certifications: [NewCertification], for mentorID: UserID, by actor: User?) async throws -> [Certification] {
        guard certifications.count <= Limits.maxCertifications else {
            throw InvalidInput(
                [.init(field: "certifications", rule: .other("at most \(Limits.maxCertifications)"))],
                summary: "At most \(Limits.maxCertifications) certifications per mentor.")
        }
        let user = try await person(mentorID, for: actor)
        guard user.role == .mentor else { throw Refusal.unknownPerson }
        let before = try await repository.certifications(mentorID: mentorID)
        let log = Self.changes(from: before, to: certifications, by: actor?.id)
        return try await change(user, .certifications(certifications), log: log).certifications
    }

    /// Adds a certification, or renews it (a new expiry date) when the mentor has one of that name.
    public func addCertification(name: String, expiresAt: Date, for mentorID: UserID, by actor: User?) async throws -> [Certification] {
        let trimmed = name.trimmingCharacters(in: .whitespacesAndNewlines)
        let issues = Validation.text(name, field: "name", max: Limits.maxCertificationNameLength)
        guard issues.isEmpty else { throw InvalidInput(issues) }
        var list = try await repository.certifications(mentorID: mentorID).map { NewCertification(name: $0.name, expiresAt: $0.expiresAt) }
        if let index = list.firstIndex(where: { $0.name == trimmed }) {
            list[index].expiresAt = expiresAt
        } else {
            list.append(NewCertification(name: trimmed, expiresAt: expiresAt))
        }
        return try await setCertifications(list, for: mentorID, by: actor)
    }

    /// Renews the certification `certificationID` until `expiresAt`.
    public func renewCertification(_ certificationID: Int64, until expiresAt: Date, for mentorID: UserID, by actor: User?) async throws
        -> [Certification]
    {
        let current = try await repository.certifications(mentorID: mentorID)
        guard current.contains(where: { $0.id == certificationID }) else { throw Refusal.unknownPerson }
        return try await setCertifications(
            current.map { NewCertification(name: $0.name, expiresAt: $0.id == certificationID ? expiresAt : $0.expiresAt) },
            for: mentorID, by: actor)
    }

    /// Removes the certification `certificationID`.
    public func removeCertification(_ certificationID: Int64, for mentorID: UserID, by actor: User?) async throws -> [Certification] {
        let current = try await repository.certifications(mentorID: mentorID)
        guard current.contains(where: { $0.id == certificationID }) else { throw Refusal.unknownPerson }
        return try await setCertifications(
            current.filter { $0.id != certificationID }.map { NewCertification(name: $0.name, expiresAt: $0.expiresAt) },
            for: mentorID, by: actor)
    }

    /// The change log entries that take `before` to `after`: by name, a new one added, a new date renewed, a
    /// missing one removed.
    static func changes(from before: [Certification], to after: [NewCertification], by actorID: UserID?) -> [NewAccountLogEntry] {
        var entries: [NewAccountLogEntry] = []
        for new in after {
            if let old = before.first(where: { $0.name == new.name }) {
                if old.expiresAt != new.expiresAt {
                    entries.append(NewAccountLogEntry(actorID: actorID, action: .certificationRenewed, subject: new.name, date: new.expiresAt))
                }
            } else {
                entries.append(NewAccountLogEntry(actorID: actorID, action: .certificationAdded, subject: new.name, date: new.expiresAt))
            }
        }
        for old in before where !after.contains(where: { $0.name == old.name }) {
            entries.append(NewAccountLogEntry(actorID: actorID, action: .certificationRemoved, subject: old.name))
        }
        return entries
    }

    private func change(
        _ user: User, _ change: AccountChange, log: [NewAccountLogEntry],
        reason: StreamCloseReason = .signedOut
    ) async throws -> AccountChangeOutcome {
        let outcome = try await repository.changeAccount(userID: user.id, change, log: log, at: now())
        if !outcome.endedSessions.isEmpty || change == .deactivate {
            broker?.endStreams(ofUser: user.id, reason: reason)
        }
        return outcome
    }

    // MARK: The set-password link

    /// The person a set-password code is for, while it works.
    public func linkHolder(code: String) async throws -> User? {
        guard let hash = SetPasswordCode.tokenHash(typed: code) else { return nil }
        return try await repository.passwordLinkUser(tokenHash: hash, at: now())
    }

    /// Sets the password of the link's holder, once, ending their other sessions. Throws ``InvalidInput`` for a
    /// password that breaks the rules (`password`) or two that differ (`repeat`), ``Refusal/linkNotValid``.
    public func choosePassword(code: String, password: String, repeated: String) async throws -> User {
        var issues = Validation.password(password, field: "password")
        if issues.isEmpty, password != repeated { issues.append(.init(field: "repeat", rule: .other("must be the same password"))) }
        guard issues.isEmpty else { throw InvalidInput(issues) }
        guard let linkHash = SetPasswordCode.tokenHash(typed: code) else { throw Refusal.linkNotValid }
        let hash = try await passwords.hash(password)
        guard let user = try await repository.usePasswordLink(tokenHash: linkHash, passwordHash: hash, at: now()) else {
            throw Refusal.linkNotValid
        }
        broker?.endStreams(ofUser: user.id, reason: .signedOut)
        return user
    }

    /// The account change log of `id`, oldest first.
    public func log(of id: UserID, for actor: User?) async throws -> [AccountLogEntry] {
        _ = try await person(id, for: actor)
        return try await repository.accountLog(userID: id)
    }
}
