import Foundation

/// Decides what is announced, when, how politely and where; pure logic against an injected clock.
///
/// Feed it what happens (`notificationArrived`, `actionCompleted`, `modalOpened`, `modalClosed`) with the
/// time it happened, and ask it for what is due (`announcements(dueBy:)`); `nextDeadline` says when to ask
/// next. It never sleeps and never reads the system clock, so every platform can play its output and every
/// test can drive it.
///
/// The rules: polite by default, assertive only for urgent items; one short sentence each; arrivals within
/// `coalescingWindow` of the first become one sentence (`3 new notifications`); feedback for the user's own
/// action waits `userActionDelay` so the screen reader's echo of the control does not cut it off (002);
/// no notification is announced twice; personal details stay out unless allowed; while a modal is open,
/// announcements go to a region inside it.
public struct Announcer: Sendable {
    /// Timings of the announcer.
    public struct Configuration: Sendable, Hashable {
        /// How long after the first arrival further arrivals are gathered into one sentence.
        public var coalescingWindow: TimeInterval
        /// How long feedback for the user's own action waits (002 uses one second).
        public var userActionDelay: TimeInterval

        public init(coalescingWindow: TimeInterval = 1.0, userActionDelay: TimeInterval = 1.0) {
            self.coalescingWindow = coalescingWindow
            self.userActionDelay = userActionDelay
        }
    }

    public let configuration: Configuration
    public let describer: Describer
    public var preferences: NotificationPreferences

    private var burst: [NotificationItem] = []
    private var burstDeadline: Date?
    private var scheduled: [Scheduled] = []
    private var announcedNotificationIDs: Set<NotificationID> = []
    private var modalStack: [String] = []
    private var sequence = 0

    private struct Scheduled: Sendable {
        var text: String
        var politeness: Politeness
        var deliverAt: Date
        var order: Int
    }

    public init(language: Language, preferences: NotificationPreferences = .standard, configuration: Configuration = .init()) {
        self.init(describer: Describer(language: language), preferences: preferences, configuration: configuration)
    }

    /// An announcer that speaks through `describer`: one shared by many announcers keeps a single calendar for them all.
    public init(describer: Describer, preferences: NotificationPreferences = .standard, configuration: Configuration = .init()) {
        self.describer = describer
        self.preferences = preferences
        self.configuration = configuration
    }

    /// The open modals, innermost last.
    public var openModals: [String] { modalStack }

    /// A notification arrived while the user is in the app.
    public mutating func notificationArrived(_ item: NotificationItem, at now: Date) {
        guard preferences.cuesOnArrival(item), announcedNotificationIDs.insert(item.id).inserted else { return }
        closeBurstIfDue(by: now)
        if item.urgency == .urgent {
            let arrival = describer.arrivalAnnouncement(for: item, preferences: preferences)
            schedule(arrival.text, politeness: arrival.politeness, at: now)
            return
        }
        if burstDeadline == nil { burstDeadline = now.addingTimeInterval(configuration.coalescingWindow) }
        burst.append(item)
    }

    /// The user's own action finished; its confirmation is deferred so the control's echo is heard first.
    public mutating func actionCompleted(_ outcome: ActionOutcome, at now: Date) {
        guard let text = describer.confirmation(of: outcome) else { return }
        let deliverAt = now.addingTimeInterval(configuration.userActionDelay)
        // The same confirmation already waiting is not queued again.
        if scheduled.contains(where: { $0.text == text }) { return }
        schedule(text, politeness: .polite, at: deliverAt)
    }

    /// A modal opened; announcements from now on go to a region inside it.
    public mutating func modalOpened(id: String) {
        modalStack.removeAll { $0 == id }
        modalStack.append(id)
    }

    /// A modal closed; announcements go to the next modal down, or the page.
    public mutating func modalClosed(id: String) {
        modalStack.removeAll { $0 == id }
    }

    /// When the next announcement falls due; nil when nothing waits.
    public var nextDeadline: Date? {
        ([burstDeadline] + scheduled.map { Optional($0.deliverAt) }).compactMap { $0 }.min()
    }

    /// Removes and returns every announcement due by `now`, in delivery order, each routed to the region
    /// that is topmost at delivery.
    public mutating func announcements(dueBy now: Date) -> [Announcement] {
        closeBurstIfDue(by: now)
        let due = scheduled.filter { $0.deliverAt <= now }
            .sorted { ($0.deliverAt, $0.order) < ($1.deliverAt, $1.order) }
        scheduled.removeAll { $0.deliverAt <= now }
        let region: AnnouncementRegion = modalStack.last.map { .modal(id: $0) } ?? .main
        return due.map { Announcement(text: $0.text, politeness: $0.politeness, region: region, deliverAt: $0.deliverAt) }
    }

    private mutating func closeBurstIfDue(by now: Date) {
        guard let deadline = burstDeadline, deadline <= now else { return }
        defer {
            burst = []
            burstDeadline = nil
        }
        if burst.count == 1, let only = burst.first {
            let arrival = describer.arrivalAnnouncement(for: only, preferences: preferences)
            schedule(arrival.text, politeness: arrival.politeness, at: deadline)
        } else if burst.count > 1 {
            schedule(describer.strings.newNotifications(count: burst.count), politeness: .polite, at: deadline)
        }
    }

    private mutating func schedule(_ text: String, politeness: Politeness, at date: Date) {
        sequence += 1
        scheduled.append(Scheduled(text: text, politeness: politeness, deliverAt: date, order: sequence))
    }
}
