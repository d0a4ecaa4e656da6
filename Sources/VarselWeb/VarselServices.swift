import Foundation
import Logging
import VarselCore
import VarselStore

/// Everything the routes need, injected once: the store, the clock, the live-event machinery, credentials.
public struct VarselServices: Sendable {
    public var repository: any VarselRepository
    /// The clock. Routes never call `Date()`.
    public var now: @Sendable () -> Date
    public var broker: EventBroker
    public var pump: EventPump
    public var metrics: ServiceMetrics
    public var throttle: LoginThrottle
    public var passwords: PasswordHasher
    public var configuration: Configuration

    /// Settings of the HTTP layer.
    public struct Configuration: Sendable {
        /// How long a session lasts.
        public var sessionLifetime: TimeInterval = 14 * 24 * 3600
        /// Mark the session cookie `Secure` (behind TLS).
        public var isCookieSecure = false
        /// The `retry:` hint sent to event-stream clients, in milliseconds.
        public var streamRetryMilliseconds = 3000
        /// How often an idle stream gets a heartbeat comment.
        public var heartbeatInterval: TimeInterval = 20
        /// How many undelivered messages one stream may hold before it is closed (the client then resumes).
        public var streamBufferLimit = 512

        public init() {}
    }

    public init(repository: any VarselRepository, now: @escaping @Sendable () -> Date, passwords: PasswordHasher,
                configuration: Configuration = .init(), logger: Logger) {
        self.repository = repository
        self.now = now
        self.metrics = ServiceMetrics()
        self.broker = EventBroker(bufferLimit: configuration.streamBufferLimit, metrics: metrics)
        self.pump = EventPump(repository: repository, broker: broker, logger: logger)
        self.throttle = LoginThrottle(now: now)
        self.passwords = passwords
        self.configuration = configuration
    }

    /// The describer for `language`; one per language, shared, so a request or stream does not build its own
    /// calendar and formatters.
    func describer(_ language: Language) -> Describer { Self.describers[language] ?? Describer(language: language) }

    private static let describers = Dictionary(uniqueKeysWithValues: Language.allCases.map { ($0, Describer(language: $0)) })
}
