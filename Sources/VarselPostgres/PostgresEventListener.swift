import Logging
import PostgresNIO
import ServiceLifecycle

/// Wakes this instance's event pump whenever any instance commits events: `LISTEN varsel_events` on a connection
/// of its own. The pump still polls, so a notification lost with a dropped connection only waits for the next poll.
public struct PostgresEventListener: Service {
    let repository: PostgresRepository
    let onEvents: @Sendable () -> Void
    let logger: Logger

    public init(repository: PostgresRepository, logger: Logger, onEvents: @escaping @Sendable () -> Void) {
        self.repository = repository
        self.logger = logger
        self.onEvents = onEvents
    }

    public func run() async throws {
        try? await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                do {
                    try await repository.client.withConnection { connection in
                        try await connection.listen(on: PostgresRepository.eventChannel) { notifications in
                            // Catch up on what was committed while not listening.
                            onEvents()
                            for try await _ in notifications { onEvents() }
                        }
                    }
                } catch {
                    logger.warning("lost the PostgreSQL event listener; reconnecting", metadata: ["error.type": "\(type(of: error))"])
                    try await Task.sleep(for: .seconds(1))
                }
            }
        }
    }
}
