import Synchronization
import Testing
import VarselService
@testable import VarselWeb

@Suite("Stream watchdog")
struct StreamWatchdogTests {
    @Test("issue 12: one watchdog closes exactly the streams whose write waited past the timeout, and counts them")
    func closesOnlyStuckWrites() async throws {
        let metrics = ServiceMetrics()
        let watchdog = StreamWatchdog(timeout: .milliseconds(40), metrics: metrics)
        let closed = Mutex<[String]>([])
        let stuck = EventsController.WriteProgress(), idle = EventsController.WriteProgress(), ended = EventsController.WriteProgress()
        _ = watchdog.watch(stuck) { closed.withLock { $0.append("stuck") } }
        _ = watchdog.watch(idle) { closed.withLock { $0.append("idle") } }
        let endedID = watchdog.watch(ended) { closed.withLock { $0.append("ended") } }
        stuck.begin()
        ended.begin()
        watchdog.stopWatching(endedID)
        // Real time on a busy machine: wait (up to 10 s) for the stuck stream to be closed, then a few more sweeps to
        // see that nothing else is.
        let deadline = ContinuousClock.now + .seconds(10)
        while closed.withLock({ $0.isEmpty }) && ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(20)) }
        try await Task.sleep(for: .milliseconds(200))
        #expect(closed.withLock { $0 } == ["stuck"])
        #expect(metrics.streamsClosedSlow == 1)
    }
}
