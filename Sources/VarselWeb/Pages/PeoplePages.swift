import Foundation
import HTTPTypes
import Hummingbird
import VarselCore
import VarselService
import VarselStore

/// The coordinator's people screens: the list of people they manage, adding a person (who gets a one-time
/// set-password link), a person's page (link, deactivation, role, certifications, live assignments, change log),
/// and the page where a new person chooses their password. Every decision is ``UserAdministration``'s.
struct PeoplePages: PageScreen {
    let frame: PageFrame
    let configuration: VarselServices.Configuration
    let directory: Directory
    let now: @Sendable () -> Date
    let reports: AssignmentReports
    let users: UserAdministration
    let channels: ContactChannels
    let passkeys: PasskeyCeremonies
    let pushSubscriptions: PushSubscriptions
    let sessions: Sessions
}

extension PeoplePages {
    func addRoutes(to router: Router<VarselContext>) {
        router.get("people", use: peoplePage)
        router.get("people/new", use: { try await addPersonPage($0, $1, errors: [], values: AddPersonValues()) })
        router.post("people", use: addPerson)
        router.get("people/:id", use: { try await personPage($0, $1, errors: [], status: .ok) })
        router.post("people/:id/link", use: issueLink)
        router.get("people/:id/link", use: shownLink)
        router.post("people/:id/deactivate", use: { try await setActive(false, $0, $1) })
        router.post("people/:id/reactivate", use: { try await setActive(true, $0, $1) })
        router.post("people/:id/role", use: changeRole)
        router.post("people/:id/certifications", use: addCertification)
        router.post("people/:id/channels/:channel", use: setPersonChannel)
        router.post("people/:id/certifications/:certification/renew", use: renewCertification)
        router.post("people/:id/certifications/:certification/remove", use: removeCertification)
        router.get("password", use: codeEntryPage)
        router.get("password/:code", use: { try await choosePasswordPage($0, $1, errors: [], status: .ok) })
        router.post("password/:code", use: choosePassword)
    }

    // MARK: The list

    func peoplePage(_ request: Request, context: VarselContext) async throws -> Response {
        let identity = try signedIn(request, context).require(.coordinator, .admin)
        let resumePoint = try await self.resumePoint()
        let user = identity.user
        let describer = Describer.shared(user.language)
        let strings = describer.strings
        let now = now()
        let filter = request.uri.queryParameters["show"].flatMap { PersonFilter(rawValue: String($0)) } ?? .all
        let people = try await pushSubscriptions.markingDevices(
            users.people(for: user).map { $0.summary(now: now) }.filter { filter.includes($0, now: now) })
        let model = PeoplePage(
            chrome: try await chrome(
                identity, resumePoint: resumePoint, title: strings.peopleTitle, tab: .people, flash: flash(request, language: user.language)),
            heading: strings.peopleTitle, headingId: "people-heading",
            filterLabel: strings.filterShow, filterHeading: strings.filterHeading, apply: strings.filterApply,
            filters: PersonFilter.allCases.map { KindOption(value: $0.rawValue, label: strings.personFilterName($0), isSelected: $0 == filter) },
            count: strings.peopleCount(people.count), addLabel: strings.addPersonHeading,
            integrationsLabel: identity.holds(.admin) ? strings.integrationsTitle : nil,
            rows: people.map {
                PersonRowView(
                    id: "person-\($0.id)", href: "/people/\($0.id)", name: describer.personRow($0, now: now, timeZone: osloTimeZone),
                    stateMark: strings.personStateMark($0, now: now))
            },
            emptyText: people.isEmpty ? strings.noPeopleMatch : nil)
        return try renderer.page("people", model)
    }

    // MARK: Adding a person

    func addPersonPage(
        _ request: Request, _ context: VarselContext, errors: [FormError], values: AddPersonValues,
        status: HTTPResponse.Status = .ok
    ) async throws -> Response {
        let identity = try signedIn(request, context).require(.coordinator, .admin)
        let resumePoint = try await self.resumePoint()
        let strings = Strings(identity.user.language)
        let roles = Role.allCases.filter { UserAdministration.manages(identity.user, role: $0) }
        let chosenRole = values.role.isEmpty ? Role.mentor.rawValue : values.role
        let chosenLanguage = values.language.isEmpty ? identity.user.language.rawValue : values.language
        let model = AddPersonPage(
            chrome: try await chrome(identity, resumePoint: resumePoint, title: strings.addPersonHeading, tab: .people, flash: nil),
            heading: strings.addPersonHeading, headingId: "add-person-heading", errors: errors, hasErrors: !errors.isEmpty, values: values,
            roles: roles.map {
                KindOption(value: $0.rawValue, label: Self.capitalized(strings.roleName($0)), isSelected: $0.rawValue == chosenRole)
            },
            hasRoleChoice: roles.count > 1, onlyRole: roles.count == 1 ? Self.capitalized(strings.roleName(roles[0])) : nil,
            languages: Language.allCases.map { KindOption(value: $0.rawValue, label: $0.autonym, isSelected: $0.rawValue == chosenLanguage) },
            strings: AddPersonStrings(
                displayName: strings.displayNameField, username: strings.username, usernameHint: strings.usernameHint,
                language: strings.languageField, role: strings.roleField, add: strings.addButton, errorSummary: strings.errorSummary))
        return try renderer.page("person-new", model, status: status)
    }

    func addPerson(_ request: Request, context: VarselContext) async throws -> Response {
        let identity = try signedIn(request, context).require(.coordinator, .admin)
        let form = try await PageForm.decode(PageForm.NewPerson.self, from: request)
        let strings = Strings(identity.user.language)
        var values = AddPersonValues(
            username: form.username ?? "", displayName: form.displayName ?? "", language: form.language ?? "",
            role: form.role ?? Role.mentor.rawValue)
        do {
            let issued = try await users.invite(
                username: values.username, displayName: values.displayName, role: values.role,
                locale: values.language.isEmpty ? nil : values.language, by: identity.user)
            return try handOver(issued, identity, done: "added")
        } catch StoreError.conflict {
            values.usernameError = strings.usernameTaken
            return try await addPersonPage(
                request, context, errors: [FormError(field: strings.username, fieldId: "person-username", message: strings.usernameTaken)],
                values: values, status: .conflict)
        } catch let invalid as InvalidInput {
            let errors = invalid.issues.map { issue -> FormError in
                switch issue.field {
                case "username":
                    values.usernameError = strings.usernameRule
                    return FormError(field: strings.username, fieldId: "person-username", message: strings.usernameRule)
                case "displayName":
                    let message = CoordinatorPages.formMessage(issue, strings: strings)
                    values.displayNameError = message
                    return FormError(field: strings.displayNameField, fieldId: "person-name", message: message)
                case "locale": return FormError(field: strings.languageField, fieldId: "person-language", message: issue.message)
                default: return FormError(field: strings.roleField, fieldId: "person-role", message: issue.message)
                }
            }
            // The summary lists the mistakes in the order of the form's fields.
            let order = ["person-name", "person-username", "person-language", "person-role"]
            let sorted = errors.sorted { (order.firstIndex(of: $0.fieldId) ?? order.count) < (order.firstIndex(of: $1.fieldId) ?? order.count) }
            return try await addPersonPage(request, context, errors: sorted, values: values, status: .unprocessableContent)
        }
    }

    /// Answers a form that made a one-time link with a redirect to the page that shows it (a reload posts nothing
    /// again), the code sealed for that page alone (``LinkHandover``).
    func handOver(_ issued: UserAdministration.IssuedLink, _ identity: Identity, done: String) throws -> Response {
        let path = LinkHandover.path(for: issued.user.id)
        var response = Response.redirect(to: path + "?done=" + done, type: .normal)
        response.setCookie(
            LinkHandover.handover.cookie(
                try LinkHandover.seal(code: issued.code, expiresAt: issued.expiresAt, personID: issued.user.id, session: identity.session),
                path: path, secure: configuration.usesSecureCookies))
        return response
    }

    /// The page with a person's new one-time link, shown once: the handed-over code is cleared as it is shown, and
    /// without one the person's page says the link was shown already.
    func shownLink(_ request: Request, context: VarselContext) async throws -> Response {
        let identity = try signedIn(request, context).require(.coordinator, .admin)
        let id = try personID(context)
        let person = try await users.person(id, for: identity.user)
        let cleared = LinkHandover.handover.cleared(path: LinkHandover.path(for: id), secure: configuration.usesSecureCookies)
        guard let sealed = request.cookies[LinkHandover.cookieName]?.value,
            let handed = LinkHandover.open(sealed, personID: id, session: identity.session)
        else {
            var response = Response.redirect(to: Flash.linkShownOnce.added(to: "/people/\(id)"), type: .normal)
            response.setCookie(cleared)
            return response
        }
        let strings = Strings(identity.user.language)
        let flash = request.uri.queryParameters["done"] == "added" ? strings.personAdded(person.displayName) : strings.linkMade
        var response = try await linkPage(request, identity, person: person, code: handed.code, expiresAt: handed.expiresAt, flash: flash)
        response.setCookie(cleared)
        return response
    }

    /// The one-time link and its code, never in a URL of ours.
    func linkPage(_ request: Request, _ identity: Identity, person: User, code: String, expiresAt: Date, flash: String) async throws -> Response {
        let resumePoint = try await self.resumePoint()
        let strings = Strings(identity.user.language)
        let site = Self.site(configuration.publicURL, request: request)
        let model = LinkPage(
            chrome: try await chrome(
                identity, resumePoint: resumePoint, title: strings.linkHeading(for: person.displayName), tab: .people, flash: flash),
            heading: strings.linkHeading(for: person.displayName), headingId: "link-heading",
            instructions: strings.linkInstructions(for: person.displayName, until: expiresAt, timeZone: osloTimeZone),
            linkLabel: strings.linkLabel, url: "\(site.origin)/password/\(code)", urlStart: "\(site.origin)/password/",
            codeInstructions: strings.linkCodeInstructions(site: site.name), codeLabel: strings.codeLabel, code: code,
            codeGroups: CodeGroup.groups(of: code),
            back: LinkItem(text: person.displayName, href: "/people/\(person.id)"))
        var response = try renderer.page("link", model)
        response.headers[.cacheControl] = "no-store"
        return response
    }

    /// Where people reach this server: the configured public URL, else the request's own host.
    static func site(_ publicURL: URL?, request: Request) -> (origin: String, name: String) {
        if let publicURL, let scheme = publicURL.scheme, let host = publicURL.host {
            let port = publicURL.port.map { ":\($0)" } ?? ""
            return ("\(scheme)://\(host)\(port)", "\(host)\(port)")
        }
        let host = request.head.authority ?? "localhost"
        return ("http://\(host)", host)
    }

    static func capitalized(_ text: String) -> String { text.prefix(1).uppercased() + text.dropFirst() }

    // MARK: A person's page

    func personPage(
        _ request: Request, _ context: VarselContext, errors: [FormError], values: CertificationValues = CertificationValues(),
        channelAddress: (channel: OutsideChannel, address: String)? = nil, status: HTTPResponse.Status
    ) async throws -> Response {
        let identity = try signedIn(request, context).require(.coordinator, .admin)
        let id = try personID(context)
        let resumePoint = try await self.resumePoint()
        let viewer = identity.user
        let describer = Describer.shared(viewer.language)
        let strings = describer.strings
        let now = now()
        let (person, log) = try await users.details(of: id, for: viewer)
        let user = person.user
        let summaries = try await reports.assignmentSummaries(person.liveAssignments)
        var names: [UserID: String] = [:]
        for entry in log {
            if let actor = entry.actorID, names[actor] == nil {
                names[actor] = try await directory.person(actor)?.displayName ?? "#\(actor)"
            }
        }
        let isSelf = viewer.id == user.id
        let devices =
            user.role == .mentor
            ? try await pushSubscriptions.devices(of: [user.id]).map {
                strings.deviceLine($0.device.status, health: $0.health, now: now, timeZone: osloTimeZone)
            } : []
        let offered = OutsideChannel.allCases.filter(channels.offers)
        let channelStates = try await channels.channels(of: user.id)
        let channels: [PersonChannelView] =
            user.role != .mentor
            ? []
            : offered.map { channel in
                let key = channel.rawValue
                return PersonChannelView(
                    key: key, line: strings.channelLine(channel, state: channelStates[channel]), label: strings.channelAddressLabel(channel),
                    hint: strings.channelAddressHint(channel), inputType: channel == .textMessage ? "tel" : "email",
                    address: channelAddress?.channel == channel
                        ? channelAddress?.address ?? ""
                        : channelStates[channel].map { Strings.readable($0.address, channel: channel) } ?? "",
                    send: strings.sendCode(channel), error: errors.first { $0.fieldId == "channel-\(key)-address" }?.message)
            }
        let model = PersonPage(
            chrome: try await chrome(
                identity, resumePoint: resumePoint, title: user.displayName, tab: .people, flash: flash(request, language: viewer.language)),
            personId: user.id, heading: user.displayName, headingId: "person-heading",
            errors: errors, hasErrors: !errors.isEmpty,
            summary: describer.personRow(
                try await pushSubscriptions.markingDevices([person.summary(now: now)])[0], now: now,
                timeZone: osloTimeZone),
            devices: devices, hasDevices: !devices.isEmpty,
            channels: channels, hasChannels: !channels.isEmpty, channelsHeading: strings.channelsHeading,
            facts: [
                "\(strings.username): \(user.username)",
                "\(strings.roleField): \(Self.capitalized(strings.roleName(user.role)))",
                "\(strings.languageField): \(user.language.autonym)",
            ],
            isSelf: isSelf, ownAccountNote: isSelf ? strings.ownAccountNote : nil,
            isActive: user.isActive, canChangeAccess: !isSelf,
            canChangeRole: !isSelf && viewer.role == .admin,
            roles: Role.allCases.map {
                KindOption(value: $0.rawValue, label: Self.capitalized(strings.roleName($0)), isSelected: $0 == user.role)
            },
            isMentor: user.role == .mentor,
            certifications: person.certifications.map { certification in
                CertificationRow(
                    id: certification.id,
                    text: strings.certificationExpires(name: certification.name, on: certification.expiresAt, timeZone: osloTimeZone),
                    renewLabel: strings.newExpiryField(for: certification.name), renewName: strings.renewCertification(certification.name),
                    removeName: strings.removeCertification(certification.name),
                    renewError: values.renewErrors[certification.id])
            },
            values: values,
            assignments: summaries.map {
                LinkItem(
                    text: describer.coordinatorAssignmentRow($0, now: now, overdueAfter: configuration.answerDeadline),
                    href: WorkPages.contactLink($0))
            },
            hasAssignments: !summaries.isEmpty,
            log: log.reversed().map { entry in
                strings.accountLogLine(
                    action: Self.logAction(entry, strings: strings), by: entry.actorID.flatMap { names[$0] }, at: entry.at, timeZone: osloTimeZone)
            },
            strings: PersonStrings(
                account: strings.accountHeading, certifications: strings.certificationsHeading, noCertifications: strings.noCertifications,
                assignments: strings.liveAssignmentsHeading, noAssignments: strings.liveAssignments(0), reassignHint: strings.reassignHint,
                log: strings.changeLogHeading, newLink: strings.newLinkButton, newLinkHint: strings.newLinkHint,
                deactivate: strings.deactivateButton, deactivateHint: strings.deactivateHint, reactivate: strings.reactivateButton,
                role: strings.roleField, changeRole: strings.changeRoleButton, addCertificationHeading: strings.addCertificationHeading,
                certificationName: strings.certificationNameField, expiresOn: strings.expiresOnField,
                addCertification: strings.addCertificationButton,
                renew: strings.renewButton, remove: strings.removeButton, dateHint: strings.dateRule, errorSummary: strings.errorSummary,
                devicesHeading: strings.devicesHeading, personNoDevices: strings.personNoDevices))
        return try renderer.page("person", model, status: status)
    }

    /// Sets a mentor's mobile number or email address from their page: the code goes to the mentor, who types it on
    /// their Profile.
    func setPersonChannel(_ request: Request, context: VarselContext) async throws -> Response {
        let identity = try signedIn(request, context).require(.coordinator, .admin)
        let id = try personID(context)
        let channel = try ChannelsController.channel(context)
        let form = try await PageForm.decode(PageForm.ChannelAddress.self, from: request)
        let (person, _) = try await users.details(of: id, for: identity.user)
        let address = form.address ?? ""
        do {
            try await channels.start(channel, address: address, for: person.user)
        } catch {
            guard let message = ProfilePages.message(for: error, channel: channel, language: identity.user.language) else { throw error }
            let strings = Strings(identity.user.language)
            return try await personPage(
                request, context,
                errors: [
                    FormError(field: strings.channelAddressLabel(channel), fieldId: "channel-\(channel.rawValue)-address", message: message)
                ], channelAddress: (channel, address), status: .unprocessableContent)
        }
        return .redirect(to: Flash.codeSentToPerson(channel).added(to: "/people/\(id)"), type: .normal)
    }

    /// The change log's words for one entry.
    static func logAction(_ entry: AccountLogEntry, strings: Strings) -> String {
        switch entry.action {
        case .created: strings.accountCreated(as: PersonRole(rawValue: entry.subject) ?? .mentor)
        case .passwordLinkIssued: strings.linkIssuedChange
        case .passwordSet: strings.passwordSetChange
        case .passwordChanged: strings.passwordChangedChange
        case .roleChanged: strings.roleChangedChange(to: PersonRole(rawValue: entry.subject) ?? .mentor)
        case .deactivated: strings.deactivatedChange
        case .reactivated: strings.reactivatedChange
        case .certificationAdded: strings.certificationAddedChange(entry.subject, expires: entry.date, timeZone: osloTimeZone)
        case .certificationRenewed: strings.certificationRenewedChange(entry.subject, expires: entry.date, timeZone: osloTimeZone)
        case .certificationRemoved: strings.certificationRemovedChange(entry.subject)
        case .passkeyAdded: strings.passkeyAddedChange(entry.subject)
        case .passkeyRemoved: strings.passkeyRemovedChange(entry.subject)
        }
    }

    func personID(_ context: VarselContext) throws -> UserID {
        guard let id = context.parameters.get("id").flatMap({ UserID($0) }) else { throw UserAdministration.Refusal.unknownPerson }
        return id
    }

    func issueLink(_ request: Request, context: VarselContext) async throws -> Response {
        let identity = try signedIn(request, context).require(.coordinator, .admin)
        let issued = try await users.issueLink(for: try personID(context), by: identity.user)
        return try handOver(issued, identity, done: "link")
    }

    func setActive(_ active: Bool, _ request: Request, _ context: VarselContext) async throws -> Response {
        let identity = try signedIn(request, context).require(.coordinator, .admin)
        let id = try personID(context)
        if active { try await users.reactivate(id, by: identity.user) } else { try await users.deactivate(id, by: identity.user) }
        return .redirect(to: (active ? Flash.personReactivated : .personDeactivated).added(to: "/people/\(id)"), type: .normal)
    }

    func changeRole(_ request: Request, context: VarselContext) async throws -> Response {
        let identity = try signedIn(request, context).require(.coordinator, .admin)
        let id = try personID(context)
        let form = try await PageForm.decode(PageForm.RoleChoice.self, from: request)
        guard let role = form.role.flatMap(Role.init(rawValue:)) else { throw Problem.unprocessable("Choose a role.") }
        try await users.changeRole(of: id, to: role, by: identity.user)
        return .redirect(to: Flash.roleChanged.added(to: "/people/\(id)"), type: .normal)
    }

    func addCertification(_ request: Request, context: VarselContext) async throws -> Response {
        let identity = try signedIn(request, context).require(.coordinator, .admin)
        let id = try personID(context)
        let form = try await PageForm.decode(PageForm.CertificationEntry.self, from: request)
        let strings = Strings(identity.user.language)
        var values = CertificationValues(name: form.name ?? "", expiresOn: form.expiresOn ?? "")
        var errors: [FormError] = []
        if values.name.trimmingCharacters(in: .whitespaces).isEmpty {
            values.nameError = strings.required
            errors.append(FormError(field: strings.certificationNameField, fieldId: "certification-name", message: strings.required))
        }
        let expiry = try? Validation.day(values.expiresOn, field: "expiresOn")
        if expiry == nil {
            values.expiresOnError = strings.dateRule
            errors.append(FormError(field: strings.expiresOnField, fieldId: "certification-expires", message: strings.dateRule))
        }
        guard errors.isEmpty, let expiry else {
            return try await personPage(request, context, errors: errors, values: values, status: .unprocessableContent)
        }
        do {
            _ = try await users.addCertification(name: values.name, expiresAt: expiry, for: id, by: identity.user)
        } catch let invalid as InvalidInput {
            let message = invalid.issues.first.map { CoordinatorPages.formMessage($0, strings: strings) } ?? strings.required
            values.nameError = message
            return try await personPage(
                request, context, errors: [FormError(field: strings.certificationNameField, fieldId: "certification-name", message: message)],
                values: values, status: .unprocessableContent)
        }
        return .redirect(to: Flash.certificationsSaved.added(to: "/people/\(id)") + "#certifications", type: .normal)
    }

    func renewCertification(_ request: Request, context: VarselContext) async throws -> Response {
        let identity = try signedIn(request, context).require(.coordinator, .admin)
        let id = try personID(context)
        guard let certificationID = context.parameters.get("certification").flatMap({ Int64($0) }) else {
            throw UserAdministration.Refusal.unknownPerson
        }
        let form = try await PageForm.decode(PageForm.CertificationEntry.self, from: request)
        let strings = Strings(identity.user.language)
        guard let expiry = try? Validation.day(form.expiresOn ?? "", field: "expiresOn") else {
            var values = CertificationValues()
            values.renewErrors[certificationID] = strings.dateRule
            let name = try await users.certifications(of: id).first { $0.id == certificationID }?.name ?? ""
            return try await personPage(
                request, context,
                errors: [
                    FormError(
                        field: strings.newExpiryField(for: name), fieldId: "renew-\(certificationID)",
                        message: strings.dateRule)
                ], values: values, status: .unprocessableContent)
        }
        _ = try await users.renewCertification(certificationID, until: expiry, for: id, by: identity.user)
        return .redirect(to: Flash.certificationsSaved.added(to: "/people/\(id)") + "#certifications", type: .normal)
    }

    func removeCertification(_ request: Request, context: VarselContext) async throws -> Response {
        let identity = try signedIn(request, context).require(.coordinator, .admin)
        let id = try personID(context)
        guard let certificationID = context.parameters.get("certification").flatMap({ Int64($0) }) else {
            throw UserAdministration.Refusal.unknownPerson
        }
        _ = try await users.removeCertification(certificationID, for: id, by: identity.user)
        return .redirect(to: Flash.certificationsSaved.added(to: "/people/\(id)") + "#certifications", type: .normal)
    }

    // MARK: Choosing a password through the link

    /// The page language for someone not signed in: their browser's.
    func anonymousStrings(_ request: Request) -> Strings {
        Strings(Language.preferred(fromAcceptLanguage: request.headers[.acceptLanguage]))
    }

    /// Where a code read aloud over the phone is typed in.
    func codeEntryPage(_ request: Request, context: VarselContext) async throws -> Response {
        // The form's query writes a space as `+` (a code is typed in its groups, as it was read aloud).
        if let typed = request.uri.queryParameters["code"].map({ String($0).replacingOccurrences(of: "+", with: " ") }) {
            if let code = SetPasswordCode.normalized(typed) { return .redirect(to: "/password/\(code)", type: .normal) }
            return try renderer.page(
                "password",
                SetPasswordPage(
                    request, strings: anonymousStrings(request), code: nil, holder: nil,
                    error: anonymousStrings(request).codeNotValid), status: .unprocessableContent)
        }
        return try renderer.page("password", SetPasswordPage(request, strings: anonymousStrings(request), code: nil, holder: nil, error: nil))
    }

    func choosePasswordPage(_ request: Request, _ context: VarselContext, errors: [FormError], status: HTTPResponse.Status) async throws -> Response {
        let code = context.parameters.get("code") ?? ""
        let holder = try await users.linkHolder(code: code)
        let strings = holder.map { Strings($0.language) } ?? anonymousStrings(request)
        guard let holder else {
            return try renderer.page(
                "password", SetPasswordPage(request, strings: strings, code: nil, holder: nil, error: strings.linkNotValid), status: .notFound)
        }
        var page = SetPasswordPage(request, strings: strings, code: SetPasswordCode.normalized(code), holder: holder, error: nil)
        page.errors = errors
        page.hasErrors = !errors.isEmpty
        page.passwordError = errors.first { $0.fieldId == "new-password" }?.message
        page.repeatError = errors.first { $0.fieldId == "repeat-password" }?.message
        page.passkey = passkeys.isAvailable ? LinkPasskeyView(strings) : nil
        return try renderer.page("password", page, status: status)
    }

    func choosePassword(_ request: Request, context: VarselContext) async throws -> Response {
        let code = context.parameters.get("code") ?? ""
        let form = try await PageForm.decode(PageForm.ChoosePassword.self, from: request)
        let holder = try await users.linkHolder(code: code)
        let strings = holder.map { Strings($0.language) } ?? anonymousStrings(request)
        do {
            let user = try await users.choosePassword(code: code, password: form.password ?? "", repeated: form.repeated ?? "")
            let started = try await sessions.start(for: user)
            var response = Response.redirect(to: Flash.passwordChosen.added(to: "/"), type: .normal)
            response.setCookie(configuration.sessionCookie(started.token))
            return response
        } catch let invalid as InvalidInput {
            let errors = invalid.issues.map { issue in
                issue.field == "repeat"
                    ? FormError(field: strings.repeatPasswordField, fieldId: "repeat-password", message: strings.passwordsDiffer)
                    : FormError(field: strings.newPasswordField, fieldId: "new-password", message: strings.passwordBreaksRules)
            }
            return try await choosePasswordPage(request, context, errors: errors, status: .unprocessableContent)
        } catch UserAdministration.Refusal.linkNotValid {
            return try renderer.page(
                "password", SetPasswordPage(request, strings: strings, code: nil, holder: nil, error: strings.linkNotValid), status: .notFound)
        }
    }
}
