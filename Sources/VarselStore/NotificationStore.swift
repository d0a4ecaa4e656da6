import Foundation
import VarselCore

/// Notifications: created, listed, read, unread and deleted.
///
/// Every method that changes a notification also appends the matching events (created, updated, deleted, and the
/// recipient's new unread count) in the same transaction, so the event log never disagrees with the notifications.
public protocol NotificationStore: Sendable {
    /// Creates one notification per entry, or, when `idempotencyKey` was used before by the same sender with the
    /// same fingerprint, returns the ones it created then and creates nothing.
    /// Throws ``StoreError/idempotencyKeyReused`` when the key came with a different request.
    /// More than ``FanOut/chunkSize`` are written as a fan-out, a chunk per transaction; this returns once all are.
    func createNotifications(_ notifications: [NewNotification], idempotencyKey: IdempotencyKey?, at date: Date) async throws -> CreatedNotifications
    /// Finishes every fan-out started before `date` that is not finished (its request was cut short), and forgets the
    /// finished ones started before it; returns how many notifications it wrote.
    func finishFanOuts(startedBefore date: Date) async throws -> Int
    func notification(id: NotificationID) async throws -> NotificationItem?
    /// A page of `userID`'s notifications passing `filter`, newest first, starting after `cursor`.
    func notifications(for userID: UserID, filter: NotificationFilter, after cursor: NotificationID?, limit: Int) async throws -> NotificationPage
    func unreadCount(for userID: UserID) async throws -> Int
    /// Marks the notification read (or unread); nil when it is not `userID`'s. Unchanged state writes no event.
    func setRead(_ isRead: Bool, notificationID: NotificationID, userID: UserID, at date: Date) async throws -> NotificationItem?
    /// Marks every unread notification of `userID` read; returns how many changed (0: nothing to do).
    func markAllRead(userID: UserID, at date: Date) async throws -> Int
    /// Marks the listed notifications of `userID` read; ids that are not theirs are ignored. Returns how many changed.
    func markRead(ids: [NotificationID], userID: UserID, at date: Date) async throws -> Int
    /// Deletes the listed notifications of `userID`; returns how many were deleted.
    func delete(ids: [NotificationID], userID: UserID, at date: Date) async throws -> Int
}
