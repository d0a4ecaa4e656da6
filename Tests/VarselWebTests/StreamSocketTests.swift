import Foundation
import Glibc
import HTTPTypes
import Hummingbird
import NIOCore
import NIOHTTP1
import NIOHTTPTypes
import NIOHTTPTypesHTTP1
import NIOPosix
import Testing
import VarselCore
import VarselService
import VarselServiceTesting
import VarselStore

@testable import VarselLive
@testable import VarselWeb

/// A live stream on its own socket, once SwiftNIO has let go of it: what it writes, what waits, and when it closes;
/// on a socket pair, and behind Varsel's own server.
@Suite("The stream's own socket", .timeLimit(.minutes(1)))
struct StreamSocketTests {
    /// One end of a connection, read and written by the test as the client; reads wait at most five seconds, less
    /// than a socket waits for a client to take its last chunk (``StreamSockets/readWait``).
    final class Peer: Sendable {
        let descriptor: CInt

        init(_ descriptor: CInt) {
            self.descriptor = descriptor
            var wait = timeval(tv_sec: 5, tv_usec: 0)
            setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &wait, socklen_t(MemoryLayout<timeval>.size))
        }

        /// Connected to the test server on `port`.
        convenience init(port: Int) throws {
            self.init(try #require(RawStreamClient.connect(toLocalPort: port)))
        }

        func write(_ text: String) {
            var bytes = Array(text.utf8)
            _ = Glibc.send(descriptor, &bytes, bytes.count, CInt(MSG_NOSIGNAL))
        }

        /// Reads until what was read ends with `suffix`, the connection ends, or five seconds pass; returns what was read.
        func read(until suffix: String) -> String {
            var text = ""
            var scratch = [UInt8](repeating: 0, count: 65_536)
            while !text.hasSuffix(suffix) {
                let count = Glibc.read(descriptor, &scratch, scratch.count)
                guard count > 0 else { break }
                text += String(decoding: scratch[0..<count], as: UTF8.self)
            }
            return text
        }

        /// Whether the other side closed: the next read finds the end (not five seconds of nothing).
        var readsTheEnd: Bool {
            var byte: UInt8 = 0
            return Glibc.read(descriptor, &byte, 1) == 0
        }

        func close() { _ = Glibc.close(descriptor) }
    }

    /// A stream of Kari's on one end of a socket pair, held by a socket set of its own; the test is the other end.
    struct Pair {
        let world: TestWorld
        let sockets: StreamSockets
        let stream: LiveStream
        let socket: NIOLoopBound<StreamSocket>
        let peer: Peer
        /// The stream's end of the pair.
        let descriptor: CInt

        init(
            configuration: VarselServices.Configuration = .init(), sendBuffer: CInt? = nil, readWait: TimeAmount = .seconds(10)
        ) async throws {
            world = try await TestWorld(configuration: configuration)
            sockets = StreamSockets(readWait: readWait)
            (descriptor, peer) = try Self.socketPair(sendBuffer: sendBuffer)
            _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) | O_NONBLOCK)
            let eventLoop = MultiThreadedEventLoopGroup.singleton.next()
            let stream = try Self.subscribedStream(in: world, sockets: sockets, on: eventLoop)
            let (sockets, descriptor) = (sockets, descriptor)
            socket = try await eventLoop.submit {
                let socket = try #require(sockets.adopt(descriptor, for: stream, on: eventLoop))
                stream.start(writingTo: socket)
                return NIOLoopBound(socket, eventLoop: eventLoop)
            }.get()
            self.stream = stream
        }

        /// A connected pair of sockets: the stream's end, with a send buffer of `sendBuffer` bytes when given, and the
        /// client's.
        static func socketPair(sendBuffer: CInt? = nil) throws -> (CInt, Peer) {
            var ends: [CInt] = [0, 0]
            try #require(socketpair(AF_UNIX, CInt(SOCK_STREAM.rawValue), 0, &ends) == 0)
            if var size = sendBuffer {
                setsockopt(ends[0], SOL_SOCKET, SO_SNDBUF, &size, socklen_t(MemoryLayout<CInt>.size))
            }
            return (ends[0], Peer(ends[1]))
        }

        /// Kari's stream on `eventLoop`, subscribed to the broker, writing through `sockets`.
        static func subscribedStream(in world: TestWorld, sockets: StreamSockets, on eventLoop: any EventLoop) throws -> LiveStream {
            let stream = LiveStream(
                services: LiveStreamServices(world.services, sockets: sockets),
                watchdog: StreamWatchdog(timeout: .seconds(30), metrics: world.services.metrics), user: world.kari, isPlayer: false,
                preferences: .standard, eventLoop: eventLoop)
            let id = try #require(world.services.broker.subscribe(userID: world.kari.id, session: "s", stream: stream))
            stream.attached(as: id)
            return stream
        }

        /// Writes `buffer` as a chunk, on the stream's loop, as the stream does.
        func send(_ buffer: ByteBuffer) async throws {
            try await stream.eventLoop.submit { [socket] in socket.value.send(buffer) }.get()
        }

        /// Whether the stream ended: detached from the broker, not counted open, its socket let go.
        var streamEnded: Bool {
            world.services.broker.streamCount(userID: world.kari.id) == 0 && world.services.metrics.openStreams == 0 && sockets.count == 0
        }
    }

    /// A frame larger than any socket's buffers here.
    static let largeFrame = ByteBuffer(repeating: UInt8(ascii: "x"), count: 1 << 20)

    @Test("each buffer goes to the socket as a chunk of its own; finishing writes the last chunk and closes the socket")
    func chunksThenTheLastChunk() async throws {
        let pair = try await Pair()
        #expect(pair.sockets.count == 1)
        pair.world.services.broker.beatEveryStream()
        #expect(pair.peer.read(until: ": heartbeat\n\n\r\n") == "d\r\n: heartbeat\n\n\r\n")
        pair.stream.finish()
        #expect(pair.peer.read(until: "0\r\n\r\n") == "0\r\n\r\n")
        #expect(pair.peer.readsTheEnd)
        try await LiveStreamTests.waitFor("the stream to end") { pair.streamEnded }
        pair.peer.close()
    }

    @Test("what the socket cannot take yet waits, counted against the stream's pace, and goes out whole and in order once the client reads")
    func whatWaitsGoesOutInOrder() async throws {
        let pair = try await Pair(sendBuffer: 4_096)
        try await pair.send(Self.largeFrame)
        try await pair.send(ByteBuffer(string: ": heartbeat\n\n"))
        #expect(pair.stream.pace.waiting == 1, "the second write waits behind the first")

        let read = pair.peer.read(until: ": heartbeat\n\n\r\n")
        let expected = "100000\r\n" + String(repeating: "x", count: 1 << 20) + "\r\n" + "d\r\n: heartbeat\n\n\r\n"
        #expect(read.count == expected.count && read == expected)
        try await LiveStreamTests.waitFor("the waiting write to be counted done") { pair.stream.pace.waiting == 0 }
        #expect(!pair.streamEnded)
        pair.peer.close()
        try await LiveStreamTests.waitFor("the stream to end") { pair.streamEnded }
    }

    @Test("a client that stops reading is closed once more writes wait than the buffer allows, and counted")
    func slowClientIsClosed() async throws {
        var configuration = VarselServices.Configuration()
        configuration.streamBufferLimit = 4
        let pair = try await Pair(configuration: configuration, sendBuffer: 4_096)
        try await pair.send(Self.largeFrame)
        for _ in 0..<4 { try await pair.send(ByteBuffer(string: ": heartbeat\n\n")) }
        #expect(!pair.streamEnded, "four writes waiting fit the buffer")
        try await pair.send(ByteBuffer(string: ": heartbeat\n\n"))
        #expect(pair.world.services.metrics.streamsClosedSlow == 1)
        try await LiveStreamTests.waitFor("the stream to end") { pair.streamEnded }
        pair.peer.close()
    }

    @Test("a client that does not take the last chunk is not waited for: the socket closes after a while all the same")
    func theLastChunkDoesNotWaitLong() async throws {
        let pair = try await Pair(sendBuffer: 4_096, readWait: .milliseconds(200))
        try await pair.send(Self.largeFrame)
        pair.stream.finish()
        try await LiveStreamTests.waitFor("the socket to close without the client reading") { pair.streamEnded }
        pair.peer.close()
    }

    @Test(
        "a client that does not read even the stream's opening is closed after the socket set's wait, before its socket is handed over"
    )
    func anOpeningNotReadIsNotWaitedFor() async throws {
        let world = try await TestWorld()
        let sockets = StreamSockets(readWait: .milliseconds(200))
        let (descriptor, peer) = try Pair.socketPair(sendBuffer: 4_096)
        defer { peer.close() }
        // The server's side of the connection on a SwiftNIO channel, behind SwiftNIO's HTTP/1 encoder, as in the server.
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandlers([
                        HTTPResponseEncoder(), HTTP1ToHTTPServerCodec(secure: false), StreamHandoffHandler(),
                    ])
                }
            }
            .withConnectedSocket(descriptor).get()
        let stream = try Pair.subscribedStream(in: world, sockets: sockets, on: channel.eventLoop)
        try #require(await StreamHandoff.of(channel)).leave(stream)

        // An opening larger than the socket takes, which the client never reads.
        channel.write(HTTPResponsePart.head(HTTPResponse(status: .ok)), promise: nil)
        channel.write(HTTPResponsePart.body(Self.largeFrame), promise: nil)
        channel.writeAndFlush(HTTPResponsePart.end(nil), promise: nil)
        try await LiveStreamTests.waitFor("the connection to close") { !channel.isActive }
        try await LiveStreamTests.waitFor("the stream to end") { world.services.broker.streamCount(userID: world.kari.id) == 0 }
        #expect(sockets.count == 0 && world.services.metrics.openStreams == 0)
    }

    @Test("draining the set waits for the sockets of finished streams to close, and no longer than it is told")
    func drainingWaitsForTheLastChunks() async throws {
        let pair = try await Pair(sendBuffer: 4_096, readWait: .milliseconds(200))
        await pair.sockets.drained(within: .milliseconds(50))
        #expect(pair.sockets.count == 1, "a stream not finished keeps its socket; the drain gave up after its limit")
        // A client that does not read: the last chunk waits, until the socket set's wait closes it.
        try await pair.send(Self.largeFrame)
        pair.stream.finish()
        await pair.sockets.drained(within: .seconds(30))
        #expect(pair.sockets.count == 0)
        pair.peer.close()
    }

    @Test("a client that leaves ends its stream: detached from the broker, no longer counted open, its socket let go")
    func clientLeaves() async throws {
        let pair = try await Pair()
        #expect(!pair.streamEnded)
        pair.peer.close()
        try await LiveStreamTests.waitFor("the stream to end") { pair.streamEnded }
    }

    @Test("what the client sends is read and dropped, and the stream goes on")
    func whatTheClientSendsIsDropped() async throws {
        let pair = try await Pair()
        pair.peer.write("GET /api/v1/notifications HTTP/1.1\r\nHost: varsel\r\n\r\n\u{0}\u{1}not http")
        try await LiveStreamTests.waitFor("the stream to read what was sent") {
            var waiting: CInt = 0
            return ioctl(pair.descriptor, UInt(FIONREAD), &waiting) == 0 && waiting == 0
        }
        pair.world.services.broker.beatEveryStream()
        #expect(pair.peer.read(until: ": heartbeat\n\n\r\n") == "d\r\n: heartbeat\n\n\r\n")
        #expect(!pair.streamEnded)
        pair.peer.close()
        try await LiveStreamTests.waitFor("the stream to end") { pair.streamEnded }
    }

    @Test(
        "behind Varsel's server an open stream leaves SwiftNIO for its own socket: its heartbeats follow as chunks, and sign-out ends it with a reset, the last chunk and the close"
    )
    func behindTheServer() async throws {
        let world = try await TestWorld()
        let sockets = StreamSockets()
        var app = Application(
            router: try await VarselRouter.build(services: world.services, streamSockets: sockets), server: .varselHTTP1(),
            configuration: .init(address: .hostname("127.0.0.1", port: 0)))
        app.addServices(world.services.pump)
        try await app.test(.live) { client in
            let token = try await client.token("kari")
            let peer = try Peer(port: try #require(client.port))
            defer { peer.close() }
            peer.write("GET /api/v1/events HTTP/1.1\r\nHost: varsel\r\nAuthorization: Bearer \(token)\r\n\r\n")
            let opening = peer.read(until: ": connected\n\n\r\n")
            #expect(opening.hasPrefix("HTTP/1.1 200 OK\r\n") && opening.lowercased().contains("transfer-encoding: chunked"), "\(opening)")
            try await LiveStreamTests.waitFor("the stream's socket to leave SwiftNIO") { sockets.count == 1 }

            world.services.broker.beatEveryStream()
            // The server's own heartbeats may come too: nothing but heartbeats, each a chunk of its own.
            let heartbeats = peer.read(until: ": heartbeat\n\n\r\n")
            #expect(!heartbeats.isEmpty && heartbeats.replacingOccurrences(of: "d\r\n: heartbeat\n\n\r\n", with: "").isEmpty, "\(heartbeats)")
            world.services.broker.endStreams(ofSession: Tokens.hash(token))
            let last = peer.read(until: "\r\n0\r\n\r\n")
            #expect(last.contains(#""reason":"signed-out""#) && last.hasSuffix("\r\n0\r\n\r\n"), "\(last)")
            #expect(peer.readsTheEnd)
            try await LiveStreamTests.waitFor("the socket to be let go") { sockets.count == 0 }
            #expect(world.services.metrics.openStreams == 0)
        }
    }
}
