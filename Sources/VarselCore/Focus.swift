/// Where focus goes when a screen opens from a link: the screen's main heading, once it is rendered.
public struct FocusPlan: Sendable, Codable, Hashable {
    /// The screen that opens.
    public var screen: Screen
    /// The element id of the heading that receives focus (`contact-name-heading` for a contact, 003 criterion 4).
    public var focusElementID: String

    /// The plan for following `target`.
    public init(following target: DeepLinkTarget) {
        screen = target.screen
        focusElementID = target.screen.headingElementID
    }
}

/// A modal that is open: what it is, what opened it, and where focus starts inside it.
public struct OpenModal: Sendable, Codable, Hashable {
    public var id: String
    /// Alert dialogs demand a response and are not dismissed by Escape.
    public var isAlert: Bool
    /// The element that opened the modal; focus returns there on close.
    public var launcherID: String?
    /// The element that receives focus when the modal opens.
    public var initialFocusID: String

    public init(id: String, isAlert: Bool, launcherID: String?, initialFocusID: String) {
        self.id = id
        self.isAlert = isAlert
        self.launcherID = launcherID
        self.initialFocusID = initialFocusID
    }
}

/// The stack of open modals and the focus moves that opening and closing them call for (001).
///
/// Opening records the launcher and moves focus inside; closing (Escape, or a button) returns focus to the
/// launcher, or to the stated fallback when the launcher is gone. Escape acts on the topmost modal only, and
/// never dismisses an alert dialog.
public struct ModalStack: Sendable, Hashable {
    public private(set) var modals: [OpenModal] = []

    public init() {}

    /// The topmost open modal.
    public var topmost: OpenModal? { modals.last }

    /// Opens `modal` on top; returns the element to focus.
    public mutating func open(_ modal: OpenModal) -> String {
        modals.removeAll { $0.id == modal.id }
        modals.append(modal)
        return modal.initialFocusID
    }

    /// Handles Escape: closes the topmost modal unless it is an alert. Returns where focus goes, or nil when
    /// nothing closed.
    public mutating func escape(fallbackFocusID: String, launcherExists: (String) -> Bool = { _ in true }) -> String? {
        guard let top = modals.last, !top.isAlert else { return nil }
        return close(id: top.id, fallbackFocusID: fallbackFocusID, launcherExists: launcherExists)
    }

    /// Closes the modal `id` (by a button, or Escape); returns where focus goes: the launcher if it still
    /// exists, else `fallbackFocusID`. Nil when no such modal is open.
    public mutating func close(id: String, fallbackFocusID: String, launcherExists: (String) -> Bool = { _ in true }) -> String? {
        guard let index = modals.firstIndex(where: { $0.id == id }) else { return nil }
        let modal = modals.remove(at: index)
        // Closing a modal under another keeps focus in the one still on top.
        if index < modals.count { return nil }
        if let launcher = modal.launcherID, launcherExists(launcher) { return launcher }
        return fallbackFocusID
    }
}
