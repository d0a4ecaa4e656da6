import Foundation
import HTTPTypes
import Hummingbird
import VarselCore
import VarselService
import VarselStore

/// The server-rendered web client: semantic HTML that works with a screen reader, a keyboard, and without
/// JavaScript (plain form posts and redirects). Every phrase comes from the core.
struct PagesController {
    let services: VarselServices
    let renderer: PageRenderer

    func addRoutes(to router: Router<VarselContext>) {
        router.get("static/:name") { _, context in
            guard let name = context.parameters.get("name"), let asset = renderer.asset(name) else { throw Problem.notFound("No such file.") }
            return asset
        }
        router.get("signin", use: signInPage)
        router.post("signin", use: signIn)
        router.post("signout", use: signOut)
        router.get("/", use: { try await simplePage(.home, tab: .home, $0, $1) })
        router.get("assignments", use: { try await simplePage(.assignments, tab: .assignments, $0, $1) })
        router.get("contacts", use: { try await simplePage(.contacts, tab: .contacts, $0, $1) })
        router.get("profile", use: { try await simplePage(.profile, tab: .profile, $0, $1) })
        router.get("notifications", use: centre)
        router.get("notifications/:id/open", use: open)
        router.post("notifications/read-all", use: readAll)
        router.post("notifications/bulk", use: bulk)
        router.get("settings", use: settings)
        router.post("settings", use: saveSettings)
        router.get("contacts/:id", use: contact)
        router.post("assignments/:id/acknowledge", use: { try await answer(.acknowledged, $0, $1) })
        router.post("assignments/:id/decline", use: { try await answer(.declined, $0, $1) })
        router.get("certifications", use: { try await simplePage(.certification, tab: nil, $0, $1) })
        router.get("certifications/:id", use: { try await simplePage(.certification, tab: nil, $0, $1) })
        router.get("pause", use: { try await simplePage(.pause, tab: nil, $0, $1) })
        router.get("scenarios", use: { try await simplePage(.scenario, tab: nil, $0, $1) })
        router.get("scenarios/:id", use: { try await simplePage(.scenario, tab: nil, $0, $1) })
        router.get("coordinator", use: { try await coordinatorPage($0, $1, errors: [], values: nil) })
        router.post("coordinator/notifications", use: sendNotification)
        router.post("coordinator/assignments", use: createAssignment)
    }

    // MARK: Sign-in

    /// The signed-in user, or a redirect to the sign-in page that comes back here.
    func signedIn(_ request: Request, _ context: VarselContext) throws -> Identity {
        guard let identity = context.identity else {
            let next = request.uri.path + (request.uri.query.map { "?" + $0 } ?? "")
            throw RedirectError(location: "/signin?next=" + (next.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "/"))
        }
        return identity
    }

    func signInModel(_ request: Request, error: String?, username: String, next: String) -> SignInPage {
        let strings = Strings(Language.preferred(fromAcceptLanguage: request.headers[.acceptLanguage]))
        return SignInPage(lang: strings.language.tag, title: strings.signIn, usernameLabel: strings.username, passwordLabel: strings.password,
                          submit: strings.signIn, error: error, username: username, next: next)
    }

    func signInPage(_ request: Request, context: VarselContext) async throws -> Response {
        let next = request.uri.queryParameters["next"].map(String.init) ?? "/notifications"
        return try renderer.page("signin", signInModel(request, error: nil, username: "", next: Self.safeNext(next)))
    }

    /// Only same-site relative paths are followed after sign-in (``LocalRedirect``).
    static func safeNext(_ next: String) -> String {
        LocalRedirect.target(next)
    }

    func signIn(_ request: Request, context: VarselContext) async throws -> Response {
        let form = try await PageForm.decode(PageForm.SignIn.self, from: request)
        let username = form.username ?? ""
        let next = Self.safeNext(form.next ?? "/notifications")
        do {
            let started = try await SessionController(services: services).startSession(username: username, password: form.password ?? "", request: request, context: context)
            var response = Response.redirect(to: next, type: .normal)
            response.setCookie(Cookie(name: sessionCookieName, value: started.token, maxAge: Int(services.configuration.sessionLifetime),
                                      path: "/", secure: services.configuration.usesSecureCookies, httpOnly: true, sameSite: .lax))
            return response
        } catch let problem as Problem {
            let strings = Strings(Language.preferred(fromAcceptLanguage: request.headers[.acceptLanguage]))
            let message = problem.status == .tooManyRequests ? problem.detail : strings.signInFailed
            return try renderer.page("signin", signInModel(request, error: message, username: username, next: next), status: problem.status)
        }
    }

    func signOut(_ request: Request, context: VarselContext) async throws -> Response {
        let identity = try signedIn(request, context)
        try await services.repository.deleteSession(tokenHash: identity.session.tokenHash)
        services.broker.endStreams(ofSession: identity.session.tokenHash)
        var response = Response.redirect(to: "/signin", type: .normal)
        response.setCookie(Cookie(name: sessionCookieName, value: "", maxAge: 0, path: "/", secure: services.configuration.usesSecureCookies,
                                  httpOnly: true, sameSite: .lax))
        return response
    }

    // MARK: The frame

    /// The point the page's live stream resumes from: read before anything the page shows, so an event committed
    /// while the page is being read is either on the page or after this point, and so on the stream.
    func resumePoint() async throws -> Int64 {
        try await services.repository.latestEventID()
    }

    /// The page frame; pass `unread` when the page has counted already, so it is read once.
    func chrome(_ identity: Identity, resumePoint: Int64, title: String, tab: AppTab?, flash: String?, unread counted: Int? = nil) async throws -> PageChrome {
        let user = identity.user
        let describer = services.describer(user.language)
        let unread: Int
        if let counted { unread = counted } else { unread = try await services.repository.unreadCount(for: user.id) }
        let tabs = describer.tabBar(unreadCount: unread, selected: tab).map { element -> TabView in
            let appTab = AppTab.allCases.first { "tab-\($0.rawValue)" == element.id } ?? .home
            let web = WebAccessibility(element)
            return TabView(id: element.id, href: appTab.path, label: element.label, name: web.name, ariaSelected: web[attribute: "aria-selected"] ?? "false",
                           isSelected: element.state.isSelected, posinset: web[attribute: "aria-posinset"] ?? "",
                           setsize: web[attribute: "aria-setsize"] ?? "", badge: element.value)
        }
        let strings = describer.strings
        return PageChrome(
            lang: user.language.tag, title: title, csrfToken: identity.session.csrfToken, userName: user.displayName,
            isCoordinator: identity.holds(.coordinator, .admin), tabs: tabs, flash: flash, lastEventId: resumePoint,
            strings: ChromeStrings(skipToContent: strings.skipToContent, signOut: strings.signOut, mainNavigation: strings.mainNavigation,
                                   settings: strings.screenTitle(.notificationSettings), coordinator: strings.coordinatorTools))
    }

    /// The confirmation for a finished form action, carried across the redirect as `?done=` (``Flash``).
    func flash(_ request: Request, language: Language) -> String? {
        request.uri.queryParameters["done"].flatMap { Flash(query: String($0)) }?.text(services.describer(language))
    }

    // MARK: Simple screens

    func simplePage(_ screen: Screen, tab: AppTab?, _ request: Request, _ context: VarselContext) async throws -> Response {
        let identity = try signedIn(request, context)
        let resumePoint = try await self.resumePoint()
        try await markFollowedNotificationRead(request, identity)
        let strings = Strings(identity.user.language)
        let title = strings.screenTitle(screen)
        var paragraphs: [String] = []
        switch screen {
        case .home: paragraphs = [strings.homeText]
        case .pause:
            if let until = identity.user.pausedUntil {
                paragraphs = [strings.pauseBody(until: until, timeZone: osloTimeZone)]
            }
        case .certification:
            paragraphs = try await services.repository.certifications(mentorID: identity.user.id).map {
                strings.certificationExpiryBody(name: $0.name, expiresAt: $0.expiresAt, timeZone: osloTimeZone)
            }
        default: break
        }
        let model = DetailPage(chrome: try await chrome(identity, resumePoint: resumePoint, title: title, tab: tab, flash: flash(request, language: identity.user.language)),
                               heading: title, headingId: screen.headingElementID,
                               focusHeading: request.uri.queryParameters["from"] == "notification", paragraphs: paragraphs, contact: nil)
        return try renderer.page("detail", model)
    }

    // MARK: The notification centre

    func centre(_ request: Request, context: VarselContext) async throws -> Response {
        let identity = try signedIn(request, context)
        let resumePoint = try await self.resumePoint()
        let user = identity.user
        let filter = request.uri.queryParameters["filter"].flatMap { NotificationFilter(wireName: String($0)) } ?? .all
        let describer = services.describer(user.language)
        let now = services.now()
        let page = try await services.repository.notifications(for: user.id, filter: filter, after: nil, limit: Limits.maxPageSize)
        // The rows are the API's resources: one place composes each item's accessible name and times.
        let preferences = try await services.repository.preferences(for: user.id)
        let rows = page.items.map { item in
            NotificationRow(NotificationResource(item, describer: describer, preferences: preferences, now: now))
        }
        let barElement = describer.filterBar(filter)
        let options = zip(NotificationFilter.allCases, describer.filterOptions(filter)).map { option, element in
            FilterOption(value: option.wireName, label: element.label,
                         ariaPressed: WebAccessibility(element)[attribute: "aria-pressed"] ?? "false", isCurrent: element.state.isSelected)
        }
        let strings = describer.strings
        let unread = try await services.repository.unreadCount(for: user.id)
        let model = NotificationCentrePage(
            chrome: try await chrome(identity, resumePoint: resumePoint, title: strings.screenTitle(.notificationCentre), tab: .notifications,
                                     flash: flash(request, language: user.language), unread: unread),
            heading: strings.screenTitle(.notificationCentre), headingId: Screen.notificationCentre.headingElementID,
            filterBar: FilterBarView(name: WebAccessibility(barElement).name, label: barElement.label, state: barElement.value, options: options),
            rows: rows, isEmpty: rows.isEmpty, emptyText: strings.noNotifications, currentFilter: filter.wireName,
            unreadSummary: strings.unreadSummary(unread), markAllAsRead: strings.markAllAsRead,
            markSelectedAsRead: strings.markSelectedAsRead, deleteSelected: strings.deleteSelected,
            listLabel: strings.notificationList, settingsLink: strings.screenTitle(.notificationSettings))
        return try renderer.page("notifications", model)
    }

    /// Following a notification: go to its screen, whose heading takes focus. A GET changes nothing: the target
    /// screen marks the notification read when it is shown to its owner (``markFollowedNotificationRead``).
    func open(_ request: Request, context: VarselContext) async throws -> Response {
        let identity = try signedIn(request, context)
        let id = try NotificationsController.id(context)
        guard let item = try await services.repository.notification(id: id), item.recipientID == identity.user.id else {
            throw Problem.notFound("You have no notification with id \(id).")
        }
        let path = item.deepLink.path
        return .redirect(to: path + (path.contains("?") ? "&" : "?") + "from=notification&notification=\(id)", type: .normal)
    }

    /// Marks read the notification a screen was opened from (`?notification=`), when it is the viewer's own:
    /// showing the notification's target to its owner is what reading it means.
    func markFollowedNotificationRead(_ request: Request, _ identity: Identity) async throws {
        guard request.uri.queryParameters["from"] == "notification",
              let id = request.uri.queryParameters["notification"].flatMap({ Int64(String($0)) }), id > 0,
              let item = try await services.repository.notification(id: id), item.recipientID == identity.user.id, item.isUnread else { return }
        _ = try await services.inbox.setRead(true, notificationID: id, userID: identity.user.id)
    }

    func readAll(_ request: Request, context: VarselContext) async throws -> Response {
        let identity = try signedIn(request, context)
        let form = try await PageForm.decode(PageForm.ReadAll.self, from: request)
        let count = try await services.inbox.markAllRead(userID: identity.user.id)
        return .redirect(to: Flash.markedRead(count: count).added(to: Self.centrePath(filter: form.filter)), type: .normal)
    }

    /// The centre's path, keeping a form's filter when it is one the centre knows.
    static func centrePath(filter: String?) -> String {
        guard let filter, let parsed = NotificationFilter(wireName: filter), parsed != .all else { return "/notifications" }
        return "/notifications?filter=\(parsed.wireName)"
    }

    func bulk(_ request: Request, context: VarselContext) async throws -> Response {
        let identity = try signedIn(request, context)
        let form = try await PageForm.decode(PageForm.Bulk.self, from: request)
        let ids = form.ids ?? []
        let done: Flash
        if form.action == "delete" {
            done = .deleted(count: try await services.inbox.delete(ids: ids, userID: identity.user.id))
        } else {
            done = .markedRead(count: try await services.inbox.markRead(ids: ids, userID: identity.user.id))
        }
        return .redirect(to: done.added(to: Self.centrePath(filter: form.filter)), type: .normal)
    }

    // MARK: Settings

    func settings(_ request: Request, context: VarselContext) async throws -> Response {
        let identity = try signedIn(request, context)
        let resumePoint = try await self.resumePoint()
        let user = identity.user
        let describer = services.describer(user.language)
        let preferences = try await services.repository.preferences(for: user.id)
        func view(_ setting: NotificationPreferences.Setting) -> SwitchView {
            let element = describer.settingSwitch(setting, preferences: preferences)
            let web = WebAccessibility(element)
            return SwitchView(id: element.id, name: setting.identifier, label: web.name, isOn: element.state.isChecked == true,
                              ariaChecked: web[attribute: "aria-checked"] ?? "false", hintId: element.id + "-hint", hint: web.description ?? "")
        }
        let strings = describer.strings
        let title = strings.screenTitle(.notificationSettings)
        let model = SettingsPage(
            chrome: try await chrome(identity, resumePoint: resumePoint, title: title, tab: .notifications, flash: flash(request, language: user.language)),
            heading: title, headingId: Screen.notificationSettings.headingElementID,
            kindSwitches: NotificationKind.allCases.map { view(.kind($0)) },
            channelSwitches: [view(.sound), view(.vibration), view(.systemNotifications)],
            privacySwitches: [view(.speakPersonalDetails)],
            strings: SettingsStrings(kindsLegend: strings.settingsKindsLegend, channelsLegend: strings.settingsChannelsLegend,
                                     privacyLegend: strings.settingsPrivacyLegend, save: strings.save))
        return try renderer.page("settings", model)
    }

    func saveSettings(_ request: Request, context: VarselContext) async throws -> Response {
        let identity = try signedIn(request, context)
        let form = try await PageForm.decode(PageForm.Settings.self, from: request)
        var preferences = NotificationPreferences.standard
        for setting in NotificationPreferences.Setting.allCases {
            preferences[setting] = form.switchedOn.contains(setting.identifier)
        }
        try await services.repository.setPreferences(preferences, for: identity.user.id)
        services.broker.preferencesChanged(userID: identity.user.id)
        return .redirect(to: Flash.settingsSaved.added(to: "/settings"), type: .normal)
    }

    // MARK: Contact detail and the assignment dialog

    func contact(_ request: Request, context: VarselContext) async throws -> Response {
        let identity = try signedIn(request, context)
        let resumePoint = try await self.resumePoint()
        let id = try NotificationsController.id(context)
        guard let contact = try await services.repository.contact(id: id),
              try await services.contactAccess.canSee(contactID: id, user: identity.user) else {
            throw Problem.notFound("You have no contact with id \(id).")
        }
        try await markFollowedNotificationRead(request, identity)
        let strings = Strings(identity.user.language)
        var assignmentView: AssignmentView?
        let assignmentID = request.uri.queryParameters["assignment"].flatMap { Int64(String($0)) }
        if let assignmentID, let assignment = try await services.repository.assignment(id: assignmentID),
           assignment.contactID == id, assignment.mentorID == identity.user.id {
            assignmentView = AssignmentView(
                id: assignment.id, statusText: strings.assignmentStatus(assignment.status.rawValue), isPending: assignment.status == .pending,
                acknowledge: strings.acknowledgeAssignment, decline: strings.declineAssignment, cancel: strings.cancel,
                dialogTitle: strings.acknowledgeDialogTitle, dialogText: strings.acknowledgeDialogText,
                contactId: id,
                showInlineConfirmation: request.uri.queryParameters["confirm"] == "acknowledge")
        }
        let model = DetailPage(
            chrome: try await chrome(identity, resumePoint: resumePoint, title: strings.screenTitle(.contactDetail), tab: .contacts, flash: flash(request, language: identity.user.language)),
            heading: contact.name, headingId: Screen.contactDetail.headingElementID,
            focusHeading: request.uri.queryParameters["from"] == "notification", paragraphs: [],
            contact: ContactView(phoneLabel: strings.phone, phone: contact.phone, addressLabel: strings.address, address: contact.address,
                                 notesLabel: strings.notes, notes: contact.notes, assignment: assignmentView))
        return try renderer.page("detail", model)
    }

    func answer(_ status: AssignmentStatus, _ request: Request, _ context: VarselContext) async throws -> Response {
        let identity = try signedIn(request, context)
        let id = try NotificationsController.id(context)
        guard let assignment = try await services.repository.assignment(id: id), assignment.mentorID == identity.user.id else {
            throw Problem.notFound("You have no assignment with id \(id).")
        }
        do {
            _ = try await services.repository.respond(to: id, status: status, at: services.now())
        } catch StoreError.alreadyResponded {
            // Answering twice changes nothing; the page shows the standing answer.
        }
        let path = "/contacts/\(assignment.contactID)?assignment=\(id)"
        return .redirect(to: Flash(answer: status)?.added(to: path) ?? path, type: .normal)
    }

    // MARK: Coordinator

    func coordinatorPage(_ request: Request, _ context: VarselContext, errors: [FormError], values: CoordinatorValues?, status: HTTPResponse.Status = .ok) async throws -> Response {
        let identity = try signedIn(request, context).require(.coordinator, .admin)
        let resumePoint = try await self.resumePoint()
        let strings = Strings(identity.user.language)
        let mentors = try await services.repository.users().filter { $0.role == .mentor }
        let model = CoordinatorPage(
            chrome: try await chrome(identity, resumePoint: resumePoint, title: strings.coordinatorTools, tab: nil, flash: flash(request, language: identity.user.language)),
            heading: strings.coordinatorTools, headingId: "coordinator-heading",
            mentors: mentors.map { MentorOption(id: $0.id, name: $0.displayName, isSelected: false) },
            kinds: [NotificationKind.certificationExpiry, .pauseConfirmation, .scenarioPrompt].map {
                KindOption(value: $0.rawValue, label: strings.kindName($0), isSelected: false)
            },
            errors: errors, hasErrors: !errors.isEmpty,
            values: values ?? CoordinatorValues(title: "", body: "", contactName: "", contactAddress: "", contactPhone: "", contactNotes: ""),
            strings: CoordinatorStrings(
                sendHeading: strings.sendNotification, assignmentHeading: strings.createAssignment, recipient: strings.recipient,
                kind: strings.kind, title: strings.titleField, body: strings.bodyField, urgent: strings.urgentField, send: strings.send,
                mentor: strings.mentor, contactName: strings.contactName, contactAddress: strings.address, contactPhone: strings.phone,
                contactNotes: strings.notes, create: strings.create, errorSummary: strings.errorSummary))
        return try renderer.page("coordinator", model, status: status)
    }

    func sendNotification(_ request: Request, context: VarselContext) async throws -> Response {
        let identity = try signedIn(request, context).require(.coordinator, .admin)
        let form = try await PageForm.decode(PageForm.Send.self, from: request)
        let strings = Strings(identity.user.language)
        var values = CoordinatorValues(title: form.title ?? "", body: form.body ?? "", contactName: "", contactAddress: "", contactPhone: "", contactNotes: "")
        var errors: [FormError] = []
        let recipient = form.recipient.flatMap { Int64($0) }
        if recipient == nil {
            values.recipientError = strings.chooseRecipient
            errors.append(FormError(field: strings.recipient, fieldId: "send-recipient", message: strings.chooseRecipient))
        }
        // The same rules as the API (``Validation``), shown next to the fields.
        var validated: Validation.ValidNotification?
        do {
            validated = try Validation.notification(kind: form.kind ?? "", title: values.title, body: values.body,
                                                    urgency: form.urgent == "on" ? Urgency.urgent.rawValue : nil,
                                                    personalDetails: [], allowAssignment: false)
        } catch {
            errors += Self.place(error.issues, strings: strings, values: &values, on: [
                "title": FormField(label: strings.titleField, id: "send-title", inline: \.titleError),
                "body": FormField(label: strings.bodyField, id: "send-body", inline: \.bodyError),
            ], otherwise: FormField(label: strings.kind, id: "send-kind"))
        }
        guard errors.isEmpty, let recipient, let validated else {
            return try await coordinatorPage(request, context, errors: errors, values: values, status: .unprocessableContent)
        }
        guard try await services.repository.user(id: recipient) != nil else { throw Problem.unprocessable("The recipient does not exist.") }
        _ = try await services.sender.send(validated, from: identity.user.id, to: [recipient])
        return .redirect(to: Flash.sent.added(to: "/coordinator"), type: .normal)
    }

    func createAssignment(_ request: Request, context: VarselContext) async throws -> Response {
        let identity = try signedIn(request, context).require(.coordinator, .admin)
        let form = try await PageForm.decode(PageForm.Assignment.self, from: request)
        let strings = Strings(identity.user.language)
        var values = CoordinatorValues(title: "", body: "", contactName: form.contactName ?? "", contactAddress: form.contactAddress ?? "",
                                       contactPhone: form.contactPhone ?? "", contactNotes: form.contactNotes ?? "")
        var errors: [FormError] = []
        let mentorID = form.mentor.flatMap { Int64($0) }
        // The same rules as the API (``Validation``), shown next to the fields.
        var contact: NewContact?
        do {
            contact = try Validation.contact(NewContact(name: values.contactName, phone: values.contactPhone, address: values.contactAddress,
                                                        notes: values.contactNotes), prefix: "")
        } catch {
            errors += Self.place(error.issues, strings: strings, values: &values, on: [
                "name": FormField(label: strings.contactName, id: "assignment-name", inline: \.contactNameError),
                "address": FormField(label: strings.address, id: "assignment-address", inline: \.contactAddressError),
                "phone": FormField(label: strings.phone, id: "assignment-phone"),
            ], otherwise: FormField(label: strings.notes, id: "assignment-notes"))
        }
        guard errors.isEmpty, let contact, let mentorID, let mentor = try await services.repository.user(id: mentorID), mentor.role == .mentor else {
            return try await coordinatorPage(request, context, errors: errors, values: values, status: .unprocessableContent)
        }
        _ = try await services.sender.assign(mentor: mentor, coordinatorID: identity.user.id, contact: contact, urgency: .normal)
        return .redirect(to: Flash.assignmentCreated.added(to: "/coordinator"), type: .normal)
    }
}

extension PagesController {
    /// Where a field of the coordinator's forms shows its error: its label, its element id, and its inline message.
    struct FormField {
        var label: String
        var id: String
        var inline: WritableKeyPath<CoordinatorValues, String?>?
    }

    /// The error summary's entries for `issues`, each on its field (`otherwise` for the rest), inline messages set.
    static func place(_ issues: [Validation.Issue], strings: Strings, values: inout CoordinatorValues,
                      on fields: [String: FormField], otherwise: FormField) -> [FormError] {
        issues.map { issue in
            let field = fields[issue.field] ?? otherwise
            let message = formMessage(issue, strings: strings)
            if let inline = field.inline { values[keyPath: inline] = message }
            return FormError(field: field.label, fieldId: field.id, message: message)
        }
    }

    /// A validation message for a form, in the user's language where the core has the words for it.
    static func formMessage(_ issue: Validation.Issue, strings: Strings) -> String {
        switch issue.rule {
        case .required: strings.required
        case let .tooLong(max): strings.tooLong(max)
        case .controlCharacters, .other: issue.message
        }
    }
}

/// Sends an anonymous page request to the sign-in page.
struct RedirectError: HTTPResponseError {
    let location: String
    var status: HTTPResponse.Status { .seeOther }

    func response(from request: Request, context: some RequestContext) throws -> Response {
        .redirect(to: location, type: .normal)
    }
}
