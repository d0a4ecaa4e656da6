import Foundation
import NIOCore
import NIOEmbedded
import NIOPosix
import Testing
import VarselProcessTesting

@testable import VarselMessaging

// These tests talk to a real SMTP server: tests/e2e/smtp_server.py (aiosmtpd), run
// with python3. Each test starts its own on a free port and reads what it received from the
// .json files it writes, where Python's email package has already decoded the message.

@Suite("SMTP transport against a real server")
struct SMTPMailTransportTests {
    static let subject = "Nytt oppdrag i Varsel – åpne"
    /// A 200-character line with non-ASCII letters, "=" and spaces, so QP must break and escape it.
    static let longLine = String(String(repeating: "0123456789abcdefghijklmnopqrstuvwxyzæøå=ÆØÅ ", count: 5).prefix(200))
    static let plainText = """
        Hei!

        Du har fått et nytt oppdrag i Varsel.
        .Denne linjen starter med punktum
        .
        \(longLine)
        """ + "\nSlutt med mellomrom   \n"
    static let html = "<p>Hei! Du har fått et <b>nytt oppdrag</b>.</p>\n<p>.prikk</p>"

    static let message = MailMessage(
        fromName: "Varsel på vakt",
        fromAddress: "varsel@example.org",
        to: "kari@example.no",
        subject: subject,
        plainText: plainText,
        html: html,
        language: "nb"
    )

    @Test("STARTTLS and AUTH PLAIN deliver a message that decodes intact")
    func startTLSWithAuthPlain() async throws {
        let certificate = try await TestCertificate.make()
        let server = try await TestSMTPServer.start(["--tls", "starttls", "--auth", "bob:s3cret"], certificate: certificate)
        defer { server.stop() }
        let transport = SMTPMailTransport(
            configuration: SMTPConfiguration(
                host: "localhost", port: server.port, security: .startTLS,
                username: "bob", password: "s3cret", trustRootsFile: certificate.certificatePath
            ))

        let started = ContinuousClock.now
        try await transport.send(Self.message)
        print("One send over STARTTLS with AUTH took \(ContinuousClock.now - started)")

        let received = try server.received(1)
        #expect(received.tls)
        #expect(received.authLogin == "bob")
        #expect(received.mailFrom == "varsel@example.org")
        #expect(received.rcptTos == ["kari@example.no"])
        let decoded = received.decoded
        #expect(decoded.subject == Self.subject)
        #expect(decoded.fromName == "Varsel på vakt")
        #expect(decoded.fromAddress == "varsel@example.org")
        #expect(decoded.to == "kari@example.no")
        #expect(decoded.contentType == "multipart/alternative")
        #expect(decoded.partTypes == ["text/plain", "text/html"])
        #expect(decoded.partCharsets == ["utf-8", "utf-8"])
        #expect(decoded.partEncodings == ["quoted-printable", "quoted-printable"])
        #expect(decoded.plain == Self.plainText)
        #expect(decoded.html == Self.html)
        #expect(decoded.plain?.contains("\n.Denne linjen starter med punktum\n.\n") == true)
        #expect(decoded.plain?.contains("\n\(Self.longLine)\n") == true)
        #expect(decoded.contentLanguage == "nb")
        #expect(decoded.autoSubmitted == "auto-generated")
        #expect(decoded.mimeVersion == "1.0")
        #expect(decoded.messageId?.hasSuffix("@example.org>") == true)
        #expect(decoded.date != nil)
        #expect(decoded.defects.isEmpty)
        #expect(decoded.maxLineLength <= 78)
        #expect(!decoded.bareLf)
        #expect(!decoded.nonAscii)
    }

    @Test("Implicit TLS to an IP address delivers, checking the certificate's IP name")
    func implicitTLS() async throws {
        let certificate = try await TestCertificate.make()
        let server = try await TestSMTPServer.start(["--tls", "implicit", "--auth", "bob:s3cret"], certificate: certificate)
        defer { server.stop() }
        let transport = SMTPMailTransport(
            configuration: SMTPConfiguration(
                host: "127.0.0.1", port: server.port, security: .implicitTLS,
                username: "bob", password: "s3cret", trustRootsFile: certificate.certificatePath
            ))
        try await transport.send(Self.message)
        let received = try server.received(1)
        #expect(received.tls)
        #expect(received.authLogin == "bob")
        #expect(received.decoded.subject == Self.subject)
    }

    @Test("AUTH LOGIN is used when PLAIN is not offered, and plain-text AUTH is allowed to localhost")
    func authLoginWithoutTLSOnLocalhost() async throws {
        let server = try await TestSMTPServer.start(["--auth", "bob:s3cret", "--auth-mechanisms", "LOGIN"])
        defer { server.stop() }
        let transport = SMTPMailTransport(
            configuration: SMTPConfiguration(
                host: "localhost", port: server.port, security: .none, username: "bob", password: "s3cret"
            ))
        try await transport.send(Self.message)
        let received = try server.received(1)
        #expect(!received.tls)
        #expect(received.authLogin == "bob")
    }

    @Test("A wrong password is a permanent failure that names neither user nor password")
    func wrongPassword() async throws {
        let certificate = try await TestCertificate.make()
        let server = try await TestSMTPServer.start(["--tls", "starttls", "--auth", "bob:s3cret"], certificate: certificate)
        defer { server.stop() }
        let transport = SMTPMailTransport(
            configuration: SMTPConfiguration(
                host: "localhost", port: server.port, security: .startTLS,
                username: "bob", password: "wrong", trustRootsFile: certificate.certificatePath
            ))
        let error = await #expect(throws: MailSendError.self) { try await transport.send(Self.message) }
        #expect(error == .permanent("the server refused the credentials (535)"))
        #expect(server.receivedCount == 0)
    }

    @Test("A 451 to the message is transient, and the retry goes through")
    func temporaryRefusal() async throws {
        let server = try await TestSMTPServer.start(["--fail-first", "1", "451"])
        defer { server.stop() }
        let transport = SMTPMailTransport(configuration: SMTPConfiguration(host: "localhost", port: server.port, security: .none))
        let error = await #expect(throws: MailSendError.self) { try await transport.send(Self.message) }
        #expect(error == .transient("the server refused the message (451)"))
        try await transport.send(Self.message)
        #expect(try server.received(1).decoded.subject == Self.subject)
    }

    @Test("A 554 to the message is permanent")
    func permanentRefusal() async throws {
        let server = try await TestSMTPServer.start(["--fail-first", "1", "554"])
        defer { server.stop() }
        let transport = SMTPMailTransport(configuration: SMTPConfiguration(host: "localhost", port: server.port, security: .none))
        let error = await #expect(throws: MailSendError.self) { try await transport.send(Self.message) }
        #expect(error == .permanent("the server refused the message (554)"))
    }

    @Test("A port where nothing listens is transient")
    func unreachablePort() async throws {
        let refusing = try RefusingPort()
        let transport = SMTPMailTransport(configuration: SMTPConfiguration(host: "127.0.0.1", port: refusing.port, security: .none))
        let error = await #expect(throws: MailSendError.self) { try await transport.send(Self.message) }
        #expect(error == .transient("could not connect to the server"))
        withExtendedLifetime(refusing) {}
    }

    @Test("A server that never greets fails the send, transiently, as a timeout; its connection waits the configured time")
    func silentServer() async throws {
        let silent = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .bind(host: "127.0.0.1", port: 0).get()
        let port = try #require(silent.localAddress?.port)
        // The timeout also bounds connecting: long enough that a loaded machine's event loop, late by a few hundred
        // milliseconds, still connects first and the wait that times out is the one for the greeting.
        let configuration = SMTPConfiguration(host: "127.0.0.1", port: port, security: .none, timeout: .seconds(2))
        let session = try await SMTPSession.connect(configuration: configuration, group: MultiThreadedEventLoopGroup.singleton)
        let replies = session.replies
        #expect(try await session.channel.eventLoop.submit { replies.value.timeout }.get() == .seconds(2))
        await session.abort()

        let transport = SMTPMailTransport(configuration: configuration)
        let error = await #expect(throws: MailSendError.self) { try await transport.send(Self.message) }
        #expect(error == .transient("timed out waiting for the server"))
        try await silent.close()
    }

    // On an event loop whose clock the test moves, so the boundary is exact whatever the machine's load.
    @Test("A reply that does not come within the timeout fails the wait and closes the connection, not a moment before")
    func replyTimeout() throws {
        let loop = EmbeddedEventLoop()
        let handler = SMTPReplyHandler(timeout: .seconds(30), eventLoop: loop)
        let channel = EmbeddedChannel(handler: handler, loop: loop)
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 25)).wait()
        var outcome: Result<SMTPReply, any Error>?
        handler.nextReply().assumeIsolated().whenComplete { outcome = $0 }

        loop.advanceTime(by: .seconds(30) - .nanoseconds(1))
        #expect(outcome == nil && channel.isActive)

        loop.advanceTime(by: .nanoseconds(1))
        #expect(throws: MailSendError.transient("timed out waiting for the server")) { try outcome?.get() }
        #expect(outcome != nil && !channel.isActive)
    }

    // Transient, not permanent: the handshake fails like any other TLS handshake, and an untrusted
    // certificate is as often a passing state (an expired or half-renewed certificate, interception
    // on one network path) as a wrong setting; the retry budget ends it if it never clears, and the
    // error's text says the certificate was not trusted so an operator can tell.
    @Test("A certificate that is not trusted fails the send (transient) before any credentials go out")
    func untrustedCertificate() async throws {
        let certificate = try await TestCertificate.make()
        let server = try await TestSMTPServer.start(["--tls", "starttls", "--auth", "bob:s3cret"], certificate: certificate)
        defer { server.stop() }
        let transport = SMTPMailTransport(
            configuration: SMTPConfiguration(
                host: "localhost", port: server.port, security: .startTLS, username: "bob", password: "s3cret"
            ))
        let error = await #expect(throws: MailSendError.self) { try await transport.send(Self.message) }
        #expect(error == .transient("the TLS handshake failed: the server's certificate is not trusted"))
        #expect(server.receivedCount == 0)
    }

    @Test("STARTTLS required but not offered is permanent")
    func startTLSNotOffered() async throws {
        let server = try await TestSMTPServer.start([])
        defer { server.stop() }
        let transport = SMTPMailTransport(configuration: SMTPConfiguration(host: "localhost", port: server.port, security: .startTLS))
        let error = await #expect(throws: MailSendError.self) { try await transport.send(Self.message) }
        #expect(error == .permanent("the server does not offer STARTTLS"))
    }

    @Test("Addresses that could inject commands or headers are refused before connecting")
    func injectedAddresses() async throws {
        let transport = SMTPMailTransport(configuration: SMTPConfiguration(host: "127.0.0.1", port: 1, security: .none))
        for bad in [
            "kari@example.no>\r\nRCPT TO:<x@example.org", "kari @example.no", "<kari@example.no>", "kåri@example.no", "kari", "a@b.no,c@d.no",
        ] {
            var message = Self.message
            message.to = bad
            let error = await #expect(throws: MailSendError.self) { try await transport.send(message) }
            #expect(error == .permanent("the recipient address cannot be sent"))
        }
    }
}

@Suite("Message encoding")
struct MessageEncodingTests {
    @Test("Quoted-printable keeps lines within 76 and encodes what it must")
    func quotedPrintable() throws {
        let encoded = MIME.quotedPrintable("a=b æ\ttrailing \t\n" + String(repeating: "x", count: 74) + "æ" + "\r\nend ")
        let lines = encoded.components(separatedBy: "\r\n")
        #expect(lines.allSatisfy { $0.utf8.count <= 76 })
        try #require(lines.count == 4)
        #expect(lines[0] == "a=3Db =C3=A6\ttrailing =09")
        #expect(lines[1] == String(repeating: "x", count: 74) + "=")
        #expect(lines[2] == "=C3=A6")
        #expect(lines[3] == "end=20")
        #expect(!encoded.unicodeScalars.contains { $0.value > 126 })
    }

    @Test("A long Norwegian subject becomes encoded words folded within 78 characters")
    func foldedSubject() {
        var message = SMTPMailTransportTests.message
        message.subject = String(repeating: "Nytt oppdrag i Varsel – åpne ", count: 6)
        message.fromName = "Ærlige Øystein \"Varsel\" Åsen"
        let rendered = message.rendered()
        let header = rendered.components(separatedBy: "\r\n\r\n")[0]
        #expect(header.components(separatedBy: "\r\n").allSatisfy { $0.count <= 78 })
        #expect(header.contains("Subject: =?utf-8?B?"))
        #expect(header.contains("\r\n =?utf-8?B?"))
        #expect(!header.unicodeScalars.contains { $0.value > 126 })
    }

    @Test("ASCII names and subjects stay readable, quoted when they must be")
    func asciiHeaders() {
        var message = SMTPMailTransportTests.message
        message.subject = "New assignment"
        message.fromName = "Varsel (alerts)"
        let rendered = message.rendered(date: Date(timeIntervalSince1970: 0), messageID: "<id@example.org>")
        #expect(rendered.contains("\r\nSubject: New assignment\r\n"))
        #expect(rendered.hasPrefix("From: \"Varsel (alerts)\" <varsel@example.org>\r\n"))
        #expect(rendered.contains("\r\nDate: Thu, 01 Jan 1970 00:00:00 +0000\r\n"))
    }

    @Test("Dot-stuffing doubles leading dots and ends the data")
    func dotStuffing() {
        #expect(MIME.dotStuffed("a\r\n.b\r\n.\r\n") == "a\r\n..b\r\n..\r\n.\r\n")
    }
}

// MARK: - Helpers

/// Runs `body`, which blocks (waits for another process), on a thread of its own rather than one of the task pool:
/// the pool is as wide as the machine's cores, and every test of the run shares it.
func offThePool<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread.detachNewThread { continuation.resume(with: Result { try body() }) }
    }
}

/// A running smtp_server.py on a free port, writing what it receives to its own folder.
final class TestSMTPServer: @unchecked Sendable {
    let process = Process()
    let input = Pipe()
    let port: Int
    let folder: URL

    /// Starts the server and waits, off the task pool, until it says it is ready.
    static func start(_ arguments: [String], certificate: TestCertificate? = nil) async throws -> TestSMTPServer {
        try await offThePool { try TestSMTPServer(arguments, certificate: certificate) }
    }

    static let script = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("tests/e2e/smtp_server.py").path

    init(_ arguments: [String], certificate: TestCertificate? = nil) throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("smtp-out-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        var all = ["python3", Self.script, "--port", "0", "--out", folder.path, "--exit-with-stdin"] + arguments
        if let certificate { all += ["--cert", certificate.certificatePath, "--key", certificate.keyPath] }
        let output = Pipe()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = all
        process.standardOutput = output
        process.standardInput = input  // closes when this test process ends, however it ends
        _ = FileManager.default.createFile(atPath: folder.appendingPathComponent("server.log").path, contents: nil)
        process.standardError = try FileHandle(forWritingTo: folder.appendingPathComponent("server.log"))
        try process.run()

        var line = Data()
        while !line.contains(UInt8(ascii: "\n")) {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty {
                let log = (try? String(contentsOf: folder.appendingPathComponent("server.log"), encoding: .utf8)) ?? ""
                throw TestSetupError("smtp_server.py exited before READY: \(log)")
            }
            line += chunk
        }
        let words = String(decoding: line, as: UTF8.self).split(whereSeparator: \.isWhitespace)
        guard words.count == 2, words[0] == "READY", let port = Int(words[1]) else {
            throw TestSetupError("smtp_server.py printed something other than READY <port>")
        }
        self.port = port
    }

    /// How many messages the server has stored.
    var receivedCount: Int {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        return names.filter { $0.hasSuffix(".json") }.count
    }

    /// The server's account of message number `n`, counting from 1.
    func received(_ n: Int) throws -> ReceivedMail {
        let data = try Data(contentsOf: folder.appendingPathComponent("\(n).json"))
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        return try decoder.decode(ReceivedMail.self, from: data)
    }

    /// Stops the server with SIGTERM (SIGKILL if it has not gone within five seconds) and removes its folder, on a
    /// thread of its own: the test goes on at once.
    func stop() {
        process.terminate()
        Thread.detachNewThread { [self] in
            let deadline = Date().addingTimeInterval(5)
            while process.isRunning, Date() < deadline { usleep(20_000) }
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
            try? FileManager.default.removeItem(at: folder)
        }
    }
}

/// What smtp_server.py wrote about one message.
struct ReceivedMail: Decodable {
    struct Decoded: Decodable {
        var subject: String?
        var fromName: String?
        var fromAddress: String?
        var to: String?
        var date: String?
        var messageId: String?
        var mimeVersion: String?
        var contentLanguage: String?
        var autoSubmitted: String?
        var contentType: String
        var partTypes: [String]
        var partCharsets: [String?]
        var partEncodings: [String?]
        var plain: String?
        var html: String?
        var defects: [String]
        var maxLineLength: Int
        var bareLf: Bool
        var nonAscii: Bool
    }

    var mailFrom: String
    var rcptTos: [String]
    var authLogin: String?
    var tls: Bool
    var decoded: Decoded
}

struct TestSetupError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// A loopback port that refuses every connection for as long as this value is kept.
///
/// The socket is bound but never listens, so a connection to it is refused at once, and no other
/// test's server, nor a client's own source port, can take the port while the test runs. (A port
/// bound and then closed can be handed to the next server that binds port 0.)
final class RefusingPort {
    let port: Int
    private let descriptor: Int32

    init() throws {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw TestSetupError("could not open a socket") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address in
                bind(descriptor, address, length) == 0 && getsockname(descriptor, address, &length) == 0
            }
        }
        guard bound else {
            close(descriptor)
            throw TestSetupError("could not bind a loopback port")
        }
        self.descriptor = descriptor
        port = Int(UInt16(bigEndian: address.sin_port))
    }

    deinit { close(descriptor) }
}
