import Foundation
import Hummingbird
import Logging
import VarselCore
import VarselSQLite
import VarselService
import VarselStore
import VarselWeb

/// How to run the server: where to listen, which store, demo data or not.
public struct ServerConfiguration: Sendable {
    public var host = "127.0.0.1"
    public var port = 8080
    /// The SQLite file; the embedded default store.
    public var databasePath = "./varsel.sqlite"
    /// How much a commit survives; `.full` unless a benchmark asks otherwise.
    public var durability: SQLiteRepository.Durability = .full
    /// Load the demo users and notifications (once).
    public var loadsDemo = false
    /// The bcrypt cost for new passwords.
    public var bcryptCost: UInt8 = 12
    public var logLevel: Logger.Level = .info
    public var http = VarselServices.Configuration()
    /// How often maintenance (expiry warnings, pruning) runs.
    public var maintenanceInterval: Duration = .seconds(3600)
    /// How long a connection may sit idle, or take to send a request, before it is closed. Live streams are
    /// responses in progress and are not idle; their writes have their own timeout
    /// (``VarselServices/Configuration/streamWriteTimeout``).
    public var idleTimeout: Duration = .seconds(30)

    public init() {}
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
    let store: any VarselRepository = try repository ?? SQLiteRepository(path: configuration.databasePath, durability: configuration.durability)
    let services = VarselServices(repository: store, now: now, passwords: PasswordHasher(cost: configuration.bcryptCost),
                                  configuration: configuration.http, logger: logger)
    if configuration.loadsDemo {
        try await DemoSeeder(services: services, logger: logger).seed()
    }
    let router = try await VarselRouter.build(services: services)
    var app = Application(
        router: router,
        server: .http1(configuration: .init(idleTimeout: .nanoseconds(configuration.idleTimeout.components.seconds * 1_000_000_000
                + configuration.idleTimeout.components.attoseconds / 1_000_000_000))),
        configuration: .init(address: .hostname(configuration.host, port: configuration.port), serverName: "Varsel"),
        onServerRunning: { channel in await onServerRunning(channel.localAddress?.port ?? 0) },
        logger: logger
    )
    app.addServices(services.pump, MaintenanceService(repository: services.repository, sender: services.sender, now: services.now,
                                                       interval: configuration.maintenanceInterval, logger: logger))
    return app
}
