import Foundation
import Logging
import VarselCore
import VarselPush
import VarselStore

/// The service graph: every service Varsel runs, built once over one store and one clock, for the server, the
/// command line and the tests alike.
///
/// The store itself is not handed out: every read and every change goes through a service. A class, shared by
/// reference: every handler, closure and open stream that keeps it keeps one pointer, not a copy of twenty fields (as
/// a struct, the copies an idle stream kept cost 1.9 KiB of it).
public final class VarselServices: Sendable {
    /// The store, for the services of this module only.
    let repository: any VarselRepository
    /// The clock. Routes never call `Date()`.
    public let now: @Sendable () -> Date
    public let broker: EventBroker
    public let pump: EventPump
    /// The one place notifications are built and stored.
    public let sender: NotificationSender
    /// A recipient's read, unread and delete.
    public let inbox: NotificationInbox
    public let answers: AssignmentAnswers
    public let settings: AccountSettings
    public let sessions: Sessions
    public let passkeys: PasskeyCeremonies
    public let pushSubscriptions: PushSubscriptions
    public let scenarios: ScenarioProgress
    /// Notifications scheduled for later.
    public let scheduledSends: ScheduledSends
    public let summaries: Summaries
    public let reports: AssignmentReports
    public let users: UserAdministration
    /// Integration tokens that member and case systems act through.
    public let integrations: Integrations
    /// The endpoints integrations are told of events at.
    public let webhooks: Webhooks
    /// Mobile numbers and email addresses, and their verification.
    public let channels: ContactChannels
    /// The text messages and emails this Varsel can send.
    public let messaging: OutsideMessaging
    public let contactAccess: ContactAccess
    /// Who is who, for pages and forms that name or offer people.
    public let directory: Directory
    public let erasure: ContactErasure
    public let export: DataExport
    public let metrics: ServiceMetrics
    /// Whether this instance can use its store now, for `/readyz` and the metrics.
    public let readiness: Readiness
    public let throttle: LoginThrottle
    public let passwords: PasswordHasher
    public let configuration: Configuration
    /// Web Push: the VAPID public key the page subscribes with, and which endpoints are accepted.
    public let webPush: WebPushSettings

    /// Settings of the services and of the HTTP layer that serves them.
    public struct Configuration: Sendable {
        /// How long a session lasts.
        public var sessionLifetime: TimeInterval = 14 * 24 * 3600
        /// Mark the session cookie `Secure` even when ``publicURL`` is not https.
        public var isCookieSecure = false
        /// Where users reach the service (`https://varsel.example`); its origin is accepted in `Origin` headers,
        /// and an https URL makes the session cookie `Secure`.
        public var publicURL: URL?
        /// Proxies whose `X-Forwarded-For` is believed when finding the client's address (`--trusted-proxy`).
        public var trustedProxies: [CIDR] = []
        /// The bearer token `/metrics` requires; without one, `/metrics` is not served.
        public var metricsToken: String?
        /// How many live streams one user may hold; opening one more closes their oldest.
        public var streamsPerUser = 8
        /// How long writing to a stream may wait for a client that does not read before its connection is closed.
        public var streamWriteTimeout: Duration = .seconds(30)
        /// The sign-in limits.
        public var throttle = LoginThrottle.Configuration()
        /// The `retry:` hint sent to event-stream clients, in milliseconds.
        public var streamRetryMilliseconds = 3000
        /// How often an idle stream gets a heartbeat comment.
        public var heartbeatInterval: TimeInterval = 20
        /// How many undelivered messages one stream may hold before it is closed (the client then resumes).
        public var streamBufferLimit = 512
        /// How long an assignment may wait for an answer before the dashboard calls it overdue (and the mentor is
        /// reminded): `--escalate-after`.
        public var answerDeadline: TimeInterval = 24 * 3600

        public init() {}

        /// Whether the session cookie is marked `Secure`: when asked to, or when the public URL is https.
        public var usesSecureCookies: Bool { isCookieSecure || publicURL?.scheme?.lowercased() == "https" }

        /// The public URL's origin (`https://varsel.example:8443`), lower-cased, as browsers send it in `Origin`.
        public var publicOrigin: String? {
            guard let publicURL, let scheme = publicURL.scheme, let host = publicURL.host else { return nil }
            return "\(scheme)://\(host)\(publicURL.port.map { ":\($0)" } ?? "")".lowercased()
        }
    }

    public init(
        repository: any VarselRepository, now: @escaping @Sendable () -> Date, passwords: PasswordHasher,
        configuration: Configuration = .init(), webPush: WebPushSettings = .init(), messaging: OutsideMessaging = .init(),
        webhookEndpointPolicy: PushEndpointPolicy = .init(), makeCode: (@Sendable () -> String)? = nil, logger: Logger
    ) {
        self.repository = repository
        self.now = now
        let metrics = ServiceMetrics()
        self.metrics = metrics
        self.readiness = Readiness(store: repository, now: now)
        let heartbeatInterval = Duration.milliseconds(Int64(configuration.heartbeatInterval * 1000))
        let broker = EventBroker(
            bufferLimit: configuration.streamBufferLimit, streamsPerUser: configuration.streamsPerUser,
            heartbeatSlices: EventPump.heartbeatSlices(over: heartbeatInterval), metrics: metrics)
        self.broker = broker
        let pump = EventPump(repository: repository, broker: broker, logger: logger, heartbeatInterval: heartbeatInterval)
        self.pump = pump
        self.sender = NotificationSender(repository: repository, now: now)
        self.inbox = NotificationInbox(repository: repository, now: now)
        self.answers = AssignmentAnswers(repository: repository, now: now)
        let summaries = Summaries(repository: repository, messaging: messaging, answerDeadline: configuration.answerDeadline, now: now)
        self.summaries = summaries
        self.settings = AccountSettings(repository: repository, broker: broker, summaries: summaries)
        self.users = UserAdministration(repository: repository, passwords: passwords, broker: broker, now: now)
        self.integrations = Integrations(repository: repository, broker: broker, now: now)
        self.webhooks = Webhooks(repository: repository, policy: webhookEndpointPolicy, now: now)
        self.messaging = messaging
        self.channels =
            makeCode.map { ContactChannels(repository: repository, messaging: messaging, now: now, makeCode: $0) }
            ?? ContactChannels(repository: repository, messaging: messaging, now: now)
        self.contactAccess = ContactAccess(repository: repository, now: now)
        self.directory = Directory(repository: repository)
        self.erasure = ContactErasure(repository: repository, access: contactAccess, now: now)
        self.export = DataExport(repository: repository, contactReads: contactAccess, now: now)
        self.reports = AssignmentReports(repository: repository, contactAccess: contactAccess)
        self.throttle = LoginThrottle(configuration: configuration.throttle, now: now, shared: repository)
        self.passwords = passwords
        self.sessions = Sessions(
            repository: repository, passwords: passwords, throttle: throttle, broker: broker,
            lifetime: configuration.sessionLifetime, now: now)
        self.passkeys = PasskeyCeremonies(repository: repository, sessions: sessions, publicURL: configuration.publicURL, now: now)
        self.configuration = configuration
        self.webPush = webPush
        self.pushSubscriptions = PushSubscriptions(
            repository: repository, endpointPolicy: webPush.endpointPolicy,
            perUser: webPush.subscriptionsPerUser, staleAfter: webPush.staleAfter, now: now)
        self.scenarios = ScenarioProgress(repository: repository, now: now)
        self.scheduledSends = ScheduledSends(repository: repository, now: now)
    }

    /// The upkeep over the same store and clock: expiry warnings, pruning and erasure.
    public func maintenance(
        interval: Duration, accessLogRetention: TimeInterval,
        contactRetention: TimeInterval, logger: Logger
    ) -> MaintenanceService {
        MaintenanceService(
            repository: repository, sender: sender, erasure: erasure, now: now, interval: interval,
            accessLogRetention: accessLogRetention, contactRetention: contactRetention, logger: logger)
    }

    /// The Web Push delivery over the same store and clock: it keeps the push outbox, sends through `transport`
    /// signed with `vapid`, and records the contact reads a push carries through ``contactAccess``.
    public func pushDelivery(
        transport: any PushTransport, vapid: VAPIDKey, configuration: PushDeliveryWorker.Configuration,
        logger: Logger
    ) -> PushDeliveryWorker {
        PushDeliveryWorker(
            store: repository, contactReads: contactAccess, transport: transport, vapid: vapid, configuration: configuration,
            metrics: metrics.push, now: now, logger: logger)
    }

    /// The webhook delivery over the same store and clock: each queued event signed and sent through `transport`.
    public func webhookDelivery(transport: any PushTransport, configuration: WebhookWorker.Configuration, logger: Logger) -> WebhookWorker {
        WebhookWorker(store: repository, transport: transport, messaging: messaging, configuration: configuration, now: now, logger: logger)
    }

    /// The follow-ups over the same store and clock: text messages and emails when a notification is not seen in
    /// time, the assignment reminders and notices at their deadlines, scheduled sends and summaries.
    public func followUps(configuration: FollowUpWorker.Configuration, logger: Logger) -> FollowUpWorker {
        FollowUpWorker(
            store: repository, sender: sender, scheduledSends: scheduledSends, summaries: summaries, messaging: messaging,
            configuration: configuration, now: now, logger: logger)
    }
}
