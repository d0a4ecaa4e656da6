import Foundation
import HTTPTypes
import Hummingbird
import Testing
import VarselCore
import VarselService
import VarselStore

@testable import VarselWeb

@Suite("Authorization matrix")
struct AuthorizationTests {
    @Test("mentor A cannot read, mark, delete or stream mentor B's notifications, nor answer B's assignment")
    func mentorsAreIsolated() async throws {
        let world = try await TestWorld()
        try await world.test { client in
            let coordinator = try await client.token("coord")
            let created = try await client.call(
                .post, "/api/v1/assignments", token: coordinator,
                json: """
                    {"mentor":"ola","contact":{"name":"Per Olsen","phone":"1","address":"Torggata 3","notes":""}}
                    """)
            struct Created: Decodable {
                var assignment: AssignmentResource
                var notificationId: NotificationID
            }
            let olas = try created.decode(Created.self)
            let kari = try await client.token("kari")
            let id = olas.notificationId
            for (method, path) in [
                (HTTPRequest.Method.get, "/api/v1/notifications/\(id)"), (.post, "/api/v1/notifications/\(id)/read"),
                (.post, "/api/v1/notifications/\(id)/unread"), (.delete, "/api/v1/notifications/\(id)"),
                (.get, "/api/v1/contacts/\(olas.assignment.contactId)"), (.get, "/api/v1/assignments/\(olas.assignment.id)"),
                (.post, "/api/v1/assignments/\(olas.assignment.id)/acknowledge"),
                (.post, "/api/v1/assignments/\(olas.assignment.id)/decline"),
            ] {
                let detail = try await client.call(method, path, token: kari).expectProblem(.notFound)
                #expect(!detail.contains("Per Olsen") && !detail.contains("Torggata"))
            }
            let bulk = try await client.call(.post, "/api/v1/notifications/bulk", token: kari, json: #"{"action":"delete","ids":[\#(id)]}"#)
            #expect(try bulk.decode(OutcomeBody.self).count == 0)
            #expect(try await client.call(.post, "/api/v1/notifications/read-all", token: kari).decode(OutcomeBody.self).count == 0)
            #expect(try await client.call(.get, "/api/v1/notifications", token: kari).decode(ListBody.self).items.isEmpty)
            // The stream is per signed-in user: there is no way to name another user's stream.
            #expect(try await world.repository.notification(id: id)?.isUnread == true)
            // A coordinator sees the status but cannot answer for the mentor.
            try await client.call(.post, "/api/v1/assignments/\(olas.assignment.id)/acknowledge", token: coordinator).expectProblem(.forbidden)
        }
    }

    @Test("a mentor cannot create notifications, assignments or users, nor record certifications")
    func mentorCannotSend() async throws {
        let world = try await TestWorld()
        try await world.test { client in
            let kari = try await client.token("kari")
            let before = try await world.repository.unreadCount(for: world.ola.id)
            try await client.call(
                .post, "/api/v1/notifications", token: kari,
                json: #"{"recipients":["ola"],"kind":"scenarioPrompt","title":"t","body":"b"}"#
            ).expectProblem(.forbidden)
            try await client.call(
                .post, "/api/v1/assignments", token: kari,
                json: #"{"mentor":"ola","contact":{"name":"n","phone":"","address":"a","notes":""}}"#
            ).expectProblem(.forbidden)
            try await client.call(.post, "/api/v1/users", token: kari, json: #"{"username":"x1","password":"long enough","role":"admin"}"#)
                .expectProblem(.forbidden)
            try await client.call(.get, "/api/v1/users", token: kari).expectProblem(.forbidden)
            try await client.call(.put, "/api/v1/mentors/\(world.kari.id)/certifications", token: kari, json: "[]").expectProblem(.forbidden)
            try await client.call(.get, "/api/v1/mentors/\(world.ola.id)/certifications", token: kari).expectProblem(.notFound)
            #expect(try await world.repository.unreadCount(for: world.ola.id) == before)
        }
    }

    @Test("a coordinator cannot pause for a mentor or read a mentor's preferences")
    func coordinatorLimits() async throws {
        let world = try await TestWorld()
        var secret = NotificationPreferences.standard
        secret.isSpeakingPersonalDetails = true
        try await world.repository.setPreferences(secret, for: world.kari.id)
        try await world.test { client in
            let coordinator = try await client.token("coord")
            try await client.call(.post, "/api/v1/pause", token: coordinator, json: #"{"until":"2026-12-01"}"#).expectProblem(.forbidden)
            let own = try await client.call(.get, "/api/v1/preferences", token: coordinator).decode(PreferencesResource.self)
            #expect(own.speakPersonalDetails == false)
        }
    }

    @Test("every protected route needs credentials, and a bad token is refused")
    func credentialsRequired() async throws {
        let world = try await TestWorld()
        try await world.test { client in
            for (method, path) in [
                (HTTPRequest.Method.get, "/api/v1/me"), (.get, "/api/v1/notifications"), (.get, "/api/v1/notifications/unread-count"),
                (.post, "/api/v1/notifications/read-all"), (.get, "/api/v1/preferences"), (.get, "/api/v1/events"),
                (.post, "/api/v1/pause"), (.get, "/api/v1/assignments/1"),
            ] {
                let response = try await client.call(method, path, token: nil)
                try response.expectProblem(.unauthorized)
                #expect(response.headers[.wwwAuthenticate]?.hasPrefix("Bearer") == true)
            }
            try await client.call(.get, "/api/v1/me", token: "not-a-token").expectProblem(.unauthorized)
            try await client.execute(uri: "/api/v1/me", method: .get, headers: [.authorization: "Basic a2FyaTp4"]).expectProblem(.unauthorized)
        }
    }

    @Test("a cookie-authenticated change without the CSRF token is refused; with it, allowed")
    func csrf() async throws {
        let world = try await TestWorld()
        try await world.test { client in
            let response = try await client.call(
                .post, "/api/v1/session", token: nil, json: #"{"username":"kari","password":"\#(TestWorld.password)"}"#)
            let session = try response.decode(SignInBody.self)
            let cookie: HTTPFields = [.cookie: "\(sessionCookieName)=\(session.token)"]
            #expect(try await client.execute(uri: "/api/v1/me", method: .get, headers: cookie).status == .ok)
            try await client.execute(uri: "/api/v1/notifications/read-all", method: .post, headers: cookie).expectProblem(.forbidden)
            var withToken = cookie
            withToken[.init("X-CSRF-Token")!] = session.csrfToken
            #expect(try await client.execute(uri: "/api/v1/notifications/read-all", method: .post, headers: withToken).status == .ok)
        }
    }
}

@Suite("Bad input gets a clear 4xx and changes nothing")
struct BadInputTests {
    @Test("each malformed create is a problem+json that says what was wrong, and creates nothing")
    func malformedCreates() async throws {
        let world = try await TestWorld()
        try await world.test { client in
            let coordinator = try await client.token("coord")
            let cases: [(String, HTTPResponse.Status, String)] = [
                ("{not json", .badRequest, "not valid JSON"),
                (#"{"recipients":"kari","kind":"scenarioPrompt","title":"t","body":"b"}"#, .badRequest, "'recipients' must be an array"),
                (#"{"recipients":["kari"],"title":"t","body":"b"}"#, .badRequest, "'kind' is required"),
                (#"{"recipients":["kari"],"kind":"party","title":"t","body":"b"}"#, .unprocessableContent, "kind is not a known kind"),
                (#"{"recipients":["kari"],"kind":"assignment","title":"t","body":"b"}"#, .unprocessableContent, "POST /api/v1/assignments"),
                (
                    #"{"recipients":["kari"],"kind":"scenarioPrompt","title":"\#(String(repeating: "x", count: 201))","body":"b"}"#,
                    .unprocessableContent, "title at most 200"
                ),
                (
                    #"{"recipients":["kari"],"kind":"scenarioPrompt","title":"t","body":"\#(String(repeating: "x", count: 4001))"}"#,
                    .unprocessableContent, "body at most 4000"
                ),
                (#"{"recipients":["kari"],"kind":"scenarioPrompt","title":"  ","body":"b"}"#, .unprocessableContent, "title required"),
                (#"{"recipients":["nobody"],"kind":"scenarioPrompt","title":"t","body":"b"}"#, .notFound, "not a known user"),
                // An unknown id is refused by the store's own transaction, which then writes nothing for "kari" either.
                (#"{"recipients":["kari",999999],"kind":"scenarioPrompt","title":"t","body":"b"}"#, .notFound, "recipients[1] is not a known user"),
                (#"{"recipients":[],"kind":"scenarioPrompt","title":"t","body":"b"}"#, .unprocessableContent, "at least one"),
                (#"{"recipients":[true],"kind":"scenarioPrompt","title":"t","body":"b"}"#, .badRequest, "recipients[0]"),
                (#"{"recipients":["kari"],"kind":"scenarioPrompt","title":"t","body":"b","urgency":"now"}"#, .unprocessableContent, "urgency"),
                ("", .badRequest, "needs a JSON body"),
                // The request as a whole is not the notification's field named body.
                ("[]", .badRequest, "The request body must be an object."),
                ("null", .badRequest, "The request body must be an object, not null."),
            ]
            for (body, status, phrase) in cases {
                let response = try await client.call(.post, "/api/v1/notifications", token: coordinator, json: body)
                let detail = try response.expectProblem(status)
                #expect(detail.contains(phrase), "\(detail) should mention \(phrase)")
            }
            let huge = #"{"recipients":["kari"],"kind":"scenarioPrompt","title":"t","body":"\#(String(repeating: "x", count: 70_000))"}"#
            try await client.call(.post, "/api/v1/notifications", token: coordinator, json: huge).expectProblem(.contentTooLarge)
            #expect(try await world.repository.latestEventID() == 0)
        }
    }

    @Test("a person named in a field of its own is refused by that field, and a 404 repeats no id")
    func refusalsNameTheirField() async throws {
        let world = try await TestWorld()
        try await world.test { client in
            let coordinator = try await client.token("coord")
            let contact = #""contact":{"name":"a","phone":"","address":"b","notes":""}"#
            let assignment = try await client.call(.post, "/api/v1/assignments", token: coordinator, json: #"{"mentor":"nobody-x",\#(contact)}"#)
            #expect(try assignment.expectProblem(.notFound) == "mentor is not a known user.")
            #expect(assignment.text.contains(#""field":"mentor""#), "\(assignment.text)")
            let scenario = try await client.call(
                .post, "/api/v1/scenarios", token: coordinator, json: #"{"title":"t","body":"b","mentors":["kari","nobody-x"]}"#)
            #expect(try scenario.expectProblem(.notFound) == "mentors[1] is not a known user.")
            let none = try await client.call(.post, "/api/v1/scenarios", token: coordinator, json: #"{"title":"t","body":"b","mentors":[]}"#)
            #expect(try none.expectProblem(.unprocessableContent) == "mentors must name at least one user.")
            let kari = try await client.token("kari")
            let missing = try await client.call(.get, "/api/v1/notifications/9223372036854775807", token: kari)
            #expect(try missing.expectProblem(.notFound) == "You have no notification with that id.")
            for path in ["/api/v1/notifications/+1", "/api/v1/notifications/01", "/api/v1/notifications/1e0"] {
                #expect(try await client.call(.get, path, token: kari).expectProblem(.badRequest).contains("positive integer"), "\(path)")
            }
        }
    }

    @Test("invalid ids, cursors, filters and limits are 400s that name the parameter")
    func invalidParameters() async throws {
        let world = try await TestWorld()
        try await world.test { client in
            let kari = try await client.token("kari")
            for path in [
                "/api/v1/notifications/abc/read", "/api/v1/notifications/-3", "/api/v1/notifications/0/read",
                "/api/v1/assignments/9999999999999999999999",
            ] {
                let verb: HTTPRequest.Method = path.hasSuffix("read") ? .post : .get
                #expect(try await client.call(verb, path, token: kari).expectProblem(.badRequest).contains("positive integer"))
            }
            #expect(try await client.call(.get, "/api/v1/notifications?cursor=zzz", token: kari).expectProblem(.badRequest).contains("cursor"))
            #expect(
                try await client.call(.get, "/api/v1/notifications?filter=spam", token: kari).expectProblem(.badRequest).contains("Unknown filter"))
            #expect(try await client.call(.get, "/api/v1/notifications?limit=0", token: kari).expectProblem(.badRequest).contains("limit"))
            #expect(try await client.call(.get, "/api/v1/notifications?limit=500", token: kari).expectProblem(.badRequest).contains("limit"))
            #expect(
                try await client.call(.get, "/api/v1/events", token: kari, headers: [.init("Last-Event-ID")!: "yesterday"])
                    .expectProblem(.badRequest).contains("Last-Event-ID"))
            for since in ["+5", "-0", ""] {
                #expect(
                    try await client.call(.get, "/api/v1/events", token: kari, headers: [.init("Last-Event-ID")!: since])
                        .expectProblem(.badRequest).contains("Last-Event-ID"), "Last-Event-ID: \(since)")
            }
            #expect(try await client.call(.get, "/api/v1/events?since=", token: kari).expectProblem(.badRequest).contains("since"))
            let player = try await client.call(.get, "/api/v1/events?player=maybe", token: kari)
            #expect(try player.expectProblem(.badRequest) == "player must be web, or left out." && player.text.contains(#""field":"player""#))
            try await client.call(.get, "/api/v1/nowhere", token: kari).expectProblem(.notFound)
            try await client.call(.put, "/api/v1/preferences", token: kari, json: #"{"sound":"loud"}"#).expectProblem(.badRequest)
            try await client.call(.post, "/api/v1/notifications/bulk", token: kari, json: #"{"action":"burn","ids":[]}"#).expectProblem(.badRequest)
        }
    }

    @Test("no input makes the server answer 5xx: random bodies at every route")
    func noFiveHundreds() async throws {
        let world = try await TestWorld()
        let routes: [(HTTPRequest.Method, String)] = [
            (.post, "/api/v1/session"), (.post, "/api/v1/notifications"), (.post, "/api/v1/notifications/bulk"),
            (.put, "/api/v1/preferences"), (.post, "/api/v1/assignments"), (.post, "/api/v1/pause"), (.post, "/api/v1/users"),
            (.put, "/api/v1/mentors/1/certifications"), (.post, "/api/v1/notifications/1/read"), (.get, "/api/v1/notifications?cursor=%00"),
        ]
        let samples = [
            "{}", "[]", "null", "\"\"", "{\"a\":", "{\"recipients\":[1e309]}", "{\"until\":\"9999-99-99\"}",
            "{\"mentor\":1,\"contact\":{}}", "[{\"name\":\"\",\"expiresOn\":\"\"}]", "\u{0}\u{1}",
        ]
        try await world.test { client in
            let tokens = [try await client.token("coord"), try await client.token("kari"), try await client.token("admin")]
            var generator = SeededGenerator(seed: 42)
            for round in 0..<60 {
                let (method, path) = routes[round % routes.count]
                let body: String =
                    round % 2 == 0
                    ? samples[Int.random(in: 0..<samples.count, using: &generator)]
                    : String(
                        (0..<Int.random(in: 0..<64, using: &generator)).map { _ in
                            Character(UnicodeScalar(UInt8.random(in: 32...126, using: &generator)))
                        })
                let response = try await client.call(method, path, token: tokens[round % tokens.count], json: body)
                #expect(response.status.code < 500, "\(method) \(path) with \(body) gave \(response.status)")
            }
        }
    }
}

/// A small deterministic random source for repeatable fuzz rounds.
struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
