import Foundation
import HTTPTypes
import Hummingbird
import VarselCore
import VarselService
import VarselStore

/// The notification settings page and its form.
struct SettingsPages: PageScreen {
    let frame: PageFrame
    let channels: ContactChannels
    let settings: AccountSettings
    let webPush: WebPushSettings
}

extension SettingsPages {
    func addRoutes(to router: Router<VarselContext>) {
        router.get("settings", use: settings)
        router.post("settings", use: saveSettings)
    }

    func settings(_ request: Request, context: VarselContext) async throws -> Response {
        try await settingsPage(request, context)
    }

    /// The settings page; after a refused save, with the switches as sent (nothing was saved, and a save after the
    /// times are mended must not turn back what was switched), the times as typed and what is wrong with them.
    func settingsPage(
        _ request: Request, _ context: VarselContext, sent: NotificationPreferences? = nil,
        typed: PageForm.Settings? = nil, errors: [FormError] = [],
        status: HTTPResponse.Status = .ok
    ) async throws -> Response {
        let identity = try signedIn(request, context)
        let resumePoint = try await self.resumePoint()
        let user = identity.user
        let describer = Describer.shared(user.language)
        let stored = try await settings.preferences(of: user.id)
        let preferences = sent ?? stored
        func view(_ setting: NotificationPreferences.Setting) -> SwitchView {
            let element = describer.settingSwitch(setting, preferences: preferences)
            let web = WebAccessibility(element)
            return SwitchView(
                id: element.id, name: setting.identifier, label: web.name, isOn: element.state.isChecked == true,
                ariaChecked: web[attribute: "aria-checked"] ?? "false", hintId: element.id + "-hint", hint: web.description ?? "")
        }
        let strings = describer.strings
        let title = strings.screenTitle(.notificationSettings)
        let states = try await channels.channels(of: user.id)
        // A channel this Varsel cannot send through is not offered; one the person has not verified says where to.
        let followUps = OutsideChannel.allCases.filter(channels.offers).map { channel in
            FollowUpSwitchesView(
                id: "follow-up-\(channel.rawValue)",
                legend: channel == .textMessage ? strings.settingsTextMessageLegend : strings.settingsEmailLegend,
                note: states[channel]?.isVerified == true ? nil : strings.channelNotVerified(channel),
                switches: NotificationKind.settable.map { view(channel == .textMessage ? .textMessage($0) : .email($0)) })
        }
        let quiet = stored.quietHours
        let quietHours = QuietHoursView(
            legend: strings.quietHoursLegend, startLabel: strings.quietHoursStart, endLabel: strings.quietHoursEnd, hint: strings.quietHoursHint,
            start: typed?.quietStart ?? quiet.map { QuietHours.clock($0.start) } ?? "",
            end: typed?.quietEnd ?? quiet.map { QuietHours.clock($0.end) } ?? "",
            startError: errors.first { $0.fieldId == "quiet-start" }?.message, endError: errors.first { $0.fieldId == "quiet-end" }?.message)
        let model = SettingsPage(
            chrome: try await chrome(
                identity, resumePoint: resumePoint, title: title, tab: .notifications, flash: flash(request, language: user.language)),
            heading: title, headingId: Screen.notificationSettings.headingElementID,
            kindSwitches: NotificationKind.settable.map { view(.kind($0)) },
            channelSwitches: [view(.sound), view(.vibration), view(.systemNotifications)],
            privacySwitches: [view(.speakPersonalDetails), view(.lockScreenDetails)],
            followUps: followUps,
            summary: SummaryView(
                legend: strings.summaryLegend, hint: strings.summaryHint,
                switches: (NotificationKind.summarisable.map(NotificationPreferences.Setting.summary) + managerSettings(of: user)).map(view),
                timeLabel: strings.summaryTimeLabel, time: typed?.summaryTime ?? stored.summaryTime.clock,
                timeError: errors.first { $0.fieldId == "summary-time" }?.message),
            quietHours: quietHours, errors: errors, hasErrors: !errors.isEmpty,
            strings: SettingsStrings(
                kindsLegend: strings.settingsKindsLegend, channelsLegend: strings.settingsChannelsLegend,
                privacyLegend: strings.settingsPrivacyLegend, save: strings.save, errorSummary: strings.errorSummary),
            device: DeviceNotificationsView(strings: strings, publicKey: webPush.publicKey))
        return try renderer.page("settings", model, status: status)
    }

    /// The settings only coordinators and admins are offered: none for a mentor.
    func managerSettings(of user: User) -> [NotificationPreferences.Setting] {
        user.role == .mentor ? [] : NotificationPreferences.Setting.managerCases
    }

    func saveSettings(_ request: Request, context: VarselContext) async throws -> Response {
        let identity = try signedIn(request, context)
        let form = try await PageForm.decode(PageForm.Settings.self, from: request)
        var preferences = NotificationPreferences.standard
        for setting in NotificationPreferences.Setting.allCases + managerSettings(of: identity.user) {
            preferences[setting] = form.switchedOn.contains(setting.identifier)
        }
        // The follow-up switches of a channel this Varsel does not offer are not on the page: those choices stay.
        let current = try await settings.preferences(of: identity.user.id)
        if !channels.offers(.textMessage) { preferences.textMessageKinds = current.textMessageKinds }
        if !channels.offers(.email) { preferences.emailKinds = current.emailKinds }
        let strings = Strings(identity.user.language)
        var errors: [FormError] = []
        do {
            // The form takes times as typed (2200, 22.00, 7); the API, `HH:MM` only.
            preferences.quietHours = try Validation.quietHours(
                start: QuietHours.clock(typed: form.quietStart) ?? form.quietStart,
                end: QuietHours.clock(typed: form.quietEnd) ?? form.quietEnd,
                timeZone: current.quietHours?.timeZoneIdentifier ?? QuietHours.defaultTimeZone,
                field: "quietHours")
        } catch {
            errors += error.issues.map { issue in
                let isStart = issue.field.hasSuffix(".start")
                let message =
                    issue.rule == .required || issue.rule == .other("different from start") ? strings.quietHoursIncomplete : strings.invalidClockTime
                return FormError(
                    field: isStart ? strings.quietHoursStart : strings.quietHoursEnd, fieldId: isStart ? "quiet-start" : "quiet-end",
                    message: message)
            }
        }
        // The summary's time, typed as the quiet hours' are; an empty one is refused only while a kind is gathered.
        let summaryTime = form.summaryTime.trimmingCharacters(in: .whitespaces)
        if let minute = QuietHours.clock(typed: summaryTime).flatMap(QuietHours.minutes) {
            preferences.summaryTime = SummaryTime(
                minute: minute, timeZoneIdentifier: preferences.quietHours?.timeZoneIdentifier ?? QuietHours.defaultTimeZone)
        } else if summaryTime.isEmpty && preferences.summaryKinds.isEmpty {
            preferences.summaryTime = current.summaryTime
        } else {
            errors.append(FormError(field: strings.summaryTimeLabel, fieldId: "summary-time", message: strings.summaryTimeInvalid))
        }
        guard errors.isEmpty else {
            return try await settingsPage(request, context, sent: preferences, typed: form, errors: errors, status: .unprocessableContent)
        }
        try await settings.savePreferences(preferences, for: identity.user.id)
        return .redirect(to: Flash.settingsSaved.added(to: "/settings"), type: .normal)
    }
}
