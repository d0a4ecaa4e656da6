import Foundation
import Hummingbird
import VarselCore
import VarselStore

/// The people list.
struct PeoplePage {
    var chrome: PageChrome
    var heading: String
    var headingId: String
    var filterLabel: String
    var filterHeading: String
    var apply: String
    var filters: [KindOption]
    /// How many people the filter shows: `12 people`.
    var count: String
    var addLabel: String
    /// The way to the integration tokens, for administrators; nil for coordinators.
    var integrationsLabel: String?
    var rows: [PersonRowView]
    var emptyText: String?
}

/// One row of the people list: a link named in full by the core.
struct PersonRowView {
    var id: String
    var href: String
    var name: String
    /// A deactivated person's visible mark (`Deactivated`), hidden from screen readers: ``name`` says it already.
    var stateMark: String?
}

/// The form to add a person.
struct AddPersonPage {
    var chrome: PageChrome
    var heading: String
    var headingId: String
    var errors: [FormError]
    var hasErrors: Bool
    var values: AddPersonValues
    var roles: [KindOption]
    /// Whether the viewer may choose among roles (admins); a coordinator adds mentors, said as plain text.
    var hasRoleChoice: Bool
    var onlyRole: String?
    var languages: [KindOption]
    var strings: AddPersonStrings
}

struct AddPersonValues {
    var username = ""
    var displayName = ""
    var language = ""
    var role = ""
    var usernameError: String?
    var displayNameError: String?
}

struct AddPersonStrings {
    var displayName: String
    var username: String
    var usernameHint: String
    var language: String
    var role: String
    var add: String
    var errorSummary: String
}

/// A new one-time set-password link, shown once.
struct LinkPage {
    var chrome: PageChrome
    var heading: String
    var headingId: String
    var instructions: String
    var linkLabel: String
    var url: String
    /// The link up to its code (`https://varsel.example/password/`), shown before the code's groups.
    var urlStart: String
    var codeInstructions: String
    var codeLabel: String
    var code: String
    /// The code in its groups, each kept on one line.
    var codeGroups: [CodeGroup]
    var back: LinkItem
}

/// One group of a set-password code (`417B`), and whether a dash follows it.
struct CodeGroup {
    var text: String
    var isLast: Bool

    /// `417B-R1XK-ZEC3` as its three groups.
    static func groups(of code: String) -> [CodeGroup] {
        let parts = code.split(separator: "-").map(String.init)
        return parts.enumerated().map { CodeGroup(text: $0.element, isLast: $0.offset == parts.count - 1) }
    }
}

/// A person's page.
struct PersonPage {
    var chrome: PageChrome
    var personId: UserID
    var heading: String
    var headingId: String
    var errors: [FormError]
    var hasErrors: Bool
    /// The same sentence as the person's row in the list.
    var summary: String
    /// A mentor's devices that get notifications, each in one line with whether it shows them.
    var devices: [String]
    var hasDevices: Bool
    /// A mentor's mobile number and email address, each with whether it is verified and a form to set it.
    var channels: [PersonChannelView]
    var hasChannels: Bool
    var channelsHeading: String
    var facts: [String]
    var isSelf: Bool
    var ownAccountNote: String?
    var isActive: Bool
    var canChangeAccess: Bool
    var canChangeRole: Bool
    var roles: [KindOption]
    var isMentor: Bool
    var certifications: [CertificationRow]
    var values: CertificationValues
    var assignments: [LinkItem]
    var hasAssignments: Bool
    /// Newest first.
    var log: [String]
    var strings: PersonStrings
}

/// One of a mentor's channels on their page: its line, and the form that sets it and sends the code to them.
struct PersonChannelView {
    var key: String
    var line: String
    var label: String
    var hint: String
    var inputType: String
    var address: String
    var send: String
    var error: String?
}

struct CertificationRow {
    var id: Int64
    var text: String
    var renewLabel: String
    var renewName: String
    var removeName: String
    var renewError: String?
}

struct CertificationValues {
    var name = ""
    var expiresOn = ""
    var nameError: String?
    var expiresOnError: String?
    var renewErrors: [Int64: String] = [:]
}

struct PersonStrings {
    var account: String
    var certifications: String
    var noCertifications: String
    var assignments: String
    var noAssignments: String
    var reassignHint: String
    var log: String
    var newLink: String
    var newLinkHint: String
    var deactivate: String
    var deactivateHint: String
    var reactivate: String
    var role: String
    var changeRole: String
    var addCertificationHeading: String
    var certificationName: String
    var expiresOn: String
    var addCertification: String
    var renew: String
    var remove: String
    var dateHint: String
    var errorSummary: String
    var devicesHeading: String
    var personNoDevices: String
}

/// The page where a new person (or one whose password was reset) chooses a password: the form when the link
/// works, else why not; without a code, a field to type the code read aloud to them.
struct SetPasswordPage {
    var lang: String
    var title: String
    var heading: String
    /// Who the password is for: `For Kari Nordmann, who signs in as kari.`
    var intro: String?
    var code: String?
    var error: String?
    var errors: [FormError] = []
    var hasErrors = false
    var passwordError: String?
    var repeatError: String?
    var rules: String
    var passwordLabel: String
    var repeatLabel: String
    var submit: String
    var codeLabel: String
    var continueLabel: String
    var errorSummary: String
    /// Whether to show the field for a typed code (no link, or a link that did not work).
    var asksForCode: Bool
    /// Adding a passkey instead of a password, when the server has a relying party.
    var passkey: LinkPasskeyView?

    init(_ request: Request, strings: Strings, code: String?, holder: User?, error: String?) {
        lang = strings.language.tag
        title = strings.choosePasswordTitle
        heading = strings.choosePasswordTitle
        intro = holder.map { strings.choosePasswordFor(name: $0.displayName, username: $0.username) }
        self.code = holder == nil ? nil : code
        self.error = error
        rules = strings.passwordRules
        passwordLabel = strings.newPasswordField
        repeatLabel = strings.repeatPasswordField
        submit = strings.setPasswordButton
        codeLabel = strings.codeField
        continueLabel = strings.continueButton
        errorSummary = strings.errorSummary
        asksForCode = holder == nil
    }
}

/// The set-password page's other way in: a passkey instead of a password.
struct LinkPasskeyView {
    var heading: String
    var intro: String
    var form: AddPasskeyFormView

    init(_ strings: Strings) {
        heading = strings.passkeyInsteadHeading
        intro = strings.passkeysIntro
        form = AddPasskeyFormView(strings, labelledBy: "passkey-instead")
    }
}
