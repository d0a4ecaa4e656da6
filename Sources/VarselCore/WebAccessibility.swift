/// How an ``AccessibilityElement`` is expressed in HTML: its role, accessible name, description and `aria-*`.
///
/// The web client renders these values; it never invents accessibility semantics of its own.
public struct WebAccessibility: Sendable, Codable, Hashable {
    /// The ARIA role, such as `tab` or `switch`; nil where the native element already has it.
    public var role: String?
    /// The accessible name the browser should compute.
    public var name: String
    /// The accessible description (`aria-describedby` text): the value, then the hint.
    public var description: String?
    /// The `aria-*` attributes, in a stable order.
    public var attributes: [Attribute]

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

    /// Maps `element` to the web, with the hint worded for keyboard users of `language`.
    public init(_ element: AccessibilityElement, language: Language) {
        name = element.label
        role = Self.ariaRole(element.role)
        let hint = SpeechComposer(reader: .web, language: language).speak(element).hint
        let descriptionParts = [element.value, hint].compactMap { $0 }.filter { !$0.isEmpty }
        description = descriptionParts.isEmpty ? nil : descriptionParts.joined(separator: ". ")

        var attributes: [Attribute] = []
        let state = element.state
        if element.role == .tab { attributes.append(.init("aria-selected", state.isSelected ? "true" : "false")) }
        if let checked = state.isChecked { attributes.append(.init("aria-checked", checked ? "true" : "false")) }
        if let expanded = state.isExpanded { attributes.append(.init("aria-expanded", expanded ? "true" : "false")) }
        if state.isDisabled { attributes.append(.init("aria-disabled", "true")) }
        if let level = state.headingLevel { attributes.append(.init("aria-level", String(level))) }
        if state.isModal { attributes.append(.init("aria-modal", "true")) }
        if let position = element.position {
            attributes.append(.init("aria-posinset", String(position.index)))
            attributes.append(.init("aria-setsize", String(position.count)))
        }
        self.attributes = attributes
    }

    static func ariaRole(_ role: AccessibilityRole) -> String? {
        switch role {
        case .button: "button"
        case .link: "link"
        case .tab: "tab"
        case .tabList: "tablist"
        case .checkbox: "checkbox"
        case .toggleSwitch: "switch"
        case .heading: "heading"
        case .list: "list"
        case .listItem: "listitem"
        case .group: "group"
        case .dialog: "dialog"
        case .alertDialog: "alertdialog"
        case .staticText: nil
        }
    }
}
