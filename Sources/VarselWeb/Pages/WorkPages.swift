import Foundation
import Hummingbird
import VarselCore
import VarselService
import VarselStore

/// The assignment pipeline's screens: the mentor's Home, Assignments, Contacts and Profile, and the coordinators'
/// dashboard. Each is a deep-link target whose heading takes focus when opened from a notification.
extension PagesController {
    func addWorkRoutes(to router: Router<VarselContext>) {
        router.get("/", use: home)
        router.get("assignments", use: assignmentsPage)
        router.get("contacts", use: contactsPage)
        router.get("profile", use: profilePage)
        router.get("coordinator/assignments", use: dashboard)
    }

    /// Renders a screen of lists: the frame, the screen's heading (focused when arrived at from a notification), the lists.
    func listPage(_ request: Request, _ identity: Identity, resumePoint: Int64, screen: Screen, tab: AppTab, groups: [ListGroup],
                  emptyText: String? = nil, unread: Int? = nil) async throws -> Response {
        let title = Strings(identity.user.language).screenTitle(screen)
        let model = ListPage(
            chrome: try await chrome(identity, resumePoint: resumePoint, title: title, tab: tab, flash: flash(request, language: identity.user.language),
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
        let strings = Strings(user.language)
        let now = services.now()
        var items: [LinkItem] = []
        if user.role == .mentor {
            let mine = try await services.assignmentSummaries(try await services.repository.assignments(forMentor: user.id))
            let waiting = mine.filter { $0.progress == .waitingForAnswer }
            items.append(LinkItem(text: strings.assignmentsWaiting(waiting.count), href: waiting.count == 1 ? Self.contactLink(waiting[0]) : "/assignments"))
            if let next = mine.first(where: { $0.progress == .acknowledged }) {
                items.append(LinkItem(text: strings.nextVisit(name: next.contactName, address: next.address), href: Self.contactLink(next)))
            }
        } else {
            items.append(LinkItem(text: strings.dashboardTitle, href: "/coordinator/assignments"))
        }
        let unread = try await services.repository.unreadCount(for: user.id)
        items.append(LinkItem(text: strings.unreadSummary(unread), href: "/notifications"))
        for certification in try await services.repository.certifications(mentorID: user.id)
        where certification.expiresAt < now.addingTimeInterval(31 * 86400) {
            items.append(LinkItem(text: strings.certificationExpires(name: certification.name, on: certification.expiresAt, timeZone: osloTimeZone),
                                  href: "/profile"))
        }
        if let until = user.pausedUntil, until > now {
            items.append(LinkItem(text: strings.pausedUntil(until, timeZone: osloTimeZone), href: "/profile"))
        }
        return try await listPage(request, identity, resumePoint: resumePoint, screen: .home, tab: .home,
                                  groups: [ListGroup(heading: strings.needsYouNow, headingId: "needs-you-now", items: items)], unread: unread)
    }

    func assignmentsPage(_ request: Request, context: VarselContext) async throws -> Response {
        let identity = try signedIn(request, context)
        let resumePoint = try await self.resumePoint()
        try await markFollowedNotificationRead(request, identity)
        let user = identity.user
        let describer = services.describer(user.language)
        let strings = describer.strings
        let now = services.now()
        let mine = try await services.assignmentSummaries(try await services.repository.assignments(forMentor: user.id))
        let groups = AssignmentProgress.allCases.map { progress in
            let rows = mine.filter { $0.progress == progress }
            return ListGroup(heading: strings.assignmentGroupHeading(progress, count: rows.count), headingId: "assignments-\(progress.rawValue)",
                             items: rows.map { LinkItem(text: describer.mentorAssignmentRow($0, now: now), href: Self.contactLink($0)) })
        }
        return try await listPage(request, identity, resumePoint: resumePoint, screen: .assignments, tab: .assignments,
                                  groups: mine.isEmpty ? [] : groups, emptyText: mine.isEmpty ? strings.noAssignments : nil)
    }

    func contactsPage(_ request: Request, context: VarselContext) async throws -> Response {
        let identity = try signedIn(request, context)
        let resumePoint = try await self.resumePoint()
        let user = identity.user
        let strings = Strings(user.language)
        // Only the people of the mentor's live assignments: a declined one no longer gives access.
        let live = try await services.assignmentSummaries(try await services.repository.assignments(forMentor: user.id)).filter { $0.progress != .declined }
        return try await listPage(request, identity, resumePoint: resumePoint, screen: .contacts, tab: .contacts,
                                  groups: live.isEmpty ? [] : [ListGroup(heading: nil, headingId: nil, items: live.map {
                                      LinkItem(text: "\($0.contactName), \($0.address)", href: Self.contactLink($0))
                                  })],
                                  emptyText: live.isEmpty ? strings.noContacts : nil)
    }

    func profilePage(_ request: Request, context: VarselContext) async throws -> Response {
        let identity = try signedIn(request, context)
        let resumePoint = try await self.resumePoint()
        try await markFollowedNotificationRead(request, identity)
        let user = identity.user
        let strings = Strings(user.language)
        let certifications = try await services.repository.certifications(mentorID: user.id).map {
            LinkItem(text: strings.certificationExpires(name: $0.name, on: $0.expiresAt, timeZone: osloTimeZone), href: nil)
        }
        let pause = user.pausedUntil.flatMap { $0 > services.now() ? strings.pausedUntil($0, timeZone: osloTimeZone) : nil } ?? strings.notPaused
        return try await listPage(request, identity, resumePoint: resumePoint, screen: .profile, tab: .profile,
                                  groups: [ListGroup(heading: strings.certificationsHeading, headingId: "certifications", items: certifications),
                                           ListGroup(heading: strings.pauseHeading, headingId: "pause", items: [LinkItem(text: pause, href: nil)])])
    }

    /// The coordinators' dashboard: assignments by state, how long each waited, and each one's history.
    /// A coordinator sees the assignments they created; an admin sees all.
    func dashboard(_ request: Request, context: VarselContext) async throws -> Response {
        let identity = try signedIn(request, context)
        guard identity.user.role != .mentor else {
            throw Problem.forbidden("The assignments dashboard is for coordinators and admins.")
        }
        let resumePoint = try await self.resumePoint()
        let user = identity.user
        let describer = services.describer(user.language)
        let strings = describer.strings
        let now = services.now()
        let all = try await services.repository.allAssignments()
            .filter { user.role == .admin || $0.coordinatorID == user.id }
        let summaries = try await services.assignmentSummaries(all)
        let groups = AssignmentProgress.allCases.map { progress in
            let rows = summaries.filter { $0.progress == progress }
            return DashboardGroup(
                heading: strings.assignmentGroupHeading(progress, count: rows.count, forMentor: false),
                headingId: "dashboard-\(progress.rawValue)",
                rows: rows.map { summary in
                    DashboardRow(id: "assignment-\(summary.id)", name: describer.coordinatorAssignmentRow(summary, now: now),
                                 href: Self.contactLink(summary), trailLabel: "\(strings.trailHeading): \(summary.contactName)",
                                 trail: summary.trail.map(describer.trailLine))
                })
        }
        let title = strings.dashboardTitle
        let model = DashboardPage(
            chrome: try await chrome(identity, resumePoint: resumePoint, title: title, tab: nil, flash: flash(request, language: user.language)),
            heading: title, headingId: "dashboard-heading", groups: groups)
        return try renderer.page("dashboard", model)
    }
}

extension VarselServices {
    /// The store's assignments as the core describes them: contact, mentor, read and escalation times.
    func assignmentSummaries(_ assignments: [Assignment]) async throws -> [AssignmentSummary] {
        var summaries: [AssignmentSummary] = []
        var mentors: [Int64: String] = [:]
        for assignment in assignments {
            guard let contact = try await repository.contact(id: assignment.contactID) else { continue }
            if mentors[assignment.mentorID] == nil {
                mentors[assignment.mentorID] = try await repository.user(id: assignment.mentorID)?.displayName ?? ""
            }
            var readAt: Date?
            if let notificationID = assignment.notificationID { readAt = try await repository.notification(id: notificationID)?.readAt }
            let steps = try await repository.escalations(assignmentID: assignment.id)
            let progress: AssignmentProgress = switch assignment.status {
            case .pending: .waitingForAnswer
            case .acknowledged: .acknowledged
            case .declined: .declined
            }
            summaries.append(AssignmentSummary(
                id: assignment.id, contactID: assignment.contactID, contactName: contact.name, address: contact.address,
                mentorName: mentors[assignment.mentorID] ?? "", progress: progress, createdAt: assignment.createdAt,
                respondedAt: assignment.respondedAt, readAt: readAt, wasRemindedAt: steps[.mentorReminded], wasEscalatedAt: steps[.coordinatorTold]))
        }
        return summaries
    }

}

/// A link (or plain text) in a list of a screen.
struct LinkItem {
    var text: String
    var href: String?
}

/// A titled list on a screen.
struct ListGroup {
    var heading: String?
    var headingId: String?
    var items: [LinkItem]
}

/// A screen of lists: Home, Assignments, Contacts, Profile.
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
