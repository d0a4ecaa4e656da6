import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
import Synchronization

/// Sends one HTTP/1.1 POST to another service on a connection of its own: a push service, a webhook endpoint, the
/// text-message gateway.
///
/// A redirect is not followed: a 3xx is the answer, so a request never reaches an address other than the one given
/// (which the callers' policies checked). https is verified against the system's trust roots (plus any given); the
/// answer's body is read up to a limit. Each request opens and closes its connection: the services Varsel calls get
/// a few requests a minute, where keeping connections open would cost more than the handshakes it saves.
public struct OutboundHTTPClient: Sendable {
    /// What the service answered.
    public struct Response: Sendable {
        public var status: Int
        public var headers: HTTPHeaders
        /// The body, cut at the client's `bodyLimit`.
        public var body: ByteBuffer
    }

    /// Why a request got no answer; in words that name nothing sent.
    public enum Failure: Error, Equatable, CustomStringConvertible {
        case invalidURL
        case connectionFailed
        case timedOut
        case closedBeforeAnswer
        case tls

        public var description: String {
            switch self {
            case .invalidURL: "the address is not an absolute http or https URL"
            case .connectionFailed: "the connection could not be made"
            case .timedOut: "no answer in time"
            case .closedBeforeAnswer: "the connection closed before an answer came"
            case .tls: "the TLS handshake or the certificate check failed"
            }
        }
    }

    /// The longest wait for an answer, from when the connection is begun (after the host name's lookup); the
    /// connection itself waits at most ``connectTimeout`` within it.
    public let timeout: TimeAmount
    public let connectTimeout: TimeAmount
    /// How much of an answer's body is kept; the rest is dropped.
    public let bodyLimit: Int
    private let group: any EventLoopGroup
    private let tlsContext: TLSContextOnFirstUse
    /// Looks up host names; nil: the system's resolver. Tests give one that answers what they need.
    var resolver: (any Resolver & Sendable)?

    /// A client; `additionalTrustRoots` adds certificates (PEM) to the system's for https, as tests do.
    public init(
        timeout: TimeAmount = .seconds(15), connectTimeout: TimeAmount = .seconds(10), bodyLimit: Int = 64 * 1024,
        additionalTrustRoots: [NIOSSLCertificate] = [], group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton
    ) {
        self.timeout = timeout
        self.connectTimeout = min(connectTimeout, timeout)
        self.bodyLimit = bodyLimit
        self.group = group
        var tls = TLSConfiguration.makeClientConfiguration()
        tls.minimumTLSVersion = .tlsv12
        tls.certificateVerification = .fullVerification
        tls.shutdownTimeout = .seconds(1)
        if !additionalTrustRoots.isEmpty { tls.additionalTrustRoots = [.certificates(additionalTrustRoots)] }
        tlsContext = TLSContextOnFirstUse(configuration: tls)
    }

    /// POSTs `body` with `headers` to `url` and returns the answer, whatever its status.
    public func post(_ url: URL, headers: [(String, String)], body: ByteBuffer) async throws(Failure) -> Response {
        let target = try Target(url)
        let tlsContext: NIOSSLContext?
        if target.secure {
            // Without a context no https request can be made; each then fails as a TLS failure.
            guard let context = self.tlsContext.context() else { throw .tls }
            tlsContext = context
        } else {
            tlsContext = nil
        }
        var head = HTTPRequestHead(version: .http1_1, method: .POST, uri: target.path)
        head.headers.add(name: "Host", value: target.hostHeader)
        for (name, value) in headers { head.headers.add(name: name, value: value) }
        head.headers.replaceOrAdd(name: "Content-Length", value: String(body.readableBytes))
        head.headers.replaceOrAdd(name: "Connection", value: "close")

        let (timeout, bodyLimit, serverHostname) = (self.timeout, self.bodyLimit, target.serverHostname)
        let attempts = Attempts()
        let channel: any Channel
        do {
            // Each connection attempt (a name's addresses are tried as Happy Eyeballs does) has its own reader and
            // answer: the attempts that lose are closed, and only the one that connected is waited for. Its answer is
            // kept when the attempt begins, since the reader may be gone (a failed handshake) before connect returns.
            var bootstrap = ClientBootstrap(group: group)
                .connectTimeout(connectTimeout)
                .channelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        if let tlsContext {
                            try channel.pipeline.syncOperations.addHandler(NIOSSLClientHandler(context: tlsContext, serverHostname: serverHostname))
                        }
                        try channel.pipeline.syncOperations.addHTTPClientHandlers()
                        let answer = channel.eventLoop.makePromise(of: Response.self)
                        attempts.begin(channel, answer: answer.futureResult)
                        try channel.pipeline.syncOperations.addHandler(AnswerReader(answer: answer, bodyLimit: bodyLimit, timeout: timeout))
                    }
                }
            if let resolver { bootstrap = bootstrap.resolver(resolver) }
            // An address needs no lookup.
            let connected =
                if let address = try? SocketAddress(ipAddress: target.host, port: target.port) {
                    bootstrap.connect(to: address)
                } else {
                    bootstrap.connect(host: target.host, port: target.port)
                }
            // The request goes out on the event loop the moment the winning attempt connects, where the answer's timer
            // runs too: the time allowed is spent on the network, however late this task resumes on a busy machine.
            channel = try await connected.map { channel in
                channel.write(HTTPClientRequestPart.head(head), promise: nil)
                channel.write(HTTPClientRequestPart.body(.byteBuffer(body)), promise: nil)
                channel.writeAndFlush(HTTPClientRequestPart.end(nil), promise: nil)
                return channel
            }.get()
        } catch ChannelError.connectTimeout {
            throw .timedOut
        } catch {
            throw .connectionFailed
        }
        do {
            guard let answer = attempts.answer(of: channel) else { throw Failure.closedBeforeAnswer }
            return try await answer.get()
        } catch let failure as Failure {
            throw failure
        } catch {
            channel.close(promise: nil)
            throw .closedBeforeAnswer
        }
    }

    /// The TLS context, made on the first https request and kept: reading the system's trust roots takes a
    /// few milliseconds (a fifth of a debug build's start), which a server that never sends over https should not
    /// spend before it is ready. A context that could not be made is tried again on the next request.
    final class TLSContextOnFirstUse: Sendable {
        private let configuration: TLSConfiguration
        private let made = Mutex<NIOSSLContext?>(nil)

        init(configuration: TLSConfiguration) {
            self.configuration = configuration
        }

        func context() -> NIOSSLContext? {
            made.withLock { made in
                if made == nil { made = try? NIOSSLContext(configuration: configuration) }
                return made
            }
        }
    }

    /// The answer each connection attempt will give, by its channel.
    final class Attempts: Sendable {
        private let answers = Mutex<[ObjectIdentifier: EventLoopFuture<Response>]>([:])

        func begin(_ channel: any Channel, answer: EventLoopFuture<Response>) {
            answers.withLock { $0[ObjectIdentifier(channel)] = answer }
        }

        func answer(of channel: any Channel) -> EventLoopFuture<Response>? {
            answers.withLock { $0[ObjectIdentifier(channel)] }
        }
    }

    /// Where a URL's request goes: the connection's host and port, the Host header, the request target.
    struct Target: Equatable {
        var secure: Bool
        var host: String
        var port: Int
        var hostHeader: String
        var path: String
        /// The name for SNI and the certificate's check; nil for an IP address, which NIOSSL checks instead.
        var serverHostname: String?

        init(_ url: URL) throws(Failure) {
            guard let components = URLComponents(url: url, resolvingAgainstBaseURL: false),
                let scheme = components.scheme?.lowercased(), scheme == "https" || scheme == "http",
                let rawHost = components.host, !rawHost.isEmpty, components.user == nil, components.password == nil
            else { throw .invalidURL }
            secure = scheme == "https"
            let bare = rawHost.hasPrefix("[") && rawHost.hasSuffix("]") ? String(rawHost.dropFirst().dropLast()) : rawHost
            host = bare
            let defaultPort = secure ? 443 : 80
            port = components.port ?? defaultPort
            guard (1...65535).contains(port) else { throw .invalidURL }
            let isAddress = (try? SocketAddress(ipAddress: bare, port: 0)) != nil
            let named = bare.contains(":") ? "[\(bare)]" : bare
            hostHeader = port == defaultPort ? named : "\(named):\(port)"
            serverHostname = isAddress ? nil : bare
            let encodedPath = components.percentEncodedPath
            path = (encodedPath.isEmpty ? "/" : encodedPath) + (components.percentEncodedQuery.map { "?" + $0 } ?? "")
        }
    }
}

/// Reads one answer: its head, then its body up to the limit, until its end or the connection's close; fails when
/// nothing whole came in time.
final class AnswerReader: ChannelInboundHandler {
    typealias InboundIn = HTTPClientResponsePart

    private let answer: EventLoopPromise<OutboundHTTPClient.Response>
    private let bodyLimit: Int
    private let timeout: TimeAmount
    private var head: HTTPResponseHead?
    private var body = ByteBuffer()
    private var done = false
    private var timer: Scheduled<Void>?

    init(answer: EventLoopPromise<OutboundHTTPClient.Response>, bodyLimit: Int, timeout: TimeAmount) {
        self.answer = answer
        self.bodyLimit = bodyLimit
        self.timeout = timeout
    }

    func handlerAdded(context: ChannelHandlerContext) {
        let loopBound = NIOLoopBound(context, eventLoop: context.eventLoop)
        timer = context.eventLoop.assumeIsolated().scheduleTask(in: timeout) {
            self.finish(.failure(OutboundHTTPClient.Failure.timedOut))
            loopBound.value.close(promise: nil)
        }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        finish(.failure(OutboundHTTPClient.Failure.closedBeforeAnswer))
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case let .head(received):
            // An interim answer (100 Continue) is not the answer.
            if received.status.code >= 200 { head = received }
        case var .body(bytes):
            let room = bodyLimit - body.readableBytes
            if room > 0, let part = bytes.readSlice(length: min(room, bytes.readableBytes)) {
                var part = part
                body.writeBuffer(&part)
            }
        case .end:
            guard head != nil else { return }
            answered()
            context.close(promise: nil)
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        // An answer without a length ends where the connection does.
        if head != nil { answered() } else { finish(.failure(OutboundHTTPClient.Failure.closedBeforeAnswer)) }
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        // A server may close the connection without TLS's closing message; an answer that ends with the connection
        // is then whole all the same, and the connection's end (just after) settles it.
        if let tls = error as? NIOSSLError, case .uncleanShutdown = tls { return }
        let failure: OutboundHTTPClient.Failure =
            switch error {
            case is NIOSSLError, is NIOSSLExtraError, is BoringSSLError: .tls
            default: .closedBeforeAnswer
            }
        finish(.failure(failure))
        context.close(promise: nil)
    }

    private func answered() {
        guard let head else { return }
        finish(.success(OutboundHTTPClient.Response(status: Int(head.status.code), headers: head.headers, body: body)))
    }

    private func finish(_ result: Result<OutboundHTTPClient.Response, any Error>) {
        guard !done else { return }
        done = true
        timer?.cancel()
        answer.completeWith(result)
    }
}
