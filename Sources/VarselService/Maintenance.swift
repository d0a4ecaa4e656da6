import AsyncAlgorithms
import Foundation
import Logging
import ServiceLifecycle
import VarselStore

/// Periodic upkeep: certification-expiry warnings, and pruning of old events and expired sessions.
public struct MaintenanceService: Service {
    let repository: any VarselRepository
    let sender: NotificationSender
    let now: @Sendable () -> Date
    let interval: Duration
    let eventRetention: TimeInterval
    let logger: Logger

    public init(repository: any VarselRepository, sender: NotificationSender, now: @escaping @Sendable () -> Date,
                interval: Duration = .seconds(3600), eventRetention: TimeInterval = 7 * 86400, logger: Logger) {
        self.repository = repository
        self.sender = sender
        self.now = now
        self.interval = interval
        self.eventRetention = eventRetention
        self.logger = logger
    }

    public func run() async throws {
        await runOnce()
        for await _ in AsyncTimerSequence(interval: interval, clock: .continuous).cancelOnGracefulShutdown() {
            await runOnce()
        }
    }

    /// One round of upkeep; failures are logged and retried next round.
    public func runOnce() async {
        let now = now()
        do {
            let warnings = try await sender.sendDueCertificationWarnings(now: now)
            if !warnings.isEmpty {
                logger.info("certification warnings created", metadata: ["notification.count": "\(warnings.count)"])
            }
            _ = try await repository.pruneEvents(before: now.addingTimeInterval(-eventRetention))
            _ = try await repository.deleteExpiredSessions(at: now)
        } catch {
            logger.error("maintenance failed", metadata: ["error.type": "\(type(of: error))"])
        }
    }
}
