import HTTPTypes
import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import NIOHTTP1
import NIOHTTPTypes
import VarselService

/// Varsel's HTTP/1 connections: Hummingbird's, except that a live event stream leaves the connection's task.
///
/// Hummingbird serves each connection from a task that lives as long as the connection, and a task keeps the memory
/// its deepest call needed until it ends. For a page or an API call that is a moment; for a live stream it is hours:
/// with Hummingbird's own channel an idle stream cost 41 KiB, with this one 10 KiB (10,000 streams,
/// `docs/performance.md`). So when the `/events` handler leaves its stream in the connection's ``StreamHandoff``, this
/// channel's loop ends the connection's task once the response is open, without closing the connection, and the
/// pipeline's ``StreamHandoffHandler`` takes the stream over (and, on Linux, hands its socket on to ``StreamSockets``).
///
/// Everything else is Hummingbird's: the pipeline is `HTTP1Channel.setup`'s, and the request loop mirrors
/// `HTTPChannelHandler.handleHTTP(asyncChannel:logger:)` in Hummingbird ``mirroredHummingbirdVersion``
/// (`Sources/HummingbirdCore/Server/HTTP/HTTPChannelHandler.swift`), with four differences: it returns without closing
/// when a stream took the connection over; it reads each request's body (at most ``Limits/maxBodyBytes`` and one
/// byte, enough for every handler to see a body that is too large) before the responder runs, instead of lending the
/// connection's iterator to the request through Hummingbird's package-internal body type; a request not yet answered
/// whose bytes are not HTTP/1.1 gets the answer its ``MalformedRequestResponder`` makes (Hummingbird's is an empty
/// 400), while one already answered is not answered twice; and which requests end their connection is SwiftNIO's
/// keep-alive rule, which ``ConnectionCloseHandler`` spells as the `Connection: close` the loop looks for (any case,
/// and HTTP/1.0 without `keep-alive`). Hummingbird is pinned to that minor version in `Package.swift`, and a test
/// fails when the resolved version is not the one mirrored: re-read the upstream file, then move the version.
public struct VarselHTTP1Channel: ServerChildChannel, HTTPChannelHandler {
    /// The Hummingbird release whose `handleHTTP` the request loop mirrors.
    public static let mirroredHummingbirdVersion = "2.28.1"

    public struct Value: ServerChildChannelValue {
        let connection: NIOAsyncChannel<HTTPRequestPart, HTTPResponsePart>
        let handoff: StreamHandoff
        public var channel: any Channel { connection.channel }
    }

    /// A whole response written by the connection itself, below the router: its head and its body.
    public struct Answer: Sendable {
        public var head: HTTPResponse
        public var body: ByteBuffer

        public init(head: HTTPResponse, body: ByteBuffer = ByteBuffer()) {
            self.head = head
            self.body = body
        }
    }

    /// Makes the answer to a request the HTTP/1.1 parser refused; the connection closes after it.
    public typealias MalformedRequestResponder = @Sendable (HTTPParserError) -> Answer

    /// Hummingbird's own answer to a malformed request: an empty 400.
    public static let emptyBadRequest: MalformedRequestResponder = { _ in Answer(head: HTTPResponse(status: .badRequest)) }

    /// How large a connection's reads start. SwiftNIO keeps a read buffer for each connection's life, and its
    /// default of 2,048 bytes was the largest single part of an idle live stream. A browser's request for the stream,
    /// cookie included, fits in 1,024 bytes; larger requests grow the reads as SwiftNIO's adaptive allocator sees
    /// them fill.
    static let readBuffers = AdaptiveRecvByteBufferAllocator(minimum: 64, initial: 1_024, maximum: 65_536)

    public let responder: HTTPChannelHandler.Responder
    private let http1: HTTP1Channel
    private let malformedRequest: MalformedRequestResponder

    public init(
        responder: @escaping HTTPChannelHandler.Responder, configuration: HTTP1Channel.Configuration,
        malformedRequest: @escaping MalformedRequestResponder = VarselHTTP1Channel.emptyBadRequest
    ) {
        var configuration = configuration
        let additional = configuration.additionalChannelHandlers
        configuration.additionalChannelHandlers = { additional() + [StreamHandoffHandler()] }
        self.responder = responder
        self.malformedRequest = malformedRequest
        http1 = HTTP1Channel(responder: responder, configuration: configuration)
    }

    public func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        http1.setup(channel: channel, logger: logger).flatMapThrowing { connection in
            let handoff = try channel.pipeline.syncOperations.handler(type: StreamHandoffHandler.self).handoff
            try channel.syncOptions?.setOption(ChannelOptions.recvAllocator, value: Self.readBuffers)
            let decoder = try channel.pipeline.syncOperations.handler(type: ByteToMessageHandler<HTTPRequestDecoder>.self)
            try channel.pipeline.syncOperations.addHandler(ConnectionCloseHandler(), position: .after(decoder))
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
        // Whether what is read now belongs to a request not answered yet: only such a request gets an answer when its
        // bytes turn out not to be HTTP; the rest of a body already refused (413) is no request of its own.
        var unanswered = true
        do {
            guard let first = try await requests.next() else { return false }
            guard case var .head(head) = first else { throw HTTPChannelError.unexpectedPart }
            while true {
                let (body, rest) = try await Self.readBody(from: &requests)
                let request = Request(head: head, body: RequestBody(buffer: body))
                unanswered = false
                try await responder(request, ResponseWriter(outbound: outbound), value.channel)
                if value.handoff.wasLeft {
                    // The stream is the connection's now; the pipeline handler takes it as the response's end passes.
                    guard value.channel.isActive else { return false }
                    return true
                }
                if request.headers[.connection] == "close" { return false }
                // Skip what is left of a body too large to read, then wait for the next request.
                var part: HTTPRequestPart?
                if let rest {
                    part = rest
                    while case .body = part { part = try await requests.next() }
                    if case .end = part {
                        unanswered = true
                        part = try await requests.next()
                    }
                } else {
                    unanswered = true
                    part = try await requests.next()
                }
                guard let part else { return false }
                guard case let .head(following) = part else { throw HTTPChannelError.unexpectedPart }
                head = following
            }
        } catch let error as HTTPParserError {
            // Malformed HTTP: say what is wrong with it, and close. Every response before it was written whole.
            logger.debug("HTTP parse error, closing connection", metadata: ["error": "\(error)"])
            guard unanswered, error != .closedConnection else { return false }
            var answer = malformedRequest(error)
            answer.head.headerFields[.connection] = "close"
            answer.head.headerFields[.contentLength] = String(answer.body.readableBytes)
            try await outbound.write(.head(answer.head))
            if answer.body.readableBytes > 0 { try await outbound.write(.body(answer.body)) }
            try await outbound.write(.end(nil))
            return false
        }
    }

    /// Reads a request's body until its end, or until it holds more than ``Limits/maxBodyBytes`` (the handlers then
    /// refuse it as too large). Returns the body and, when it was cut short, the first part not read.
    static func readBody(from requests: inout NIOAsyncChannelInboundStream<HTTPRequestPart>.AsyncIterator) async throws
        -> (ByteBuffer, rest: HTTPRequestPart?)
    {
        var body = ByteBuffer()
        while let part = try await requests.next() {
            switch part {
            case let .body(buffer):
                guard body.readableBytes <= Limits.maxBodyBytes else { return (body, part) }
                body.writeImmutableBuffer(buffer)
            case .end:
                return (body, nil)
            case .head:
                throw HTTPChannelError.unexpectedPart
            }
        }
        return (body, nil)
    }

    enum HTTPChannelError: Error {
        /// A request part arrived where a request's head was expected, or a head where a body was.
        case unexpectedPart
    }
}

extension HTTPServerBuilder {
    /// Varsel's HTTP/1 server: Hummingbird's, with live streams that leave the connection's task
    /// (``VarselHTTP1Channel``), and `malformedRequest`'s answer to bytes that are not HTTP/1.1.
    public static func varselHTTP1(
        configuration: HTTP1Channel.Configuration = .init(),
        malformedRequest: @escaping VarselHTTP1Channel.MalformedRequestResponder = VarselHTTP1Channel.emptyBadRequest
    )
        -> HTTPServerBuilder
    {
        .init { responder in VarselHTTP1Channel(responder: responder, configuration: configuration, malformedRequest: malformedRequest) }
    }
}
