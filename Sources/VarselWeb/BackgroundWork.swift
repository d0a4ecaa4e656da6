import AsyncAlgorithms
import Foundation
import Logging
import ServiceLifecycle
import VarselCore
import VarselStore

/// Creates certification-expiry warnings 30, 7 and 1 days before expiry: each exactly once, even across
/// restarts (the store records each one with its notification, in one transaction); urgent on the last day.
public struct CertificationWarnings: Sendable {
    /// Days before expiry at which a warning is due.
    public static let thresholds = [30, 7, 1]

    let repository: any VarselRepository
    let timeZone: TimeZone

    public init(repository: any VarselRepository, timeZone: TimeZone = osloTimeZone) {
        self.repository = repository
        self.timeZone = timeZone
    }

    /// Creates the warnings due at `now`; returns the notifications created.
    public func createDueWarnings(now: Date) async throws -> [NotificationItem] {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let today = calendar.startOfDay(for: now)
        let horizon = calendar.date(byAdding: .day, value: (Self.thresholds.max() ?? 30) + 1, to: today) ?? now
        var created: [NotificationItem] = []
        for certification in try await repository.certifications(expiringBefore: horizon) where certification.expiresAt >= today {
            let daysLeft = calendar.dateComponents([.day], from: today, to: calendar.startOfDay(for: certification.expiresAt)).day ?? 0
            // Only the nearest threshold is sent; a certification recorded late does not get the earlier ones too.
            guard let threshold = Self.thresholds.filter({ daysLeft <= $0 }).min(),
                  let mentor = try await repository.user(id: certification.mentorID) else { continue }
            let strings = Strings(mentor.language)
            let warning = NewNotification(
                recipientID: mentor.id, senderID: nil, kind: .certificationExpiry,
                title: strings.certificationExpiryTitle(daysLeft: daysLeft),
                body: strings.certificationExpiryBody(name: certification.name, expiresAt: certification.expiresAt, timeZone: timeZone),
                urgency: threshold == 1 ? .urgent : .normal, deepLink: .certification(certificationID: certification.id))
            if let item = try await repository.recordExpiryWarning(
                certificationID: certification.id, threshold: threshold,
                alsoCovers: Self.thresholds.filter { $0 > threshold }, notification: warning, at: now) {
                created.append(item)
            }
        }
        return created
    }
}

/// Periodic upkeep: expiry warnings, and pruning of old events and expired sessions.
public struct MaintenanceService: Service {
    let services: VarselServices
    let interval: Duration
    let eventRetention: TimeInterval
    let logger: Logger

    public init(services: VarselServices, interval: Duration = .seconds(3600), eventRetention: TimeInterval = 7 * 86400, logger: Logger) {
        self.services = services
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
        let now = services.now()
        do {
            let warnings = try await CertificationWarnings(repository: services.repository).createDueWarnings(now: now)
            if !warnings.isEmpty {
                services.pump.wake()
                logger.info("certification warnings created", metadata: ["notification.count": "\(warnings.count)"])
            }
            _ = try await services.repository.pruneEvents(before: now.addingTimeInterval(-eventRetention))
            _ = try await services.repository.deleteExpiredSessions(at: now)
        } catch {
            logger.error("maintenance failed", metadata: ["error.type": "\(type(of: error))"])
        }
    }
}
