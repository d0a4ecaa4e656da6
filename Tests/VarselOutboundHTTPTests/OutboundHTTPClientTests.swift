import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
import Synchronization
import Testing
import VarselProcessTesting

@testable import VarselOutboundHTTP

/// The clients' and servers' event loop: their own, so a test elsewhere in the run that holds one of the shared
/// loops cannot stall them.
let testLoops = MultiThreadedEventLoopGroup(numberOfThreads: 1)

@Suite("One HTTP POST to another service")
struct OutboundHTTPClientTests {
    @Test("the body goes with its headers, Host and length, and the answer's status and headers come back")
    func postsAndReadsTheAnswer() async throws {
        let server = try await TestHTTPServer.start { _ in .answer(201, [("Retry-After", "7")], body: "taken") }
        defer { server.stop() }
        let client = OutboundHTTPClient(timeout: .seconds(10), group: testLoops)
        let url = try #require(URL(string: "http://127.0.0.1:\(server.port)/push/abc%20d?topic=x"))
        let response = try await client.post(url, headers: [("TTL", "60"), ("Urgency", "high")], body: ByteBuffer(string: "payload"))
        #expect(response.status == 201)
        #expect(response.headers.first(name: "Retry-After") == "7")
        #expect(String(buffer: response.body) == "taken")
        let requests = server.received()
        try #require(requests.count == 1)
        let request = requests[0]
        #expect(request.head.method == .POST)
        #expect(request.head.uri == "/push/abc%20d?topic=x")
        #expect(request.head.headers.first(name: "Host") == "127.0.0.1:\(server.port)")
        #expect(request.head.headers.first(name: "Content-Length") == "7")
        #expect(request.head.headers.first(name: "TTL") == "60")
        #expect(request.head.headers.first(name: "Urgency") == "high")
        #expect(request.body == "payload")
    }

    @Test("a redirect is the answer: it is not followed")
    func redirectIsNotFollowed() async throws {
        let server = try await TestHTTPServer.start { head in
            head.uri == "/hooks" ? .answer(302, [("Location", "/elsewhere")], body: "") : .answer(200, [], body: "")
        }
        defer { server.stop() }
        let url = try #require(URL(string: "http://127.0.0.1:\(server.port)/hooks"))
        let response = try await OutboundHTTPClient(group: testLoops).post(url, headers: [], body: ByteBuffer(string: "{}"))
        #expect(response.status == 302)
        // Following it would have come before the answer was handed back.
        #expect(server.received().map(\.head.uri) == ["/hooks"])
    }

    @Test("an answer's body is kept up to the limit")
    func bodyIsCut() async throws {
        let server = try await TestHTTPServer.start { _ in .answer(400, [], body: String(repeating: "x", count: 10_000)) }
        defer { server.stop() }
        let url = try #require(URL(string: "http://127.0.0.1:\(server.port)/"))
        let response = try await OutboundHTTPClient(bodyLimit: 100, group: testLoops).post(url, headers: [], body: ByteBuffer())
        #expect(response.status == 400)
        #expect(response.body.readableBytes == 100)
    }

    @Test("a server that takes the request and never answers: no answer in time")
    func silentServerTimesOut() async throws {
        let server = try await TestHTTPServer.start { _ in .silent }
        defer { server.stop() }
        let url = try #require(URL(string: "http://127.0.0.1:\(server.port)/"))
        await #expect(throws: OutboundHTTPClient.Failure.timedOut) {
            _ = try await OutboundHTTPClient(timeout: .seconds(2), group: testLoops).post(url, headers: [], body: ByteBuffer())
        }
        #expect(server.received().count == 1)
    }

    @Test("the request goes out as soon as the connection is made, even while the asking task waits for a thread")
    func requestLeavesWithoutTheTask() async throws {
        let server = try await TestHTTPServer.start { _ in .answer(204, [], body: "") }
        defer { server.stop() }
        let url = try #require(URL(string: "http://127.0.0.1:\(server.port)/hooks"))
        // The task starts, then gets no thread again until the gate opens, as on a machine too busy to resume it.
        let gate = GatedExecutor()
        let post = Task(executorPreference: gate) {
            try await OutboundHTTPClient(timeout: .seconds(60), group: testLoops).post(url, headers: [], body: ByteBuffer(string: "x"))
        }
        let arrived = await server.waitForRequests(1, within: .seconds(30))
        gate.open()
        #expect(arrived, "the request left only once its task ran again")
        #expect(try await post.value.status == 204)
    }

    @Test("nothing listening: the connection fails")
    func nothingListening() async throws {
        let server = try await TestHTTPServer.start { _ in .answer(200, [], body: "") }
        let port = server.port
        server.stop()
        let url = try #require(URL(string: "http://127.0.0.1:\(port)/"))
        await #expect(throws: OutboundHTTPClient.Failure.connectionFailed) {
            _ = try await OutboundHTTPClient(group: testLoops).post(url, headers: [], body: ByteBuffer())
        }
    }

    @Test("https is checked against the trust roots: a server whose certificate they do not hold is refused")
    func httpsIsVerified() async throws {
        let certificate = try await TestCertificate.make()
        let server = try await TestHTTPServer.start(tls: try certificate.serverContext()) { _ in .answer(204, [], body: "") }
        defer { server.stop() }
        let url = try #require(URL(string: "https://localhost:\(server.port)/push"))
        let trusting = OutboundHTTPClient(
            additionalTrustRoots: try NIOSSLCertificate.fromPEMFile(certificate.certificatePath), group: testLoops)
        #expect(try await trusting.post(url, headers: [], body: ByteBuffer(string: "x")).status == 204)
        await #expect(throws: OutboundHTTPClient.Failure.tls) {
            _ = try await OutboundHTTPClient(group: testLoops).post(url, headers: [], body: ByteBuffer(string: "x"))
        }
        #expect(server.received().count == 1)
    }

    @Test("a name with an IPv6 address that refuses and an IPv4 one that answers: the one that answers is the answer")
    func happyEyeballsWaitsForTheConnectionMade() async throws {
        let server = try await TestHTTPServer.start { _ in .answer(201, [], body: "") }
        defer { server.stop() }
        var client = OutboundHTTPClient(group: testLoops)
        // Nothing listens on ::1 at that port (or ::1 is not there at all): that attempt fails, the IPv4 one connects.
        client.resolver = StaticResolver(
            loop: testLoops.next(), v6: [try SocketAddress(ipAddress: "::1", port: server.port)],
            v4: [try SocketAddress(ipAddress: "127.0.0.1", port: server.port)])
        let url = try #require(URL(string: "http://push.example.test:\(server.port)/x"))
        #expect(try await client.post(url, headers: [], body: ByteBuffer(string: "x")).status == 201)
        #expect(server.received().map(\.head.uri) == ["/x"])
    }

    @Test("an https answer that ends with the connection, closed without TLS's closing message, is whole")
    func closeDelimitedAnswerOverTLS() async throws {
        let certificate = try await TestCertificate.make()
        let server = try await TestHTTPServer.start(tls: try certificate.serverContext()) { _ in .closeDelimited(202, body: "queued") }
        defer { server.stop() }
        let client = OutboundHTTPClient(
            additionalTrustRoots: try NIOSSLCertificate.fromPEMFile(certificate.certificatePath), group: testLoops)
        let url = try #require(URL(string: "https://localhost:\(server.port)/push"))
        let response = try await client.post(url, headers: [], body: ByteBuffer(string: "x"))
        #expect(response.status == 202)
        #expect(String(buffer: response.body) == "queued")
    }

    @Test("the request's target: default ports left out of Host, IPv6 in brackets, names for SNI, other schemes refused")
    func target() throws {
        let named = try OutboundHTTPClient.Target(#require(URL(string: "https://fcm.googleapis.com/fcm/send/abc")))
        #expect(named.secure && named.host == "fcm.googleapis.com" && named.port == 443)
        #expect(named.hostHeader == "fcm.googleapis.com" && named.path == "/fcm/send/abc" && named.serverHostname == "fcm.googleapis.com")
        let address = try OutboundHTTPClient.Target(#require(URL(string: "http://[::1]:8080")))
        #expect(!address.secure && address.host == "::1" && address.port == 8080)
        #expect(address.hostHeader == "[::1]:8080" && address.path == "/" && address.serverHostname == nil)
        for refused in ["ftp://example.org/x", "https://user:secret@example.org/", "/relative"] {
            #expect(throws: OutboundHTTPClient.Failure.invalidURL) { try OutboundHTTPClient.Target(#require(URL(string: refused))) }
        }
    }
}

extension TestCertificate {
    /// A TLS server's settings that present this certificate.
    func serverContext() throws -> NIOSSLContext {
        var tls = TLSConfiguration.makeServerConfiguration(
            certificateChain: try NIOSSLCertificate.fromPEMFile(certificatePath).map { .certificate($0) },
            privateKey: .privateKey(try NIOSSLPrivateKey(file: keyPath, format: .pem)))
        tls.minimumTLSVersion = .tlsv12
        return try NIOSSLContext(configuration: tls)
    }
}

/// Answers each lookup with the addresses it was given, as a name with both kinds of address would.
struct StaticResolver: Resolver, Sendable {
    let loop: any EventLoop
    let v6: [SocketAddress]
    let v4: [SocketAddress]

    func initiateAQuery(host: String, port: Int) -> EventLoopFuture<[SocketAddress]> { loop.makeSucceededFuture(v4) }
    func initiateAAAAQuery(host: String, port: Int) -> EventLoopFuture<[SocketAddress]> { loop.makeSucceededFuture(v6) }
    func cancelQueries() {}
}

/// An HTTP/1.1 server on loopback (with TLS when given) that answers each request as told and keeps what it received.
final class TestHTTPServer: Sendable {
    enum Reply: Sendable {
        case answer(Int, [(String, String)], body: String)
        /// An HTTP/1.0 answer with no length, ended by closing the connection under TLS, without TLS's closing message.
        case closeDelimited(Int, body: String)
        /// Takes the request and says nothing.
        case silent
    }

    struct Received: Sendable {
        var head: HTTPRequestHead
        var body: String
    }

    /// What the server received, request by request.
    final class Log: Sendable {
        let items = Mutex<[Received]>([])
    }

    let port: Int
    private let channel: any Channel
    private let log: Log

    private init(port: Int, channel: any Channel, log: Log) {
        self.port = port
        self.channel = channel
        self.log = log
    }

    static func start(tls: NIOSSLContext? = nil, reply: @escaping @Sendable (HTTPRequestHead) -> Reply) async throws -> TestHTTPServer {
        let log = Log()
        let record: @Sendable (Received) -> Void = { received in log.items.withLock { $0.append(received) } }
        let channel = try await ServerBootstrap(group: testLoops)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    if let tls {
                        try channel.pipeline.syncOperations.addHandler(AbruptClose())
                        try channel.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: tls))
                    }
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline()
                    try channel.pipeline.syncOperations.addHandler(Responder(reply: reply, record: record))
                }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        return TestHTTPServer(port: try #require(channel.localAddress?.port), channel: channel, log: log)
    }

    func received() -> [Received] { log.items.withLock { $0 } }

    /// Waits until `count` requests have come in; false if they have not within `limit`.
    func waitForRequests(_ count: Int, within limit: Duration) async -> Bool {
        let deadline = ContinuousClock.now + limit
        while received().count < count {
            guard ContinuousClock.now < deadline else { return false }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return true
    }

    func stop() { try? channel.close().wait() }

    final class Responder: ChannelInboundHandler {
        typealias InboundIn = HTTPServerRequestPart
        typealias OutboundOut = HTTPServerResponsePart

        let reply: @Sendable (HTTPRequestHead) -> Reply
        let record: @Sendable (Received) -> Void
        var head: HTTPRequestHead?
        var body = ""

        init(reply: @escaping @Sendable (HTTPRequestHead) -> Reply, record: @escaping @Sendable (Received) -> Void) {
            self.reply = reply
            self.record = record
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            switch unwrapInboundIn(data) {
            case let .head(received): head = received
            case let .body(bytes): body += String(buffer: bytes)
            case .end:
                guard let head else { return }
                record(Received(head: head, body: body))
                switch reply(head) {
                case .silent: return
                case let .answer(status, headers, text):
                    var answerHead = HTTPResponseHead(version: .http1_1, status: HTTPResponseStatus(statusCode: status))
                    for (name, value) in headers { answerHead.headers.add(name: name, value: value) }
                    answerHead.headers.add(name: "Content-Length", value: String(text.utf8.count))
                    context.write(wrapOutboundOut(.head(answerHead)), promise: nil)
                    context.write(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(string: text)))), promise: nil)
                    context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
                case let .closeDelimited(status, text):
                    var answerHead = HTTPResponseHead(version: .http1_0, status: HTTPResponseStatus(statusCode: status))
                    answerHead.headers.add(name: "Connection", value: "close")
                    context.write(wrapOutboundOut(.head(answerHead)), promise: nil)
                    let written = context.eventLoop.makePromise(of: Void.self)
                    context.writeAndFlush(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(string: text)))), promise: written)
                    let pipeline = context.pipeline
                    written.futureResult.whenSuccess {
                        try? pipeline.syncOperations.handler(type: AbruptClose.self).close()
                    }
                }
            }
        }
    }
}

/// Sits below TLS, next to the socket, so closing from here ends the connection without TLS's closing message.
final class AbruptClose: ChannelDuplexHandler {
    typealias InboundIn = NIOAny
    typealias OutboundIn = NIOAny
    private var context: ChannelHandlerContext?

    func handlerAdded(context: ChannelHandlerContext) { self.context = context }
    func handlerRemoved(context: ChannelHandlerContext) { self.context = nil }

    func close() { context?.close(promise: nil) }
}

/// Runs a task's first job on a thread of its own, and the jobs after it only once opened.
final class GatedExecutor: TaskExecutor, Sendable {
    private let queue = DispatchQueue(label: "gated executor")
    /// Whether the first job has been taken, whether the gate is open, and the jobs held until it opens.
    private let state = Mutex<(started: Bool, open: Bool, held: [UnownedJob])>((false, false, []))

    func enqueue(_ job: UnownedJob) {
        let runs = state.withLock { state -> Bool in
            if state.open || !state.started {
                state.started = true
                return true
            }
            state.held.append(job)
            return false
        }
        if runs { run(job) }
    }

    func open() {
        let held = state.withLock { state -> [UnownedJob] in
            state.open = true
            defer { state.held = [] }
            return state.held
        }
        for job in held { run(job) }
    }

    private func run(_ job: UnownedJob) {
        let executor = asUnownedTaskExecutor()
        queue.async { job.runSynchronously(on: executor) }
    }
}
