import HTTPTypes
import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import NIOHTTP1
import NIOHTTPTypes

/// Varsel's HTTP/1 connections: Hummingbird's, except that a live event stream leaves the connection's task.
///
/// Hummingbird serves each connection from a task that lives as long as the connection, and a task keeps the memory
/// its deepest call needed until it ends. For a page or an API call that is a moment; for a live stream it is hours.
/// So when the `/events` handler leaves its stream in the connection's ``StreamHandoff``, this channel's loop ends
/// the connection's task once the response is open, without closing the connection, and the pipeline's
/// ``StreamHandoffHandler`` writes the stream from then on. Every other request is served as Hummingbird's own
/// `HTTP1Channel` serves it: the same pipeline (its setup is reused), the same request loop.
public struct VarselHTTP1Channel: ServerChildChannel, HTTPChannelHandler {
    public struct Value: ServerChildChannelValue {
        let connection: NIOAsyncChannel<HTTPRequestPart, HTTPResponsePart>
        let handoff: StreamHandoff
        public var channel: any Channel { connection.channel }
    }

    public let responder: HTTPChannelHandler.Responder
    private let http1: HTTP1Channel

    public init(responder: @escaping HTTPChannelHandler.Responder, configuration: HTTP1Channel.Configuration) {
        var configuration = configuration
        let additional = configuration.additionalChannelHandlers
        configuration.additionalChannelHandlers = { additional() + [StreamHandoffHandler()] }
        self.responder = responder
        http1 = HTTP1Channel(responder: responder, configuration: configuration)
    }

    public func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        http1.setup(channel: channel, logger: logger).flatMapThrowing { connection in
            let handoff = try channel.pipeline.syncOperations.handler(type: StreamHandoffHandler.self).handoff
            return Value(connection: connection, handoff: handoff)
        }
    }

    public func handle(value: Value, logger: Logger) async {
        let channel = value.channel
        var handedOver = false
        do {
            try await withTaskCancellationHandler {
                handedOver = try await serve(value, logger: logger)
            } onCancel: {
                channel.close(mode: .input, promise: nil)
            }
        } catch {
            // Reading or writing the connection failed.
            logger.trace("Failed to read/write to Channel. Error: \(error)")
        }
        if handedOver { return }
        // A stream that was to be taken over but whose response failed ends here.
        value.handoff.take()?.outputClosed()
        channel.close(promise: nil)
        try? await channel.closeFuture.get()
    }

    /// Answers the connection's requests in turn; returns true when a live stream took the connection over.
    private func serve(_ value: Value, logger: Logger) async throws -> Bool {
        // The scoped `executeThenClose` would close the connection on return, which is exactly what a handed-over
        // stream must not do; so the unscoped sides (deprecated for that reason), and the connection is closed in
        // ``handle(value:logger:)`` otherwise.
        let (inbound, outbound) = (value.connection.inbound, value.connection.outbound)
        defer { outbound.finish() }
        var requests = inbound.makeAsyncIterator()
        do {
            guard let first = try await requests.next() else { return false }
            guard case var .head(head) = first else { throw HTTPChannelError.unexpectedPart }
            while true {
                let request = Request(head: head, body: RequestBody(asyncSequence: RequestBodyParts(parts: requests)))
                try await responder(request, ResponseWriter(outbound: outbound), value.channel)
                if value.handoff.wasLeft {
                    // The stream is the connection's now; the pipeline handler takes it as the response's end passes.
                    guard value.channel.isActive else { return false }
                    return true
                }
                if request.headers[.connection] == "close" { return false }
                // Skip what is left of this request's body, then wait for the next request.
                var part = try await requests.next()
                while case .body = part { part = try await requests.next() }
                if case .end = part { part = try await requests.next() }
                guard let part else { return false }
                guard case let .head(next) = part else { throw HTTPChannelError.unexpectedPart }
                head = next
            }
        } catch is HTTPParserError {
            // Malformed HTTP: say so, and close.
            logger.debug("HTTP parse error, closing connection")
            try await outbound.write(.head(.init(status: .badRequest, headerFields: [.connection: "close", .contentLength: "0"])))
            try await outbound.write(.end(nil))
            return false
        }
    }

    enum HTTPChannelError: Error {
        /// A request part arrived where a request's head was expected.
        case unexpectedPart
    }
}

/// A request's body, read from the connection's parts until the request's end.
///
/// The iterator is shared with the connection's request loop, which reads on from where the body stopped; the two
/// never read at once (the loop waits for the responder).
struct RequestBodyParts: AsyncSequence, Sendable {
    typealias Element = ByteBuffer
    nonisolated(unsafe) let parts: NIOAsyncChannelInboundStream<HTTPRequestPart>.AsyncIterator

    struct AsyncIterator: AsyncIteratorProtocol {
        var parts: NIOAsyncChannelInboundStream<HTTPRequestPart>.AsyncIterator
        var isDone = false

        mutating func next() async throws -> ByteBuffer? {
            guard !isDone, let part = try await parts.next() else { return nil }
            switch part {
            case let .body(buffer):
                return buffer
            case .end:
                isDone = true
                return nil
            case .head:
                throw VarselHTTP1Channel.HTTPChannelError.unexpectedPart
            }
        }
    }

    func makeAsyncIterator() -> AsyncIterator { AsyncIterator(parts: parts) }
}

extension HTTPServerBuilder {
    /// Hummingbird's own HTTP/1 server with the stream handoff handler in its pipeline: the live stream's connection
    /// task stays, parked between requests, for the stream's life.
    public static func hummingbirdHTTP1WithHandoff(configuration: HTTP1Channel.Configuration = .init()) -> HTTPServerBuilder {
        var configuration = configuration
        let additional = configuration.additionalChannelHandlers
        configuration.additionalChannelHandlers = { additional() + [StreamHandoffHandler()] }
        return .http1(configuration: configuration)
    }

    /// Varsel's HTTP/1 server: Hummingbird's, with live streams that leave the connection's task
    /// (``VarselHTTP1Channel``).
    public static func varselHTTP1(configuration: HTTP1Channel.Configuration = .init()) -> HTTPServerBuilder {
        .init { responder in VarselHTTP1Channel(responder: responder, configuration: configuration) }
    }
}
