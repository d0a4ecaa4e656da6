import AsyncAlgorithms
import Foundation
import Logging
import ServiceLifecycle
import VarselStore

/// Periodic upkeep: fan-outs a crash left unfinished, certification-expiry warnings, and pruning of old events, ended
/// text messages and emails, and expired sessions. Reminders and escalations of unanswered assignments are the
/// follow-up worker's (``FollowUpWorker``), which runs every few seconds.
public struct MaintenanceService: Service {
    let repository: any AssignmentStore & ContactChannelStore & EventLogStore & NotificationStore & SealedDataStore & UserStore & WebhookStore
    let sender: NotificationSender
    let now: @Sendable () -> Date
    let interval: Duration
    let eventRetention: TimeInterval
    /// How long the record of who read a contact's details is kept.
    let accessLogRetention: TimeInterval
    /// How long a contact's details are kept after their last assignment closed.
    let contactRetention: TimeInterval
    let erasure: ContactErasure
    let logger: Logger

    public init(
        repository: any AssignmentStore & ContactChannelStore & EventLogStore & NotificationStore & SealedDataStore & UserStore & WebhookStore,
        sender: NotificationSender,
        erasure: ContactErasure, now: @escaping @Sendable () -> Date, interval: Duration = .seconds(3600), eventRetention: TimeInterval = 7 * 86400,
        accessLogRetention: TimeInterval = 365 * 86400,
        contactRetention: TimeInterval = 90 * 86400, logger: Logger
    ) {
        self.accessLogRetention = accessLogRetention
        self.contactRetention = contactRetention
        self.erasure = erasure
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

    /// How old an unfinished fan-out must be before upkeep finishes it: its own request takes well under a second
    /// and finishes it itself; one older was cut short (by a crash, or a stop).
    public static let fanOutGrace: TimeInterval = 10

    /// One round of upkeep; failures are logged and retried next round.
    public func runOnce() async {
        let now = now()
        do {
            let finished = try await repository.finishFanOuts(startedBefore: now.addingTimeInterval(-Self.fanOutGrace))
            if finished > 0 {
                logger.info("notifications of an interrupted fan-out written", metadata: ["notification.count": "\(finished)"])
            }
            let warnings = try await sender.sendDueCertificationWarnings(now: now)
            if !warnings.isEmpty {
                logger.info("certification warnings created", metadata: ["notification.count": "\(warnings.count)"])
            }
            _ = try await repository.pruneEvents(before: now.addingTimeInterval(-eventRetention))
            _ = try await repository.pruneMessages(before: now.addingTimeInterval(-eventRetention))
            _ = try await repository.pruneWebhookDeliveries(before: now.addingTimeInterval(-eventRetention))
            _ = try await repository.deleteExpiredSessions(at: now)
            _ = try await repository.pruneContactReads(before: now.addingTimeInterval(-accessLogRetention))
            let erased = try await erasure.eraseExpired(retention: contactRetention)
            if erased > 0 { logger.info("contact details erased after their retention time", metadata: ["contact.count": "\(erased)"]) }
            let resealed = try await repository.resealAllStale()
            if resealed > 0 { logger.info("personal details re-encrypted under the current data key", metadata: ["value.count": "\(resealed)"]) }
        } catch is StoreUnavailable {
            // Said once per outage by the store's health; tried again next round.
        } catch {
            logger.error("maintenance failed", metadata: ["error.type": "\(type(of: error))"])
        }
        await keepPeoplesKeys()
    }

    /// The people's keys (a key per person visited), apart from the rest of the round: a key store that cannot be
    /// written or read stops only this, not the retention or the other upkeep.
    private func keepPeoplesKeys() async {
        do {
            let forgotten = try await erasure.eraseForgotten()
            if forgotten > 0 {
                logger.notice(
                    "contact details erased again: their keys were destroyed by an earlier erasure", metadata: ["contact.count": "\(forgotten)"])
            }
            let moved = try await repository.moveAllPeopleToTheirKeys()
            if moved > 0 { logger.info("people's details sealed under keys of their own", metadata: ["contact.count": "\(moved)"]) }
        } catch is StoreUnavailable {
            // Said once per outage by the store's health; tried again next round.
        } catch {
            logger.error("the people's keys could not be kept in step", metadata: ["error.type": "\(type(of: error))"])
        }
    }
}
