import Foundation
import Hummingbird
import VarselCore
import VarselService
import VarselStore

/// The assignment pipeline's screens: the mentor's Home, Assignments, Contacts and Profile, and the coordinators'
/// dashboard. Each is a deep-link target whose heading takes focus when opened from a notification.
struct WorkPages: PageScreen {
    let frame: PageFrame
    let configuration: VarselServices.Configuration
    let directory: Directory
    let now: @Sendable () -> Date
    let reports: AssignmentReports
    let users: UserAdministration
    let pushSubscriptions: PushSubscriptions
    let scenarios: ScenarioProgress
}

extension WorkPages {
    func addRoutes(to router: Router<VarselContext>) {
        router.get("/", use: home)
        router.get("assignments", use: assignmentsPage)
        router.get("contacts", use: contactsPage)
        router.get("coordinator/assignments", use: dashboard)
    }

    /// Renders a screen of lists: the frame, the screen's heading (focused when arrived at from a notification), the lists.
    func listPage(
        _ request: Request, _ identity: Identity, resumePoint: Int64, screen: Screen, tab: AppTab, groups: [ListGroup],
        emptyText: String? = nil, unread: Int? = nil
    ) async throws -> Response {
        let title = Strings(identity.user.language).screenTitle(screen)
        let model = ListPage(
            chrome: try await chrome(
                identity, resumePoint: resumePoint, title: title, tab: tab, flash: flash(request, language: identity.user.language),
                unread: unread),
            heading: title, headingId: screen.headingElementID, focusHeading: request.uri.queryParameters["from"] == "notification",
            groups: groups, emptyText: emptyText)
        return try renderer.page("list", model)
    }

    static func contactLink(_ summary: AssignmentSummary) -> String { "/contacts/\(summary.contactID)?assignment=\(summary.id)" }

    func home(_ request: Request, context: VarselContext) async throws -> Response {
        let identity = try signedIn(request, context)
        let resumePoint = try await self.resumePoint()
        try await markFollowedNotificationRead(request, identity)
        let user = identity.user
        let describer = Describer.shared(user.language)
        let strings = describer.strings
        let now = now()
        var items: [LinkItem] = []
        if user.role == .mentor {
            let mine = try await reports.mentorSummaries(of: user)
            let waiting = mine.filter { $0.progress == .waitingForAnswer }
            items.append(
                LinkItem(text: strings.assignmentsWaiting(waiting.count), href: waiting.count == 1 ? Self.contactLink(waiting[0]) : "/assignments"))
            if let next = mine.first(where: { $0.progress == .acknowledged }) {
                items.append(LinkItem(text: strings.nextVisit(describer.whoAndWhere(next)), href: Self.contactLink(next)))
            }
            let toDo = try await scenarios.scenarios(ofMentor: user.id).filter { $0.doneAt == nil }
            if let first = toDo.first {
                items.append(
                    LinkItem(
                        text: strings.scenarioRow(title: first.scenario.title, doneAt: nil, timeZone: osloTimeZone),
                        href: "/scenarios/\(first.scenario.id)"))
            }
        } else {
            items.append(LinkItem(text: strings.dashboardTitle, href: "/coordinator/assignments"))
        }
        let unread = try await inbox.unreadCount(of: user.id)
        items.append(LinkItem(text: strings.unreadSummary(unread), href: "/notifications"))
        for certification in try await users.certifications(of: user.id)
        where certification.expiresAt < now.addingTimeInterval(31 * 86400) {
            items.append(
                LinkItem(
                    text: strings.certificationExpires(name: certification.name, on: certification.expiresAt, timeZone: osloTimeZone),
                    href: "/profile"))
        }
        if user.isPaused(at: now), let until = user.pausedUntil {
            items.append(LinkItem(text: strings.pausedUntil(until, timeZone: osloTimeZone), href: "/profile"))
        } else if user.hasPause(at: now), let from = user.pausedFrom, let until = user.pausedUntil {
            items.append(LinkItem(text: strings.pauseBooked(from: from, until: until, timeZone: osloTimeZone), href: "/profile"))
        }
        return try await listPage(
            request, identity, resumePoint: resumePoint, screen: .home, tab: .home,
            groups: [ListGroup(heading: strings.needsYouNow, headingId: "needs-you-now", items: items)], unread: unread)
    }

    /// The mentor's assignments by state. A waiting one can be acknowledged (through the dialog on its page) or
    /// declined from the list; a closed one (declined, done) no longer links to the contact.
    func assignmentsPage(_ request: Request, context: VarselContext) async throws -> Response {
        let identity = try signedIn(request, context)
        let resumePoint = try await self.resumePoint()
        try await markFollowedNotificationRead(request, identity)
        let user = identity.user
        let describer = Describer.shared(user.language)
        let strings = describer.strings
        let now = now()
        let mine = try await reports.mentorSummaries(of: user)
        let groups = AssignmentProgress.allCases.map { progress in
            let rows = mine.filter { $0.progress == progress }
            return ListGroup(
                heading: strings.assignmentGroupHeading(progress, count: rows.count), headingId: "assignments-\(progress.rawValue)",
                items: rows.map { summary in
                    let isLive = progress == .waitingForAnswer || progress == .acknowledged
                    var item = LinkItem(text: describer.mentorAssignmentRow(summary, now: now), href: isLive ? Self.contactLink(summary) : nil)
                    if progress == .waitingForAnswer {
                        let name = summary.detailsRemovedAt == nil ? summary.contactName : nil
                        item.actions = [
                            RowAction(
                                label: strings.acknowledgeShort, name: strings.acknowledgeAssignment(with: name),
                                method: "get", action: "/contacts/\(summary.contactID)", isPost: false,
                                fields: [
                                    HiddenField(name: "assignment", value: "\(summary.id)"),
                                    HiddenField(name: "confirm", value: "acknowledge"),
                                ]),
                            RowAction(
                                label: strings.declineShort, name: strings.declineAssignment(with: name),
                                method: "post", action: "/assignments/\(summary.id)/decline", isPost: true,
                                fields: []),
                        ]
                    }
                    return item
                })
        }
        return try await listPage(
            request, identity, resumePoint: resumePoint, screen: .assignments, tab: .assignments,
            groups: mine.isEmpty ? [] : groups, emptyText: mine.isEmpty ? strings.noAssignments : nil)
    }

    func contactsPage(_ request: Request, context: VarselContext) async throws -> Response {
        let identity = try signedIn(request, context)
        let resumePoint = try await self.resumePoint()
        let user = identity.user
        let describer = Describer.shared(user.language)
        let strings = describer.strings
        // Only the people of the mentor's live assignments: a declined, done or reassigned one gives no access.
        let live = try await reports.liveSummaries(ofMentor: user.id)
        return try await listPage(
            request, identity, resumePoint: resumePoint, screen: .contacts, tab: .contacts,
            groups: live.isEmpty
                ? []
                : [
                    ListGroup(
                        heading: nil, headingId: nil,
                        items: live.map {
                            LinkItem(text: describer.whoAndWhere($0), href: Self.contactLink($0))
                        })
                ],
            emptyText: live.isEmpty ? strings.noContacts : nil)
    }

    /// The coordinators' dashboard: current assignments by state, how long each waited (overdue ones said so),
    /// and each one's history; filtered by state (waiting, overdue) and mentor. A coordinator sees the
    /// assignments they manage; an admin sees all.
    func dashboard(_ request: Request, context: VarselContext) async throws -> Response {
        let identity = try signedIn(request, context)
        guard identity.user.role != .mentor else {
            throw Problem.forbidden("The assignments dashboard is for coordinators and admins.")
        }
        let resumePoint = try await self.resumePoint()
        let user = identity.user
        let describer = Describer.shared(user.language)
        let strings = describer.strings
        let now = now()
        let filter = AssignmentFilter(request.uri.queryParameters)
        let deadline = configuration.answerDeadline
        let summaries = try await reports.managedSummaries(of: user).filter { filter.includes($0, now: now, deadline: deadline) }
        let unreachable = try await pushSubscriptions.withoutShowingDevice(
            Set(summaries.filter { $0.progress == .waitingForAnswer }.map(\.mentorID)))
        let groups = AssignmentProgress.allCases.compactMap { progress -> DashboardGroup? in
            let rows = summaries.filter { $0.progress == progress }
            if filter.show != .all && rows.isEmpty { return nil }
            return DashboardGroup(
                heading: strings.assignmentGroupHeading(progress, count: rows.count, forMentor: false),
                headingId: "dashboard-\(progress.rawValue)",
                rows: rows.map { summary in
                    DashboardRow(
                        id: "assignment-\(summary.id)",
                        name: describer.coordinatorAssignmentRow(
                            summary, now: now, overdueAfter: deadline, mentorShowsNotifications: !unreachable.contains(summary.mentorID)),
                        href: Self.contactLink(summary),
                        trailLabel: "\(strings.trailHeading): \(summary.detailsRemovedAt == nil ? summary.contactName : strings.detailsRemovedShort)",
                        trail: summary.trail.map(describer.trailLine))
                })
        }
        let mentors = try await directory.mentors()
        let title = strings.dashboardTitle
        let model = DashboardPage(
            chrome: try await chrome(
                identity, resumePoint: resumePoint, title: title, tab: .dashboard, flash: flash(request, language: user.language)),
            heading: title, headingId: "dashboard-heading", groups: groups, emptyText: groups.isEmpty ? strings.noMatchingAssignments : nil,
            filter: FilterView(
                shows: [(AssignmentFilter.Show.all, strings.filterAll), (.waiting, strings.filterWaiting), (.overdue, strings.filterOverdue)].map {
                    SelectOption(value: $0.0.rawValue, label: $0.1, isSelected: filter.show == $0.0)
                },
                mentors: [SelectOption(value: "", label: strings.filterAllMentors, isSelected: filter.mentorID == nil)]
                    + mentors.map { SelectOption(value: "\($0.id)", label: $0.displayName, isSelected: filter.mentorID == $0.id) },
                heading: strings.filterHeading, show: strings.filterShow, mentor: strings.mentor, apply: strings.filterApply))
        return try renderer.page("dashboard", model)
    }
}

/// Which of the dashboard's assignments to show: by state (all, waiting, overdue) and by mentor. Read from the
/// page's and the API's query the same way.
struct AssignmentFilter {
    enum Show: String { case all, waiting, overdue }
    var show: Show
    var mentorID: UserID?

    init(_ query: Hummingbird.Parameters) {
        show = query["show"].flatMap { Show(rawValue: String($0)) } ?? .all
        mentorID = query["mentor"].flatMap { UserID(String($0)) }
    }

    func includes(_ summary: AssignmentSummary, now: Date, deadline: TimeInterval) -> Bool {
        if let mentorID, summary.mentorID != mentorID { return false }
        switch show {
        case .all: return true
        case .waiting: return summary.progress == .waitingForAnswer
        case .overdue: return summary.isOverdue(now: now, deadline: deadline)
        }
    }
}

/// A link (or plain text) in a list of a screen, with the row's buttons.
struct LinkItem {
    var text: String
    var href: String?
    var actions: [RowAction] = []
}

/// A button of a list row, in its own small form: its visible word, and the full accessible name that says which
/// row it acts on (`Decline the assignment with Kari Nordmann`, starting with the visible word).
struct RowAction {
    var label: String
    var name: String
    var method: String
    var action: String
    var isPost: Bool
    var fields: [HiddenField]
}

/// A hidden field of a form.
struct HiddenField {
    var name: String
    var value: String
}

/// A titled list on a screen.
struct ListGroup {
    /// The group's own heading, under a key the page does not use: a template looks a missing key up in the page,
    /// so a group without a heading would otherwise repeat the page's, id and all.
    var groupHeading: GroupHeading?
    var items: [LinkItem]

    init(heading: String?, headingId: String?, items: [LinkItem]) {
        groupHeading = heading.flatMap { text in headingId.map { GroupHeading(text: text, id: $0) } }
        self.items = items
    }
}

/// A list group's heading and the id its section is labelled by.
struct GroupHeading {
    var text: String
    var id: String
}

/// A screen of lists: Home, Assignments, Contacts.
struct ListPage {
    var chrome: PageChrome
    var heading: String
    var headingId: String
    var focusHeading: Bool
    var groups: [ListGroup]
    var emptyText: String?
}

/// The coordinators' dashboard.
struct DashboardPage {
    var chrome: PageChrome
    var heading: String
    var headingId: String
    var groups: [DashboardGroup]
    var emptyText: String?
    var filter: FilterView
}

/// The dashboard's filter form.
struct FilterView {
    var shows: [SelectOption]
    var mentors: [SelectOption]
    var heading: String
    var show: String
    var mentor: String
    var apply: String
}

/// An option of a select box.
struct SelectOption {
    var value: String
    var label: String
    var isSelected: Bool
}

struct DashboardGroup {
    var heading: String
    var headingId: String
    var rows: [DashboardRow]
}

struct DashboardRow {
    var id: String
    var name: String
    var href: String
    var trailLabel: String
    var trail: [String]
}
