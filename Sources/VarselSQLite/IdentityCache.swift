import Foundation
import GRDB
import Synchronization
import VarselCore
import VarselStore

/// Sessions and users as last read, so a request does not read its session and its user from the file every time.
///
/// Every authenticated request looks up its session by token hash, then its user: two reads of the file, each a
/// transaction with its locks. Signed-in clients repeat the same two reads thousands of times a minute.
///
/// An entry is dropped the moment a write touches its table: the cache watches the `session` and `user` tables as a
/// GRDB transaction observer, so a sign-out, a password change, a new role or a pause is seen by the very next
/// request. A read that overlapped such a write is not kept (a generation number tells). Writes from another
/// process on the same file (the `varsel` command) are not seen by the observer; an entry is therefore trusted for
/// at most ``maxAge``, and such a change takes effect within that time. Unknown tokens are never kept, so random
/// tokens cannot fill it; it holds at most ``capacity`` entries of each kind.
final class IdentityCache: TransactionObserver, Sendable {
    /// How long an entry is trusted without a write this process saw.
    static let maxAge: Duration = .seconds(2)
    /// The most sessions, and the most users, kept.
    static let capacity = 50_000

    private struct Entry<Value> {
        var value: Value
        var readAt: ContinuousClock.Instant
    }

    private struct State {
        /// Grows whenever a write touches a watched table; a read that began at another generation is not kept.
        var generation: UInt64 = 0
        var sessions: [String: Entry<Session>] = [:]
        var users: [UserID: Entry<User>] = [:]
        /// Whether the writer's current transaction changed a session or a user.
        var transactionTouchedWatchedRows = false
    }

    private let state = Mutex(State())
    /// The time, for ages: the continuous clock, or in tests a clock they move.
    private let now: @Sendable () -> ContinuousClock.Instant

    init(now: @escaping @Sendable () -> ContinuousClock.Instant = { ContinuousClock.now }) {
        self.now = now
    }

    /// The generation to pass to ``keep(session:generation:)`` after reading.
    var generation: UInt64 { state.withLock { $0.generation } }

    /// The session with token hash `tokenHash`, if read recently and unchanged since.
    func session(tokenHash: String) -> Session? {
        let now = self.now()
        return state.withLock { state in
            state.sessions[tokenHash].flatMap { now - $0.readAt < Self.maxAge ? $0.value : nil }
        }
    }

    /// The user `id`, if read recently and unchanged since.
    func user(id: UserID) -> User? {
        let now = self.now()
        return state.withLock { state in
            state.users[id].flatMap { now - $0.readAt < Self.maxAge ? $0.value : nil }
        }
    }

    /// Keeps `session`, read when the generation was `generation`, unless a write touched sessions since.
    func keep(session: Session, generation: UInt64) {
        let now = self.now()
        state.withLock { state in
            guard state.generation == generation else { return }
            if state.sessions.count >= Self.capacity { state.sessions.removeAll() }
            state.sessions[session.tokenHash] = Entry(value: session, readAt: now)
        }
    }

    /// Keeps `user`, read when the generation was `generation`, unless a write touched users since.
    func keep(user: User, generation: UInt64) {
        let now = self.now()
        state.withLock { state in
            guard state.generation == generation else { return }
            if state.users.count >= Self.capacity { state.users.removeAll() }
            state.users[user.id] = Entry(value: user, readAt: now)
        }
    }

    /// Forgets everything; the next read of each goes to the file.
    private func forgetAll() {
        state.withLock { state in
            state.generation &+= 1
            state.sessions.removeAll(keepingCapacity: true)
            state.users.removeAll(keepingCapacity: true)
        }
    }

    // MARK: TransactionObserver

    func observes(eventsOfKind eventKind: DatabaseEventKind) -> Bool {
        eventKind.tableName == "session" || eventKind.tableName == "user"
    }

    /// A watched row changed: forget now, and again when the transaction ends (a read in between still saw the old
    /// row, and is not kept: its generation is older).
    func databaseDidChange(with event: DatabaseEvent) {
        forgetAll()
        state.withLock { $0.transactionTouchedWatchedRows = true }
    }

    /// Every transaction ends here; only one that touched a watched row empties the cache.
    func databaseDidCommit(_ db: Database) { transactionEnded() }
    func databaseDidRollback(_ db: Database) { transactionEnded() }

    private func transactionEnded() {
        let touched = state.withLock { state in
            defer { state.transactionTouchedWatchedRows = false }
            return state.transactionTouchedWatchedRows
        }
        if touched { forgetAll() }
    }
}
