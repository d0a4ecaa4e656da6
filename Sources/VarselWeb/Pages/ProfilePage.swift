import Foundation
import HTTPTypes
import Hummingbird
import VarselCore
import VarselService
import VarselStore

/// The Profile and its parts: certifications with their state, the pause (request, end early), the language and
/// the password. `/certifications` and `/pause`, where notifications lead, show their part of it.
struct ProfilePages: PageScreen {
    let frame: PageFrame
    let configuration: VarselServices.Configuration
    let now: @Sendable () -> Date
    let sender: NotificationSender
    let users: UserAdministration
    let channels: ContactChannels
    let settings: AccountSettings
    let passkeys: PasskeyCeremonies
    let pushSubscriptions: PushSubscriptions
    let sessions: Sessions
}

extension ProfilePages {
    func addRoutes(to router: Router<VarselContext>) {
        router.get("profile", use: { try await profilePage(.profile, $0, $1) })
        router.get("certifications", use: { try await profilePage(.certification, $0, $1) })
        router.get("certifications/:id", use: { try await profilePage(.certification, $0, $1) })
        router.get("pause", use: { try await profilePage(.pause, $0, $1) })
        router.post("profile/pause", use: requestPause)
        router.post("profile/pause/end", use: endPause)
        router.post("profile/language", use: saveLanguage)
        router.post("profile/password", use: changePassword)
        router.post("profile/passkeys/:id/rename", use: renamePasskey)
        router.post("profile/passkeys/:id/remove", use: removePasskey)
        addChannelRoutes(to: router)
    }

    /// Renders the Profile (every section), or the certification or pause screen (their section only).
    func profilePage(
        _ screen: Screen, _ request: Request, _ context: VarselContext, errors: [FormError] = [],
        pauseValues: PageForm.Pause? = nil, channelAddress: (channel: OutsideChannel, address: String)? = nil,
        status: HTTPResponse.Status = .ok
    ) async throws -> Response {
        let identity = try signedIn(request, context)
        let resumePoint = try await self.resumePoint()
        try await markFollowedNotificationRead(request, identity)
        let user = identity.user
        let strings = Strings(user.language)
        let now = now()
        let isMentor = user.role == .mentor
        let certifications =
            isMentor && screen != .pause
            ? try await users.certifications(of: user.id).map {
                strings.certificationState(name: $0.name, expiresAt: $0.expiresAt, now: now, timeZone: osloTimeZone)
            } : []
        var pause: PauseView?
        if isMentor && screen != .certification {
            let state: String =
                if user.isPaused(at: now), let until = user.pausedUntil {
                    strings.pausedUntil(until, timeZone: osloTimeZone)
                } else if user.hasPause(at: now), let from = user.pausedFrom, let until = user.pausedUntil {
                    strings.pauseBooked(from: from, until: until, timeZone: osloTimeZone)
                } else {
                    strings.notPaused
                }
            pause = PauseView(
                state: state, canEnd: user.hasPause(at: now),
                from: pauseValues?.from ?? PageForm.day(now), until: pauseValues?.until ?? "",
                fromError: errors.first { $0.fieldId == "pause-from" }?.message,
                untilError: errors.first { $0.fieldId == "pause-until" }?.message)
        }
        var passkeys: PasskeysView?
        if screen == .profile, self.passkeys.isAvailable {
            let items = try await self.passkeys.passkeys(of: user).map { passkey in
                let error = errors.first { $0.fieldId == "passkey-name-\(passkey.id)" }?.message
                return PasskeyItemView(
                    id: passkey.id, name: passkey.name,
                    dates: strings.passkeyDates(added: passkey.createdAt, lastUsed: passkey.lastUsedAt, timeZone: osloTimeZone),
                    renameLabel: strings.renamePasskeyField(passkey.name), error: error)
            }
            passkeys = PasskeysView(
                items: items, hasItems: !items.isEmpty, form: AddPasskeyFormView(strings, labelledBy: "add-passkey-heading"),
                lastWayIn: errors.first { $0.fieldId == "passkeys" }?.message)
        }
        var devices: DevicesView?
        if screen == .profile {
            let lines = try await pushSubscriptions.devices(of: [user.id]).map {
                strings.deviceLine($0.device.status, health: $0.health, now: now, timeZone: osloTimeZone)
            }
            devices = DevicesView(
                heading: strings.devicesHeading, intro: strings.devicesIntro, lines: lines, hasLines: !lines.isEmpty,
                none: strings.noDevices)
        }
        let channels = screen == .profile && !user.isIntegration ? try await channelsView(for: user, errors: errors, typed: channelAddress) : nil
        let title = strings.screenTitle(screen)
        let model = ProfilePageModel(
            chrome: try await chrome(identity, resumePoint: resumePoint, title: title, tab: .profile, flash: flash(request, language: user.language)),
            heading: title, headingId: screen.headingElementID, focusHeading: request.uri.queryParameters["from"] == "notification",
            errors: errors, hasErrors: !errors.isEmpty,
            showCertifications: isMentor && screen != .pause, certifications: certifications,
            pause: pause, devices: devices, channels: channels,
            account: screen == .profile
                ? AccountView(
                    languages: Language.allCases.map { LanguageOption(value: $0.rawValue, label: $0.autonym, isSelected: $0 == user.language) },
                    currentPasswordError: errors.first { $0.fieldId == "current-password" }?.message,
                    newPasswordError: errors.first { $0.fieldId == "new-password" }?.message) : nil,
            passkeys: passkeys, passkeysScript: passkeys != nil,
            strings: ProfileStrings(strings))
        return try renderer.page("profile", model, status: status)
    }

    func requestPause(_ request: Request, context: VarselContext) async throws -> Response {
        let identity = try signedIn(request, context).require(.mentor)
        let form = try await PageForm.decode(PageForm.Pause.self, from: request)
        let strings = Strings(identity.user.language)
        let errors: [FormError]
        do {
            _ = try await sender.pause(identity.user, fromDay: form.from, untilDay: form.until ?? "")
            return .redirect(to: Flash.pauseRequested.added(to: "/profile"), type: .normal)
        } catch let invalid as InvalidInput {
            errors = invalid.issues.map { issue in
                let isFrom = issue.field == "from"
                let message = issue.rule == .notADay ? strings.invalidDay : isFrom ? strings.pauseFromBeforeUntil : strings.pauseUntilInFuture
                return FormError(
                    field: isFrom ? strings.pauseFrom : strings.pauseUntil, fieldId: isFrom ? "pause-from" : "pause-until",
                    message: message)
            }
        }
        return try await profilePage(.profile, request, context, errors: errors, pauseValues: form, status: .unprocessableContent)
    }

    func endPause(_ request: Request, context: VarselContext) async throws -> Response {
        let identity = try signedIn(request, context).require(.mentor)
        _ = try await sender.endPause(identity.user)
        return .redirect(to: Flash.pauseEnded.added(to: "/profile"), type: .normal)
    }

    func saveLanguage(_ request: Request, context: VarselContext) async throws -> Response {
        let identity = try signedIn(request, context)
        let form = try await PageForm.decode(PageForm.LanguageChoice.self, from: request)
        guard let language = form.language.flatMap(Language.init(rawValue:)) else {
            throw Problem.unprocessable(
                "Choose English (en) or Norwegian Bokmål (nb).", errors: [.init(field: "language", message: "must be en or nb")])
        }
        try await settings.setLanguage(language, for: identity.user.id)
        return .redirect(to: Flash.languageSaved.added(to: "/profile"), type: .normal)
    }

    func changePassword(_ request: Request, context: VarselContext) async throws -> Response {
        let identity = try signedIn(request, context)
        let form = try await PageForm.decode(PageForm.PasswordChange.self, from: request)
        let strings = Strings(identity.user.language)
        do {
            try await sessions.changePassword(
                of: identity.user, keeping: identity.session, current: form.currentPassword ?? "", new: form.newPassword ?? "",
                client: ClientAddress.resolve(
                    peer: context.peerAddress, forwardedFor: request.headers[.forwardedFor],
                    trustedProxies: configuration.trustedProxies))
        } catch let Sessions.Refusal.tooManyAttempts(seconds) {
            // Said on the current password's field, in the person's language, as a wrong password is.
            let error = FormError(
                field: strings.currentPassword, fieldId: "current-password", message: strings.tooManyWrongPasswords(seconds: seconds))
            var page = try await profilePage(.profile, request, context, errors: [error], status: .tooManyRequests)
            page.headers[.retryAfter] = String(seconds)
            return page
        } catch let refusal as Sessions.Refusal {
            throw SessionController.problem(refusal, isPasswordChange: true)
        } catch let invalid as InvalidInput {
            let errors = invalid.issues.map { issue in
                issue.field == "currentPassword"
                    ? FormError(field: strings.currentPassword, fieldId: "current-password", message: strings.wrongCurrentPassword)
                    : FormError(field: strings.newPassword, fieldId: "new-password", message: strings.newPasswordHint)
            }
            return try await profilePage(.profile, request, context, errors: errors, status: .unprocessableContent)
        }
        return .redirect(to: Flash.passwordChanged.added(to: "/profile"), type: .normal)
    }

    func renamePasskey(_ request: Request, context: VarselContext) async throws -> Response {
        let identity = try signedIn(request, context)
        let id = try PasskeysController.passkeyID(context)
        let form = try await PageForm.decode(PageForm.PasskeyName.self, from: request)
        do {
            _ = try await passkeys.rename(id, of: identity.user, to: form.name ?? "")
        } catch PasskeyCeremonies.Refusal.invalidName {
            // The error names the field as its label does: by the passkey's name as it still is.
            let strings = Strings(identity.user.language)
            let current = try await passkeys.passkeys(of: identity.user).first { $0.id == id }?.name ?? ""
            return try await profilePage(
                .profile, request, context,
                errors: [
                    FormError(field: strings.renamePasskeyField(current), fieldId: "passkey-name-\(id)", message: strings.passkeyNameRule)
                ], status: .unprocessableContent)
        } catch let refusal as PasskeyCeremonies.Refusal {
            throw PasskeysController.problem(refusal)
        }
        return .redirect(to: Flash.passkeyRenamed.added(to: "/profile"), type: .normal)
    }

    func removePasskey(_ request: Request, context: VarselContext) async throws -> Response {
        let identity = try signedIn(request, context)
        let id = try PasskeysController.passkeyID(context)
        do {
            try await passkeys.remove(id, of: identity.user)
        } catch PasskeyCeremonies.Refusal.lastWayIn {
            let strings = Strings(identity.user.language)
            return try await profilePage(
                .profile, request, context,
                errors: [
                    FormError(field: strings.passkeysHeading, fieldId: "passkeys", message: strings.lastWayInRefusal)
                ], status: .conflict)
        } catch let refusal as PasskeyCeremonies.Refusal {
            throw PasskeysController.problem(refusal)
        }
        return .redirect(to: Flash.passkeyRemoved.added(to: "/profile"), type: .normal)
    }
}

/// The Profile page and its parts.
struct ProfilePageModel {
    var chrome: PageChrome
    var heading: String
    var headingId: String
    var focusHeading: Bool
    var errors: [FormError]
    var hasErrors: Bool
    var showCertifications: Bool
    var certifications: [String]
    var pause: PauseView?
    var devices: DevicesView?
    var channels: ChannelsView?
    var account: AccountView?
    var passkeys: PasskeysView?
    /// Whether the page loads the passkey script (the header reads this).
    var passkeysScript: Bool
    var strings: ProfileStrings
}

/// The Profile's devices that get notifications, each in one line: its name, and whether it shows them.
struct DevicesView {
    var heading: String
    var intro: String
    var lines: [String]
    var hasLines: Bool
    var none: String
}

/// The Profile's passkeys: each with its dates and its rename and remove forms, and the form that adds one.
struct PasskeysView {
    var items: [PasskeyItemView]
    var hasItems: Bool
    var form: AddPasskeyFormView
    /// Why the last removal was refused, when it was.
    var lastWayIn: String?
}

/// The form that adds a passkey (template `add-passkey-form`), on the Profile and on the set-password page.
struct AddPasskeyFormView {
    /// The id of the heading that names the form.
    var labelledBy: String
    var needsScript: String
    var nameLabel: String
    var nameHint: String
    var defaultName: String
    var button: String
    /// The words the adding script shows when the name is refused, and when the passkey was not added.
    var nameRule: String
    var notAdded: String

    init(_ strings: Strings, labelledBy: String) {
        self.labelledBy = labelledBy
        needsScript = strings.passkeyNeedsScript
        nameLabel = strings.newPasskeyNameField
        nameHint = strings.passkeyNameHint
        defaultName = strings.defaultPasskeyName
        button = strings.addPasskeyButton
        nameRule = strings.passkeyNameRule
        notAdded = strings.passkeyNotAdded
    }
}

struct PasskeyItemView {
    var id: Int64
    var name: String
    var dates: String
    var renameLabel: String
    var error: String?
}

/// The pause section: where the pause stands, the request form's values, and whether it can be ended.
struct PauseView {
    var state: String
    var canEnd: Bool
    var from: String
    var until: String
    var fromError: String?
    var untilError: String?
}

/// The language and password forms.
struct AccountView {
    var languages: [LanguageOption]
    var currentPasswordError: String?
    var newPasswordError: String?
}

struct LanguageOption {
    var value: String
    var label: String
    var isSelected: Bool
}

/// The Profile's words in the user's language.
struct ProfileStrings {
    var certificationsHeading: String
    var noCertifications: String
    var pauseHeading: String
    var requestPauseHeading: String
    var from: String
    var until: String
    var requestPause: String
    var endPause: String
    var languageHeading: String
    var saveLanguage: String
    var passwordHeading: String
    var currentPassword: String
    var newPassword: String
    var newPasswordHint: String
    var changePassword: String
    var errorSummary: String
    var yourData: String
    var download: String
    var passkeysHeading: String
    var passkeysIntro: String
    var noPasskeys: String
    var rename: String
    var remove: String
    var addPasskeyHeading: String

    init(_ strings: Strings) {
        passkeysHeading = strings.passkeysHeading
        passkeysIntro = strings.passkeysIntro
        noPasskeys = strings.noPasskeys
        rename = strings.renameButton
        remove = strings.removePasskeyButton
        addPasskeyHeading = strings.addPasskeyHeading
        yourData = strings.yourDataHeading
        download = strings.downloadMyData
        certificationsHeading = strings.certificationsHeading
        noCertifications = strings.noCertifications
        pauseHeading = strings.pauseHeading
        requestPauseHeading = strings.requestPauseHeading
        from = strings.pauseFrom
        until = strings.pauseUntil
        requestPause = strings.requestPause
        endPause = strings.endPauseNow
        languageHeading = strings.languageHeading
        saveLanguage = strings.saveLanguage
        passwordHeading = strings.passwordHeading
        currentPassword = strings.currentPassword
        newPassword = strings.newPassword
        newPasswordHint = strings.newPasswordHint
        changePassword = strings.changePassword
        errorSummary = strings.errorSummary
    }
}
