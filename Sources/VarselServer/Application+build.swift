import Foundation
import Hummingbird
import HummingbirdCore
import Logging
import Synchronization
import VarselCore
import VarselLive
import VarselMessaging
import VarselPostgres
import VarselPush
import VarselSQLite
import VarselService
import VarselStore
import VarselWeb

/// How to run the server: where to listen, which store, demo data or not.
public struct ServerConfiguration: Sendable {
    public var host = "127.0.0.1"
    public var port = 8080
    /// The SQLite file (the embedded default store), or a PostgreSQL URL (`postgres://user:password@host/db`) for
    /// several instances on one database.
    public var databasePath = "./varsel.sqlite"
    /// How much a commit survives; `.full` unless a benchmark asks otherwise.
    public var durability: SQLiteRepository.Durability = .full
    /// The least time between the starts of two SQLite commits while writes keep coming: steady writes gather into
    /// fewer commits (and fewer waits for the disk) for up to this much latency. Zero, the default, commits a write at
    /// once when no commit is in flight; the writes that arrive during one share the next.
    public var commitInterval: Duration = .zero
    /// Load the demo users and notifications (once).
    public var loadsDemo = false
    /// The bcrypt cost for new passwords.
    public var bcryptCost: UInt8 = 12
    public var logLevel: Logger.Level = .info
    public var http = VarselServices.Configuration()
    /// How often maintenance (expiry warnings, pruning, erasure) runs.
    public var maintenanceInterval: Duration = .seconds(300)
    /// How long an assignment may wait for an answer before its mentor is reminded (`--escalate-after`); twice
    /// that and its coordinator is told.
    public var remindUnansweredAfter: TimeInterval = 24 * 3600
    /// How long the record of who read a contact's details is kept (`--retain-access-log-days`).
    public var accessLogRetention: TimeInterval = 365 * 86400
    /// How long a visited person's details are kept after their last assignment closed (`--retain-contacts-days`).
    public var contactRetention: TimeInterval = 90 * 86400
    /// How long a connection may sit idle, or take to send a request, before it is closed. Live streams are
    /// responses in progress and are not idle; their writes have their own timeout
    /// (``VarselServices/Configuration/streamWriteTimeout``).
    public var idleTimeout: Duration = .seconds(30)
    /// Web Push.
    public var push = PushConfiguration()
    /// Call http and private-address webhook endpoints: for tests with a receiving server on loopback.
    public var webhooksAllowPrivateEndpoints = false
    /// The keys that encrypt personal details in the database (`--data-key-file`); nil stores them unencrypted.
    public var dataKeys: DataKeyring?
    /// The keys that seal each person visited apart, wrapped by ``dataKeys`` and kept in a key store beside their file;
    /// nil seals their details under the data key.
    public var personKeys: PersonKeyring?
    /// The data key file this start made (the demo's, beside its database), to say so in the log.
    public var madeDataKeyFile: String?
    /// Text messages and email.
    public var messaging = MessagingConfiguration()

    public init() {}

    /// Where people reach Varsel: `--public-url`, or else the address it listens on on `port` (`localhost` when it
    /// listens on every address).
    func publicOrigin(port: Int) -> URL {
        if let publicURL = http.publicURL { return publicURL }
        let name = ["0.0.0.0", "::", ""].contains(host) ? "localhost" : host.contains(":") ? "[\(host)]" : host
        return URL(string: "http://\(name):\(port)") ?? URL(string: "http://localhost:\(port)")!
    }
}

/// The port the server listens on, once it does (`--port 0` lets the system choose one).
final class ListeningPort: Sendable {
    private let port: Mutex<Int>

    init(_ configured: Int) { port = Mutex(configured) }

    var value: Int { port.withLock { $0 } }

    func listening(on actual: Int) { port.withLock { $0 = actual } }
}

/// How the server sends text messages and email, and when.
public struct MessagingConfiguration: Sendable {
    /// The SMTP server emails go through; nil sends no email.
    public var smtp: SMTPConfiguration?
    /// The name and address emails come from (`--mail-from`).
    public var mailFromName = "Varsel"
    public var mailFromAddress = "varsel@localhost"
    /// The text-message gateway; nil sends no text messages.
    public var textMessages: HTTPTextMessageGateway.Configuration?
    /// How long a notification may go unseen before a text message and an email follow it (`--message-after`).
    public var followUpDelay: TimeInterval = 15 * 60

    public init() {}
}

/// How the server sends Web Push.
public struct PushConfiguration: Sendable {
    /// The VAPID subject (`mailto:` or https) push services may contact the operator at; nil takes the public URL.
    public var subject: String?
    /// A PEM file with the VAPID private key; without one the key is generated on first start and kept in the database.
    public var keyFile: String?
    /// Accept http and private-address endpoints: for tests with a stand-in push service on loopback.
    public var allowsInsecureEndpoints = false
    /// How long accepted pushes may go unshown before a device counts as stale (`--push-stale-after`).
    public var staleAfter: TimeInterval = 3 * 86400

    func settings(publicKey: String, endpointPolicy: PushEndpointPolicy) -> WebPushSettings {
        var settings = WebPushSettings(publicKey: publicKey, endpointPolicy: endpointPolicy)
        settings.staleAfter = staleAfter
        return settings
    }

    public init() {}

    /// The VAPID subject to send: the flag, else an https public URL, else a placeholder that works with the
    /// push services that do not check it (a real deployment sets one).
    func resolvedSubject(publicURL: URL?) -> String {
        if let subject, !subject.isEmpty { return subject }
        if let publicURL, publicURL.scheme?.lowercased() == "https" { return publicURL.absoluteString }
        return "mailto:operator@varsel.invalid"
    }

    /// The VAPID key in ``keyFile``; nil without one. Read before the store is opened, so a wrong file makes nothing.
    func fileKey() throws -> VAPIDKey? {
        guard let keyFile else { return nil }
        do {
            return try VAPIDKey(pem: String(contentsOfFile: keyFile, encoding: .utf8))
        } catch {
            throw Administration.Failure("Could not read --vapid-key-file: check the path and that it holds a P-256 private key in PEM.")
        }
    }

    /// The VAPID key kept in the store, made on first start.
    func storedKey(store: any VarselRepository) async throws -> VAPIDKey {
        try VAPIDKey(rawRepresentation: try await store.vapidPrivateKey(orStore: VAPIDKey.generate().rawRepresentation))
    }
}

/// Builds the application for the executable and the tests alike: opens the store, wires the services,
/// registers the long-lived ones (event pump, maintenance) and returns the app ready to run.
public func buildApplication(
    _ configuration: ServerConfiguration,
    repository: (any VarselRepository)? = nil,
    now: @escaping @Sendable () -> Date = { Date() },
    onServerRunning: @escaping @Sendable (Int) async -> Void = { _ in }
) async throws -> some ApplicationProtocol {
    var logger = Logger(label: "varsel")
    logger.logLevel = configuration.logLevel
    let fileKey = try configuration.push.fileKey()
    let postgres: PostgresRepository?
    do {
        postgres =
            repository == nil && PostgresRepository.isURL(configuration.databasePath)
            ? try await PostgresRepository(
                url: configuration.databasePath, logger: logger, keys: configuration.dataKeys, personKeys: configuration.personKeys) : nil
    } catch let error where Administration.isOpeningRefusal(error) {
        throw Administration.openingRefusal(error, database: configuration.databasePath, keys: configuration.dataKeys)
    }
    let isNewFile = repository == nil && postgres == nil && !FileManager.default.fileExists(atPath: configuration.databasePath)
    if repository == nil, postgres == nil, !isNewFile { try Administration.refuseUnlessVarsel(configuration.databasePath) }
    let store: any VarselRepository
    do {
        store =
            try repository ?? postgres
            ?? SQLiteRepository(
                path: configuration.databasePath, durability: configuration.durability, commitInterval: configuration.commitInterval,
                keys: configuration.dataKeys, personKeys: configuration.personKeys)
    } catch let error where Administration.isOpeningRefusal(error) {
        throw Administration.openingRefusal(error, database: configuration.databasePath, keys: configuration.dataKeys)
    } catch {
        throw Administration.Failure(
            "Could not open the SQLite database at \(Administration.shownName(of: configuration.databasePath)): "
                + "check that its folder exists and can be written.")
    }
    if isNewFile || postgres?.madeSchema == true {
        let shown = Administration.shownName(of: configuration.databasePath)
        logger.notice(isNewFile ? "Made the new database \(shown)" : "Set up Varsel's tables in \(shown)")
    } else if repository == nil, let made = Administration.schemaChangesMade(postgres ?? store), made > 0 {
        logger.notice(
            "Brought the tables in \(Administration.shownName(of: configuration.databasePath)) up to date for Varsel \(VarselRelease.version) (\(made) \(made == 1 ? "change" : "changes"))"
        )
    }
    if let made = configuration.madeDataKeyFile {
        logger.notice("Made the data key file \(Administration.shownName(of: made)) for the demo's personal details")
    }
    if repository == nil, configuration.dataKeys == nil {
        logger.notice("Personal details are stored unencrypted: give --data-key-file for a real deployment (see docs/deploy.md)")
    }
    StoreOutageLog(logger: logger).follow(store.health)
    let vapid: VAPIDKey
    if let fileKey { vapid = fileKey } else { vapid = try await configuration.push.storedKey(store: store) }
    let endpointPolicy = PushEndpointPolicy(allowsInsecureEndpoints: configuration.push.allowsInsecureEndpoints)
    let webhookPolicy = PushEndpointPolicy(allowsInsecureEndpoints: configuration.webhooksAllowPrivateEndpoints)
    if configuration.push.subject == nil, configuration.http.publicURL?.scheme?.lowercased() != "https" {
        logger.notice("Web Push has no VAPID subject: set --vapid-subject (mailto: or https) for a real deployment")
    }
    var http = configuration.http
    http.answerDeadline = configuration.remindUnansweredAfter
    let listeningPort = ListeningPort(configuration.port)
    let textMessages = configuration.messaging.textMessages.map { HTTPTextMessageGateway(configuration: $0) }
    let messaging = OutsideMessaging(
        textMessages: textMessages, mail: configuration.messaging.smtp.map { SMTPMailTransport(configuration: $0) },
        mailFromName: configuration.messaging.mailFromName, mailFromAddress: configuration.messaging.mailFromAddress,
        origin: { configuration.publicOrigin(port: listeningPort.value) })
    let services = VarselServices(
        repository: store, now: now, passwords: PasswordHasher(cost: configuration.bcryptCost),
        configuration: http,
        webPush: configuration.push.settings(publicKey: vapid.publicKeyBase64URL, endpointPolicy: endpointPolicy),
        messaging: messaging, webhookEndpointPolicy: webhookPolicy, logger: logger)
    if configuration.loadsDemo {
        try await DemoSeeder(services: services, logger: logger).seed()
    }
    // A database restored from a backup taken before an erasure lists the person again until this: their key is gone,
    // so nothing of theirs opens, and now their rows say so too. A key store that is not this database's stops the start.
    if try await services.erasure.eraseForgotten() > 0 {
        logger.notice("Erased again the details of people erased after this database's backup was taken: their keys are gone")
    }
    let router = try await VarselRouter.build(services: services)
    let http1 = HTTP1Channel.Configuration(
        idleTimeout: .nanoseconds(
            configuration.idleTimeout.components.seconds * 1_000_000_000
                + configuration.idleTimeout.components.attoseconds / 1_000_000_000))
    var app = Application(
        router: router,
        server: .varselHTTP1(configuration: http1, malformedRequest: MalformedRequests.answer),
        configuration: .init(address: .hostname(configuration.host, port: configuration.port), serverName: "Varsel"),
        onServerRunning: { channel in
            listeningPort.listening(on: channel.localAddress?.port ?? configuration.port)
            await onServerRunning(channel.localAddress?.port ?? 0)
        },
        logger: logger
    )
    var pushConfiguration = PushDeliveryWorker.Configuration(
        subject: configuration.push.resolvedSubject(publicURL: configuration.http.publicURL),
        endpointPolicy: endpointPolicy)
    pushConfiguration.pollInterval = .milliseconds(500)
    pushConfiguration.origin = { configuration.publicOrigin(port: listeningPort.value) }
    let pushWorker = services.pushDelivery(transport: HTTPPushTransport(), vapid: vapid, configuration: pushConfiguration, logger: logger)
    let upkeep = services.maintenance(
        interval: configuration.maintenanceInterval,
        accessLogRetention: configuration.accessLogRetention,
        contactRetention: configuration.contactRetention, logger: logger)
    var webhookConfiguration = WebhookWorker.Configuration(endpointPolicy: webhookPolicy)
    webhookConfiguration.pollInterval = .milliseconds(500)
    let webhookWorker = services.webhookDelivery(
        transport: HTTPPushTransport(timeout: .seconds(10)), configuration: webhookConfiguration, logger: logger)
    let followUps = services.followUps(
        configuration: .init(
            delay: configuration.messaging.followUpDelay,
            escalation: .init(remindAfter: configuration.remindUnansweredAfter)),
        logger: logger)
    app.addServices(services.pump, upkeep, pushWorker, followUps, webhookWorker)
    if let postgres {
        // Other instances' writes wake this one's pump at once.
        let pump = services.pump
        app.addServices(PostgresEventListener(repository: postgres, logger: logger) { pump.wake() })
    }
    return app
}
