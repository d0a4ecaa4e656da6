import Foundation
import HTTPTypes
import NIOCore
import NIOEmbedded
import NIOHTTP1
import NIOHTTPTypes
import NIOHTTPTypesHTTP1
import NIOSSL
import Testing
import VarselCore
import VarselProcessTesting
import VarselService
import VarselServiceTesting
import VarselStore

@testable import VarselLive
@testable import VarselWeb

/// The connection's handler that takes a live stream over once its response is open (an idle stream
/// without a task), on a test channel: what passes, what it writes, what it swallows, and when it closes.
@Suite("The stream handoff", .timeLimit(.minutes(1)))
struct StreamHandoffTests {
    /// A test connection with the handoff handler, and a stream of Kari's attached to the broker and left to it.
    struct Connection {
        let world: TestWorld
        let channel: NIOAsyncTestingChannel
        let handoff: StreamHandoff
        let stream: LiveStream

        /// `parsingHTTP`: behind SwiftNIO's HTTP/1 server codecs, as in the server, so the test writes and reads bytes.
        init(configuration: VarselServices.Configuration = .init(), isPlayer: Bool = false, parsingHTTP: Bool = false) async throws {
            world = try await TestWorld(configuration: configuration)
            channel = NIOAsyncTestingChannel()
            try await channel.testingEventLoop.executeInContext { [channel] in
                if parsingHTTP {
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline(withErrorHandling: false)
                    try channel.pipeline.syncOperations.addHandler(HTTP1ToHTTPServerCodec(secure: false))
                }
                try channel.pipeline.syncOperations.addHandler(StreamHandoffHandler())
            }
            try await channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 8080))
            handoff = try #require(await StreamHandoff.of(channel))
            stream = LiveStream(
                services: LiveStreamServices(world.services), watchdog: StreamWatchdog(timeout: .seconds(30), metrics: world.services.metrics),
                user: world.kari, isPlayer: isPlayer, preferences: .standard, eventLoop: channel.eventLoop)
            let id = try #require(world.services.broker.subscribe(userID: world.kari.id, session: "s", stream: stream))
            stream.attached(as: id)
        }

        /// What the handler passed on toward the socket, in order.
        func written() async throws -> [HTTPResponsePart] {
            var parts: [HTTPResponsePart] = []
            while let part = try await channel.readOutbound(as: HTTPResponsePart.self) { parts.append(part) }
            return parts
        }

        /// Leaves the stream in the handoff and writes its response, as the `/events` handler does; returns what
        /// passed the handler.
        @discardableResult
        func takeOver() async throws -> [HTTPResponsePart] {
            handoff.leave(stream)
            try await respond()
            return try await written()
        }

        /// Whether the stream ended: detached from the broker, not counted open.
        var streamEnded: Bool {
            world.services.broker.streamCount(userID: world.kari.id) == 0 && world.services.metrics.openStreams == 0
        }

        /// The response the `/events` handler writes: its head, its opening, its end.
        func respond() async throws {
            try await channel.writeOutbound(HTTPResponsePart.head(HTTPResponse(status: .ok)))
            try await channel.writeOutbound(HTTPResponsePart.body(ByteBuffer(string: "retry: 3000\n\n")))
            try await channel.writeOutbound(HTTPResponsePart.end(nil))
        }
    }

    static func text(_ part: HTTPResponsePart) -> String? {
        guard case let .body(buffer) = part else { return nil }
        return String(buffer: buffer)
    }

    @Test("a response with no stream left passes untouched: head, body, end, and the close")
    func ordinaryResponsesPass() async throws {
        let connection = try await Connection()
        try await connection.respond()
        let parts = try await connection.written()
        #expect(parts.count == 3)
        #expect(parts.last == .end(nil))
        try await connection.channel.close()
        #expect(!connection.channel.isActive)
        connection.stream.outputClosed()
    }

    @Test(
        "a stream left in the handoff: its response's end is held back, the live messages follow, the server's close is swallowed, and sign-out ends it with a reset and the last chunk"
    )
    func takesTheStreamOver() async throws {
        let connection = try await Connection()
        let broker = connection.world.services.broker
        connection.handoff.leave(connection.stream)
        // A heartbeat while the response is being written waits for the takeover.
        broker.beatEveryStream()
        try await connection.respond()
        var parts = try await connection.written()
        #expect(parts.count == 3, "head, opening, then the heartbeat that waited; not the end")
        #expect(parts.dropFirst().compactMap(Self.text) == ["retry: 3000\n\n", ": heartbeat\n\n"])
        #expect(connection.world.services.metrics.openStreams == 1)

        // Hummingbird letting go of the connection must not close it.
        try await connection.channel.close()
        #expect(connection.channel.isActive)

        broker.beatEveryStream()
        broker.endStreams(ofSession: "s")
        parts = try await connection.written()
        #expect(parts.count == 3)
        #expect(Self.text(parts[0]) == ": heartbeat\n\n")
        #expect(Self.text(parts[1])?.contains(#""reason":"signed-out""#) == true)
        #expect(parts[2] == .end(nil))
        try await connection.channel.closeFuture.get()
        #expect(connection.streamEnded)
    }

    /// Kari's unread count as an event with id `id`, and Ola's; what a commit hands the broker.
    func events(_ ids: ClosedRange<Int64>, userID: UserID) -> [StoredEvent] {
        ids.map { StoredEvent(id: $0, userID: userID, payload: .unreadCount(Int($0)), createdAt: Date(timeIntervalSince1970: 0)) }
    }

    @Test("the events one commit hands the broker reach each stream in one write, in order; another user's are not in it")
    func oneCommitIsOneWrite() async throws {
        let connection = try await Connection()
        let world = connection.world
        try await connection.takeOver()
        var batch = events(1...2, userID: world.kari.id)
        batch.insert(contentsOf: events(3...3, userID: UserID(world.kari.id.rawValue + 1000)), at: 1)
        world.services.broker.publish(contentsOf: batch)
        let parts = try await connection.written()
        #expect(parts.count == 1, "one write for the commit, not one per event")
        let text = try #require(parts.first.flatMap(Self.text))
        let ids = text.split(separator: "\n").filter { $0.hasPrefix("id: ") }
        #expect(ids == ["id: 1", "id: 2"])
    }

    @Test("publishing only hands the events to the stream's event loop: the frames are made there, not on the publishing (committing) thread")
    func framesAreMadeOnTheStreamsLoop() async throws {
        let connection = try await Connection()
        let world = connection.world
        try await connection.takeOver()
        let delivered = world.services.metrics.eventsDelivered
        // Hold the stream's loop until the publisher has returned.
        let gate = DispatchSemaphore(value: 0)
        await withCheckedContinuation { (held: CheckedContinuation<Void, Never>) in
            connection.channel.eventLoop.execute {
                held.resume()
                gate.wait()
            }
        }
        world.services.broker.publish(contentsOf: events(1...2, userID: world.kari.id))
        #expect(world.services.metrics.eventsDelivered == delivered, "the publisher made no frame")
        gate.signal()
        let parts = try await connection.written()
        #expect(parts.count == 1)
        #expect(world.services.metrics.eventsDelivered == delivered + 2, "the loop made both")
    }

    @Test("an announcement held back for its window is written when the stream's own timer fires on its loop, and leaves nothing counted as waiting")
    func heldAnnouncementFiresOnTheLoop() async throws {
        let connection = try await Connection(isPlayer: true)
        let world = connection.world
        try await connection.takeOver()
        let item = NotificationItem(
            id: 1, recipientID: world.kari.id, kind: .scenarioPrompt, title: "Stair practice", body: "",
            createdAt: world.services.now(), urgency: .normal, deepLink: .scenario(scenarioID: nil))
        world.services.broker.publish(StoredEvent(id: 1, userID: world.kari.id, payload: .notificationCreated(item), createdAt: item.createdAt))
        var written = try await connection.written().compactMap(Self.text).joined()
        #expect(written.contains("event: cue") && !written.contains("event: announcement"), "the cue at once; the announcement waits")
        // The server's clock passes the window, and the loop's time reaches the stream's timer.
        world.clock.advance(by: 2)
        await connection.channel.testingEventLoop.advanceTime(by: .seconds(2))
        written = try await connection.written().compactMap(Self.text).joined()
        #expect(written.hasPrefix("event: announcement\ndata: "), "the announcement, alone in the timer's write")
        #expect(written.contains(#""text":"New notification: Stair practice""#))
        #expect(connection.stream.pace.waiting == 0)
    }

    @Test("a commit's events that do not all fit in a stream's buffer end it as slow, as one event too many does")
    func aBatchTooBigForTheBuffer() async throws {
        var configuration = VarselServices.Configuration()
        configuration.streamBufferLimit = 2
        let connection = try await Connection(configuration: configuration)
        let broker = connection.world.services.broker
        // Still opening: messages wait in its mailbox.
        broker.publish(contentsOf: events(1...2, userID: connection.world.kari.id))
        #expect(broker.streamCount(userID: connection.world.kari.id) == 1, "two fit a buffer of two")
        broker.publish(contentsOf: events(3...4, userID: connection.world.kari.id))
        #expect(broker.streamCount(userID: connection.world.kari.id) == 0)
        #expect(connection.world.services.metrics.streamsClosedSlow == 1)
        connection.stream.outputClosed()
    }

    @Test("a client that stops reading is closed once more writes wait than the buffer allows, and counted")
    func slowClientIsClosed() async throws {
        var configuration = VarselServices.Configuration()
        configuration.streamBufferLimit = 4
        let connection = try await Connection(configuration: configuration)
        let broker = connection.world.services.broker
        try await connection.takeOver()

        connection.channel.isWritable = false
        connection.channel.pipeline.fireChannelWritabilityChanged()
        for _ in 0..<4 { broker.beatEveryStream() }
        _ = try await connection.written()
        #expect(connection.channel.isActive, "four writes waiting fit the buffer")
        broker.beatEveryStream()
        try await connection.channel.closeFuture.get()
        #expect(connection.world.services.metrics.streamsClosedSlow == 1)
        #expect(connection.streamEnded)
    }

    @Test("once a stream has its connection, the request parser is let go and what the client sends is dropped; the stream goes on in chunks")
    func theParserIsLetGo() async throws {
        let connection = try await Connection(parsingHTTP: true)
        let channel = connection.channel
        func bytesWritten() async throws -> String {
            var text = ""
            while let buffer = try await channel.readOutbound(as: ByteBuffer.self) { text += String(buffer: buffer) }
            return text
        }
        func parses() async -> Bool {
            (try? await channel.pipeline.handler(type: ByteToMessageHandler<HTTPRequestDecoder>.self).map { _ in true }.get()) ?? false
        }

        try await channel.writeInbound(ByteBuffer(string: "GET /api/v1/events HTTP/1.1\r\nHost: varsel\r\n\r\n"))
        var request: [HTTPRequestPart] = []
        while let part = try await channel.readInbound(as: HTTPRequestPart.self) { request.append(part) }
        #expect(request.count == 2, "the request reached the server: its head and its end")
        #expect(await parses())
        connection.handoff.leave(connection.stream)
        try await connection.respond()
        let response = try await bytesWritten()
        #expect(response.hasPrefix("HTTP/1.1 200 OK\r\n") && response.lowercased().contains("transfer-encoding: chunked"), "\(response)")
        #expect(!response.hasSuffix("0\r\n\r\n"), "the response stays open")
        #expect(!(await parses()))

        // Another request, and bytes that are no HTTP at all: neither reaches anything, and nothing fails.
        try await channel.writeInbound(ByteBuffer(string: "GET /api/v1/notifications HTTP/1.1\r\nHost: varsel\r\n\r\n\u{0}\u{1}not http"))
        #expect(try await channel.readInbound(as: HTTPRequestPart.self) == nil)
        #expect(try await channel.readInbound(as: ByteBuffer.self) == nil)

        connection.world.services.broker.beatEveryStream()
        #expect(try await bytesWritten() == "d\r\n: heartbeat\n\n\r\n", "a chunk of its own")
        connection.stream.finish()
        try await channel.closeFuture.get()
        #expect(try await bytesWritten() == "0\r\n\r\n", "the last chunk, then the close")
        #expect(connection.streamEnded)
    }

    @Test("a stream's socket is handed on only from a plain connection: under TLS the stream stays on SwiftNIO's channel")
    func onlyAPlainSocketIsHandedOn() async throws {
        let certificate = try await TestCertificate.make()
        let tls = try NIOSSLContext(
            configuration: .makeServerConfiguration(
                certificateChain: try NIOSSLCertificate.fromPEMFile(certificate.certificatePath).map { .certificate($0) },
                privateKey: .privateKey(try NIOSSLPrivateKey(file: certificate.keyPath, format: .pem))))
        let channel = NIOAsyncTestingChannel()
        try await channel.testingEventLoop.executeInContext {
            try channel.pipeline.syncOperations.configureHTTPServerPipeline(withErrorHandling: false)
            #expect(StreamHandoffHandler.encoderAboveThePlainSocket(channel.pipeline) != nil)
            try channel.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: tls), position: .first)
            #expect(StreamHandoffHandler.encoderAboveThePlainSocket(channel.pipeline) == nil)
        }
    }

    @Test("a client that leaves ends its stream: detached from the broker, no longer counted open")
    func clientLeaves() async throws {
        let connection = try await Connection()
        try await connection.takeOver()
        #expect(!connection.streamEnded)
        connection.channel.pipeline.fireChannelInactive()
        try await connection.channel.testingEventLoop.executeInContext {}
        #expect(connection.streamEnded)
    }

    @Test("a server shutting down (quiescing) ends the stream with its last chunk and closes, instead of waiting for the client")
    func quiescingEndsTheStream() async throws {
        let connection = try await Connection()
        try await connection.takeOver()
        connection.channel.pipeline.fireUserInboundEventTriggered(ChannelShouldQuiesceEvent())
        try await connection.channel.closeFuture.get()
        #expect(try await connection.written() == [.end(nil)])
        #expect(connection.streamEnded)
    }

    @Test("a shutdown that began while the stream's response was being written ends it as soon as it is taken over")
    func quiescingBeforeTheTakeover() async throws {
        let connection = try await Connection()
        connection.handoff.leave(connection.stream)
        connection.channel.pipeline.fireUserInboundEventTriggered(ChannelShouldQuiesceEvent())
        try await connection.respond()
        try await connection.channel.closeFuture.get()
        let parts = try await connection.written()
        #expect(parts.count == 3 && parts.last == .end(nil), "head, opening, and the last chunk")
        #expect(connection.streamEnded)
    }
}

extension EventBroker {
    /// Every stream's heartbeat at once: each slice of the interval in turn.
    func beatEveryStream() {
        for slice in 0..<heartbeatSlices { heartbeat(slice: slice) }
    }
}
