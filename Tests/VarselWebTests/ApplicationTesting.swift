import HTTPTypes
import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import NIOEmbedded
import NIOHTTP1
import NIOHTTPTypes
import NIOHTTPTypesHTTP1
import NIOPosix
import ServiceLifecycle
import Synchronization

/// How a test reaches an application: straight through its router, or over a socket to the application serving.
///
/// Through the router a request skips the HTTP server (its parser, its limits, its channel); over a socket it passes
/// them all, as a browser's does.
enum TestingSetup {
    case router
    case live
}

/// One whole response, as a test reads it.
struct TestResponse: Sendable {
    let head: HTTPResponse
    let body: ByteBuffer

    var status: HTTPResponse.Status { head.status }
    var headers: HTTPFields { head.headerFields }
}

/// Something a test sends requests through, one at a time, each answered whole.
protocol TestClientProtocol: Sendable {
    /// Sends one request and waits for its whole response.
    func executeRequest(uri: String, method: HTTPRequest.Method, headers: HTTPFields, body: ByteBuffer?) async throws -> TestResponse
    /// The live server's port; nil through the router.
    var port: Int? { get }
}

extension TestClientProtocol {
    func execute(uri: String, method: HTTPRequest.Method, headers: HTTPFields = [:], body: ByteBuffer? = nil) async throws -> TestResponse {
        try await executeRequest(uri: uri, method: method, headers: headers, body: body)
    }
}

extension ApplicationProtocol {
    /// Runs `test` with a client for this application, its services running beside it, and stops them after.
    func test<Value: Sendable>(_ setup: TestingSetup, _ test: @Sendable (any TestClientProtocol) async throws -> Value) async throws -> Value {
        switch setup {
        case .router:
            let client = RouterClient(responder: try await responder, logger: logger)
            return try await Self.running(services, before: processesRunBeforeServerStart) { try await test(client) }
        case .live:
            let serving = ServingApplication(base: self)
            // A server that stops without having listened (it could not bind) leaves port 0, which no request reaches.
            return try await Self.running(
                [serving], before: [], whenStopped: { serving.port.send(0) },
                { try await test(LiveClient(port: await serving.port.value)) })
        }
    }

    /// Runs `services` in a group while `body` runs, once each has been asked to start, then shuts the group down;
    /// `whenStopped` runs once the group has stopped, for whatever reason.
    private static func running<Value: Sendable>(
        _ services: [any Service], before processes: [@Sendable () async throws -> Void],
        whenStopped: @escaping @Sendable () -> Void = {}, _ body: () async throws -> Value
    ) async throws -> Value {
        for process in processes { try await process() }
        guard !services.isEmpty else { return try await body() }
        return try await withThrowingTaskGroup(of: Void.self) { group in
            let started = Signal<Void>()
            let serviceGroup = ServiceGroup(
                configuration: .init(services: services + [StartedService(started: started)], logger: Logger(label: "test")))
            group.addTask {
                defer { whenStopped() }
                try await serviceGroup.run()
            }
            // The group is running before the body starts, so its shutdown below always reaches the services.
            await started.value
            do {
                let value = try await body()
                await serviceGroup.triggerGracefulShutdown()
                return value
            } catch {
                await serviceGroup.triggerGracefulShutdown()
                throw error
            }
        }
    }
}

/// A value set once that any number of tasks wait for.
private final class Signal<Value: Sendable>: Sendable {
    private let state = Mutex<(value: Value?, waiting: [CheckedContinuation<Value, Never>])>((nil, []))

    func send(_ value: Value) {
        let waiting = state.withLock { state -> [CheckedContinuation<Value, Never>] in
            guard state.value == nil else { return [] }
            state.value = value
            defer { state.waiting = [] }
            return state.waiting
        }
        for continuation in waiting { continuation.resume(returning: value) }
    }

    var value: Value {
        get async {
            await withCheckedContinuation { continuation in
                let ready = state.withLock { state -> Value? in
                    if let value = state.value { return value }
                    state.waiting.append(continuation)
                    return nil
                }
                if let ready { continuation.resume(returning: ready) }
            }
        }
    }
}

/// A service that says it was started, then waits for the group's shutdown.
private struct StartedService: Service {
    let started: Signal<Void>
    func run() async throws {
        started.send(())
        try? await gracefulShutdown()
    }
}

/// The application under test, serving on a free port of this machine, which it tells once it listens.
private struct ServingApplication<Base: ApplicationProtocol>: ApplicationProtocol {
    let base: Base
    let port = Signal<Int>()

    var responder: Base.Responder { get async throws { try await base.responder } }
    var server: HTTPServerBuilder { base.server }
    var eventLoopGroup: any EventLoopGroup { base.eventLoopGroup }
    var configuration: ApplicationConfiguration { base.configuration.with(address: .hostname("127.0.0.1", port: 0)) }
    var logger: Logger { base.logger }
    var services: [any Service] { base.services }
    var processesRunBeforeServerStart: [@Sendable () async throws -> Void] { base.processesRunBeforeServerStart }

    @Sendable func onServerRunning(_ channel: any Channel) async {
        await base.onServerRunning(channel)
        port.send(channel.localAddress?.port ?? 0)
    }
}

/// Hands each request to the router as the server would, with a context over a channel of its own.
private struct RouterClient<Responder: HTTPResponder>: TestClientProtocol
where Responder.Context: InitializableFromSource<ApplicationRequestContextSource> {
    let responder: Responder
    let logger: Logger

    var port: Int? { nil }

    func executeRequest(uri: String, method: HTTPRequest.Method, headers: HTTPFields, body: ByteBuffer?) async throws -> TestResponse {
        var headers = headers
        if let body { headers[.contentLength] = String(body.readableBytes) }
        let request = Request(
            head: HTTPRequest(method: method, scheme: "http", authority: "localhost", path: uri, headerFields: headers),
            body: RequestBody(buffer: body ?? ByteBuffer()))
        let context = Responder.Context(source: .init(channel: NIOAsyncTestingChannel(), logger: logger))
        let response: Response
        do {
            response = try await responder.respond(to: request, context: context)
        } catch {
            // What the application's server answers for an error nothing turned into a response.
            response = Response(status: .internalServerError)
        }
        let collected = CollectedBody()
        try await response.body.write(collected)
        return TestResponse(head: response.head, body: collected.buffer)
    }
}

/// A response body's bytes, gathered as they are written.
private final class CollectedBody: ResponseBodyWriter, Sendable {
    private let bytes = Mutex(ByteBuffer())
    var buffer: ByteBuffer { bytes.withLock { $0 } }

    func write(_ buffer: ByteBuffer) async throws {
        _ = bytes.withLock { $0.writeImmutableBuffer(buffer) }
    }

    func finish(_ trailingHeaders: HTTPFields?) async throws {}
}

/// Sends each request on a connection of its own to the live server, and reads its response to the end.
private struct LiveClient: TestClientProtocol {
    let port: Int?

    /// How long one request may take; a test whose request hangs fails with the request named.
    static let timeout = Duration.seconds(60)

    func executeRequest(uri: String, method: HTTPRequest.Method, headers: HTTPFields, body: ByteBuffer?) async throws -> TestResponse {
        var headers = headers
        if let body { headers[.contentLength] = String(body.readableBytes) }
        let head = HTTPRequest(method: method, scheme: "http", authority: "localhost", path: uri, headerFields: headers)
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connect(host: "127.0.0.1", port: port ?? 0) { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHTTPClientHandlers()
                    try channel.pipeline.syncOperations.addHandler(HTTP1ToHTTPClientCodec())
                    return try NIOAsyncChannel<HTTPResponsePart, HTTPRequestPart>(wrappingChannelSynchronously: channel)
                }
            }
        return try await withThrowingTaskGroup(of: TestResponse?.self) { group in
            group.addTask {
                try await channel.executeThenClose { inbound, outbound in
                    try await outbound.write(.head(head))
                    if let body { try await outbound.write(.body(body)) }
                    try await outbound.write(.end(nil))
                    var response: HTTPResponse?
                    var collected = ByteBuffer()
                    for try await part in inbound {
                        switch part {
                        case .head(let received) where received.status.kind != .informational: response = received
                        case .head: continue
                        case .body(let bytes): collected.writeImmutableBuffer(bytes)
                        case .end:
                            guard let response else { throw LiveClientError.endedWithoutResponse(uri) }
                            return TestResponse(head: response, body: collected)
                        }
                    }
                    throw LiveClientError.endedWithoutResponse(uri)
                }
            }
            group.addTask {
                try await Task.sleep(for: Self.timeout)
                return nil
            }
            let first = try await group.next()!
            group.cancelAll()
            guard let first else {
                channel.channel.close(promise: nil)
                throw LiveClientError.timedOut(uri)
            }
            return first
        }
    }
}

private enum LiveClientError: Error {
    case endedWithoutResponse(String)
    case timedOut(String)
}
