import Foundation

/// Builds the ``AccessibilityElement`` of every element Varsel shows, in one language, against an injected clock.
///
/// This is where the six phrases of the user story (seed 003) are decided; composers only voice them.
public struct Describer: Sendable {
    public let strings: Strings
    public let relativeTime: RelativeTime

    public init(language: Language, timeZone: TimeZone = TimeZone(identifier: "Europe/Oslo") ?? .gmt) {
        self.strings = Strings(language)
        self.relativeTime = RelativeTime(language: language, timeZone: timeZone)
    }

    public var language: Language { strings.language }

    /// A list item: `[type]: [title], [body], [time ago]`, valued `read` or `unread` (003, criterion 1), and
    /// `unread, urgent` for an urgent one, so urgency is heard and not only shown in colour.
    public func listItem(_ item: NotificationItem, now: Date) -> AccessibilityElement {
        let label = [
            "\(strings.kindName(item.kind)): \(item.title)",
            Self.trimmingFinalFullStop(item.body),
            relativeTime.phrase(for: item.createdAt, now: now),
        ].filter { !$0.isEmpty }.joined(separator: ", ")
        return AccessibilityElement(
            id: "notification-\(item.id)",
            label: label,
            value: [strings.readState(isUnread: item.isUnread), item.urgency == .urgent ? strings.urgentState : nil]
                .compactMap { $0 }.joined(separator: ", "),
            role: .listItem
        )
    }

    /// A body's closing full stop would be read before the comma that follows it; it is dropped.
    static func trimmingFinalFullStop(_ text: String) -> String {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        return trimmed.hasSuffix(".") && !trimmed.hasSuffix("..") ? String(trimmed.dropLast()) : trimmed
    }

    /// One tab of the bottom navigation of `workspace`; Notifications carries the unread count as its value
    /// (003, criterion 2): `Notifications, 3 unread, tab, 5 of 5` in either workspace.
    public func tab(_ tab: AppTab, unreadCount: Int, selected: AppTab?, in workspace: Workspace = .mentor) -> AccessibilityElement {
        let tabs = workspace.tabs
        return AccessibilityElement(
            id: "tab-\(tab.rawValue)",
            label: strings.tabName(tab),
            value: tab == .notifications ? strings.unreadBadge(unreadCount) : nil,
            role: .tab,
            state: AccessibilityState(isSelected: tab == selected),
            position: SetPosition((tabs.firstIndex(of: tab) ?? 0) + 1, of: tabs.count)
        )
    }

    /// The whole bottom navigation of `workspace`, in order.
    public func tabBar(unreadCount: Int, selected: AppTab?, in workspace: Workspace = .mentor) -> [AccessibilityElement] {
        workspace.tabs.map { tab($0, unreadCount: unreadCount, selected: selected, in: workspace) }
    }

    /// A row of the people list, named in full: `Kari Nordmann, active, Guide certificate expires in 12 days,
    /// 2 live assignments`, and `no device shows notifications` for an active mentor none of whose devices does.
    public func personRow(_ person: PersonSummary, now: Date, timeZone: TimeZone) -> String {
        let isActiveMentor = person.role == .mentor && person.deactivatedAt == nil
        return [
            person.displayName, strings.personState(person, now: now, timeZone: timeZone),
            person.deactivatedAt == nil ? strings.certificationStanding(person, now: now, timeZone: timeZone) : nil,
            strings.liveAssignments(person.liveAssignments),
            isActiveMentor && person.showsNotifications == false ? strings.noDeviceShowsNotifications : nil,
        ]
        .compactMap { $0 }.joined(separator: ", ")
    }

    /// The filter bar as one element: `Filter: Assignments`, valued `active` while a filter narrows the list
    /// (003, criterion 3). With nothing filtered it says `Filter: All` and no state.
    public func filterBar(_ current: NotificationFilter) -> AccessibilityElement {
        AccessibilityElement(
            id: "filter-bar",
            label: strings.filterBarLabel(current),
            value: current.isNarrowing ? strings.filterActive : nil,
            role: .group
        )
    }

    /// The options inside the filter bar: toggle buttons, the current one pressed.
    public func filterOptions(_ current: NotificationFilter) -> [AccessibilityElement] {
        let all = NotificationFilter.allCases
        return all.enumerated().map { index, filter in
            AccessibilityElement(
                id: "filter-\(filter.wireName)",
                label: strings.filterName(filter),
                role: .toggleButton,
                state: AccessibilityState(isSelected: filter == current),
                position: SetPosition(index + 1, of: all.count)
            )
        }
    }

    /// A settings switch: its label, on/off state and hint (003, criterion 5).
    public func settingSwitch(_ setting: NotificationPreferences.Setting, preferences: NotificationPreferences) -> AccessibilityElement {
        AccessibilityElement(
            id: "setting-\(setting.identifier)",
            label: strings.settingLabel(setting),
            role: .toggleSwitch,
            state: AccessibilityState(isChecked: preferences[setting]),
            hint: strings.settingEffect(setting)
        )
    }

    /// Every settings switch, in screen order.
    public func settingSwitches(_ preferences: NotificationPreferences) -> [AccessibilityElement] {
        NotificationPreferences.Setting.allCases.map { settingSwitch($0, preferences: preferences) }
    }

    /// A list item's check box for selecting several (004: name is the visible label; checked, not checked, disabled).
    ///
    /// The label carries the item's age as well as its title, so two items with the same title ("New assignment")
    /// do not give two check boxes the same name.
    public func selectionCheckbox(for item: NotificationItem, now: Date, isChecked: Bool, isDisabled: Bool = false) -> AccessibilityElement {
        AccessibilityElement(
            id: "select-\(item.id)",
            label: strings.selectItemLabel(title: item.title, timeAgo: relativeTime.phrase(for: item.createdAt, now: now)),
            role: .checkbox,
            state: AccessibilityState(isChecked: isChecked, isDisabled: isDisabled)
        )
    }

    /// A modal dialog named by its visible title (001); an alert dialog when it demands a response.
    public func dialog(id: String, title: String, isAlert: Bool) -> AccessibilityElement {
        AccessibilityElement(
            id: id,
            label: title,
            role: isAlert ? .alertDialog : .dialog,
            state: AccessibilityState(isModal: true)
        )
    }

    /// The main heading of a screen; pass `title` for screens named by their content (a contact's name).
    public func heading(of screen: Screen, title: String? = nil) -> AccessibilityElement {
        AccessibilityElement(
            id: screen.headingElementID,
            label: title ?? strings.screenTitle(screen),
            role: .heading,
            state: AccessibilityState(headingLevel: 1)
        )
    }

    /// A plain button.
    public func button(id: String, label: String, isDisabled: Bool = false) -> AccessibilityElement {
        AccessibilityElement(id: id, label: label, role: .button, state: AccessibilityState(isDisabled: isDisabled))
    }
}
