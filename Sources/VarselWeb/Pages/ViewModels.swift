import Foundation
import VarselCore
import VarselLive
import VarselService
import VarselStore

/// What every page shares: language, title, the signed-in user, the bottom navigation, live-region settings.
struct PageChrome {
    var lang: String
    var title: String
    var csrfToken: String
    var userName: String
    var isCoordinator: Bool
    var tabs: [TabView]
    /// A message from the last action, shown in a status region (and so announced) on load.
    var flash: String?
    var lastEventId: Int64
    var strings: ChromeStrings
    /// How long a spoken sentence stays in a live region, and how often relative times refresh (the core's).
    var announcementLingerMs = Int(Announcement.lingerSeconds * 1000)
    var timesRefreshMs = Int(RelativeTime.refreshSeconds * 1000)
}

/// Fixed words of the page frame in the page's language.
struct ChromeStrings {
    var skipToContent: String
    var signOut: String
    var mainNavigation: String
    /// The Profile screen's name: a coordinator's bar has no Profile tab, so the header links to it.
    var profile: String
    /// The description of a button that opens a dialog ("Opens a dialog").
    var opensDialog: String
}

/// One tab of the bottom navigation, rendered from the core's description of it.
struct TabView {
    var id: String
    var href: String
    var label: String
    /// The accessible name, count included: `Notifications, 3 unread` (003 criterion 2).
    var name: String
    var ariaSelected: String
    var isSelected: Bool
    var posinset: String
    var setsize: String
    /// The number shown on the tab's icon (hidden from screen readers, whose name for the tab holds the count);
    /// nil when there is nothing unread.
    var badgeCount: String?
    /// The outline drawn above the label (an SVG path on a 24-point grid), so the tab is recognised by its shape too.
    var iconPath: String
}

extension AppTab {
    /// The tab's icon: an SVG path on a 24-point grid, drawn as a 2-point outline in the text colour.
    var iconPath: String {
        switch self {
        case .home: "M3 11 12 3l9 8M5 9v12h5v-6h4v6h5V9"
        case .assignments: "M9 3h6v3H9zM7 5H5v16h14V5h-2M8 11h8M8 15h6"
        case .contacts: "M12 12a4 4 0 1 0 0-8 4 4 0 0 0 0 8zM4 21c0-4 4-6 8-6s8 2 8 6"
        case .profile: "M3 5h18v14H3zM7 10a2 2 0 1 0 4 0 2 2 0 0 0-4 0M6 16c1-2.5 5-2.5 6 0M14 9h4M14 13h4"
        case .notifications: "M6 16v-5a6 6 0 0 1 12 0v5l2 2H4zM10 20a2 2 0 0 0 4 0"
        case .dashboard: "M3 3h8v8H3zM13 3h8v5h-8zM13 10h8v11h-8zM3 13h8v8H3z"
        case .people: "M9 11a3.5 3.5 0 1 0 0-7 3.5 3.5 0 0 0 0 7zM2 20c0-3.5 3-5.5 7-5.5s7 2 7 5.5M16 4.5a3 3 0 0 1 0 6M18 14.5c2.5.5 4 2.5 4 5.5"
        case .send: "M3 11 21 3l-7 18-3-7zM11 14l10-11"
        case .scenarios: "M4 4h7a3 3 0 0 1 3 3v13a2 2 0 0 0-2-2H4zM20 4h-5a3 3 0 0 0-3 3M20 4v14h-6"
        }
    }
}

/// A notification in the list.
struct NotificationRow {
    var id: NotificationID
    var elementId: String
    var href: String
    /// The accessible name the core composes (003 criterion 1).
    var label: String
    var kindName: String
    var title: String
    var body: String
    var timeAgo: String
    var readState: String
    var isUnread: Bool
    var checkboxId: String
    /// Unique in the list (004): `Select New assignment, 5 minutes ago`.
    var checkboxLabel: String
    var isUrgent: Bool
    /// `urgent`, shown as text on an urgent row; nil otherwise.
    var urgencyText: String?

    /// The row for `resource`, as the API describes it to the same user.
    init(_ resource: NotificationResource) {
        id = resource.id
        elementId = "notification-\(resource.id)"
        href = "/notifications/\(resource.id)/open"
        label = resource.accessibility.label
        kindName = resource.accessibility.kindName
        title = resource.title
        body = resource.body
        timeAgo = resource.accessibility.timeAgo
        readState = resource.accessibility.readState
        isUnread = resource.isUnread
        checkboxId = "select-\(resource.id)"
        checkboxLabel = resource.accessibility.selectLabel
        isUrgent = resource.urgency == .urgent
        urgencyText = resource.accessibility.urgencyText
    }
}

extension NotificationRow {
    /// An empty row for the page's `<template>`: every part present (the urgency too), the script fills them.
    static let template = NotificationRow()

    private init() {
        id = 0
        (elementId, href, label, kindName, title, body, timeAgo, readState, checkboxId, checkboxLabel) = ("", "", "", "", "", "", "", "", "", "")
        isUnread = false
        isUrgent = false
        urgencyText = " "
    }
}

/// A filter option on the filter bar: a toggle button that submits the filter form.
struct FilterOption {
    /// The `filter` query value it submits.
    var value: String
    var label: String
    var ariaPressed: String
    var isCurrent: Bool
}

struct NotificationCentrePage {
    var chrome: PageChrome
    var heading: String
    var headingId: String
    var filterBar: FilterBarView
    var rows: [NotificationRow]
    /// The same row partial, empty, as a `<template>` the script fills for a notification that arrives live.
    var rowTemplate: NotificationRow = .template
    var isEmpty: Bool
    var emptyText: String
    var currentFilter: String
    var unreadSummary: String
    var markAllAsRead: String
    var markSelectedAsRead: String
    var deleteSelected: String
    var listLabel: String
    var settingsLink: String
    /// A later page of the list: the API's cursor where it starts (the script adds no live rows to it, whose first
    /// rows are older, and refreshes its times from the same page of the API).
    var cursor: String?
    /// The link to the page after this one, when there is one, and back to the first from a later page.
    var olderLink: LinkItem?
    var newestLink: LinkItem?
    var hasPages: Bool
}

struct FilterBarView {
    /// The group's accessible name: `Filter: Assignments, active` (003 criterion 3); Orca speaks it on entry.
    var name: String
    /// The visible parts of the same phrase: `Filter: Assignments` and `active` while a filter narrows the list.
    var label: String
    var state: String?
    var options: [FilterOption]
}

/// A settings switch (003 criterion 5).
struct SwitchView {
    var id: String
    var name: String
    var label: String
    var isOn: Bool
    var ariaChecked: String
    var hintId: String
    var hint: String
}

struct SettingsPage {
    var chrome: PageChrome
    var heading: String
    var headingId: String
    var kindSwitches: [SwitchView]
    var channelSwitches: [SwitchView]
    var privacySwitches: [SwitchView]
    var followUps: [FollowUpSwitchesView]
    var summary: SummaryView
    var quietHours: QuietHoursView
    var errors: [FormError]
    var hasErrors: Bool
    var strings: SettingsStrings
    var device: DeviceNotificationsView
}

/// One channel's follow-up switches, a switch per kind, and what to do first when the channel is not verified.
struct FollowUpSwitchesView {
    var id: String
    var legend: String
    var note: String?
    var switches: [SwitchView]
}

/// The summary's switches, a switch per kind it may gather, and its time, as stored or as typed, with what is wrong
/// with it.
struct SummaryView {
    var legend: String
    var hint: String
    var switches: [SwitchView]
    var timeLabel: String
    var time: String
    var timeError: String?
}

/// The quiet hours' two times, as stored or as typed, with what is wrong with them.
struct QuietHoursView {
    var legend: String
    var startLabel: String
    var endLabel: String
    var hint: String
    var start: String
    var end: String
    var startError: String?
    var endError: String?
}

/// The "Notifications on this device" switch: its words, what it says after, and the key it subscribes with.
struct DeviceNotificationsView {
    var legend: String
    var label: String
    var hint: String
    var on: String
    var off: String
    var blocked: String
    var unsupported: String
    var failed: String
    var publicKey: String

    init(strings: Strings, publicKey: String) {
        legend = strings.thisDeviceLegend
        label = strings.deviceNotificationsLabel
        hint = strings.deviceNotificationsEffect
        on = strings.deviceNotificationsOn
        off = strings.deviceNotificationsOff
        blocked = strings.deviceNotificationsBlocked
        unsupported = strings.deviceNotificationsUnsupported
        failed = strings.deviceNotificationsFailed
        self.publicKey = publicKey
    }
}

/// The offline page, in both languages (the service worker cannot know the mentor's).
struct OfflinePage {
    struct Words {
        var title: String
        var body: String
        var retry: String

        init(_ strings: Strings) {
            title = strings.offlineTitle
            body = strings.offlineBody
            retry = strings.offlineRetry
        }
    }

    var norwegian = Words(Strings(.norwegianBokmal))
    var english = Words(Strings(.english))
}

struct SettingsStrings {
    var kindsLegend: String
    var channelsLegend: String
    var privacyLegend: String
    var save: String
    var errorSummary: String
}

/// A screen opened from a notification: its heading receives focus when arrived at from a link.
struct DetailPage {
    var chrome: PageChrome
    var heading: String
    var headingId: String
    var focusHeading: Bool
    var paragraphs: [String]
    var contact: ContactView?
    /// A refused visit-done form's errors, summed up above the page.
    var errors: [FormError] = []
    var hasErrors = false
    var strings = ErrorSummaryStrings(errorSummary: "")
}

/// The words of a page whose only form errors are summed up by the `errors` partial.
struct ErrorSummaryStrings {
    var errorSummary: String
}

struct ContactView {
    var phoneLabel: String
    var phone: String
    var addressLabel: String
    var address: String
    var notesLabel: String
    var notes: String
    var assignment: AssignmentView?
    var manage: ManageView?
    /// Who read the details, newest first: for the contact's coordinator and admins only.
    var reads: ContactReadsView?
    /// Whether the details were erased: the fields are not shown.
    var isRemoved = false
    var erase: EraseView?
    /// The admin's download of everything stored about the person; nil for others.
    var download: LinkItem?
}

struct ContactReadsView {
    var heading: String
    var lines: [String]
}

struct AssignmentView {
    var id: AssignmentID
    var statusText: String
    var isPending: Bool
    var acknowledge: String
    var decline: String
    var cancel: String
    var dialogTitle: String
    var dialogText: String
    /// The contact page the no-script launcher reloads with `confirm=acknowledge`, showing the dialog inline.
    var contactId: ContactID
    var showInlineConfirmation: Bool
    /// An acknowledged assignment: the visit-done form.
    var isAcknowledged: Bool
    var markDone: String
    var noteLabel: String
    var noteHint: String
    /// The note as typed, when the form was refused; empty otherwise.
    var note: String
    var noteError: String?
}

struct SignInPage {
    var lang: String
    var title: String
    var usernameLabel: String
    var passwordLabel: String
    var submit: String
    var error: String?
    var username: String
    var next: String
    /// The link to the page where a new person types the code their coordinator read to them.
    var haveCode: String
    /// Signing in with a passkey, when the server has a relying party (`--public-url`).
    var passkey: PasskeySignInView?
}

/// The sign-in page's passkey button, offered first, and the words its script needs.
struct PasskeySignInView {
    var button: String
    var orPassword: String
    var notAccepted: String
}

struct CoordinatorPage {
    var chrome: PageChrome
    var heading: String
    var headingId: String
    /// Mentors who may be given an assignment now.
    var mentors: [MentorOption]
    /// Every mentor, as recipients of a message.
    var recipients: [MentorOption]
    /// One sentence per mentor left out of ``mentors``, saying why.
    var notOffered: [String]
    /// Stored, not computed: templates read stored properties only.
    var hasNotOffered: Bool
    /// The ids that describe the mentor field: its error, then the sentences on who is not offered; nil for none.
    var mentorDescribedBy: String?
    var kinds: [KindOption]
    var errors: [FormError]
    var hasErrors: Bool
    var values: CoordinatorValues
    /// What the coordinator (an administrator: anyone) has scheduled that has not gone yet, soonest first.
    var scheduled: [ScheduledSendRow]
    var hasScheduled: Bool
    var strings: CoordinatorStrings
}

/// One scheduled send in the coordinator's list, with its link to change it and its button to cancel it.
struct ScheduledSendRow {
    var id: String
    var description: String
    var changePath: String
    var changeLabel: String
    var cancelAction: String
    var cancelLabel: String
}

struct MentorOption {
    var id: UserID
    var name: String
    var isSelected: Bool
}
struct KindOption {
    var value: String
    var label: String
    var isSelected: Bool
}
struct FormError {
    var field: String
    var fieldId: String
    var message: String
}

struct CoordinatorValues {
    var title: String
    var body: String
    var contactName: String
    var contactAddress: String
    var contactPhone: String
    var contactNotes: String
    /// The send form's personal details, one phrase per line, as typed.
    var personalDetails: String
    /// The choices sent with a refused form, shown chosen again: the send form's recipient, kind and urgency, and
    /// the assignment form's mentor (never another one in its place).
    var recipient: UserID?
    var kind: String?
    var isUrgent = false
    /// The send form's "send later" fields, as typed.
    var sendTime = ""
    var sendDay = ""
    var mentor: UserID?
    var titleError: String?
    var bodyError: String?
    var personalDetailsError: String?
    var recipientError: String?
    var kindError: String?
    var sendTimeError: String?
    var sendDayError: String?
    var mentorError: String?
    var contactNameError: String?
    var contactAddressError: String?
    var contactPhoneError: String?
    var contactNotesError: String?
}

extension CoordinatorValues {
    /// The send form's personal details as phrases: one a line, blank lines dropped.
    var personalDetailPhrases: [String] {
        personalDetails.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }
}

struct CoordinatorStrings {
    var sendHeading: String
    var assignmentHeading: String
    var recipient: String
    /// The recipient list's first, empty choice, named so a screen reader says what to do.
    var chooseRecipient: String
    /// The mentor field's empty choice, chosen when the mentor sent was refused: no one else is chosen in their place.
    var chooseMentor: String
    var kind: String
    var title: String
    var titleHint: String
    var body: String
    var personalDetails: String
    var personalDetailsHint: String
    var urgent: String
    var sendLaterAt: String
    var sendLaterOn: String
    var sendLaterHint: String
    var send: String
    var scheduledHeading: String
    var nothingScheduled: String
    var mentor: String
    var contactName: String
    var contactAddress: String
    var contactPhone: String
    var contactNotes: String
    var create: String
    var errorSummary: String
}
