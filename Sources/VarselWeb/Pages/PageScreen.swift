import Foundation
import HTTPTypes
import Hummingbird
import VarselCore
import VarselService
import VarselStore

/// What the pages of every screen share: the renderer, the live stream's resume point and the unread count the frame
/// shows.
struct PageFrame: Sendable {
    let renderer: PageRenderer
    let pump: EventPump
    let inbox: NotificationInbox
}

/// The server-rendered web client, one controller per screen: semantic HTML that works with a screen reader, a
/// keyboard, and without JavaScript (plain form posts and redirects). Every phrase comes from the core. Each screen is
/// given its frame and the few services it uses.
protocol PageScreen: Sendable {
    var frame: PageFrame { get }
}

extension PageScreen {
    var renderer: PageRenderer { frame.renderer }
    /// The person's own notifications: the frame counts them, and some screens read or mark them.
    var inbox: NotificationInbox { frame.inbox }

    /// The signed-in user, or a redirect to the sign-in page that comes back here.
    func signedIn(_ request: Request, _ context: VarselContext) throws -> Identity {
        guard let identity = context.identity else {
            let next = request.uri.path + (request.uri.query.map { "?" + $0 } ?? "")
            throw RedirectError(location: "/signin?next=" + (next.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "/"))
        }
        return identity
    }

    /// The point the page's live stream resumes from: read before anything the page shows, so an event committed
    /// while the page is being read is either on the page or after this point, and so on the stream.
    func resumePoint() async throws -> Int64 {
        try await frame.pump.latestEventID()
    }

    /// The page frame, with the tab bar of the user's workspace (a mentor's or a coordinator's) and `tab` selected
    /// when it is in that bar; pass `unread` when the page has counted already, so it is read once.
    func chrome(_ identity: Identity, resumePoint: Int64, title: String, tab: AppTab?, flash: String?, unread counted: Int? = nil) async throws
        -> PageChrome
    {
        let user = identity.user
        let describer = Describer.shared(user.language)
        let unread: Int
        if let counted { unread = counted } else { unread = try await frame.inbox.unreadCount(of: user.id) }
        let workspace = Workspace(user.role)
        let selected = tab.flatMap { workspace.tabs.contains($0) ? $0 : nil }
        let tabs = zip(workspace.tabs, describer.tabBar(unreadCount: unread, selected: selected, in: workspace)).map { appTab, element -> TabView in
            let web = WebAccessibility(element)
            return TabView(
                id: element.id, href: appTab.path, label: element.label, name: web.name, ariaSelected: web[attribute: "aria-selected"] ?? "false",
                isSelected: element.state.isSelected, posinset: web[attribute: "aria-posinset"] ?? "",
                setsize: web[attribute: "aria-setsize"] ?? "",
                badgeCount: appTab == .notifications && unread > 0 ? String(unread) : nil, iconPath: appTab.iconPath)
        }
        let strings = describer.strings
        return PageChrome(
            lang: user.language.tag, title: title, csrfToken: identity.session.csrfToken, userName: user.displayName,
            isCoordinator: workspace == .coordinator, tabs: tabs, flash: flash, lastEventId: resumePoint,
            strings: ChromeStrings(
                skipToContent: strings.skipToContent, signOut: strings.signOut,
                mainNavigation: workspace == .coordinator ? strings.coordinatorNavigation : strings.mainNavigation,
                profile: strings.tabName(.profile), opensDialog: strings.opensDialog))
    }

    /// The confirmation for a finished form action, carried across the redirect as `?done=` (``Flash``).
    func flash(_ request: Request, language: Language) -> String? {
        request.uri.queryParameters["done"].flatMap { Flash(query: String($0)) }?.text(Describer.shared(language))
    }

    /// Marks read the notification a screen was opened from (`?notification=`), when it is the viewer's own:
    /// showing the notification's target to its owner is what reading it means. A `HEAD` shows nothing, so marks nothing.
    func markFollowedNotificationRead(_ request: Request, _ identity: Identity) async throws {
        guard request.method != .head, request.uri.queryParameters["from"] == "notification",
            let id = request.uri.queryParameters["notification"].flatMap({ NotificationID(String($0)) }), id > 0,
            let item = try await frame.inbox.item(id, of: identity.user.id), item.isUnread
        else { return }
        _ = try await frame.inbox.setRead(true, notificationID: id, userID: identity.user.id)
    }
}
