import Foundation
import Logging
import Testing
import VarselCore
import VarselSQLite
import VarselServiceTesting
import VarselStore

@testable import VarselService

/// A store with two mentors, a broker and a pump over it, and a sender that uses them, on a fixed clock.
struct LiveWorld {
    let repository = try! SQLiteRepository.inMemory()
    let metrics = ServiceMetrics()
    let broker: EventBroker
    let pump: EventPump
    let sender: NotificationSender
    let kari: User
    let ola: User

    init(bufferLimit: Int = 64, pollInterval: Duration = .seconds(3600), heartbeatInterval: Duration = .seconds(3600)) async throws {
        broker = EventBroker(bufferLimit: bufferLimit, metrics: metrics)
        pump = EventPump(
            repository: repository, broker: broker, logger: Logger(label: "test"),
            pollInterval: pollInterval, heartbeatInterval: heartbeatInterval)
        sender = NotificationSender(repository: repository, now: { DemoData.now })
        kari = try await repository.createUser(
            NewUser(username: "kari", displayName: "Kari", role: .mentor, passwordHash: "x", language: .english), at: DemoData.now)
        ola = try await repository.createUser(
            NewUser(username: "ola", displayName: "Ola", role: .mentor, passwordHash: "x", language: .norwegianBokmal), at: DemoData.now)
    }

    /// A coordinator's message with `title`, validated as the API validates it.
    func message(_ title: String) throws -> Validation.ValidNotification {
        try Validation.notification(kind: "scenarioPrompt", title: title, body: "", urgency: nil, personalDetails: [], allowAssignment: false)
    }
}

/// The event ids of the `.event` messages in `messages`.
func eventIDs(_ messages: [StreamMessage]) -> [Int64] {
    messages.compactMap { if case let .event(event) = $0 { event.id } else { nil } }
}

@Suite("The broker and the pump")
struct LivePathTests {
    @Test("the pump publishes every event once, in id order, to its user's streams only: no gap, no duplicate")
    func pumpPublishesEachEventOnce() async throws {
        let world = try await LiveWorld()
        let kari = world.broker.subscribe(userID: world.kari.id, session: "k")
        let ola = world.broker.subscribe(userID: world.ola.id, session: "o")
        _ = try await world.sender.send(try world.message("One"), from: world.ola.id, to: [world.kari.id])
        _ = try await world.sender.send(try world.message("Two"), from: world.kari.id, to: [world.kari.id, world.ola.id])
        var cursor = try await world.pump.drain(after: 0)
        // A second drain, and a late one after more events, publish only what is new.
        cursor = try await world.pump.drain(after: cursor)
        _ = try await world.sender.send(try world.message("Three"), from: world.ola.id, to: [world.kari.id])
        cursor = try await world.pump.drain(after: cursor)
        world.broker.shutDown()
        var kariMessages: [StreamMessage] = []
        for await message in kari.messages { kariMessages.append(message) }
        var olaMessages: [StreamMessage] = []
        for await message in ola.messages { olaMessages.append(message) }
        let expectedKari = try await world.repository.events(for: world.kari.id, after: 0, limit: 100).map(\.id)
        let expectedOla = try await world.repository.events(for: world.ola.id, after: 0, limit: 100).map(\.id)
        #expect(eventIDs(kariMessages) == expectedKari)
        #expect(eventIDs(olaMessages) == expectedOla)
        #expect(expectedKari.count == 6 && expectedOla.count == 2, "created and unread-count for each notification")
        #expect(cursor == (try await world.repository.latestEventID()))
    }

    @Test("sending wakes the running pump: the stream hears of a notification without waiting for the poll")
    func sendingWakesThePump() async throws {
        // The poll is an hour away; only the sender's wake-up can deliver within the test's time.
        let world = try await LiveWorld(heartbeatInterval: .milliseconds(10))
        let stream = world.broker.subscribe(userID: world.kari.id, session: "k")
        let pump = Task { try await world.pump.run() }
        defer { pump.cancel() }
        let message = try world.message("Wake up")
        let reader = Task { () -> (sent: NotificationID?, arrived: NotificationID?) in
            var sent: NotificationID?
            for await next in stream.messages {
                switch next {
                case .heartbeat where sent == nil:
                    // A heartbeat shows the pump is running and has read where the log ends: now send.
                    sent = try? await world.sender.send(message, from: world.ola.id, to: [world.kari.id]).items.first?.id
                case let .event(event) where event.type == .notificationCreated:
                    return (sent, event.notificationID)
                default:
                    continue
                }
            }
            return (sent, nil)
        }
        // Should nothing arrive, end the stream after ten seconds so the test fails instead of hanging.
        let deadline = Task {
            try await Task.sleep(for: .seconds(10))
            world.broker.shutDown()
        }
        defer { deadline.cancel() }
        let outcome = await reader.value
        #expect(outcome.sent != nil)
        #expect(outcome.arrived == outcome.sent)
    }

    @Test("a stream that opens before the pump runs hears what commits between its opening and the pump's start")
    func streamOpenedBeforeThePumpRuns() async throws {
        let world = try await LiveWorld(heartbeatInterval: .milliseconds(10))
        _ = try await world.sender.send(try world.message("Before"), from: world.ola.id, to: [world.kari.id])
        // A stream opens as a server's stream does: it attaches, then asks where the log ends (it replays up to there).
        let stream = world.broker.subscribe(userID: world.kari.id, session: "k")
        let openedAt = try await world.pump.latestEventID()
        // Committed after the stream read where the log ends, before the pump has run.
        let between = try await world.sender.send(try world.message("Between"), from: world.ola.id, to: [world.kari.id]).items[0].id
        let pump = Task { try await world.pump.run() }
        defer { pump.cancel() }
        let message = try world.message("After")
        let reader = Task { () -> (created: [NotificationID], ids: [Int64], after: NotificationID?) in
            var created: [NotificationID] = []
            var ids: [Int64] = []
            var after: NotificationID?
            for await next in stream.messages {
                switch next {
                case .heartbeat where after == nil:
                    // A heartbeat shows the pump runs; what it sends now arriving proves it has passed its start.
                    after = try? await world.sender.send(message, from: world.ola.id, to: [world.kari.id]).items.first?.id
                case let .event(event):
                    ids.append(event.id)
                    guard event.type == .notificationCreated, let id = event.notificationID else { continue }
                    created.append(id)
                    if id == after { return (created, ids, after) }
                default:
                    continue
                }
            }
            return (created, ids, after)
        }
        // Should "After" never arrive, end the stream after ten seconds so the test fails instead of hanging.
        let deadline = Task {
            try await Task.sleep(for: .seconds(10))
            world.broker.shutDown()
        }
        defer { deadline.cancel() }
        let outcome = await reader.value
        let after = try #require(outcome.after)
        #expect(outcome.created == [between, after])
        #expect(outcome.ids.allSatisfy { $0 > openedAt }, "nothing the stream replays itself is published to it")
    }

    @Test("a stream that does not read is closed when its buffer is full, and counted; the others keep theirs")
    func slowStreamIsClosed() async throws {
        let world = try await LiveWorld(bufferLimit: 2)
        let slow = world.broker.subscribe(userID: world.kari.id, session: "slow")
        _ = try await world.sender.send(try world.message("One"), from: world.ola.id, to: [world.kari.id])
        _ = try await world.sender.send(try world.message("Two"), from: world.ola.id, to: [world.kari.id])
        let reader = world.broker.subscribe(userID: world.ola.id, session: "reader")
        _ = try await world.pump.drain(after: 0)
        #expect(world.broker.streamCount(userID: world.kari.id) == 0)
        #expect(world.metrics.streamsClosedSlow == 1)
        var kept: [StreamMessage] = []
        for await message in slow.messages { kept.append(message) }
        #expect(eventIDs(kept).count == 2, "what fitted the buffer is still read; then the stream ends and the client resumes")
        #expect(world.broker.streamCount(userID: world.ola.id) == 1)
        world.broker.end(userID: world.ola.id, id: reader.id)
    }
}

@Suite("Heartbeats")
struct HeartbeatTests {
    /// How many heartbeats each of 40 streams (of 7 users) hears when the broker beats `slices` of 4.
    func beats(slices: Range<Int>) async -> [Int] {
        let broker = EventBroker(bufferLimit: 8, heartbeatSlices: 4, metrics: ServiceMetrics())
        let streams = (0..<40).map { broker.subscribe(userID: UserID($0 % 7), session: "s\($0)") }
        for slice in slices { broker.heartbeat(slice: slice) }
        broker.shutDown()
        var counts: [Int] = []
        for stream in streams {
            var beats = 0
            for await message in stream.messages { if case .heartbeat = message { beats += 1 } }
            counts.append(beats)
        }
        return counts
    }

    @Test("heartbeats are spread over the interval: one slice reaches its share of the streams, all slices each stream once")
    func heartbeatsAreSpread() async throws {
        #expect(await beats(slices: 0..<1).reduce(0, +) == 10)
        #expect(await beats(slices: 0..<4) == Array(repeating: 1, count: 40))
    }

    @Test("a stream that ended, left or was closed for a newer one hears no more heartbeats; the others each hear one")
    func endedStreamsHearNoHeartbeat() async throws {
        let broker = EventBroker(bufferLimit: 8, streamsPerUser: 2, heartbeatSlices: 3, metrics: ServiceMetrics())
        let streams = (0..<6).map { _ in RecordingSubscriber() }
        var ids: [UInt64] = []
        for (index, stream) in streams.enumerated() {
            // Streams 0 and 1 are one user's; opening 2 closes 0. Streams 3, 4 and 5 are one user's each.
            ids.append(try #require(broker.subscribe(userID: UserID(index < 3 ? 1 : Int64(index)), session: "s", stream: stream)))
        }
        broker.remove(userID: UserID(3), id: ids[3])
        broker.end(userID: UserID(4), id: ids[4])
        broker.remove(userID: UserID(4), id: ids[4])
        for slice in 0..<3 { broker.heartbeat(slice: slice) }
        #expect(streams.map(\.heartbeats) == [0, 1, 1, 0, 0, 1])
    }

    @Test("a tick beats the streams of 50 ms of the interval, so no tick writes to many streams at once")
    func heartbeatTicksAreShort() {
        #expect(EventPump.heartbeatSlices(over: .seconds(20)) == 400)
        #expect(EventPump.heartbeatSlices(over: .seconds(1)) == 20)
        #expect(EventPump.heartbeatSlices(over: .milliseconds(10)) == 1, "an interval shorter than a tick beats every stream each time")
    }

    @Test("the services' pump beats at the configured interval")
    func configuredInterval() throws {
        var configuration = VarselServices.Configuration()
        configuration.heartbeatInterval = 7
        let services = VarselServices(
            repository: try SQLiteRepository.inMemory(), now: { Date() }, passwords: PasswordHasher(cost: 4),
            configuration: configuration, logger: Logger(label: "test"))
        #expect(services.pump.heartbeatInterval == .seconds(7))
    }
}

/// A stream that counts the heartbeats it is given, even after it was finished.
final class RecordingSubscriber: StreamSubscriber, @unchecked Sendable {
    private let lock = NSLock()
    private var beats = 0

    var heartbeats: Int { lock.withLock { beats } }

    func receive(_ message: StreamMessage) -> Bool {
        if case .heartbeat = message { lock.withLock { beats += 1 } }
        return true
    }

    func finish() {}
}
