import Synchronization
import VarselService

/// Closes the connection of a live stream whose current write has waited longer than the write timeout.
///
/// A client that stops reading would hold its socket for ever once its buffers fill. One sweep every quarter of the
/// timeout asks every stream's ``StreamPace`` (where the rule lives), instead of a timer per stream (ten thousand idle
/// streams were ten thousand tasks waking every few seconds). The sweep runs only while some stream is watched.
public final class StreamWatchdog: Sendable {
    private struct Watched {
        var pace: StreamPace
        var close: @Sendable () -> Void
    }

    private struct State {
        var nextID = 0
        var watched: [Int: Watched] = [:]
        var isSweeping = false
    }

    private let state = Mutex(State())
    private let timeout: Duration
    private let metrics: ServiceMetrics

    public init(timeout: Duration, metrics: ServiceMetrics) {
        self.timeout = timeout
        self.metrics = metrics
    }

    /// Watches one stream's pace; `close` ends its connection. Returns the id to stop watching it with.
    func watch(_ pace: StreamPace, close: @escaping @Sendable () -> Void) -> Int {
        let (id, startsSweeping) = state.withLock { state in
            state.nextID += 1
            state.watched[state.nextID] = Watched(pace: pace, close: close)
            defer { state.isSweeping = true }
            return (state.nextID, !state.isSweeping)
        }
        if startsSweeping {
            Task {
                repeat { try? await Task.sleep(for: timeout / 4) } while sweep()
            }
        }
        return id
    }

    /// Stops watching the stream `id` (it ended).
    func stopWatching(_ id: Int) {
        _ = state.withLock { $0.watched.removeValue(forKey: id) }
    }

    /// Closes the streams whose write has waited too long; returns whether any stream is still watched.
    private func sweep() -> Bool {
        let now = ContinuousClock.now
        let (slow, goesOn) = state.withLock { state in
            let slow = state.watched.filter { $0.value.pace.hasWaited(longerThan: timeout, at: now) }
            for id in slow.keys { state.watched[id] = nil }
            state.isSweeping = !state.watched.isEmpty
            return (Array(slow.values), state.isSweeping)
        }
        for stream in slow {
            metrics.streamDroppedAsSlow()
            stream.close()
        }
        return goesOn
    }
}
