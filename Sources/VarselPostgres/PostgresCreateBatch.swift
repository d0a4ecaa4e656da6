import Foundation
import VarselStore

/// Plain creates that arrive together share one transaction: one recipient check, one hold of the event-log lock,
/// one commit (one flush of the write-ahead log) for all of them.
///
/// Every writer of events, on every instance, takes the event-log lock, and each commit waited for its flush while
/// holding it, which capped creates at about one per flush. Batched, one flush carries every create that was waiting
/// for it. Inside the transaction each create runs as it would alone, one after another: its rows, then its events,
/// so its unread count counts what it would have counted alone and the log reads as if they had committed in turn.
/// A create that names an unknown recipient fails alone, found before anything is written; an error of the database
/// fails the whole batch, of which nothing is committed.
final class PostgresCreateBatch: Sendable {
    /// One waiting create, and how to answer it.
    struct Job: Sendable {
        var notifications: [NewNotification]
        var date: Date
        var answer: @Sendable (Result<CreatedNotifications, any Error>) -> Void
    }

    /// At most 64 creates in one transaction.
    private let waiting = WaitingWrites<Job>(limit: 64)

    /// Creates `notifications` at `date` in the next batch `repository` commits; returns once it has committed.
    func create(_ notifications: [NewNotification], at date: Date, in repository: PostgresRepository) async throws -> CreatedNotifications {
        try await withCheckedThrowingContinuation { continuation in
            let job = Job(notifications: notifications, date: date) { continuation.resume(with: $0) }
            if waiting.add(job) { Task { await commitWhileWaiting(repository) } }
        }
    }

    /// Commits batches until no create is waiting.
    private func commitWhileWaiting(_ repository: PostgresRepository) async {
        while true {
            let batch = waiting.nextBatch()
            guard !batch.isEmpty else { return }
            do {
                let outcomes = try await repository.createTogether(batch)
                for (job, outcome) in zip(batch, outcomes) { job.answer(outcome) }
            } catch {
                for job in batch { job.answer(.failure(error)) }
            }
        }
    }
}
