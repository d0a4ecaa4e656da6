import HTTPTypes
import HummingbirdCore
import NIOCore
import NIOHTTP1
import NIOHTTPTypes
import NIOSSL
import Synchronization
import VarselService

#if os(Linux)
    import Glibc
#endif

/// Where the `/events` handler leaves a stream for its connection's ``StreamHandoffHandler`` to take over.
///
/// The handler sets it before it returns its response; the connection's ``VarselHTTP1Channel`` sees it set when the
/// response is done and ends its task without closing the connection; the pipeline handler takes the stream when
/// the response's end passes it.
public final class StreamHandoff: Sendable {
    private struct State {
        var waiting: LiveStream?
        var wasLeft = false
    }

    private let state = Mutex(State())

    /// Leaves `stream` to be taken over once the current response is written.
    public func leave(_ stream: LiveStream) {
        state.withLock { state in
            state.waiting = stream
            state.wasLeft = true
        }
    }

    /// Whether a stream was left on this connection, taken over since or not (the pipeline may take it before the
    /// request loop looks).
    var wasLeft: Bool { state.withLock { $0.wasLeft } }

    /// Takes the stream that waits, if one does.
    func take() -> LiveStream? { state.withLock { $0.waiting.take() } }

    /// The handoff of the connection `channel`, if its pipeline has a ``StreamHandoffHandler``.
    public static func of(_ channel: any Channel) async -> StreamHandoff? {
        try? await channel.eventLoop.submit {
            try channel.pipeline.syncOperations.handler(type: StreamHandoffHandler.self).handoff
        }.get()
    }
}

/// Takes a live event stream over from the HTTP server once its response is open, so that an idle stream is its
/// socket and a ``LiveStream`` object, without a task.
///
/// It sits between the HTTP codec and Hummingbird's handlers and lets every part through until a response whose
/// handler left a stream in ``handoff`` ends. It swallows that end, so the chunked body stays open. Then, once the
/// response's head and opening are on the socket, it hands a copy of the socket to the stream's ``StreamSockets`` and
/// closes SwiftNIO's channel: the connection stays open through the copy, and the stream writes its chunks there
/// (``StreamSocket``). Where that cannot be done (not Linux, a connection under TLS, a socket it cannot find, a
/// response not in chunks) the stream stays on this channel, and from then on:
/// - it writes the stream's frames (``send(_:)``), on the connection's event loop, which is the stream's;
/// - it ignores what the client sends, closes when the client leaves, and keeps reading to notice that;
/// - it swallows the closes Hummingbird's side sends as it lets go of the connection (its idle timer, its
///   teardown), since the connection is the stream's now; the stream ends it with the last chunk and a close;
/// - when the server shuts down (it quiesces its connections and waits for them), it ends the stream.
///
/// Writes that wait behind a socket the client stopped reading count against the stream's ``StreamPace``, which
/// decides when the client is too slow.
final class StreamHandoffHandler: ChannelDuplexHandler, RemovableChannelHandler, StreamConnection {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    let handoff = StreamHandoff()

    private enum State {
        case serving
        /// Waiting for the response's head and opening to reach the socket before handing it over.
        case movingOut(LiveStream)
        /// The stream has the socket; this channel is closing or closed.
        case movedOut
        /// The stream writes through this channel.
        case streaming(LiveStream)
        case closed
    }

    private var state = State.serving
    private var context: ChannelHandlerContext?
    /// The server began shutting down: a stream taken over from now on ends at once.
    private var isQuiescing = false
    /// Whether the current request is a HEAD, whose response has no body.
    private var isHeadRequest = false
    /// Whether the current response's body goes in chunks, as SwiftNIO's encoder frames a response with a body and
    /// no length.
    private var isChunked = false

    func handlerAdded(context: ChannelHandlerContext) { self.context = context }

    func handlerRemoved(context: ChannelHandlerContext) { self.context = nil }

    // MARK: Outbound

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        switch state {
        case .serving:
            switch unwrapOutboundIn(data) {
            case let .head(head):
                isChunked =
                    !isHeadRequest && head.status.code >= 200 && head.status.code != 204 && head.status.code != 304
                    && head.headerFields[.contentLength] == nil
            case .end:
                if let stream = handoff.take() {
                    promise?.succeed(())
                    return takeOver(stream, context: context)
                }
            case .body:
                break
            }
            context.write(data, promise: promise)
        case .movingOut, .movedOut, .streaming, .closed:
            // Hummingbird's side has nothing more to say on this connection.
            promise?.succeed(())
        }
    }

    func close(context: ChannelHandlerContext, mode: CloseMode, promise: EventLoopPromise<Void>?) {
        switch state {
        case .serving, .closed:
            context.close(mode: mode, promise: promise)
        case .movingOut, .movedOut, .streaming:
            // Hummingbird letting go of a connection that is the stream's now.
            promise?.succeed(())
        }
    }

    private func takeOver(_ stream: LiveStream, context: ChannelHandlerContext) {
        #if os(Linux)
            if isChunked, let sockets = stream.services.sockets, let encoder = Self.encoderAboveThePlainSocket(context.pipeline) {
                state = .movingOut(stream)
                // An empty write below the encoder completes once everything written before it is on the socket.
                let written = context.eventLoop.makePromise(of: Void.self)
                encoder.writeAndFlush(NIOAny(ByteBuffer()), promise: written)
                // The socket is not handed over after all: the connection closes (the client resumes from its last event).
                func closeIfStillMovingOut() {
                    if case .movingOut = state { context.close(promise: nil) }
                }
                // No watchdog watches the stream yet: a client that does not read even its opening is not waited for long.
                let deadline = context.eventLoop.assumeIsolated().scheduleTask(in: sockets.readWait) { closeIfStillMovingOut() }
                written.futureResult.assumeIsolated().whenComplete { result in
                    deadline.cancel()
                    switch result {
                    case .success: self.moveOut(stream, to: sockets, context: context)
                    case .failure: closeIfStillMovingOut()
                    }
                }
                return
            }
        #endif
        stayOnChannel(stream, context: context)
    }

    /// The HTTP encoder's context when what it writes goes to the socket as it is; nil under TLS, where only SwiftNIO
    /// can write the stream's bytes, or without an encoder.
    static func encoderAboveThePlainSocket(_ pipeline: ChannelPipeline) -> ChannelHandlerContext? {
        let operations = pipeline.syncOperations
        guard (try? operations.handler(type: NIOSSLServerHandler.self)) == nil else { return nil }
        return try? operations.context(handlerType: HTTPResponseEncoder.self)
    }

    #if os(Linux)
        /// Hands the stream a copy of the connection's socket and closes this channel; keeps the stream here when the
        /// socket cannot be had.
        private func moveOut(_ stream: LiveStream, to sockets: StreamSockets, context: ChannelHandlerContext) {
            // The client left while the response was being written: ``channelInactive(context:)`` ended the stream.
            guard case .movingOut = state, context.channel.isActive else { return }
            guard let descriptor = StreamSockets.descriptor(of: context.channel) else {
                return stayOnChannel(stream, context: context)
            }
            let copy = fcntl(descriptor, F_DUPFD_CLOEXEC, 0)
            guard copy >= 0 else { return stayOnChannel(stream, context: context) }
            guard let socket = sockets.adopt(copy, for: stream, on: context.eventLoop) else {
                _ = Glibc.close(copy)
                return stayOnChannel(stream, context: context)
            }
            state = .movedOut
            // SwiftNIO stops watching its descriptor and closes it; the connection stays open through the copy.
            context.close(promise: nil)
            stream.start(writingTo: socket)
            if isQuiescing { stream.finish() }
        }
    #endif

    /// Keeps the stream on this channel: the stream writes through ``send(_:)``.
    private func stayOnChannel(_ stream: LiveStream, context: ChannelHandlerContext) {
        state = .streaming(stream)
        context.flush()
        // Hummingbird's idle timer and its graceful-shutdown close are for connections between requests.
        if let idle = try? context.pipeline.syncOperations.context(handlerType: HTTPConnectionStateHandler.self) {
            context.pipeline.syncOperations.removeHandler(context: idle, promise: nil)
        }
        Self.stopParsingRequests(context.pipeline)
        context.read()
        guard context.channel.isActive else {
            state = .closed
            stream.outputClosed()
            return
        }
        if !context.channel.isWritable { stream.pace.blocked() }
        stream.start(writingTo: self)
        if isQuiescing { stream.finish() }
    }

    /// Lets go of the request parser, which an open stream no longer needs and which keeps the last request's head,
    /// buffers and parser state (about 1.4 KB a connection): what the client sends from now on is dropped where the
    /// parser was. Reads, their completion, the client's leaving and errors still pass on.
    private static func stopParsingRequests(_ pipeline: ChannelPipeline) {
        let operations = pipeline.syncOperations
        guard let decoder = try? operations.handler(type: ByteToMessageHandler<HTTPRequestDecoder>.self) else { return }
        do {
            try operations.addHandler(InboundBytesDropped(), position: .before(decoder))
        } catch {
            return
        }
        operations.removeHandler(decoder, promise: nil)
    }

    /// Writes one buffer of the stream's frames; a client too far behind is closed.
    func send(_ buffer: ByteBuffer) {
        guard case let .streaming(stream) = state, let context else { return }
        if !context.channel.isWritable {
            guard stream.pace.writeWaits() else {
                stream.services.metrics.streamDroppedAsSlow()
                return abort()
            }
        }
        context.writeAndFlush(wrapOutboundOut(.body(buffer)), promise: nil)
    }

    /// Ends the response with its last chunk, then the connection.
    func finish() {
        guard case .streaming = state, let context else { return }
        state = .closed
        context.writeAndFlush(wrapOutboundOut(.end(nil))).assumeIsolated().whenComplete { _ in context.close(promise: nil) }
    }

    /// Closes the connection now, and ends the stream.
    func abort() {
        guard case let .streaming(stream) = state, let context else { return }
        state = .closed
        context.close(promise: nil)
        stream.outputClosed()
    }

    // MARK: Inbound

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard case .serving = state else { return }
        if case let .head(request) = unwrapInboundIn(data) { isHeadRequest = request.method == .head }
        context.fireChannelRead(data)
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        if case .movingOut = state { return }
        if case .movedOut = state { return }
        guard case .serving = state else {
            // Keep reading, only to notice the client leave; Hummingbird's side no longer asks for reads.
            context.read()
            return
        }
        context.fireChannelReadComplete()
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if event is ChannelShouldQuiesceEvent { isQuiescing = true }
        if case .movingOut = state {
            // The client closed its side while the response was being written: it has gone.
            if let event = event as? ChannelEvent, event == .inputClosed { context.close(promise: nil) }
            return
        }
        guard case let .streaming(stream) = state else {
            context.fireUserInboundEventTriggered(event)
            return
        }
        if event is ChannelShouldQuiesceEvent {
            // The server is shutting down and waits for its connections: end the stream, with its last chunk. The
            // client resumes from its last event, on this server once it is back or on another instance.
            stream.finish()
        } else if let event = event as? ChannelEvent, event == .inputClosed {
            // The client closed its side: it has gone.
            abort()
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        switch state {
        case .movingOut: return context.close(promise: nil)
        case .movedOut: return
        case .serving, .streaming, .closed: break
        }
        guard case .serving = state else {
            abort()
            return
        }
        context.fireErrorCaught(error)
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        if case let .streaming(stream) = state {
            if context.channel.isWritable {
                stream.pace.socketHasRoom()
            } else {
                stream.pace.blocked()
            }
        }
        context.fireChannelWritabilityChanged()
    }

    func channelInactive(context: ChannelHandlerContext) {
        switch state {
        case let .streaming(stream), let .movingOut(stream):
            state = .closed
            stream.outputClosed()
        case .serving:
            // A response that was to become a stream did not finish.
            handoff.take()?.outputClosed()
        case .closed, .movedOut:
            break
        }
        context.fireChannelInactive()
    }
}

/// Drops whatever a live stream's client sends: once a stream has its connection, the bytes read mean nothing, and
/// dropping them first lets the request parser go.
final class InboundBytesDropped: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {}
}
