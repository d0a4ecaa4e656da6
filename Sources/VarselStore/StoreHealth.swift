import Foundation
import Synchronization

/// The outages a store met, as its own operations saw them: whether one is going on, since when, and how many
/// operations each kind of outage refused.
///
/// An outage begins with the first operation refused for it and ends with the next one that succeeds (a full disk
/// ends only with a write). Each beginning and end is told once to ``onChange``, so the log says an outage once per
/// episode, not once per refused request.
public final class StoreHealth: Sendable {
    /// An outage going on: what it is and when it began.
    public struct Outage: Sendable, Equatable {
        public var condition: StoreUnavailable
        public var since: Date
    }

    private struct State {
        var outage: Outage?
        var refused: [String: Int] = [:]
        var onChange: (@Sendable (_ began: Outage?, _ ended: Outage?) -> Void)?
    }

    private let state = Mutex(State())
    private let now: @Sendable () -> Date

    public init(now: @escaping @Sendable () -> Date = Date.init) {
        self.now = now
    }

    /// Tells `handler` when an outage begins (first argument) or ends (second argument).
    public func onChange(_ handler: @escaping @Sendable (_ began: Outage?, _ ended: Outage?) -> Void) {
        state.withLock { $0.onChange = handler }
    }

    /// The outage going on, if any.
    public var outage: Outage? { state.withLock { $0.outage } }

    /// How long the outage going on has lasted, or nil when there is none.
    public func outageDuration() -> TimeInterval? {
        state.withLock { $0.outage }.map { max(0, now().timeIntervalSince($0.since)) }
    }

    /// How many operations each condition refused since start, by ``StoreUnavailable/name``.
    public var refusedCounts: [String: Int] { state.withLock { $0.refused } }

    /// Records an operation refused for `condition`; begins an outage when none is going on.
    public func refused(_ condition: StoreUnavailable) {
        let (began, handler) = state.withLock { state -> (Outage?, (@Sendable (Outage?, Outage?) -> Void)?) in
            state.refused[condition.name, default: 0] += 1
            guard state.outage == nil else { return (nil, nil) }
            let outage = Outage(condition: condition, since: now())
            state.outage = outage
            return (outage, state.onChange)
        }
        if let began { handler?(began, nil) }
    }

    /// Records an operation that succeeded; `wrote` when it changed the store. Ends the outage going on, except that
    /// a full disk is ended only by a write.
    public func succeeded(wrote: Bool) {
        let (ended, handler) = state.withLock { state -> (Outage?, (@Sendable (Outage?, Outage?) -> Void)?) in
            guard let outage = state.outage, wrote || outage.condition != .diskFull else { return (nil, nil) }
            state.outage = nil
            return (outage, state.onChange)
        }
        if let ended { handler?(nil, ended) }
    }

    /// Runs `operation`, recording its outcome: a ``StoreUnavailable`` it throws is an outage, anything else it
    /// returns or throws (a store's own refusal) proves the store answered.
    public func observe<T>(wrote: Bool, _ operation: () async throws -> T) async throws -> T {
        do {
            let value = try await operation()
            succeeded(wrote: wrote)
            return value
        } catch let condition as StoreUnavailable {
            refused(condition)
            throw condition
        } catch is CancellationError {
            throw CancellationError()
        } catch {
            succeeded(wrote: wrote)
            throw error
        }
    }
}
