import Foundation
import VarselCore
import VarselStore

/// The JSON a push carries: a Declarative Web Push message, which Safari 18.4 and later show themselves and Varsel's
/// service worker shows on every other browser, so there is one payload format.
///
/// `web_push: 8030` marks the message as declarative; `notification` holds the core's lock-screen decision (title,
/// body, language, tag, urgency, vibration, sound) with `navigate`, the absolute same-origin address its tap opens;
/// `app_badge` is the mentor's unread count after this notification, for the installed app's badge. The
/// "Acknowledge" button's token is in `notification.data`, which only a service worker reads.
public struct PushMessage: Codable, Sendable, Equatable {
    /// The marker of a declarative push message (the RFC number of Web Push): always 8030.
    public var webPush: Int
    public var notification: Notification
    /// The unread count the installed app's badge shows.
    public var appBadge: Int
    /// True: a browser that shows declarative messages still hands this one to the service worker first, which shows
    /// the same and reports it shown (a receipt); if the worker fails, the browser shows the message by itself.
    public var mutable: Bool

    enum CodingKeys: String, CodingKey {
        case webPush = "web_push"
        case notification
        case appBadge = "app_badge"
        case mutable
    }

    /// What the system shows, in the members of the declarative format.
    public struct Notification: Codable, Sendable, Equatable {
        public var title: String
        public var body: String
        public var lang: String
        public var dir: String
        public var tag: String
        /// Where opening the notification goes: an absolute URL on Varsel's own origin.
        public var navigate: String
        public var silent: Bool
        /// Urgent notifications stay until the mentor acts on them.
        public var requireInteraction: Bool
        /// The vibration pattern in milliseconds; absent when there is none, and always when `silent`, since the
        /// Notifications API refuses a silent notification that has one, even an empty one.
        public var vibrate: [Int]?
        public var actions: [Action]
        public var data: Details

        enum CodingKeys: String, CodingKey {
            case title, body, lang, dir, tag, navigate, silent
            case requireInteraction = "require_interaction"
            case vibrate, actions, data
        }
    }

    /// A button on the notification; `navigate` is where it goes on a browser that shows the message itself.
    public struct Action: Codable, Sendable, Equatable {
        public var action: String
        public var title: String
        public var navigate: String
    }

    /// What Varsel's service worker needs beyond the declarative members.
    public struct Details: Codable, Sendable, Equatable {
        public var acknowledge: Acknowledge?
        /// Nil for a withdrawal, which asks for none.
        public var receipt: Receipt?
    }

    /// Where the service worker reports that it showed this push, and the token that lets it (no content, no session).
    public struct Receipt: Codable, Sendable, Equatable {
        public var url: String
        public var notificationID: NotificationID
        public var token: String
    }

    /// What the "Acknowledge" button posts, where, and what the device says after.
    public struct Acknowledge: Codable, Sendable, Equatable {
        public var url: String
        public var assignmentID: AssignmentID
        public var token: String
        public var confirmation: String
        public var failure: String
    }

    /// The message for `notification` as `subscription`'s device shows it; `origin` is Varsel's public origin
    /// (`https://varsel.example.org`), `unreadCount` the recipient's unread notifications.
    public init(
        _ notification: LockScreenNotification, notificationID: NotificationID, subscription: PushSubscription, origin: URL,
        unreadCount: Int, asksForReceipt: Bool = true
    ) {
        let navigate = Self.absolute(notification.path, origin: origin)
        webPush = 8030
        appBadge = unreadCount
        mutable = true
        self.notification = Notification(
            title: notification.title, body: notification.body, lang: notification.language, dir: "auto", tag: notification.tag,
            navigate: navigate, silent: notification.isSilent, requireInteraction: notification.requiresInteraction,
            vibrate: notification.isSilent || notification.vibration.isEmpty ? nil : notification.vibration,
            actions: notification.actions.map { Action(action: $0.id, title: $0.title, navigate: navigate) },
            data: Details(
                acknowledge: notification.acknowledgement.map {
                    Acknowledge(
                        url: "/api/v1/push-subscriptions/\(subscription.id)/acknowledge", assignmentID: $0.assignmentID,
                        token: PushActionToken.acknowledge(assignmentID: $0.assignmentID, subscription: subscription),
                        confirmation: $0.confirmation, failure: $0.failure)
                },
                receipt: asksForReceipt
                    ? Receipt(
                        url: "/api/v1/push-subscriptions/\(subscription.id)/receipts", notificationID: notificationID,
                        token: PushActionToken.shown(notificationID: notificationID, subscription: subscription)) : nil))
    }

    /// `path` on `origin`, whatever path the origin's URL has.
    static func absolute(_ path: String, origin: URL) -> String {
        var components = URLComponents()
        components.scheme = origin.scheme
        components.host = origin.host
        components.port = origin.port
        return (components.string ?? "") + path
    }
}
