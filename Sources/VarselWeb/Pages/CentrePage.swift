import Foundation
import HTTPTypes
import Hummingbird
import VarselCore
import VarselLive
import VarselService
import VarselStore

/// The notification centre: the list, following a notification, and the list's form actions.
struct CentrePages: PageScreen {
    let frame: PageFrame
    let now: @Sendable () -> Date
    let settings: AccountSettings
}

extension CentrePages {
    func addRoutes(to router: Router<VarselContext>) {
        router.get("notifications", use: centre)
        router.get("notifications/:id/open", use: open)
        router.post("notifications/read-all", use: readAll)
        router.post("notifications/bulk", use: bulk)
    }

    func centre(_ request: Request, context: VarselContext) async throws -> Response {
        let identity = try signedIn(request, context)
        let resumePoint = try await self.resumePoint()
        let user = identity.user
        let filter = request.uri.queryParameters["filter"].flatMap { NotificationFilter(wireName: String($0)) } ?? .all
        let describer = Describer.shared(user.language)
        let now = now()
        // A later page starts after the last notification of the one before (`cursor`, the API's); a cursor this
        // Varsel did not give out is the first page, as an unknown filter is the whole list.
        let after = request.uri.queryParameters["cursor"].flatMap { try? Cursor.decode(String($0)) }
        let page = try await inbox.page(of: user.id, filter: filter, after: after, limit: Limits.maxPageSize)
        // The rows are the API's resources: one place composes each item's accessible name and times.
        let preferences = try await settings.preferences(of: user.id)
        let rows = page.items.map { item in
            NotificationRow(NotificationResource(item, describer: describer, preferences: preferences, now: now))
        }
        let barElement = describer.filterBar(filter)
        let options = zip(NotificationFilter.allCases, describer.filterOptions(filter)).map { option, element in
            FilterOption(
                value: option.wireName, label: element.label,
                ariaPressed: WebAccessibility(element)[attribute: "aria-pressed"] ?? "false", isCurrent: element.state.isSelected)
        }
        let strings = describer.strings
        let unread = try await inbox.unreadCount(of: user.id)
        let model = NotificationCentrePage(
            chrome: try await chrome(
                identity, resumePoint: resumePoint, title: strings.screenTitle(.notificationCentre), tab: .notifications,
                flash: flash(request, language: user.language), unread: unread),
            heading: strings.screenTitle(.notificationCentre), headingId: Screen.notificationCentre.headingElementID,
            filterBar: FilterBarView(name: WebAccessibility(barElement).name, label: barElement.label, state: barElement.value, options: options),
            rows: rows, isEmpty: rows.isEmpty, emptyText: strings.noNotifications, currentFilter: filter.wireName,
            unreadSummary: strings.unreadSummary(unread), markAllAsRead: strings.markAllAsRead,
            markSelectedAsRead: strings.markSelectedAsRead, deleteSelected: strings.deleteSelected,
            listLabel: strings.notificationList, settingsLink: strings.screenTitle(.notificationSettings),
            cursor: after.map(Cursor.encode),
            olderLink: page.nextCursor.map { LinkItem(text: strings.olderNotifications, href: Self.centrePath(filter: filter.wireName, after: $0)) },
            newestLink: after == nil ? nil : LinkItem(text: strings.newestNotifications, href: Self.centrePath(filter: filter.wireName)),
            hasPages: after != nil || page.nextCursor != nil)
        return try renderer.page("notifications", model)
    }

    /// Following a notification: go to its screen, whose heading takes focus. A GET changes nothing: the target
    /// screen marks the notification read when it is shown to its owner (``markFollowedNotificationRead``).
    func open(_ request: Request, context: VarselContext) async throws -> Response {
        let identity = try signedIn(request, context)
        let id = try PathID.of(context, as: NotificationID.self)
        guard let item = try await inbox.item(id, of: identity.user.id) else {
            throw Problem.notFound("You have no notification with that id.")
        }
        let path = item.deepLink.path
        return .redirect(to: path + (path.contains("?") ? "&" : "?") + "from=notification&notification=\(id)", type: .normal)
    }

    func readAll(_ request: Request, context: VarselContext) async throws -> Response {
        let identity = try signedIn(request, context)
        let form = try await PageForm.decode(PageForm.ReadAll.self, from: request)
        let count = try await inbox.markAllRead(userID: identity.user.id)
        return .redirect(to: Flash.markedRead(count: count).added(to: Self.centrePath(filter: form.filter)), type: .normal)
    }

    /// The centre's path, keeping a form's filter when it is one the centre knows, and (`after`) a later page's start.
    static func centrePath(filter: String?, after: NotificationID? = nil) -> String {
        var query: [String] = []
        if let filter, let parsed = NotificationFilter(wireName: filter), parsed != .all { query.append("filter=\(parsed.wireName)") }
        if let after { query.append("cursor=\(Cursor.encode(after))") }
        return query.isEmpty ? "/notifications" : "/notifications?" + query.joined(separator: "&")
    }

    func bulk(_ request: Request, context: VarselContext) async throws -> Response {
        let identity = try signedIn(request, context)
        let form = try await PageForm.decode(PageForm.Bulk.self, from: request)
        let ids = (form.ids ?? []).map(NotificationID.init)
        let done: Flash
        if form.action == "delete" {
            done = .deleted(count: try await inbox.delete(ids: ids, userID: identity.user.id))
        } else {
            done = .markedRead(count: try await inbox.markRead(ids: ids, userID: identity.user.id))
        }
        let page = form.cursor.flatMap { try? Cursor.decode($0) }
        return .redirect(to: done.added(to: Self.centrePath(filter: form.filter, after: page)), type: .normal)
    }
}
