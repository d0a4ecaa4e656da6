import Foundation
import HTTPTypes
import Hummingbird
import Synchronization
import Testing
import VarselCore
import VarselPush
import VarselServiceTesting
import VarselStore

@testable import VarselLive
@testable import VarselService
@testable import VarselWeb

/// Regression tests for the hardening of the HTTP layer; each names the attack it covers.
@Suite("Hardening: CSRF and path spelling")
struct CSRFHardeningTests {
    @Test("POST //api/v1/users with an admin's cookie, text/plain and no CSRF header creates nobody")
    func doubleSlashDoesNotBypassCSRF() async throws {
        let world = try await TestWorld()
        try await world.test { client in
            let cookie = try await client.cookie("admin")
            let body = #"{"username":"mallory","password":"long enough pw","role":"admin"}"#
            for path in [
                "//api/v1/users", "/api//v1/users", "/./api/v1/users", "/api/v1/../v1/users", "/api%2Fv1/users", "/api/v1/%75sers",
                "/api/v1/users/",
            ] {
                let response = try await client.execute(
                    uri: path, method: .post, headers: [.cookie: cookie, .contentType: "text/plain"],
                    body: ByteBuffer(string: body))
                #expect(response.status.code >= 400 && response.status.code < 500, "\(path) gave \(response.status)")
                #expect(response.headers[.contentType] == "application/problem+json", "\(path)")
            }
            // The canonical spelling without the CSRF header is refused too, whatever the content type.
            try await client.execute(
                uri: "/api/v1/users", method: .post, headers: [.cookie: cookie, .contentType: "application/json"],
                body: ByteBuffer(string: body)
            ).expectProblem(.forbidden)
            #expect(try await world.repository.user(username: "mallory") == nil)
        }
    }

    @Test("a page form post signed in by cookie needs the CSRF field, checked before any handler runs")
    func pageFormsNeedTheToken() async throws {
        let world = try await TestWorld()
        try await world.test { client in
            let cookie = try await client.cookie("coord")
            let form = "recipient=\(world.kari.id)&kind=scenarioPrompt&title=Hello&body=x"
            try await client.execute(
                uri: "/coordinator/notifications", method: .post,
                headers: [.cookie: cookie, .contentType: "application/x-www-form-urlencoded"],
                body: ByteBuffer(string: form)
            ).expectProblem(.forbidden)
            #expect(try await world.repository.unreadCount(for: world.kari.id) == 0)
        }
    }

    @Test("JSON endpoints take application/json only; anything else is 415 problem+json")
    func jsonOnly() async throws {
        let world = try await TestWorld()
        try await world.test { client in
            let coordinator = try await client.token("coord")
            let body = #"{"recipients":["kari"],"kind":"scenarioPrompt","title":"t","body":"b"}"#
            for type in ["text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x"] {
                try await client.execute(
                    uri: "/api/v1/notifications", method: .post,
                    headers: [.authorization: "Bearer \(coordinator)", .contentType: type],
                    body: ByteBuffer(string: body)
                ).expectProblem(.unsupportedMediaType)
            }
            try await client.execute(
                uri: "/api/v1/session", method: .post, headers: [.contentType: "text/plain"],
                body: ByteBuffer(string: #"{"username":"kari","password":"\#(TestWorld.password)"}"#)
            )
            .expectProblem(.unsupportedMediaType)
            #expect(try await world.repository.unreadCount(for: world.kari.id) == 0)
            let ok = try await client.call(
                .post, "/api/v1/notifications", token: coordinator, json: body,
                headers: [.contentType: "application/json; charset=utf-8"])
            #expect(ok.status == .created)
        }
    }

    @Test("signing in with a passkey, and adding one through a link, refuse cross-site posts as the sign-in form does")
    func passkeyCeremoniesAreSameOriginOnly() async throws {
        var configuration = VarselServices.Configuration()
        configuration.publicURL = URL(string: "http://localhost:8080")
        let world = try await TestWorld(configuration: configuration)
        try await world.test { client in
            for path in [
                "/api/v1/session/passkey/options", "/api/v1/session/passkey", "/api/v1/password/passkey/options", "/api/v1/password/passkey",
            ] {
                for headers: HTTPFields in [[.origin: "https://evil.example"], [.secFetchSite: "cross-site"]] {
                    var fields = headers
                    fields[.contentType] = "application/json"
                    let response = try await client.execute(uri: path, method: .post, headers: fields, body: ByteBuffer(string: "{}"))
                    try response.expectProblem(.forbidden)
                    #expect(response.headers[.setCookie] == nil, "\(path)")
                }
            }
            // From our own origin the options are given, with the attempt's cookie.
            let same = try await client.execute(
                uri: "/api/v1/session/passkey/options", method: .post,
                headers: [.contentType: "application/json", .origin: "http://localhost:8080"], body: ByteBuffer(string: "{}"))
            #expect(same.status == .ok)
            #expect(same.headers[.setCookie]?.contains("varsel_passkey_attempt=") == true)
        }
    }

    @Test("the sign-in form refuses cross-site posts (login CSRF) and accepts same-origin ones")
    func signInFormIsSameOriginOnly() async throws {
        let world = try await TestWorld()
        try await world.test { client in
            let form = "username=kari&password=\(TestWorld.password.replacingOccurrences(of: " ", with: "+"))&next=%2Fnotifications"
            for headers: HTTPFields in [
                [.origin: "https://evil.example"], [.secFetchSite: "cross-site"], [.origin: "null"],
                [.secFetchSite: "same-site"],
            ] {
                var fields = headers
                fields[.contentType] = "application/x-www-form-urlencoded"
                let response = try await client.execute(uri: "/signin", method: .post, headers: fields, body: ByteBuffer(string: form))
                try response.expectProblem(.forbidden)
                #expect(response.headers[.setCookie] == nil)
            }
            // Our own form: Chromium sends Origin null (no-referrer pages) with Sec-Fetch-Site same-origin.
            for headers: HTTPFields in [
                [.origin: "http://localhost", .secFetchSite: "same-origin"], [.origin: "null", .secFetchSite: "same-origin"],
                [.origin: "http://localhost"], [:],
            ] {
                var fields = headers
                fields[.contentType] = "application/x-www-form-urlencoded"
                let same = try await client.execute(uri: "/signin", method: .post, headers: fields, body: ByteBuffer(string: form))
                #expect(same.status == .seeOther, "\(headers)")
                #expect(same.headers[.setCookie]?.contains(sessionCookieName) == true)
            }
        }
    }
}

@Suite("Hardening: sign-in throttle")
struct ThrottleHardeningTests {
    @Test("40 parallel wrong sign-ins for one account get at most 5 password checks; the rest are 429")
    func parallelAttemptsAreReservedBeforeBcrypt() async throws {
        let world = try await TestWorld()
        try await world.test { client in
            let statuses = try await withThrowingTaskGroup(of: HTTPResponse.Status.self) { group in
                for _ in 0..<40 {
                    group.addTask {
                        try await client.call(.post, "/api/v1/session", token: nil, json: #"{"username":"kari","password":"wrong password"}"#).status
                    }
                }
                return try await group.reduce(into: [HTTPResponse.Status]()) { $0.append($1) }
            }
            let checked = statuses.filter { $0 == .unauthorized }.count
            #expect(checked <= 5, "\(checked) attempts reached the password check")
            #expect(statuses.filter { $0 == .tooManyRequests }.count == 40 - checked)
        }
    }

    @Test("one client trying many usernames (password spraying) is slowed down")
    func sprayingFromOneClientIsThrottled() async throws {
        let world = try await TestWorld()
        try await world.test { client in
            var limited = 0
            for index in 0..<30 {
                let response = try await client.call(
                    .post, "/api/v1/session", token: nil, json: #"{"username":"user\#(index)","password":"Spring2026!"}"#)
                if response.status == .tooManyRequests {
                    limited += 1
                    #expect(response.headers[.retryAfter] != nil)
                }
            }
            #expect(limited >= 5)
        }
    }

    @Test("failures from another client cannot lock a mentor out; X-Forwarded-For counts only from a trusted proxy")
    func attackerCannotLockMentorOut() async throws {
        var configuration = VarselServices.Configuration()
        configuration.trustedProxies = [CIDR("127.0.0.0/8")!, CIDR("::1")!]
        let world = try await TestWorld(configuration: configuration)
        try await world.app().test(.live) { client in
            for _ in 0..<8 {
                let response = try await client.call(
                    .post, "/api/v1/session", token: nil, json: #"{"username":"kari","password":"wrong password"}"#,
                    headers: [.forwardedFor: "203.0.113.9"])
                #expect(response.status == .unauthorized || response.status == .tooManyRequests)
            }
            let attacker = try await client.call(
                .post, "/api/v1/session", token: nil, json: #"{"username":"kari","password":"\#(TestWorld.password)"}"#,
                headers: [.forwardedFor: "203.0.113.9"])
            #expect(attacker.status == .tooManyRequests)
            let mentor = try await client.call(
                .post, "/api/v1/session", token: nil, json: #"{"username":"kari","password":"\#(TestWorld.password)"}"#,
                headers: [.forwardedFor: "198.51.100.7"])
            #expect(mentor.status == .created)
        }
    }

    @Test("without a trusted proxy, a client cannot escape the throttle by changing X-Forwarded-For")
    func forwardedForIgnoredWithoutTrustedProxy() async throws {
        let world = try await TestWorld()
        try await world.app().test(.live) { client in
            var limited = 0
            for index in 0..<10 {
                let response = try await client.call(
                    .post, "/api/v1/session", token: nil, json: #"{"username":"kari","password":"wrong password"}"#,
                    headers: [.forwardedFor: "198.51.100.\(index)"])
                if response.status == .tooManyRequests { limited += 1 }
            }
            #expect(limited >= 4)
        }
    }

    @Test("the client address: the peer, unless the peer is a trusted proxy; then the last untrusted X-Forwarded-For hop")
    func clientAddress() {
        let proxies = [CIDR("10.0.0.0/8")!, CIDR("fd00::/8")!]
        #expect(ClientAddress.resolve(peer: "198.51.100.1", forwardedFor: "1.2.3.4", trustedProxies: proxies) == "198.51.100.1")
        #expect(ClientAddress.resolve(peer: "10.1.2.3", forwardedFor: "1.2.3.4, 203.0.113.5", trustedProxies: proxies) == "203.0.113.5")
        #expect(ClientAddress.resolve(peer: "10.1.2.3", forwardedFor: "1.2.3.4, 10.9.9.9", trustedProxies: proxies) == "1.2.3.4")
        #expect(ClientAddress.resolve(peer: "10.1.2.3", forwardedFor: "not an address", trustedProxies: proxies) == "10.1.2.3")
        #expect(ClientAddress.resolve(peer: "fd00::1", forwardedFor: "2001:db8::7", trustedProxies: proxies) == "2001:db8::7")
        #expect(ClientAddress.resolve(peer: nil, forwardedFor: "1.2.3.4", trustedProxies: proxies) == "unknown")
        #expect(CIDR("10.0.0.0/33") == nil && CIDR("nonsense") == nil)
    }

    // bcrypt's time is set by its cost alone, so a check at the same cost takes as long. The test watches which hashes
    // sign-in checks rather than timing them, which other work on the machine would blur.
    @Test("signing in as an unknown user checks the password against a hash of the same cost as a known user's wrong password")
    func unknownUserTakesAsLong() async throws {
        let checked = CheckedHashes()
        let world = try await TestWorld(passwords: PasswordHasher(cost: 5, check: { input, hash in checked.check(input, hash: hash) }))
        try await world.test { client in
            func signIn(_ username: String) async throws -> [String] {
                let before = checked.hashes.count
                let response = try await client.call(
                    .post, "/api/v1/session", token: nil, json: #"{"username":"\#(username)","password":"wrong password"}"#)
                #expect(response.status == .unauthorized)
                return Array(checked.hashes.dropFirst(before))
            }
            #expect(try await signIn("coord") == [world.coordinator.passwordHash])
            let decoy = try await signIn("nobody-by-this-name")
            let accounts = [world.kari, world.ola, world.coordinator, world.admin].map { $0!.passwordHash }
            #expect(decoy.count == 1 && !accounts.contains(decoy[0]), "one check, against no account's hash")
            #expect(decoy.first.map(Self.bcryptCost) == "05" && Self.bcryptCost(world.coordinator.passwordHash) == "05")
            #expect(try await signIn("someone-else-unknown") == decoy)
        }
    }

    /// The cost field of a bcrypt hash (`$2b$05$…`).
    static func bcryptCost(_ hash: String) -> String? {
        let fields = hash.split(separator: "$")
        return fields.count >= 3 ? String(fields[1]) : nil
    }
}

/// Checks passwords with bcrypt, keeping each hash it was given.
private final class CheckedHashes: Sendable {
    private let checked = Mutex<[String]>([])

    var hashes: [String] { checked.withLock { $0 } }

    func check(_ input: String, hash: String) -> Bool {
        checked.withLock { $0.append(hash) }
        return PasswordHasher.bcrypt(input, hash)
    }
}

@Suite("Hardening: redirects after sign-in")
struct RedirectHardeningTests {
    @Test(
        "only same-site relative paths are followed after sign-in",
        arguments: [
            "/\\evil.example/", "/\t/evil.example", "/\\/evil.example", "//evil.example", "/%5Cevil.example", "/%2F%2Fevil.example",
            "/%252F%252Fevil.example", "https://evil.example", "javascript:alert(1)", "/\u{0}x", "/ /evil", "\\\\evil.example",
            "/%09/evil.example", "", "notifications",
        ])
    func unsafeTargetsFallBack(_ next: String) {
        #expect(SignInPages.safeNext(next) == "/notifications")
    }

    @Test("local paths, with their query, are kept")
    func localTargetsKept() {
        for next in ["/notifications", "/contacts/3?assignment=4", "/notifications?filter=unread", "/"] {
            #expect(SignInPages.safeNext(next) == next)
        }
    }

    @Test("next=/%5Cevil.example/ on the sign-in form redirects to the notification centre")
    func signInRedirect() async throws {
        let world = try await TestWorld()
        try await world.test { client in
            let form = "username=kari&password=\(TestWorld.password.replacingOccurrences(of: " ", with: "+"))&next=%2F%5Cevil.example%2F"
            let response = try await client.execute(
                uri: "/signin", method: .post, headers: [.contentType: "application/x-www-form-urlencoded"],
                body: ByteBuffer(string: form))
            #expect(response.status == .seeOther)
            #expect(response.headers[.location] == "/notifications")
        }
    }
}

@Suite("Hardening: live streams")
struct StreamHardeningTests {
    @Test("a user's streams are capped; the oldest is told why (too-many-streams) and closed")
    func perUserCap() async throws {
        let broker = EventBroker(bufferLimit: 16, streamsPerUser: 2, metrics: ServiceMetrics())
        let first = broker.subscribe(userID: 1, session: "a")
        let second = broker.subscribe(userID: 1, session: "a")
        let otherUser = broker.subscribe(userID: 2, session: "b")
        #expect(broker.streamCount(userID: 1) == 2)
        let third = broker.subscribe(userID: 1, session: "a")
        #expect(broker.streamCount(userID: 1) == 2)
        #expect(broker.streamCount(userID: 2) == 1)
        var messages: [String] = []
        for await message in first.messages { messages.append("\(message)") }
        #expect(messages == ["closing(VarselService.StreamCloseReason.tooManyStreams)"])
        withExtendedLifetime((second, third, otherUser)) {}
    }

    @Test("signing out ends that session's streams (and only that session's), saying why")
    func signOutEndsStreams() async throws {
        let world = try await TestWorld()
        try await world.test { client in
            let token = try await client.token("kari")
            let other = try await client.token("kari")
            let stream = world.services.broker.subscribe(userID: world.kari.id, session: Tokens.hash(token))
            let kept = world.services.broker.subscribe(userID: world.kari.id, session: Tokens.hash(other))
            #expect(try await client.call(.delete, "/api/v1/session", token: token).status == .noContent)
            var messages: [String] = []
            for await message in stream.messages { messages.append("\(message)") }
            #expect(messages == ["closing(VarselService.StreamCloseReason.signedOut)"])
            #expect(world.services.broker.streamCount(userID: world.kari.id) == 1)
            world.services.broker.end(userID: world.kari.id, id: kept.id)
        }
    }

    @Test("changing the password signs out the user's other sessions and ends their streams; this session stays")
    func passwordChangeEndsOtherSessions() async throws {
        let world = try await TestWorld()
        try await world.test { client in
            let current = try await client.token("kari")
            let other = try await client.token("kari")
            let elsewhere = world.services.broker.subscribe(userID: world.kari.id, session: Tokens.hash(other))
            let here = world.services.broker.subscribe(userID: world.kari.id, session: Tokens.hash(current))
            try await client.call(
                .put, "/api/v1/me/password", token: current, json: #"{"currentPassword":"wrong one","newPassword":"a new long password"}"#
            )
            .expectProblem(.forbidden)
            #expect(
                try await client.call(
                    .put, "/api/v1/me/password", token: current,
                    json: #"{"currentPassword":"\#(TestWorld.password)","newPassword":"a new long password"}"#
                ).status == .noContent)
            var messages: [String] = []
            for await message in elsewhere.messages { messages.append("\(message)") }
            #expect(messages == ["closing(VarselService.StreamCloseReason.signedOut)"])
            try await client.call(.get, "/api/v1/me", token: other).expectProblem(.unauthorized)
            #expect(try await client.call(.get, "/api/v1/me", token: current).status == .ok)
            #expect(world.services.broker.streamCount(userID: world.kari.id) == 1)
            #expect(
                try await client.call(.post, "/api/v1/session", token: nil, json: #"{"username":"kari","password":"a new long password"}"#).status
                    == .created)
            world.services.broker.end(userID: world.kari.id, id: here.id)
        }
    }

    @Test("a password with a control character is refused by name, and a NUL typed at sign-in is not where the password ends")
    func passwordsHaveNoControlCharacters() async throws {
        let world = try await TestWorld()
        try await world.test { client in
            let current = try await client.token("kari")
            for refused in [#"pass\u0000word long"#, #"tab\there long"#, #"\u0085next line long"#] {
                let answer = try await client.call(
                    .put, "/api/v1/me/password", token: current,
                    json: #"{"currentPassword":"\#(TestWorld.password)","newPassword":"\#(refused)"}"#)
                try answer.expectProblem(.unprocessableContent)
                #expect(answer.text.contains(#""field":"newPassword""#) && !answer.text.contains("long"), "\(answer.text)")
            }
            // Sign-in: the stored password followed by a NUL and more is not the password.
            let sessions = #"{"username":"kari","password":"\#(TestWorld.password)\u0000anything"}"#
            try await client.call(.post, "/api/v1/session", token: nil, json: sessions).expectProblem(.unauthorized)
            #expect(
                try await client.call(
                    .post, "/api/v1/session", token: nil,
                    json: #"{"username":"kari","password":"\#(TestWorld.password)"}"#
                ).status == .created)
        }
        // What bcrypt reads never holds a NUL: up to one, a password would end there.
        #expect(PasswordHasher.bcryptInput("abc\u{0}defghij") != "abc\u{0}defghij")
        #expect(!PasswordHasher.bcryptInput("abc\u{0}defghij").utf8.contains(0))
        #expect(PasswordHasher.bcryptInput("ordinary password") == "ordinary password")
    }

    @Test("a stream's pace: a write that waits longer than the write timeout, and more waiting than the limit, are too slow")
    func streamPace() async throws {
        let pace = StreamPace(limit: 3)
        let start = ContinuousClock.now
        #expect(!pace.hasWaited(longerThan: .zero, at: start))
        pace.blocked(at: start)
        // Blocked from the first moment: a later report does not restart the wait.
        pace.blocked(at: start + .seconds(5))
        #expect(!pace.hasWaited(longerThan: .seconds(10), at: start + .seconds(10)))
        #expect(pace.hasWaited(longerThan: .seconds(10), at: start + .milliseconds(10_001)))
        pace.unblocked()
        #expect(!pace.hasWaited(longerThan: .zero, at: start + .seconds(60)))

        #expect(pace.admit(2) && pace.admit(1))
        #expect(!pace.admit(1), "a fourth thing waiting is one too many")
        #expect(pace.waiting == 3, "what was refused is not counted")
        pace.done(2)
        #expect(pace.admit(2))
    }
}

@Suite("Hardening: validation")
struct ValidationHardeningTests {
    @Test("impossible calendar dates are refused", arguments: ["2031-13-01", "2031-02-30", "2031-00-10", "2031-1-01", "+031-01-01", "2031-01-1x"])
    func impossibleDates(_ date: String) async throws {
        let world = try await TestWorld()
        try await world.test { client in
            let kari = try await client.token("kari")
            try await client.call(.post, "/api/v1/pause", token: kari, json: #"{"until":"\#(date)"}"#).expectProblem(.unprocessableContent)
            #expect(try await world.repository.user(id: world.kari.id)?.pausedUntil == nil)
        }
    }

    @Test("lengths count Unicode scalars: one letter with 300 combining marks is longer than 200")
    func scalarLengths() async throws {
        let world = try await TestWorld()
        try await world.test { client in
            let coordinator = try await client.token("coord")
            let title = "a" + String(repeating: "\u{0301}", count: 300)
            let detail = try await client.call(
                .post, "/api/v1/notifications", token: coordinator,
                json: #"{"recipients":["kari"],"kind":"scenarioPrompt","title":"\#(title)","body":"b"}"#
            )
            .expectProblem(.unprocessableContent)
            #expect(detail.contains("title at most 200"))
        }
    }

    @Test("the coordinator's page forms apply the API's rules (control characters, lengths), each error beside its field")
    func pageFormsValidate() async throws {
        let world = try await TestWorld()
        try await world.test { client in
            let (cookie, csrf) = try await client.cookieAndCSRF("coord")
            let headers: HTTPFields = [.cookie: cookie, .contentType: "application/x-www-form-urlencoded"]
            for title in ["Bell%07here", "Esc%1Bhere", "Nul%00here", String(repeating: "x", count: 201)] {
                let response = try await client.execute(
                    uri: "/coordinator/notifications", method: .post, headers: headers,
                    body: ByteBuffer(string: "_csrf=\(csrf)&recipient=\(world.kari.id)&kind=scenarioPrompt&title=\(title)&body=b"))
                #expect(response.status == .unprocessableContent, "\(title)")
            }
            #expect(try await world.repository.unreadCount(for: world.kari.id) == 0)
            let long = String(repeating: "n", count: 5000)
            let response = try await client.execute(
                uri: "/coordinator/assignments", method: .post, headers: headers,
                body: ByteBuffer(string: "_csrf=\(csrf)&mentor=\(world.kari.id)&contactName=\(long)&contactAddress=Street+1"))
            #expect(response.status == .unprocessableContent)
            // Each field's error is beside it and tied to it, not only in the summary.
            let phone = String(repeating: "9", count: 61)
            let fields = try await client.execute(
                uri: "/coordinator/assignments", method: .post, headers: headers,
                body: ByteBuffer(
                    string:
                        "_csrf=\(csrf)&mentor=\(world.kari.id)&contactName=Per&contactAddress=Street+1&contactPhone=\(phone)&contactNotes=Bell%07here"
                ))
            #expect(fields.status == .unprocessableContent)
            for id in ["assignment-phone", "assignment-notes"] {
                #expect(
                    fields.text.contains(#"id="\#(id)""#) && fields.text.contains(#"aria-invalid="true" aria-describedby="\#(id)-error""#)
                        && fields.text.contains(#"<span class="field-error" id="\#(id)-error">"#), "\(id)")
            }
            let kind = try await client.execute(
                uri: "/coordinator/notifications", method: .post, headers: headers,
                body: ByteBuffer(string: "_csrf=\(csrf)&recipient=\(world.kari.id)&kind=party&title=t&body=b"))
            #expect(kind.status == .unprocessableContent && kind.text.contains(#"aria-describedby="send-kind-error""#), "\(kind.text)")
            #expect(try await world.repository.assignments(.mentor(world.kari.id, scope: .all)).isEmpty)
        }
    }

    @Test("enabledKinds may not repeat a kind (uniqueItems)")
    func uniqueKinds() async throws {
        let world = try await TestWorld()
        try await world.test { client in
            let kari = try await client.token("kari")
            try await client.call(
                .put, "/api/v1/preferences", token: kari,
                json: """
                    {"enabledKinds":["assignment","assignment"],"sound":true,"vibration":true,"systemNotifications":false,"speakPersonalDetails":false}
                    """
            ).expectProblem(.unprocessableContent)
        }
    }

    @Test("an unknown method on a known path is 405 with Allow; an unknown path stays 404")
    func methodNotAllowed() async throws {
        let world = try await TestWorld()
        try await world.test { client in
            let kari = try await client.token("kari")
            let response = try await client.call(.patch, "/api/v1/preferences", token: kari, json: "{}")
            try response.expectProblem(.methodNotAllowed)
            #expect(response.headers[.allow] == "GET, HEAD, PUT")
            let byID = try await client.call(.put, "/api/v1/notifications/3", token: kari, json: "{}")
            try byID.expectProblem(.methodNotAllowed)
            #expect(byID.headers[.allow] == "DELETE, GET, HEAD")
            // A literal segment wins over a parameter, as in routing: PATCH is /me/passkeys/{id}'s, not /me/passkeys/options's.
            let options = try await client.call(.patch, "/api/v1/me/passkeys/options", token: kari, json: "{}")
            try options.expectProblem(.methodNotAllowed)
            #expect(options.headers[.allow] == "POST")
            try await client.call(.get, "/api/v1/nowhere", token: kari).expectProblem(.notFound)
        }
    }

    @Test("HEAD answers wherever GET does, with its status and headers and no body; a HEAD of the stream opens none")
    func headMirrorsGet() async throws {
        let world = try await TestWorld()
        let (assignment, contact, item) = try await world.services.sender.assign(
            mentor: world.kari, coordinatorID: world.coordinator.id,
            contact: NewContact(name: "Per Olsen", phone: "900 00 000", address: "Torggata 3", notes: "Hører dårlig"), urgency: .normal)
        try await world.test { client in
            let kari = try await client.token("kari")
            for (path, token) in [
                ("/healthz", nil), ("/api/v1/preferences", kari), ("/api/v1/openapi.yaml", nil), ("/signin", nil),
                ("/api/v1/preferences", nil),
            ] as [(String, String?)] {
                let get = try await client.call(.get, path, token: token)
                let head = try await client.call(.head, path, token: token)
                #expect(head.status == get.status, "\(path)")
                #expect(head.body.readableBytes == 0, "\(path)")
                #expect(head.headers[.contentType] == get.headers[.contentType], "\(path)")
                #expect(head.headers[.contentLength] == String(get.body.readableBytes), "\(path)")
            }
            // HEAD is not answered where GET is not.
            let session = try await client.call(.head, "/api/v1/session", token: kari)
            try session.expectProblem(.methodNotAllowed)
            #expect(session.headers[.allow] == "DELETE, POST")

            let stream = try await client.call(.head, "/api/v1/events", token: kari)
            #expect(stream.status == .ok)
            #expect(stream.headers[.contentType] == "text/event-stream; charset=utf-8")
            #expect(stream.headers[.contentLength] == nil, "a stream has no length")
            #expect(world.services.broker.streamCount(userID: world.kari.id) == 0, "a HEAD opened a stream")
            try await client.call(.head, "/api/v1/events?player=nobody", token: kari).expectProblem(.badRequest)

            // A HEAD of a contact sends none of the details, so it records no read; a GET does.
            let coordinator = try await client.token("coord")
            #expect(try await client.call(.head, "/api/v1/contacts/\(contact.id)", token: coordinator).status == .ok)
            #expect(try await world.repository.contactReads(contactID: contact.id).isEmpty)
            let admin = try await client.token("admin")
            #expect(try await client.call(.head, "/api/v1/contacts/\(contact.id)/export", token: admin).status == .ok)
            #expect(try await world.repository.contactReads(contactID: contact.id).isEmpty)
            #expect(try await client.call(.get, "/api/v1/contacts/\(contact.id)", token: coordinator).status == .ok)
            #expect(try await world.repository.contactReads(contactID: contact.id).map(\.channel) == [.contactAPI])

            // A HEAD of the screens a notification leads to marks nothing read, and sets no cookie.
            let cookie = try await client.cookie("kari")
            let followed = "/contacts/\(contact.id)?assignment=\(assignment.id)&from=notification&notification=\(item.id)"
            let look = try await client.execute(uri: followed, method: .head, headers: [.cookie: cookie])
            #expect(look.status == .ok)
            #expect(look.headers[values: .setCookie].isEmpty)
            #expect(try await world.services.inbox.item(item.id, of: world.kari.id)?.isUnread == true, "a HEAD marked the assignment read")
            _ = try await client.execute(uri: followed, method: .get, headers: [.cookie: cookie])
            #expect(try await world.services.inbox.item(item.id, of: world.kari.id)?.isUnread == false)
        }
    }

    @Test("error messages name the field and never echo the value")
    func noEcho() async throws {
        let world = try await TestWorld()
        try await world.test { client in
            let coordinator = try await client.token("coord")
            let kari = try await client.token("kari")
            let responses = [
                try await client.call(
                    .post, "/api/v1/notifications", token: coordinator,
                    json: #"{"recipients":["kari"],"kind":"Kari Secretname","title":"t","body":"b"}"#),
                try await client.call(
                    .put, "/api/v1/preferences", token: kari,
                    json: """
                        {"enabledKinds":["Kari Secretname"],"sound":true,"vibration":true,"systemNotifications":false,"speakPersonalDetails":false}
                        """),
                try await client.call(.get, "/api/v1/notifications?filter=Kari%20Secretname", token: kari),
                try await client.call(
                    .post, "/api/v1/notifications", token: coordinator,
                    json: #"{"recipients":["kari"],"kind":"scenarioPrompt","title":"t","body":"b","urgency":"Kari Secretname"}"#),
            ]
            for response in responses {
                #expect(response.status.code >= 400)
                #expect(!response.text.contains("Secretname"), "\(response.text)")
            }
        }
    }
}

@Suite("Hardening: headers, cookies, metrics")
struct HeaderHardeningTests {
    @Test("every response says nosniff; personal and authenticated responses say no-store")
    func headersEverywhere() async throws {
        let world = try await TestWorld()
        let contact = try await world.repository.createAssignment(
            mentorID: world.kari.id, coordinatorID: world.coordinator.id,
            contact: NewContact(name: "Per", phone: "", address: "Gate 1", notes: ""),
            at: world.clock.now
        ) { _, _ in
            NewNotification(recipientID: world.kari.id, senderID: nil, kind: .assignment, title: "t", body: "b", deepLink: .pause)
        }.1
        try await world.test { client in
            let kari = try await client.token("kari")
            let responses = [
                try await client.call(.get, "/api/v1/contacts/\(contact.id)", token: kari),
                try await client.call(.get, "/api/v1/notifications", token: kari),
                try await client.call(.get, "/api/v1/nowhere", token: kari),
                try await client.call(.get, "/api/v1/me", token: nil),
                try await client.call(.get, "/static/varsel.css", token: nil),
                try await client.call(.get, "/healthz", token: nil),
            ]
            for response in responses {
                #expect(response.headers[.contentTypeOptions] == "nosniff")
            }
            for response in responses.prefix(4) {
                #expect(response.headers[.cacheControl] == "no-store")
            }
        }
    }

    @Test("the session cookie is Secure by default when the public URL is https")
    func secureCookieFromPublicURL() async throws {
        var configuration = VarselServices.Configuration()
        configuration.publicURL = URL(string: "https://varsel.example")
        let world = try await TestWorld(configuration: configuration)
        try await world.test { client in
            let form = "username=kari&password=\(TestWorld.password.replacingOccurrences(of: " ", with: "+"))"
            let response = try await client.execute(
                uri: "/signin", method: .post,
                headers: [.contentType: "application/x-www-form-urlencoded", .origin: "https://varsel.example"],
                body: ByteBuffer(string: form))
            #expect(response.status == .seeOther)
            #expect(response.headers[.setCookie]?.contains("Secure") == true)
        }
    }

    @Test("/metrics needs the metrics bearer token, and is off without one")
    func metricsNeedToken() async throws {
        let closed = try await TestWorld()
        try await closed.test { client in
            try await client.call(.get, "/metrics", token: nil).expectProblem(.unauthorized)
            try await client.call(.get, "/metrics", token: "any").expectProblem(.notFound)
        }
        var configuration = VarselServices.Configuration()
        configuration.metricsToken = "scrape-secret"
        let world = try await TestWorld(configuration: configuration)
        try await world.test { client in
            try await client.call(.get, "/metrics", token: nil).expectProblem(.unauthorized)
            try await client.call(.get, "/metrics", token: "wrong").expectProblem(.unauthorized)
            try await client.call(.get, "/metrics", token: try await client.token("admin")).expectProblem(.unauthorized)
            #expect(try await client.call(.get, "/metrics", token: "scrape-secret").status == .ok)
        }
    }
}

@Suite("Hardening: following a notification")
struct OpenHardeningTests {
    @Test("GET /notifications/{id}/open changes nothing; the target screen shown to its owner marks it read")
    func openHasNoSideEffect() async throws {
        let world = try await TestWorld()
        let created = try await world.repository.createNotifications(
            [
                NewNotification(
                    recipientID: world.kari.id, senderID: world.coordinator.id, kind: .pauseConfirmation, title: "Paused",
                    body: "b", deepLink: .pause)
            ], idempotencyKey: nil, at: world.clock.now)
        let id = created.items[0].id
        try await world.test { client in
            let kari = try await client.cookie("kari")
            let ola = try await client.cookie("ola")
            let open = try await client.execute(uri: "/notifications/\(id)/open", method: .get, headers: [.cookie: kari])
            #expect(open.status == .seeOther)
            let location = try #require(open.headers[.location])
            #expect(location == "/pause?from=notification&notification=\(id)")
            #expect(try await world.repository.notification(id: id)?.isUnread == true)
            // Someone else following the same link neither reads it nor learns anything.
            try await client.execute(uri: "/notifications/\(id)/open", method: .get, headers: [.cookie: ola]).expectProblem(.notFound)
            _ = try await client.execute(uri: location, method: .get, headers: [.cookie: ola])
            #expect(try await world.repository.notification(id: id)?.isUnread == true)
            // The owner lands on the screen, heading focused, and the notification is read.
            let page = try await client.execute(uri: location, method: .get, headers: [.cookie: kari])
            #expect(page.status == .ok)
            #expect(page.text.contains("data-focus-on-load"))
            #expect(try await world.repository.notification(id: id)?.isUnread == false)
        }
    }
}

@Suite("Titles are public by contract")
struct PublicTitleTests {
    @Test("a title naming a phrase listed as a personal detail is refused with 422 naming the field, never echoing it; nothing is stored")
    func titleNamingListedDetailRefused() async throws {
        let world = try await TestWorld()
        try await world.test { client in
            let coordinator = try await client.token("coord")
            let detail = try await client.call(
                .post, "/api/v1/notifications", token: coordinator,
                json: """
                    {"recipients":["kari"],"kind":"scenarioPrompt","title":"Visit ola privatnavn today","body":"Ola Privatnavn waits",
                     "personalDetails":["Ola Privatnavn"]}
                    """
            ).expectProblem(.unprocessableContent)
            #expect(detail.contains("title"))
            #expect(!detail.localizedCaseInsensitiveContains("Privatnavn"))
            // The send form applies the same rule, next to the Title field, without repeating the name.
            let (cookie, csrf) = try await client.cookieAndCSRF("coord")
            let form =
                "_csrf=\(csrf)&recipient=\(world.kari.id)&kind=scenarioPrompt&title=Call+Ola+Privatnavn&body=Ola+Privatnavn&personalDetails=Ola+Privatnavn"
            let page = try await client.execute(
                uri: "/coordinator/notifications", method: .post,
                headers: [.cookie: cookie, .contentType: "application/x-www-form-urlencoded"], body: ByteBuffer(string: form))
            #expect(page.status == .unprocessableContent)
            #expect(String(buffer: page.body).contains(#"id="send-title-error""#))
            #expect(try await world.repository.unreadCount(for: world.kari.id) == 0)
        }
    }

    @Test("the title is announced and shown on the lock screen; the body's listed details are neither, by default")
    func titleSpokenBodyWithDetailsHidden() async throws {
        let world = try await TestWorld()
        try await world.test { client in
            let (cookie, csrf) = try await client.cookieAndCSRF("coord")
            let form =
                "_csrf=\(csrf)&recipient=\(world.kari.id)&kind=scenarioPrompt&title=Stairs+drill&body=Practise+with+Ola+Privatnavn&personalDetails=Ola+Privatnavn%0D%0A"
            let sent = try await client.execute(
                uri: "/coordinator/notifications", method: .post,
                headers: [.cookie: cookie, .contentType: "application/x-www-form-urlencoded"], body: ByteBuffer(string: form))
            #expect(sent.status == .seeOther)
            let stored = try #require(try await world.repository.notifications(for: world.kari.id, filter: .all, after: nil, limit: 10).items.first)
            #expect(stored.personalDetails == ["Ola Privatnavn"])
            let describer = Describer(language: .english)
            #expect(describer.arrivalAnnouncement(for: stored, preferences: .standard).text == "New notification: Stairs drill")
            let lockScreen = try #require(describer.lockScreenNotification(for: stored, preferences: .standard))
            #expect(lockScreen.title == "Scenario prompt: Stairs drill")
            #expect(!lockScreen.body.contains("Privatnavn"))
        }
    }
}

extension TestClientProtocol {
    /// Signs in through the web form and returns the `Cookie` header value.
    func cookie(_ username: String) async throws -> String {
        try await cookieAndCSRF(username).cookie
    }

    /// Signs in through the API and returns the `Cookie` header value and the session's CSRF token.
    func cookieAndCSRF(_ username: String) async throws -> (cookie: String, csrf: String) {
        let response = try await execute(
            uri: "/api/v1/session", method: .post, headers: [.contentType: "application/json"],
            body: ByteBuffer(string: #"{"username":"\#(username)","password":"\#(TestWorld.password)"}"#))
        let session = try response.decode(SignInBody.self)
        return ("\(sessionCookieName)=\(session.token)", session.csrfToken)
    }
}
