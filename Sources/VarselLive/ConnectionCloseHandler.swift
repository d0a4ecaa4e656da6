import NIOCore
import NIOHTTP1

/// Marks a request whose connection ends after its answer with a plain `Connection: close`, by SwiftNIO's own
/// keep-alive rule: a `close` option in any case or among other options, or HTTP/1.0 without `keep-alive`
/// (RFC 9112 section 9.3).
///
/// It sits right after SwiftNIO's request decoder, where the request still has its version: the HTTP types the rest
/// of the pipeline uses have none, and the request loop then needs to look for that one spelling only. Without it, an
/// HTTP/1.0 connection stayed open until the idle timeout, and a client that reads to the end of the connection
/// (HTTP/1.0 monitoring checks do) waited that long for every answer.
final class ConnectionCloseHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard case var .head(head) = unwrapInboundIn(data), !head.isKeepAlive else {
            context.fireChannelRead(data)
            return
        }
        head.headers.replaceOrAdd(name: "Connection", value: "close")
        context.fireChannelRead(wrapInboundOut(.head(head)))
    }
}
