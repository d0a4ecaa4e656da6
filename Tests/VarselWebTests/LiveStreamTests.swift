import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing
import VarselCore
import VarselService
import VarselStore
@testable import VarselWeb

@Suite("The live stream over HTTP")
struct LiveStreamTests {
    /// The `id:` and `event:` of each event in an event-stream body, in order.
    static func events(in body: String) -> [(id: Int64, name: String)] {
        body.components(separatedBy: "\n\n").compactMap { block in
            let lines = block.split(separator: "\n")
            guard let id = lines.first(where: { $0.hasPrefix("id: ") }).flatMap({ Int64($0.dropFirst(4)) }),
                  let name = lines.first(where: { $0.hasPrefix("event: ") }).map({ String($0.dropFirst(7)) }) else { return nil }
            return (id, name)
        }
    }

    @Test("a stream resumed from 0 replays the log, then follows live events, with no gap and no duplicate, and ends with a reset on sign-out")
    func replayThenLive() async throws {
        let world = try await TestWorld()
        let kari = try #require(world.kari)
        let message = try Validation.notification(kind: "scenarioPrompt", title: "Before", body: "", urgency: nil, personalDetails: [], allowAssignment: false)
        _ = try await world.services.sender.send(message, from: world.coordinator.id, to: [kari.id])
        var app = Application(router: try await VarselRouter.build(services: world.services),
                              configuration: .init(address: .hostname("127.0.0.1", port: 0)))
        app.addServices(world.services.pump)
        try await app.test(.live) { client in
            let token = try await client.token("kari")
            let broker = world.services.broker
            let services = world.services
            // Once the stream is attached: one live notification, then sign the session out, which ends the stream.
            let driver = Task {
                while broker.streamCount(userID: kari.id) == 0 { try await Task.sleep(for: .milliseconds(5)) }
                let live = try Validation.notification(kind: "scenarioPrompt", title: "Live", body: "", urgency: nil, personalDetails: [], allowAssignment: false)
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

@Suite("Each page renders")
struct PageRenderingTests {
    @Test("each page answers 200 with the language, the skip link, main, one h1 and the live regions", arguments: [
        ("kari", "/"), ("kari", "/notifications"), ("kari", "/notifications?filter=unread"), ("kari", "/settings"),
        ("kari", "/assignments"), ("kari", "/contacts"), ("kari", "/profile"), ("kari", "/certifications"), ("kari", "/pause"),
        ("kari", "/scenarios"), ("coord", "/coordinator"), ("ola", "/notifications"),
    ])
    func pageRenders(user: String, path: String) async throws {
        let world = try await TestWorld()
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
            #expect(html.contains(#"role="tablist""#) || path == "/coordinator")
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
