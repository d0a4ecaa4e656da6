import Foundation
import Glibc
import HTTPTypes
import Hummingbird
import HummingbirdCore
import Testing
import VarselCore
import VarselLive
import VarselSQLite
import VarselService
import VarselServiceTesting
import VarselStore

@testable import VarselWeb

@Suite("The live stream over HTTP")
struct LiveStreamTests {
    /// The `id:` and `event:` of each event in an event-stream body, in order.
    static func events(in body: String) -> [(id: Int64, name: String)] {
        body.components(separatedBy: "\n\n").compactMap { block in
            let lines = block.split(separator: "\n")
            guard let id = lines.first(where: { $0.hasPrefix("id: ") }).flatMap({ Int64($0.dropFirst(4)) }),
                let name = lines.first(where: { $0.hasPrefix("event: ") }).map({ String($0.dropFirst(7)) })
            else { return nil }
            return (id, name)
        }
    }

    @Test(
        "a stream resumed from 0 replays the log, then follows live events, with no gap and no duplicate, and ends with a reset on sign-out",
        .timeLimit(.minutes(1)))
    func replayThenLive() async throws {
        let (world, app) = try await Self.appWithOneNotification(server: .varselHTTP1())
        let kari = try #require(world.kari)
        try await app.test(.live) { client in
            let token = try await client.token("kari")
            let broker = world.services.broker
            let services = world.services
            // Once the stream is attached: one live notification, then sign the session out, which ends the stream.
            let driver = Task {
                while broker.streamCount(userID: kari.id) == 0 { try await Task.sleep(for: .milliseconds(5)) }
                let live = try Validation.notification(
                    kind: "scenarioPrompt", title: "Live", body: "", urgency: nil, personalDetails: [], allowAssignment: false)
                _ = try await services.sender.send(live, from: world.coordinator.id, to: [kari.id])
                // Two replayed events and two live ones (created, unread-count each) written before the stream ends.
                while services.metrics.eventsDelivered < 4 { try await Task.sleep(for: .milliseconds(5)) }
                broker.endStreams(ofSession: Tokens.hash(token))
            }
            let response = try await client.call(.get, "/api/v1/events?since=0", token: token)
            try await driver.value
            #expect(response.status == .ok)
            #expect(response.headers[.contentType] == "text/event-stream; charset=utf-8")
            let events = Self.events(in: response.text)
            let logged = try await world.repository.events(for: kari.id, after: 0, limit: 100).map(\.id)
            #expect(events.map(\.name) == ["notification.created", "unread-count", "notification.created", "unread-count", "reset"])
            #expect(Array(events.map(\.id).dropLast()) == logged, "every logged event once, in order")
            #expect(response.text.contains(#""reason":"signed-out""#))
            #expect(response.text.contains("Before") && response.text.contains("Live"))
        }
    }
}

extension LiveStreamTests {
    /// A world where Kari has one notification ("Before"), and an application over it on `server`, with its pump.
    static func appWithOneNotification(server: HTTPServerBuilder) async throws -> (TestWorld, some ApplicationProtocol) {
        let world = try await TestWorld()
        let message = try Validation.notification(
            kind: "scenarioPrompt", title: "Before", body: "", urgency: nil, personalDetails: [], allowAssignment: false)
        _ = try await world.services.sender.send(message, from: world.coordinator.id, to: [world.kari.id])
        var app = Application(
            router: try await VarselRouter.build(services: world.services), server: server,
            configuration: .init(address: .hostname("127.0.0.1", port: 0)))
        app.addServices(world.services.pump)
        return (world, app)
    }

    @Test(
        "on a server without Varsel's connection handling a stream sends its opening and its replay, then ends, detached",
        .timeLimit(.minutes(1)))
    func withoutTheHandoffTheStreamEnds() async throws {
        let (world, app) = try await Self.appWithOneNotification(server: .http1())
        let kari = try #require(world.kari)
        try await app.test(.live) { client in
            let response = try await client.call(.get, "/api/v1/events?since=0", token: try await client.token("kari"))
            #expect(response.status == .ok)
            #expect(response.text.hasPrefix("retry: "))
            #expect(Self.events(in: response.text).map(\.name) == ["notification.created", "unread-count"])
            // The stream detaches on its loop once its response has ended.
            let deadline = ContinuousClock.now + .seconds(10)
            while world.services.broker.streamCount(userID: kari.id) > 0, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(5))
            }
            #expect(world.services.broker.streamCount(userID: kari.id) == 0)
        }
    }

    /// The body of `path` for Kari while one notification is sent live, ended by signing the stream's session out.
    /// Waits until `condition` holds, for at most 30 seconds; then fails naming what it waited for, rather than hang.
    static func waitFor(_ what: String, _ condition: () -> Bool) async throws {
        let deadline = ContinuousClock.now.advanced(by: .seconds(30))
        while !condition() {
            guard ContinuousClock.now < deadline else {
                Issue.record("Waited 30 seconds for \(what)")
                return
            }
            try await Task.sleep(for: .milliseconds(5))
        }
    }

    static func streamBody(_ path: String, sending message: Validation.ValidNotification) async throws -> (TestWorld, String) {
        let world = try await TestWorld()
        let kari = try #require(world.kari)
        var app = Application(
            router: try await VarselRouter.build(services: world.services), server: .varselHTTP1(),
            configuration: .init(address: .hostname("127.0.0.1", port: 0)))
        app.addServices(world.services.pump)
        let body = try await app.test(.live) { client in
            let token = try await client.token("kari")
            let services = world.services
            let driver = Task {
                try await Self.waitFor("kari's stream to open") { services.broker.streamCount(userID: kari.id) > 0 }
                _ = try await services.sender.send(message, from: world.coordinator.id, to: [kari.id])
                // The stream's start and the notification; whatever happens, the stream is ended so the call returns.
                defer { services.broker.endStreams(ofSession: Tokens.hash(token)) }
                try await Self.waitFor("the notification to be delivered") { services.metrics.eventsDelivered >= 2 }
            }
            let response = try await client.call(.get, path, token: token)
            try await driver.value
            return response.text
        }
        return (world, body)
    }

    @Test("the page's stream (?player=web) carries the core's cue and announcement for an arrival; an API client's does not")
    func playerGetsCuesAndAnnouncements() async throws {
        let urgent = try Validation.notification(
            kind: "certificationExpiry", title: "Expires today", body: "", urgency: "urgent",
            personalDetails: [], allowAssignment: false)
        let (_, played) = try await Self.streamBody("/api/v1/events?player=web", sending: urgent)
        let describer = Describer(language: .english)
        #expect(played.contains("event: cue\ndata: "))
        #expect(played.contains(#""earcon":"urgent""#))
        #expect(played.contains(#""vibration":[200,100,200,100,200]"#))
        // Urgent is said at once, assertively, in the core's words (the same text the API's resource carries).
        let item = try #require(try await SQLiteRepository.sampleUrgent(urgent))
        let expected = describer.arrivalAnnouncement(for: item, preferences: .standard)
        #expect(expected.politeness == .assertive)
        #expect(played.contains(#"event: announcement\#ndata: {"politeness":"assertive","text":"\#(expected.text)"}"#))
        let (_, data) = try await Self.streamBody("/api/v1/events", sending: urgent)
        #expect(!data.contains("event: cue") && !data.contains("event: announcement"))
        #expect(data.contains("event: notification.created"))
    }
}

extension SQLiteRepository {
    /// The item `message` becomes when sent to a fresh mentor: for composing the words the stream should say.
    static func sampleUrgent(_ message: Validation.ValidNotification) async throws -> NotificationItem? {
        let store = try SQLiteRepository.inMemory()
        let mentor = try await store.createUser(
            NewUser(username: "m", displayName: "M", role: .mentor, passwordHash: "x", language: .english), at: DemoData.now)
        return try await store.createNotifications(
            [
                NewNotification(
                    recipientID: mentor.id, senderID: nil, kind: message.kind, title: message.title, body: message.body,
                    urgency: message.urgency, deepLink: Validation.deepLink(for: message.kind), personalDetails: message.personalDetails)
            ], idempotencyKey: nil, at: DemoData.now
        ).items.first
    }
}

@Suite("Each page renders")
struct PageRenderingTests {
    @Test(
        "each page answers 200 with the language, the skip link, main, one h1 and the live regions",
        arguments: [
            ("kari", "/"), ("kari", "/notifications"), ("kari", "/notifications?filter=unread"), ("kari", "/settings"),
            ("kari", "/assignments"), ("kari", "/contacts"), ("kari", "/profile"), ("kari", "/certifications"), ("kari", "/pause"),
            ("kari", "/scenarios"), ("coord", "/coordinator"), ("ola", "/notifications"), ("coord", "/scenarios"), ("ola", "/profile"),
            ("coord", "/coordinator/assignments?show=overdue"), ("coord", "/profile"),
        ])
    func pageRenders(user: String, path: String) async throws {
        let world = try await TestWorld()
        // Kari has an assignment, so her pages have their lists (Home's, Assignments', Contacts').
        _ = try await world.services.sender.assign(
            mentor: world.kari, coordinatorID: world.coordinator.id,
            contact: NewContact(name: "Per Olsen", phone: "", address: "Torggata 3", notes: ""), urgency: .normal)
        try await world.test { client in
            let token = try await client.token(user)
            let page = try await client.call(.get, path, token: token)
            #expect(page.status == .ok)
            #expect(page.headers[.contentType] == "text/html; charset=utf-8")
            let html = page.text
            #expect(html.contains(#"<html lang="\#(user == "ola" ? "nb" : "en")">"#))
            #expect(html.contains(##"<a class="skip-link" href="#main">"##))
            #expect(html.contains(#"<main id="main""#))
            #expect(html.components(separatedBy: "<h1 ").count == 2, "one main heading")
            #expect(html.contains(#"id="live-polite" class="visually-hidden" role="log" aria-live="polite""#))
            #expect(html.contains(#"role="tablist""#) || path.hasPrefix("/coordinator"))
            // An id names one element: a label, a description or a section's heading found by it is that one.
            let ids = html.components(separatedBy: #" id=""#).dropFirst().compactMap {
                $0.split(separator: "\"", maxSplits: 1).first.map(String.init)
            }
            let twice = Dictionary(grouping: ids, by: { $0 }).filter { $0.value.count > 1 }.keys.sorted()
            #expect(twice.isEmpty, "ids used twice on \(path): \(twice)")
        }
    }

    @Test("the sign-in page renders for an anonymous visitor, and other pages send them to it")
    func signInPage() async throws {
        let world = try await TestWorld()
        try await world.test { client in
            let signIn = try await client.execute(uri: "/signin", method: .get)
            #expect(signIn.status == .ok)
            #expect(signIn.text.contains("<form") && signIn.text.contains(#"name="password""#))
            let centre = try await client.execute(uri: "/notifications", method: .get)
            #expect(centre.status == .seeOther)
            #expect(centre.headers[.location]?.hasPrefix("/signin?next=") == true)
        }
    }
}

/// A client's end of one live stream over a plain socket, held open for as long as the test likes.
struct RawStreamClient {
    let socket: Int32

    /// A TCP connection to 127.0.0.1 on `port`; nil when it could not be made.
    static func connect(toLocalPort port: Int) -> CInt? {
        let descriptor = Glibc.socket(AF_INET, CInt(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let status = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard status == 0 else {
            _ = Glibc.close(descriptor)
            return nil
        }
        return descriptor
    }

    /// Connects to `port`, asks for Kari's live stream with `token`, and waits for its opening.
    init(port: Int, token: String) throws {
        socket = try #require(Self.connect(toLocalPort: port))
        let request = Array("GET /api/v1/events HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer \(token)\r\n\r\n".utf8)
        _ = request.withUnsafeBytes { send(socket, $0.baseAddress, $0.count, 0) }
        var opening = ""
        while !opening.contains(": connected") {
            guard let more = read() else { break }
            opening += more
        }
        #expect(opening.hasPrefix("HTTP/1.1 200 OK"))
    }

    /// What arrives next, or nil once the server has closed the connection.
    func read() -> String? {
        var buffer = [UInt8](repeating: 0, count: 4096)
        let count = recv(socket, &buffer, buffer.count, 0)
        return count > 0 ? String(decoding: buffer.prefix(count), as: UTF8.self) : nil
    }

    /// Everything until the server closes the connection.
    func readToEnd() -> String {
        var text = ""
        while let more = read() { text += more }
        return text
    }

    func close() { _ = Glibc.close(socket) }
}

extension LiveStreamTests {
    @Test(
        "a server shutting down ends its open streams with their last chunk; it does not wait for the clients to leave",
        .timeLimit(.minutes(1)))
    func shutdownEndsOpenStreams() async throws {
        let world = try await TestWorld()
        var app = Application(
            router: try await VarselRouter.build(services: world.services), server: .varselHTTP1(),
            configuration: .init(address: .hostname("127.0.0.1", port: 0)))
        app.addServices(world.services.pump)
        let kari = try #require(world.kari)
        let client = try await app.test(.live) { client in
            let port = try #require(client.port)
            let token = try await client.token("kari")
            // Its blocking reads wait on a thread of their own, not on one the server's tasks need.
            let stream = try await withCheckedThrowingContinuation { continuation in
                Thread.detachNewThread { continuation.resume(with: Result { try RawStreamClient(port: port, token: token) }) }
            }
            while world.services.broker.streamCount(userID: kari.id) == 0 { try await Task.sleep(for: .milliseconds(5)) }
            return stream
        }
        // The application has shut down while the client still held its stream open.
        defer { client.close() }
        #expect(client.readToEnd().hasSuffix("0\r\n\r\n"), "the chunked body's last chunk, then the close")
        #expect(world.services.broker.streamCount(userID: kari.id) == 0)
    }
}
