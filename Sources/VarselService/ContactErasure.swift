import Foundation
import VarselCore
import VarselStore

/// Erasing the details of a person mentors visit: on request, by the coordinator who manages one of their
/// assignments or an admin, and by upkeep once their last assignment closed longer ago than the retention time.
///
/// The store erases every copy in one transaction (``VarselRepository/eraseContact(contactID:titles:at:)``); the
/// notifications that named the person then read "Details removed", and open pages are told through the event log.
public struct ContactErasure: Sendable {
    /// Why an erasure was refused: the person is unknown, or not one the caller manages (the two are not told apart).
    public struct Refused: Error, Sendable, Equatable {}

    let repository: any AssignmentStore
    let access: ContactAccess
    let now: @Sendable () -> Date

    public init(repository: any AssignmentStore, access: ContactAccess, now: @escaping @Sendable () -> Date) {
        self.repository = repository
        self.access = access
        self.now = now
    }

    /// The erased notifications' title in each language.
    static let titles = Dictionary(uniqueKeysWithValues: Language.allCases.map { ($0, Strings($0).detailsRemovedTitle) })

    /// Whether `user` may erase the contact: the coordinator who manages one of its assignments, or an admin.
    public func mayErase(contactID: ContactID, user: User) async throws -> Bool {
        guard user.role != .mentor else { return false }
        return try await access.canSee(contactID: contactID, user: user)
    }

    /// Erases the contact's details at once, for `user`; returns the contact as it is now (empty, `erasedAt` set).
    @discardableResult
    public func erase(contactID: ContactID, by user: User) async throws -> Contact {
        guard try await mayErase(contactID: contactID, user: user) else { throw Refused() }
        return try await erase(contactID)
    }

    /// Erases the details of every contact whose last assignment closed more than `retention` ago; returns how many.
    @discardableResult
    public func eraseExpired(retention: TimeInterval) async throws -> Int {
        let due = try await repository.contactsClosed(before: now().addingTimeInterval(-retention))
        for contactID in due { _ = try await erase(contactID) }
        return due.count
    }

    /// Erases the people whose keys were destroyed but whose details a database restored from a backup still lists,
    /// and finishes the erasures whose key outlived them (``AssignmentStore/erasePeopleWithDestroyedKeys(titles:at:)``);
    /// returns how many people it erased.
    @discardableResult
    public func eraseForgotten() async throws -> Int {
        try await repository.erasePeopleWithDestroyedKeys(titles: Self.titles, at: now())
    }

    private func erase(_ contactID: ContactID) async throws -> Contact {
        guard try await repository.eraseContact(contactID: contactID, titles: Self.titles, at: now()) != nil,
            let contact = try await repository.contact(id: contactID)
        else { throw Refused() }
        return contact
    }
}
