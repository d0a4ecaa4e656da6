/// A platform-neutral description of one element as assistive technology perceives it.
///
/// The parts are kept apart; a ``SpeechComposer`` decides their order and separators for each screen reader,
/// and ``WebAccessibility`` maps them to HTML roles and `aria-*` attributes.
public struct AccessibilityElement: Sendable, Codable, Hashable {
    /// A stable identifier, used as the element id on the web and as a focus target.
    public var id: String
    /// The name: what the element is. Matches the visible label where there is one (004).
    public var label: String
    /// The current value, such as `3 unread` on the Notifications tab.
    public var value: String?
    public var role: AccessibilityRole
    public var state: AccessibilityState
    /// Position in a set, such as the fifth of five tabs.
    public var position: SetPosition?
    /// What activating the element does, when the label alone does not make it obvious.
    public var hint: String?

    public init(
        id: String,
        label: String,
        value: String? = nil,
        role: AccessibilityRole,
        state: AccessibilityState = .init(),
        position: SetPosition? = nil,
        hint: String? = nil
    ) {
        self.id = id
        self.label = label
        self.value = value
        self.role = role
        self.state = state
        self.position = position
        self.hint = hint
    }
}

/// What kind of element something is, independent of platform.
public enum AccessibilityRole: String, Sendable, Codable, Hashable, CaseIterable {
    case button
    /// A button that stays pressed or not, such as a filter option; `isSelected` is its pressed state.
    case toggleButton
    case link
    case tab
    case tabList
    case checkbox
    /// An on/off switch (a settings toggle).
    case toggleSwitch
    case heading
    case list
    case listItem
    /// A group of related controls, such as the filter bar.
    case group
    case dialog
    /// A dialog that demands a response; Escape does not dismiss it (001, ACCESSIBILITY.md 9).
    case alertDialog
    case staticText
}

/// The states an element can be in.
public struct AccessibilityState: Sendable, Codable, Hashable {
    /// Selected, as the current tab or filter option is.
    public var isSelected: Bool
    /// Checked (true), not checked (false), or not checkable (nil): check boxes and switches.
    public var isChecked: Bool?
    /// Disabled ("dimmed" on iOS, "disabled" on Android and the web).
    public var isDisabled: Bool
    /// Expanded (true), collapsed (false), or neither (nil).
    public var isExpanded: Bool?
    /// The heading level, for headings.
    public var headingLevel: Int?
    /// Whether the element is modal (dialogs).
    public var isModal: Bool

    public init(
        isSelected: Bool = false,
        isChecked: Bool? = nil,
        isDisabled: Bool = false,
        isExpanded: Bool? = nil,
        headingLevel: Int? = nil,
        isModal: Bool = false
    ) {
        self.isSelected = isSelected
        self.isChecked = isChecked
        self.isDisabled = isDisabled
        self.isExpanded = isExpanded
        self.headingLevel = headingLevel
        self.isModal = isModal
    }
}

/// A 1-based position in a set of `count` elements.
public struct SetPosition: Sendable, Codable, Hashable {
    public var index: Int
    public var count: Int

    public init(_ index: Int, of count: Int) {
        self.index = index
        self.count = count
    }
}
