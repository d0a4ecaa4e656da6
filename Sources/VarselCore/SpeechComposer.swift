/// The screen readers whose speech Varsel models.
public enum ScreenReader: String, Sendable, Codable, Hashable, CaseIterable {
    /// iOS VoiceOver: label, value, traits, position, then the hint after a pause.
    case voiceOver = "voiceover"
    /// Android TalkBack: state, name, role, joined with commas, case-insensitive repeats dropped.
    case talkBack = "talkback"
    /// A web screen reader reading what the page exposes (``WebAccessibility``): name, role, states, position,
    /// then the description after a pause.
    case web = "web"
}

/// What a screen reader says for one element: the speech, and the hint it says after a pause.
public struct SpokenPhrase: Sendable, Codable, Hashable, CustomStringConvertible {
    /// The parts in speaking order, such as `["Notifications", "3 unread", "tab", "5 of 5"]`.
    public var parts: [String]
    /// The hint, said after a pause; nil when there is none.
    public var hint: String?

    public init(parts: [String], hint: String? = nil) {
        self.parts = parts
        self.hint = hint
    }

    /// The speech without the hint: `Notifications, 3 unread, tab, 5 of 5`.
    public var text: String { parts.joined(separator: ", ") }

    /// The speech with the hint after a pause (rendered as a full stop).
    public var textWithHint: String {
        guard let hint, !hint.isEmpty else { return text }
        return "\(text). \(hint)"
    }

    public var description: String { textWithHint }
}

/// Turns an ``AccessibilityElement`` into what one screen reader says, in one language.
///
/// The element keeps its parts apart; the composer alone decides their order, the words for roles and states,
/// and the separators.
public struct SpeechComposer: Sendable {
    public let reader: ScreenReader
    public let strings: Strings

    public init(reader: ScreenReader, language: Language) {
        self.reader = reader
        self.strings = Strings(language)
    }

    /// What the reader says when focus lands on `element`.
    public func speak(_ element: AccessibilityElement) -> SpokenPhrase {
        let vocabulary = RoleVocabulary(reader: reader, language: strings.language)
        let label = element.label
        let value = element.value.flatMap { $0.isEmpty ? nil : $0 }
        let role = vocabulary.roleName(element.role, level: element.state.headingLevel)
        let states = vocabulary.stateWords(element.state, role: element.role)
        let position = element.position.map(strings.position)
        let hint = combinedHint(element, vocabulary: vocabulary)

        var parts: [String]
        switch reader {
        case .voiceOver:
            // VoiceOver speaks "Selected" before the label, a switch's on/off as its value, then the traits.
            let leading = element.state.isSelected && element.role != .listItem ? [vocabulary.selectedWord] : []
            parts =
                leading + [label] + [value].compactMap { $0 } + states.filter { $0 != vocabulary.selectedWord }
                + [role].compactMap { $0 } + [position].compactMap { $0 }
        case .talkBack:
            parts = states + [label] + [value].compactMap { $0 } + [role].compactMap { $0 } + [position].compactMap { $0 }
            parts = Self.droppingCaseInsensitiveRepeats(parts)
        case .web:
            return speakWeb(element)
        }
        return SpokenPhrase(parts: parts.filter { !$0.isEmpty }, hint: hint)
    }

    /// What a web screen reader says for the page's rendering of `element`: the exposed name (label and value),
    /// role, states and position, then the description. No key hints: the page exposes none.
    private func speakWeb(_ element: AccessibilityElement) -> SpokenPhrase {
        let vocabulary = RoleVocabulary(reader: .web, language: strings.language)
        let web = WebAccessibility(element)
        let parts =
            [web.name] + [vocabulary.roleName(element.role, level: element.state.headingLevel)].compactMap { $0 }
            + vocabulary.stateWords(element.state, role: element.role) + [web.position.map(strings.position)].compactMap { $0 }
        return SpokenPhrase(parts: parts.filter { !$0.isEmpty }, hint: web.description)
    }

    /// The words this reader uses for the element's states, in its language: `checked`, `not checked`,
    /// `on`, `dimmed`… (an iOS bridge uses them as a check box's `accessibilityValue`, seed 004).
    public func stateWords(for element: AccessibilityElement) -> [String] {
        RoleVocabulary(reader: reader, language: strings.language).stateWords(element.state, role: element.role)
    }

    private func combinedHint(_ element: AccessibilityElement, vocabulary: RoleVocabulary) -> String? {
        let pieces = [element.hint, vocabulary.interactionHint(element.role, isDisabled: element.state.isDisabled)]
            .compactMap { $0 }
        return pieces.isEmpty ? nil : pieces.joined(separator: ". ")
    }

    static func droppingCaseInsensitiveRepeats(_ parts: [String]) -> [String] {
        var seen = Set<String>()
        return parts.filter { seen.insert($0.lowercased()).inserted }
    }
}

/// The words one screen reader uses for roles, states and interaction, in one language.
struct RoleVocabulary: Sendable {
    let reader: ScreenReader
    let language: Language

    private var isEnglish: Bool { language == .english }

    var selectedWord: String { isEnglish ? "selected" : "valgt" }

    /// The spoken role; nil for roles the reader does not name (list items, groups and text on iOS).
    func roleName(_ role: AccessibilityRole, level: Int?) -> String? {
        switch (role, reader) {
        case (.button, _), (.toggleButton, .voiceOver), (.toggleButton, .talkBack): return isEnglish ? "button" : "knapp"
        case (.toggleButton, .web): return isEnglish ? "toggle button" : "veksleknapp"
        case (.link, _): return isEnglish ? "link" : "lenke"
        case (.tab, _): return isEnglish ? "tab" : "fane"
        case (.tabList, .voiceOver): return nil
        case (.tabList, _): return isEnglish ? "tab list" : "faneliste"
        // 004: a check box is announced as a button on iOS and as a check box on Android and the web.
        case (.checkbox, .voiceOver): return isEnglish ? "button" : "knapp"
        case (.checkbox, .talkBack): return isEnglish ? "checkbox" : "avmerkingsboks"
        case (.checkbox, .web): return isEnglish ? "check box" : "avmerkingsboks"
        case (.toggleSwitch, .voiceOver): return isEnglish ? "switch button" : "bryterknapp"
        case (.toggleSwitch, _): return isEnglish ? "switch" : "bryter"
        case (.heading, .web):
            guard let level else { return isEnglish ? "heading" : "overskrift" }
            return isEnglish ? "heading, level \(level)" : "overskrift, nivå \(level)"
        case (.heading, _): return isEnglish ? "heading" : "overskrift"
        case (.list, .voiceOver): return nil
        case (.list, _): return isEnglish ? "list" : "liste"
        // On the web a list item is its link; a group is exposed as one (Orca calls it a panel).
        case (.listItem, .web): return isEnglish ? "link" : "lenke"
        case (.group, .web): return isEnglish ? "group" : "gruppe"
        case (.listItem, _), (.group, _), (.staticText, _): return nil
        case (.dialog, _): return "dialog"
        case (.alertDialog, .web): return isEnglish ? "alert dialog" : "varseldialog"
        case (.alertDialog, _): return isEnglish ? "alert" : "varsel"
        }
    }

    /// The spoken states, in the reader's order.
    func stateWords(_ state: AccessibilityState, role: AccessibilityRole) -> [String] {
        var words: [String] = []
        if role == .toggleButton, reader == .web {
            words.append(state.isSelected ? (isEnglish ? "pressed" : "trykket") : (isEnglish ? "not pressed" : "ikke trykket"))
        } else if state.isSelected {
            words.append(selectedWord)
        }
        if let checked = state.isChecked {
            if role == .toggleSwitch {
                words.append(checked ? (isEnglish ? "on" : "på") : (isEnglish ? "off" : "av"))
            } else {
                words.append(checked ? (isEnglish ? "checked" : "avmerket") : (isEnglish ? "not checked" : "ikke avmerket"))
            }
        }
        if let expanded = state.isExpanded {
            words.append(expanded ? (isEnglish ? "expanded" : "utvidet") : (isEnglish ? "collapsed" : "skjult"))
        }
        if state.isDisabled {
            // 004 and 001: iOS says "dimmed", Android says "disabled".
            switch reader {
            case .voiceOver: words.append(isEnglish ? "dimmed" : "nedtonet")
            case .talkBack, .web: words.append(isEnglish ? "disabled" : "deaktivert")
            }
        }
        if state.isModal, reader == .web { words.append(isEnglish ? "modal" : "modal") }
        return words
    }

    /// How to operate the element, said after a pause; nil where the role makes it obvious or it is disabled.
    func interactionHint(_ role: AccessibilityRole, isDisabled: Bool) -> String? {
        guard !isDisabled else { return nil }
        switch (role, reader) {
        case (.toggleSwitch, .voiceOver), (.checkbox, .voiceOver):
            return isEnglish ? "Double tap to toggle setting" : "Dobbelttrykk for å endre innstillingen"
        case (.toggleSwitch, .talkBack), (.checkbox, .talkBack):
            return isEnglish ? "Double-tap to toggle" : "Dobbelttrykk for å slå av eller på"
        case (.listItem, .voiceOver):
            return isEnglish ? "Double tap to open" : "Dobbelttrykk for å åpne"
        case (.listItem, .talkBack):
            return isEnglish ? "Double-tap to activate" : "Dobbelttrykk for å aktivere"
        default:
            // The web page exposes no key hints: the screen reader knows how to operate a switch or a link.
            return nil
        }
    }
}
