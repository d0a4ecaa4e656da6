import Foundation
import Logging
import NIOCore
import NIOPosix
import NIOSSL

/// Where and how to reach the SMTP server.
public struct SMTPConfiguration: Sendable {
    /// How the connection to the server is encrypted.
    public enum Security: String, Sendable {
        /// A plain connection upgraded with STARTTLS (usually port 587); never skipped when chosen.
        case startTLS = "starttls"
        /// TLS from the first byte (usually port 465).
        case implicitTLS = "tls"
        /// No encryption: only for a relay on the same machine, or tests.
        case none
    }

    /// The server's host name or IP address.
    public var host: String
    /// The server's TCP port.
    public var port: Int
    /// How the connection is encrypted.
    public var security: Security
    /// The user to authenticate as; nil sends without AUTH.
    public var username: String?
    /// The password for `username`.
    public var password: String?
    /// A PEM file of CA certificates trusted besides the system's (tests: the self-signed certificate).
    public var trustRootsFile: String?
    /// The name this client gives in EHLO.
    public var heloName: String
    /// The longest wait for the connection and for each reply.
    public var timeout: Duration

    /// Creates a configuration; the defaults suit a submission server on port 587 with STARTTLS.
    public init(
        host: String,
        port: Int = 587,
        security: Security = .startTLS,
        username: String? = nil,
        password: String? = nil,
        trustRootsFile: String? = nil,
        heloName: String = "localhost",
        timeout: Duration = .seconds(30)
    ) {
        self.host = host
        self.port = port
        self.security = security
        self.username = username
        self.password = password
        self.trustRootsFile = trustRootsFile
        self.heloName = heloName
        self.timeout = timeout
    }
}

/// Why a message could not be sent, without any of the message's or server's words in it.
public enum MailSendError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Worth trying again later: connection refused/reset, timeout, TLS handshake failure, a 4xx reply.
    case transient(String)
    /// Retrying will not help: a 5xx reply (other than to STARTTLS), auth refused (535), no STARTTLS offered when required.
    case permanent(String)

    /// The kind of failure and its fixed reason, safe to log.
    public var description: String {
        switch self {
        case .transient(let reason): "transient: \(reason)"
        case .permanent(let reason): "permanent: \(reason)"
        }
    }
}

/// Something that delivers email, so that tests can put a fake in its place.
public protocol MailTransport: Sendable {
    /// Sends one message; throws `MailSendError`.
    func send(_ message: MailMessage) async throws
}

/// Sends email over SMTP, one connection per message.
///
/// A send connects, greets, upgrades to TLS as configured, authenticates, hands over the
/// message and quits. Every wait is bounded by the configured timeout. Errors and logs name
/// the step that failed and the reply code, never addresses, text or the server's words.
public final class SMTPMailTransport: MailTransport {
    /// Where and how this transport reaches its server.
    public let configuration: SMTPConfiguration
    private let eventLoopGroup: any EventLoopGroup
    private let logger: Logger

    /// Creates a transport; it opens no connection until `send`.
    public init(
        configuration: SMTPConfiguration,
        eventLoopGroup: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton,
        logger: Logger = Logger(label: "varsel.messaging.smtp")
    ) {
        self.configuration = configuration
        self.eventLoopGroup = eventLoopGroup
        self.logger = logger
    }

    /// Sends one message; throws `MailSendError` saying whether a retry could help.
    public func send(_ message: MailMessage) async throws {
        guard MailMessage.isSendableAddress(message.fromAddress) else {
            throw MailSendError.permanent("the sender address cannot be sent")
        }
        guard MailMessage.isSendableAddress(message.to) else {
            throw MailSendError.permanent("the recipient address cannot be sent")
        }
        let started = ContinuousClock.now
        let data = MIME.dotStuffed(message.rendered())
        do {
            let session = try await SMTPSession.connect(configuration: configuration, group: eventLoopGroup)
            do {
                try await session.deliver(from: message.fromAddress, to: message.to, data: data)
            } catch {
                await session.abort()
                throw error
            }
            await session.quit()
            logger.debug("Mail sent", metadata: ["duration": "\(ContinuousClock.now - started)"])
        } catch {
            let failure = error as? MailSendError ?? SMTPReplyHandler.failure(for: error)
            logger.notice("Mail not sent", metadata: ["error": "\(failure)"])
            throw failure
        }
    }
}

// MARK: - The conversation

/// One reply from the server: its code and the text of each of its lines.
struct SMTPReply: Sendable {
    var code: Int
    var lines: [String]

    /// Fails unless the code is one of `expected`: 4xx is transient, 5xx permanent.
    func require(_ expected: Set<Int>, _ failed: String) throws(MailSendError) {
        guard !expected.contains(code) else { return }
        switch code {
        case 400..<500: throw .transient("\(failed) (\(code))")
        case 500..<600: throw .permanent("\(failed) (\(code))")
        default: throw .transient("\(failed): unexpected reply (\(code))")
        }
    }
}

/// One connection to the server, driven step by step from async code.
struct SMTPSession {
    let configuration: SMTPConfiguration
    let channel: any Channel
    let replies: NIOLoopBound<SMTPReplyHandler>
    let tlsContext: NIOSSLContext?

    /// Connects (with implicit TLS when configured) and returns before reading the greeting.
    static func connect(configuration: SMTPConfiguration, group: any EventLoopGroup) async throws -> SMTPSession {
        guard (1...65535).contains(configuration.port) else {
            throw MailSendError.permanent("the configured port is invalid")
        }
        if configuration.username != nil, configuration.password == nil {
            throw MailSendError.permanent("a username is configured without a password")
        }
        let tlsContext = configuration.security == .none ? nil : try makeTLSContext(configuration)
        let implicitTLS = configuration.security == .implicitTLS ? tlsContext : nil
        let serverHostname = serverHostname(configuration.host)
        let timeout = TimeAmount(configuration.timeout)
        do {
            let (channel, replies) = try await ClientBootstrap(group: group)
                .connectTimeout(timeout)
                .connect(host: configuration.host, port: configuration.port) { channel in
                    channel.eventLoop.makeCompletedFuture {
                        if let implicitTLS {
                            let tls = try NIOSSLClientHandler(context: implicitTLS, serverHostname: serverHostname)
                            try channel.pipeline.syncOperations.addHandler(tls)
                        }
                        let handler = SMTPReplyHandler(timeout: timeout, eventLoop: channel.eventLoop)
                        try channel.pipeline.syncOperations.addHandler(handler)
                        return (channel, NIOLoopBound(handler, eventLoop: channel.eventLoop))
                    }
                }
            return SMTPSession(configuration: configuration, channel: channel, replies: replies, tlsContext: tlsContext)
        } catch ChannelError.connectTimeout {
            throw MailSendError.transient("timed out connecting to the server")
        } catch {
            throw MailSendError.transient("could not connect to the server")
        }
    }

    /// Builds the TLS settings: verified certificate and host name, system roots plus the configured file.
    static func makeTLSContext(_ configuration: SMTPConfiguration) throws(MailSendError) -> NIOSSLContext {
        var tls = TLSConfiguration.makeClientConfiguration()
        tls.minimumTLSVersion = .tlsv12
        tls.certificateVerification = .fullVerification
        tls.shutdownTimeout = .seconds(1)
        do {
            if let file = configuration.trustRootsFile {
                tls.additionalTrustRoots = [.certificates(try NIOSSLCertificate.fromPEMFile(file))]
            }
            return try NIOSSLContext(configuration: tls)
        } catch {
            throw .permanent("could not set up TLS from the configured trust roots")
        }
    }

    /// Returns the name for SNI and certificate checks; nil for an IP address, which NIOSSL checks instead.
    static func serverHostname(_ host: String) -> String? {
        let bare = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        return (try? SocketAddress(ipAddress: bare, port: 0)) == nil ? host : nil
    }

    /// Tells whether the host is this machine, where credentials may travel unencrypted.
    var isLoopback: Bool {
        let host = configuration.host.lowercased()
        return host == "localhost" || host == "::1" || host == "[::1]" || host.hasPrefix("127.")
    }

    /// Runs the conversation from the greeting to the server's acceptance of the message.
    func deliver(from sender: String, to recipient: String, data: String) async throws {
        try await reply().require([220], "the server refused the connection")
        var extensions = try await hello()
        var encrypted = configuration.security == .implicitTLS
        if configuration.security == .startTLS {
            guard extensions.keys.contains("STARTTLS") else {
                throw MailSendError.permanent("the server does not offer STARTTLS")
            }
            let reply = try await command("STARTTLS")
            guard reply.code == 220 else { throw MailSendError.transient("the server could not start TLS (\(reply.code))") }
            try await startTLS()
            encrypted = true
            extensions = try await hello()
        }
        if let username = configuration.username {
            guard encrypted || isLoopback else {
                throw MailSendError.permanent("refusing to send credentials over an unencrypted connection")
            }
            let password = configuration.password ?? ""
            try await authenticate(username: username, password: password, mechanisms: extensions["AUTH"] ?? [])
        }
        try await command("MAIL FROM:<\(sender)>").require([250], "the server refused the sender")
        try await command("RCPT TO:<\(recipient)>").require([250, 251], "the server refused the recipient")
        try await command("DATA").require([354], "the server refused DATA")
        channel.writeAndFlush(ByteBuffer(string: data), promise: nil)
        try await reply().require([250], "the server refused the message")
    }

    /// Greets with EHLO and returns its extensions, keyword to parameters; falls back to HELO only without TLS.
    func hello() async throws -> [String: [String]] {
        let name =
            configuration.heloName.unicodeScalars.allSatisfy({ $0.value > 32 && $0.value < 127 })
                && !configuration.heloName.isEmpty ? configuration.heloName : "localhost"
        let reply = try await command("EHLO \(name)")
        if (500..<600).contains(reply.code), configuration.security == .none {
            try await command("HELO \(name)").require([250], "the server refused HELO")
            return [:]
        }
        try reply.require([250], "the server refused EHLO")
        var extensions: [String: [String]] = [:]
        for line in reply.lines.dropFirst() {
            // "AUTH=PLAIN LOGIN" is an old spelling of "AUTH PLAIN LOGIN".
            let words = line.uppercased().replacingOccurrences(of: "AUTH=", with: "AUTH ").split(separator: " ")
            guard let keyword = words.first else { continue }
            extensions[String(keyword), default: []] += words.dropFirst().map(String.init)
        }
        return extensions
    }

    /// Authenticates with PLAIN when offered, else LOGIN; a refusal (535) is permanent.
    func authenticate(username: String, password: String, mechanisms: [String]) async throws {
        func base64(_ text: String) -> String { Data(text.utf8).base64EncodedString() }
        let failed = "the server refused the credentials"
        let reply: SMTPReply
        if mechanisms.contains("PLAIN") {
            reply = try await command("AUTH PLAIN " + base64("\0\(username)\0\(password)"))
        } else if mechanisms.contains("LOGIN") {
            try await command("AUTH LOGIN").require([334], failed)
            try await command(base64(username)).require([334], failed)
            reply = try await command(base64(password))
        } else {
            throw MailSendError.permanent("the server offers neither AUTH PLAIN nor AUTH LOGIN")
        }
        try reply.require([235], failed)
    }

    /// Puts TLS in front of the pipeline after the server's 220 to STARTTLS.
    func startTLS() async throws {
        guard let tlsContext else { throw MailSendError.permanent("TLS is not configured") }
        let replies = self.replies
        let channel = self.channel
        let serverHostname = Self.serverHostname(configuration.host)
        try await channel.eventLoop.submit {
            // Bytes sent before the handshake could be an attacker's, injected in plain text.
            guard !replies.value.hasUnreadInput else {
                throw MailSendError.transient("the server sent data before the TLS handshake")
            }
            let tls = try NIOSSLClientHandler(context: tlsContext, serverHostname: serverHostname)
            try channel.pipeline.syncOperations.addHandler(tls, position: .first)
        }.get()
    }

    /// Sends one command line and waits for its reply.
    func command(_ line: String) async throws -> SMTPReply {
        channel.writeAndFlush(ByteBuffer(string: line + "\r\n"), promise: nil)
        return try await reply()
    }

    /// Waits for the next complete reply, at most the configured timeout.
    func reply() async throws -> SMTPReply {
        let replies = self.replies
        let channel = self.channel
        let future = channel.eventLoop.flatSubmit { replies.value.nextReply() }
        return try await withTaskCancellationHandler {
            try await future.get()
        } onCancel: {
            channel.close(promise: nil)
        }
    }

    /// Says goodbye politely, waiting briefly for the answer, then closes.
    func quit() async {
        _ = try? await command("QUIT")
        try? await channel.close()
    }

    /// Closes the connection after a failure.
    func abort() async {
        try? await channel.close()
    }
}

// MARK: - Reading replies

/// Turns the bytes from the server into replies, and hands them out one at a time.
///
/// Lines end in CRLF (a bare LF is accepted); a reply is complete at its line with a
/// space (or nothing) after the code, so `250-…` lines gather into one reply.
final class SMTPReplyHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer

    let timeout: TimeAmount
    private let eventLoop: any EventLoop
    private var context: ChannelHandlerContext?
    private var buffer = ByteBuffer()
    private var partial: SMTPReply?
    private var replies = CircularBuffer<SMTPReply>()
    private var failure: MailSendError?
    private var waiting: (promise: EventLoopPromise<SMTPReply>, timer: Scheduled<Void>)?

    init(timeout: TimeAmount, eventLoop: any EventLoop) {
        self.timeout = timeout
        self.eventLoop = eventLoop
    }

    /// Tells whether anything arrived beyond the replies already handed out.
    var hasUnreadInput: Bool { buffer.readableBytes > 0 || partial != nil || !replies.isEmpty }

    /// Returns the next reply, failing if the connection fails or nothing comes in time.
    func nextReply() -> EventLoopFuture<SMTPReply> {
        if let reply = replies.popFirst() { return eventLoop.makeSucceededFuture(reply) }
        if let failure { return eventLoop.makeFailedFuture(failure) }
        precondition(waiting == nil, "one reply is awaited at a time")
        let promise = eventLoop.makePromise(of: SMTPReply.self)
        let timer = eventLoop.assumeIsolated().scheduleTask(in: timeout) {
            self.fail(.transient("timed out waiting for the server"))
            self.context?.close(promise: nil)
        }
        waiting = (promise, timer)
        return promise.futureResult
    }

    func handlerAdded(context: ChannelHandlerContext) { self.context = context }

    func handlerRemoved(context: ChannelHandlerContext) {
        fail(.transient("the connection was closed"))
        self.context = nil
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var bytes = unwrapInboundIn(data)
        buffer.writeBuffer(&bytes)
        do {
            try readLines()
        } catch {
            fail(error)
            context.close(promise: nil)
        }
        deliver()
    }

    func channelInactive(context: ChannelHandlerContext) {
        fail(.transient("the server closed the connection"))
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        fail(Self.failure(for: error))
        context.close(promise: nil)
    }

    /// Names a network or TLS error in fixed words; all of them are worth a retry.
    ///
    /// A certificate that is not trusted counts as transient too: it is as likely an expired or
    /// half-renewed certificate, or an interception on one network path, as a wrong setting.
    static func failure(for error: any Error) -> MailSendError {
        switch error {
        case let error as MailSendError:
            return error
        case let error as NIOSSLExtraError where error == .failedToValidateHostname:
            return .transient("the TLS handshake failed: the certificate does not name the server")
        case let error as NIOSSLError:
            if case .handshakeFailed = error, String(describing: error).contains("CERTIFICATE_VERIFY_FAILED") {
                return .transient("the TLS handshake failed: the server's certificate is not trusted")
            }
            return .transient("the TLS connection failed")
        case is NIOSSLExtraError, is BoringSSLError:
            return .transient("the TLS connection failed")
        default:
            return .transient("the connection failed")
        }
    }

    private func readLines() throws(MailSendError) {
        while true {
            let view = buffer.readableBytesView
            guard let newline = view.firstIndex(of: UInt8(ascii: "\n")) else { break }
            let length = view.distance(from: view.startIndex, to: newline) + 1
            var line = buffer.readBytes(length: length) ?? []
            line.removeLast()
            if line.last == UInt8(ascii: "\r") { line.removeLast() }
            try accept(line)
        }
        guard buffer.readableBytes <= 4096 else { throw .transient("the server sent an overlong line") }
        buffer.discardReadBytes()
    }

    private func accept(_ line: [UInt8]) throws(MailSendError) {
        let digits = line.prefix(3)
        let last = line.count == 3 || (line.count > 3 && line[3] == UInt8(ascii: " "))
        guard digits.count == 3, digits.allSatisfy({ (48...57).contains($0) }),
            last || line[3] == UInt8(ascii: "-"),
            let code = Int(String(decoding: digits, as: UTF8.self)),
            partial == nil || partial?.code == code
        else { throw .transient("the server sent a malformed reply") }
        var reply = partial ?? SMTPReply(code: code, lines: [])
        reply.lines.append(String(decoding: line.dropFirst(4), as: UTF8.self))
        guard reply.lines.count <= 200 else { throw .transient("the server sent an overlong reply") }
        if last {
            replies.append(reply)
            partial = nil
        } else {
            partial = reply
        }
    }

    private func fail(_ error: MailSendError) {
        if failure == nil { failure = error }
        deliver()
    }

    private func deliver() {
        guard let (promise, timer) = waiting else { return }
        if let reply = replies.popFirst() {
            waiting = nil
            timer.cancel()
            promise.succeed(reply)
        } else if let failure {
            waiting = nil
            timer.cancel()
            promise.fail(failure)
        }
    }
}
