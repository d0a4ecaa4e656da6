import Synchronization
import Testing
import VarselService

@testable import VarselLive

@Suite("Stream watchdog")
struct StreamWatchdogTests {
    @Test("one watchdog closes exactly the streams whose write waited past the timeout, and counts them")
    func closesOnlyStuckWrites() async throws {
        let metrics = ServiceMetrics()
        let watchdog = StreamWatchdog(timeout: .milliseconds(40), metrics: metrics)
        let closed = Mutex<[String]>([])
        let stuck = StreamPace(limit: 8)
        let idle = StreamPace(limit: 8)
        let ended = StreamPace(limit: 8)
        _ = watchdog.watch(stuck) { closed.withLock { $0.append("stuck") } }
        _ = watchdog.watch(idle) { closed.withLock { $0.append("idle") } }
        let endedID = watchdog.watch(ended) { closed.withLock { $0.append("ended") } }
        stuck.blocked()
        ended.blocked()
        watchdog.stopWatching(endedID)
        // Real time on a busy machine: wait (up to 60 s) for the stuck stream to be closed, and fail if it never is:
        // the order checked below holds only when the first close came before the late stream was watched.
        func waitUntilClosed(_ count: Int) async throws {
            let deadline = ContinuousClock.now + .seconds(60)
            while closed.withLock({ $0.count < count }) && ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(5)) }
            try #require(closed.withLock { $0.count >= count }, "no sweep closed \(count) stream(s) within 60 seconds")
        }
        try await waitUntilClosed(1)
        // A stream that starts a write only now is closed by a later sweep than the stuck one's: by then the sweeps
        // have also looked at the idle and the ended stream (whose writes, if any, began earlier) and left them.
        let late = StreamPace(limit: 8)
        _ = watchdog.watch(late) { closed.withLock { $0.append("late") } }
        late.blocked()
        try await waitUntilClosed(2)
        #expect(closed.withLock { $0 } == ["stuck", "late"])
        #expect(metrics.streamsClosedSlow == 2)
    }
}
