import Foundation
import Hummingbird
import Logging
import NIOCore
import NIOHTTP1
import NIOPosix

/// The servers the benchmark measures Varsel's bare `GET /healthz` against, each run as a child process.
///
/// They answer the same request with the same client at the same rate, so the three figures side by side say how much
/// of a request's server CPU is the platform (SwiftNIO alone), how much Hummingbird adds, and how much is Varsel's.
enum FloorServer: String {
    /// An HTTP/1 handler that answers on the event loop: no Swift concurrency, no router.
    case swiftNIO = "nio"
    /// A Hummingbird application with one route and no middleware, served as Hummingbird serves it.
    case hummingbird

    /// How the benchmark's report names it.
    var label: String {
        switch self {
        case .swiftNIO: "SwiftNIO alone"
        case .hummingbird: "Hummingbird alone"
        }
    }

    /// What it is, for the report.
    var summary: String {
        switch self {
        case .swiftNIO: "an HTTP/1 handler answering on the event loop"
        case .hummingbird: "one route, no middleware"
        }
    }

    /// Serves `GET /healthz` on a free loopback port until the process is killed; prints the port first.
    func serve() async throws {
        switch self {
        case .swiftNIO:
            let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .serverChannelOption(ChannelOptions.socketOption(.so_reuseaddr), value: 1)
                .childChannelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.configureHTTPServerPipeline()
                        try channel.pipeline.syncOperations.addHandler(HealthHandler())
                    }
                }
                .bind(host: "127.0.0.1", port: 0).get()
            Self.announce(port: channel.localAddress?.port)
            try await channel.closeFuture.get()
        case .hummingbird:
            let router = Router()
            router.get("healthz") { _, _ in "ok" }
            var logger = Logger(label: "floor")
            logger.logLevel = .error
            let app = Application(
                router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)),
                onServerRunning: { Self.announce(port: $0.localAddress?.port) }, logger: logger)
            try await app.runService()
        }
    }

    /// Prints the line ``ServerProcess/waitForPort()`` looks for.
    private static func announce(port: Int?) {
        FileHandle.standardOutput.write(Data("listening on http://127.0.0.1:\(port ?? 0)\n".utf8))
    }
}

/// Answers every request with `200 ok`, at its end, on the event loop it arrived on.
private final class HealthHandler: ChannelInboundHandler, Sendable {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard case .end = unwrapInboundIn(data) else { return }
        var headers = HTTPHeaders()
        headers.add(name: "Content-Type", value: "text/plain; charset=utf-8")
        headers.add(name: "Content-Length", value: "2")
        context.write(wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: .ok, headers: headers))), promise: nil)
        context.write(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(string: "ok")))), promise: nil)
        context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
    }
}
