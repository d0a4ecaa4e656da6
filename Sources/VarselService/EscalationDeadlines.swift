import Foundation

/// How long an assignment may wait for an answer before the mentor is reminded, and before the coordinator is told.
public struct EscalationDeadlines: Sendable {
    public var remindAfter: TimeInterval
    public var escalateAfter: TimeInterval

    /// `--escalate-after` (24 h by default) reminds the mentor; twice that tells the coordinator.
    public init(remindAfter: TimeInterval = 24 * 3600, escalateAfter: TimeInterval? = nil) {
        self.remindAfter = remindAfter
        self.escalateAfter = escalateAfter ?? remindAfter * 2
    }
}
