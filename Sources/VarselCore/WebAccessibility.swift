/// How an ``AccessibilityElement`` is expressed in HTML: the role the page exposes, its accessible name,
/// description and `aria-*` attributes.
///
/// The web client renders these values and never invents accessibility semantics of its own; the web transcript
/// (`varsel transcript --reader web`) is composed from the same values, so it says what the page exposes.
public struct WebAccessibility: Sendable, Codable, Hashable {
    /// The role the page exposes, as ARIA names it (`tab`, `switch`, `link`, `button`); it may come from a native
    /// element (`<a href>`, `<button>`) rather than a `role` attribute.
    public var role: String?
    /// The accessible name, read from the element's own content: the label, then the value (`Notifications, 3 unread`).
    ///
    /// HTML has no value for links, tabs and groups, and screen readers read a description after the role or, in
    /// Orca's browse mode, not at all; so a value that matters is part of the name, in the seed's word order.
    public var name: String
    /// The accessible description: what activating the element does (a switch's effect). Never which key to press:
    /// the screen reader knows that, and it differs between a keyboard and a touch screen.
    public var description: String?
    /// The `aria-*` attributes, in a stable order.
    public var attributes: [Attribute]
    /// The position the page exposes (`aria-posinset`/`aria-setsize`), where ARIA allows one.
    public var position: SetPosition?

    /// One HTML attribute.
    public struct Attribute: Sendable, Codable, Hashable {
        public var name: String
        public var value: String

        public init(_ name: String, _ value: String) {
            self.name = name
            self.value = value
        }
    }

    /// Looks up an attribute's value.
    public subscript(attribute name: String) -> String? {
        attributes.first { $0.name == name }?.value
    }

    /// Maps `element` to the web.
    public init(_ element: AccessibilityElement) {
        let value = element.value.flatMap { $0.isEmpty ? nil : $0 }
        name = [element.label, value].compactMap { $0 }.joined(separator: ", ")
        role = Self.ariaRole(element.role)
        description = element.hint.flatMap { $0.isEmpty ? nil : $0 }

        var attributes: [Attribute] = []
        let state = element.state
        if element.role == .tab { attributes.append(.init("aria-selected", state.isSelected ? "true" : "false")) }
        if element.role == .toggleButton { attributes.append(.init("aria-pressed", state.isSelected ? "true" : "false")) }
        if let checked = state.isChecked { attributes.append(.init("aria-checked", checked ? "true" : "false")) }
        if let expanded = state.isExpanded { attributes.append(.init("aria-expanded", expanded ? "true" : "false")) }
        if state.isDisabled { attributes.append(.init("aria-disabled", "true")) }
        if let level = state.headingLevel { attributes.append(.init("aria-level", String(level))) }
        if state.isModal { attributes.append(.init("aria-modal", "true")) }
        // ARIA allows a position only on some roles (a tab, not a button): the page exposes it only there.
        if let position = element.position, Self.rolesWithPosition.contains(element.role) {
            attributes.append(.init("aria-posinset", String(position.index)))
            attributes.append(.init("aria-setsize", String(position.count)))
            self.position = position
        }
        self.attributes = attributes
    }

    static let rolesWithPosition: Set<AccessibilityRole> = [.tab, .listItem]

    static func ariaRole(_ role: AccessibilityRole) -> String? {
        switch role {
        case .button, .toggleButton: "button"
        case .link: "link"
        case .tab: "tab"
        case .tabList: "tablist"
        case .checkbox: "checkbox"
        case .toggleSwitch: "switch"
        case .heading: "heading"
        case .list: "list"
        // A notification in the list is followed through its link, which carries the item's name.
        case .listItem: "link"
        case .group: "group"
        case .dialog: "dialog"
        case .alertDialog: "alertdialog"
        case .staticText: nil
        }
    }
}
