import Foundation
import VarselCore
import VarselStore

/// What a recipient does with their own notifications: read, unread, read all, delete. The store tells the event
/// pump of each change it records, so the user's other pages and devices hear of it.
public struct NotificationInbox: Sendable {
    let repository: any AssignmentStore & NotificationStore
    let now: @Sendable () -> Date

    public init(repository: any AssignmentStore & NotificationStore, now: @escaping @Sendable () -> Date) {
        self.repository = repository
        self.now = now
    }

    /// A page of `userID`'s notifications passing `filter`, newest first, after `cursor`.
    public func page(of userID: UserID, filter: NotificationFilter, after cursor: NotificationID? = nil, limit: Int) async throws -> NotificationPage
    {
        try await repository.notifications(for: userID, filter: filter, after: cursor, limit: limit)
    }

    /// How many of `userID`'s notifications are unread.
    public func unreadCount(of userID: UserID) async throws -> Int {
        try await repository.unreadCount(for: userID)
    }

    /// Notification `id` when it is `userID`'s; nil when it does not exist or is someone else's (the two are not told
    /// apart).
    public func item(_ id: NotificationID, of userID: UserID) async throws -> NotificationItem? {
        guard let item = try await repository.notification(id: id), item.recipientID == userID else { return nil }
        return item
    }

    /// Marks one of `userID`'s notifications read or unread; nil when it is not theirs.
    public func setRead(_ isRead: Bool, notificationID: NotificationID, userID: UserID) async throws -> NotificationItem? {
        let item = try await repository.setRead(isRead, notificationID: notificationID, userID: userID, at: now())
        return item
    }

    /// Marks every unread notification of `userID` read; returns how many changed.
    public func markAllRead(userID: UserID) async throws -> Int {
        try await repository.markAllRead(userID: userID, at: now())
    }

    /// Marks the listed notifications of `userID` read; returns how many changed.
    public func markRead(ids: [NotificationID], userID: UserID) async throws -> Int {
        try await repository.markRead(ids: ids, userID: userID, at: now())
    }

    /// Deletes the listed notifications of `userID`; returns how many were deleted.
    public func delete(ids: [NotificationID], userID: UserID) async throws -> Int {
        try await repository.delete(ids: ids, userID: userID, at: now())
    }

    /// Notes that the assignment told by `notificationID` reached its mentor's open app; later deliveries change nothing.
    public func recordLiveDelivery(of notificationID: NotificationID) async throws {
        try await repository.recordLiveDelivery(notificationID: notificationID, at: now())
    }
}
