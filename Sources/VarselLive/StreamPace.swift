import Synchronization

/// Decides when a live stream's client is too slow: the one place that rule lives.
///
/// A client falls behind in two ways, and both are counted here. Messages wait to be answered on the stream's event
/// loop, and frames wait behind a socket the client stopped reading; together they may number at most `limit` (the
/// broker's buffer limit). And a write the socket has not taken may wait at most `writeTimeout`. The broker asks
/// ``admit(_:)`` before it hands a stream messages, the connection asks it before it writes behind a full socket,
/// and the ``StreamWatchdog`` asks ``hasWaited(longerThan:at:)``. Counters, no lock: the broker's thread, the stream's
/// loop and the watchdog read them at once.
final class StreamPace: Sendable {
    let limit: Int
    /// Messages not yet answered plus writes not yet taken by the socket.
    private let backlog = Atomic<Int>(0)
    /// When the socket stopped taking writes, in nanoseconds after ``origin``; 0 while it takes them.
    private let blockedSince = Atomic<Int64>(0)
    /// Writes made behind a socket without room, counted in ``backlog`` until it has room again.
    private let writesWaiting = Atomic<Int>(0)
    private static let origin = ContinuousClock.now

    init(limit: Int) { self.limit = limit }

    /// Counts `count` more things waiting for the client; false (and nothing counted) when they would be more than
    /// ``limit``: the client is too slow and its stream must end.
    func admit(_ count: Int) -> Bool {
        let total = backlog.add(count, ordering: .relaxed).newValue
        guard total > limit else { return true }
        backlog.subtract(count, ordering: .relaxed)
        return false
    }

    /// `count` of the things waiting were answered or written.
    func done(_ count: Int) {
        guard count > 0 else { return }
        backlog.subtract(count, ordering: .relaxed)
    }

    /// How many things wait for the client.
    var waiting: Int { backlog.load(ordering: .relaxed) }

    /// A write is made behind a socket without room: it counts as one thing waiting until ``socketHasRoom()``; false
    /// (and nothing counted) when the client is too slow and its stream must end.
    func writeWaits() -> Bool {
        guard admit(1) else { return false }
        writesWaiting.add(1, ordering: .relaxed)
        return true
    }

    /// The socket took everything written to it: the writes that waited are done, and it is no longer blocked.
    func socketHasRoom() {
        done(writesWaiting.exchange(0, ordering: .relaxed))
        unblocked()
    }

    /// The socket stopped taking writes at `instant` (it stays blocked from the first such moment until ``unblocked()``).
    func blocked(at instant: ContinuousClock.Instant = .now) {
        let nanoseconds = max(1, Self.nanoseconds(instant - Self.origin))
        _ = blockedSince.compareExchange(expected: 0, desired: nanoseconds, ordering: .relaxed)
    }

    /// The socket takes writes again.
    func unblocked() { blockedSince.store(0, ordering: .relaxed) }

    /// Whether a write has waited for the client longer than `limit` at `instant`.
    func hasWaited(longerThan limit: Duration, at instant: ContinuousClock.Instant = .now) -> Bool {
        let since = blockedSince.load(ordering: .relaxed)
        guard since != 0 else { return false }
        return Self.nanoseconds(instant - Self.origin) - since > Self.nanoseconds(limit)
    }

    private static func nanoseconds(_ duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        return seconds * 1_000_000_000 + attoseconds / 1_000_000_000
    }
}
