import Foundation
import HTTPTypes
import Hummingbird
import VarselCore
import VarselService
import VarselStore

/// The notification settings page and its form.
extension PagesController {
    func settings(_ request: Request, context: VarselContext) async throws -> Response {
        let identity = try signedIn(request, context)
        let resumePoint = try await self.resumePoint()
        let user = identity.user
        let describer = services.describer(user.language)
        let preferences = try await services.settings.preferences(of: user.id)
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
            privacySwitches: [view(.speakPersonalDetails), view(.lockScreenDetails)],
            strings: SettingsStrings(kindsLegend: strings.settingsKindsLegend, channelsLegend: strings.settingsChannelsLegend,
                                     privacyLegend: strings.settingsPrivacyLegend, save: strings.save),
            device: DeviceNotificationsView(strings: strings, publicKey: services.webPush.publicKey))
        return try renderer.page("settings", model)
    }

    func saveSettings(_ request: Request, context: VarselContext) async throws -> Response {
        let identity = try signedIn(request, context)
        let form = try await PageForm.decode(PageForm.Settings.self, from: request)
        var preferences = NotificationPreferences.standard
        for setting in NotificationPreferences.Setting.allCases {
            preferences[setting] = form.switchedOn.contains(setting.identifier)
        }
        try await services.settings.savePreferences(preferences, for: identity.user.id)
        return .redirect(to: Flash.settingsSaved.added(to: "/settings"), type: .normal)
    }
}
