import Foundation
import VarselCore
import VarselStore

/// The JSON a push carries to the service worker: the core's lock-screen decision, plus what its buttons post.
///
/// Field names follow the Notifications API (`title`, `body`, `tag`, `lang`, `requireInteraction`, `vibrate`,
/// `silent`, `actions`), so the service worker passes them on without deciding anything.
public struct PushMessage: Codable, Sendable, Equatable {
    public var title: String
    public var body: String
    public var tag: String
    public var lang: String
    /// Where opening the notification goes (same origin).
    public var url: String
    public var requireInteraction: Bool
    public var vibrate: [Int]
    public var silent: Bool
    public var actions: [Action]
    public var acknowledge: Acknowledge?

    public struct Action: Codable, Sendable, Equatable {
        public var action: String
        public var title: String
    }

    /// What the "Acknowledge" button posts, where, and what the device says after.
    public struct Acknowledge: Codable, Sendable, Equatable {
        public var url: String
        public var assignmentID: AssignmentID
        public var token: String
        public var confirmation: String
        public var failure: String
    }

    /// The message for `notification` as `subscription`'s device shows it.
    public init(_ notification: LockScreenNotification, subscription: PushSubscription) {
        title = notification.title
        body = notification.body
        tag = notification.tag
        lang = notification.language
        url = notification.path
        requireInteraction = notification.requiresInteraction
        vibrate = notification.vibration
        silent = notification.isSilent
        actions = notification.actions.map { Action(action: $0.id, title: $0.title) }
        acknowledge = notification.acknowledgement.map {
            Acknowledge(url: "/api/v1/push-subscriptions/\(subscription.id)/acknowledge", assignmentID: $0.assignmentID,
                        token: PushActionToken.acknowledge(assignmentID: $0.assignmentID, subscription: subscription),
                        confirmation: $0.confirmation, failure: $0.failure)
        }
    }
}
