import Foundation
import HTTPTypes
import Hummingbird
import Testing
import VarselCore
import VarselPush
import VarselService
import VarselStore

@testable import VarselWeb

/// Every route the router serves × who asks: anonymous, the owner (mentor Ola, whose notification, assignment,
/// contact and certifications the ids name), another mentor (Kari), a coordinator, an admin.
///
/// The routes come from the router itself, so adding a route without adding its row here fails
/// ``everyRouteHasARow()``. API routes are called with a bearer token, pages with the session cookie and the
/// form's CSRF field.
@Suite("Authorization matrix: every route × role × owner")
struct AuthorizationMatrixTests {
    /// Expected statuses for anonymous, owner, other mentor, coordinator, admin.
    struct Row {
        var anonymous: Int
        var owner: Int
        var otherMentor: Int
        var coordinator: Int
        var admin: Int
        /// The body to send (JSON for the API, a form for pages; `{csrf}` is replaced by the caller's token).
        var body: String?
        var headers: HTTPFields = [:]

        init(_ anonymous: Int, _ owner: Int, _ otherMentor: Int, _ coordinator: Int, _ admin: Int, body: String? = nil, headers: HTTPFields = [:]) {
            self.anonymous = anonymous
            self.owner = owner
            self.otherMentor = otherMentor
            self.coordinator = coordinator
            self.admin = admin
            self.body = body
            self.headers = headers
        }

        /// The same answer for everyone signed in; `anonymous` for the rest.
        static func signedIn(_ anonymous: Int, _ status: Int, body: String? = nil, headers: HTTPFields = [:]) -> Row {
            Row(anonymous, status, status, status, status, body: body, headers: headers)
        }
    }

    static let signIn = #"{"username":"kari","password":"\#(TestWorld.password)"}"#
    static let form = "_csrf={csrf}"
    static let preferences =
        #"{"enabledKinds":["assignment"],"sound":true,"vibration":true,"systemNotifications":false,"speakPersonalDetails":false}"#
    /// A subscription as a browser sends it; the keys are RFC 8291's example receiver's.
    static let pushSubscription =
        #"{"endpoint":"https://push.example.net/wpush/abc","keys":{"p256dh":"BCVxsr7N_eNgVRqvHtD0zTZsEc6-VV-JvLexhqUzORcxaOzi6-AYWXvTBHm4bjyPjs7Vd8pZGH6SRpkNtoIAiw4","auth":"BTBZMqHH6r4Tts7J_aSIgg"}}"#
    static let signInForm = "username=kari&password=\(TestWorld.password.replacingOccurrences(of: " ", with: "+"))"

    /// One row per route, keyed `METHOD /path` as the router spells it.
    static let matrix: [String: Row] = [
        "GET /healthz": .signedIn(200, 200),
        "GET /readyz": .signedIn(200, 200),
        "GET /metrics": .signedIn(401, 401),
        "GET /api/v1/openapi.yaml": .signedIn(200, 200),
        "POST /api/v1/session": .signedIn(201, 201, body: signIn),
        "DELETE /api/v1/session": .signedIn(401, 204),
        "GET /api/v1/me": .signedIn(401, 200),
        "PUT /api/v1/me/password": .signedIn(401, 204, body: #"{"currentPassword":"\#(TestWorld.password)","newPassword":"another long one"}"#),
        "GET /api/v1/notifications": .signedIn(401, 200),
        "GET /api/v1/notifications/unread-count": .signedIn(401, 200),
        "POST /api/v1/notifications": Row(401, 403, 403, 201, 201, body: #"{"recipients":["kari"],"kind":"scenarioPrompt","title":"t","body":"b"}"#),
        "GET /api/v1/scheduled-sends": Row(401, 403, 403, 200, 200),
        "GET /api/v1/scheduled-sends/{id}": Row(401, 403, 403, 404, 404),
        "PATCH /api/v1/scheduled-sends/{id}": Row(401, 403, 403, 404, 404, body: #"{"title":"t"}"#),
        "DELETE /api/v1/scheduled-sends/{id}": Row(401, 403, 403, 404, 404),
        "POST /api/v1/notifications/read-all": .signedIn(401, 200),
        "POST /api/v1/notifications/bulk": .signedIn(401, 200, body: #"{"action":"read","ids":[1]}"#),
        "GET /api/v1/notifications/{id}": Row(401, 200, 404, 404, 404),
        "POST /api/v1/notifications/{id}/read": Row(401, 200, 404, 404, 404),
        "POST /api/v1/notifications/{id}/unread": Row(401, 200, 404, 404, 404),
        "DELETE /api/v1/notifications/{id}": Row(401, 204, 404, 404, 404),
        "GET /api/v1/preferences": .signedIn(401, 200),
        "PUT /api/v1/preferences": .signedIn(401, 200, body: preferences),
        "POST /api/v1/assignments": Row(
            401, 403, 403, 201, 201, body: #"{"mentor":"ola","contact":{"name":"N","phone":"","address":"A","notes":""}}"#),
        "GET /api/v1/assignments/{id}": Row(401, 200, 404, 200, 200),
        "POST /api/v1/assignments/{id}/acknowledge": Row(401, 200, 404, 403, 403),
        "POST /api/v1/assignments/{id}/decline": Row(401, 200, 404, 403, 403),
        "GET /api/v1/contacts/{id}": Row(401, 200, 404, 200, 200),
        "GET /api/v1/contacts/{id}/reads": Row(401, 404, 404, 200, 200),
        "GET /api/v1/contacts/{id}/export": Row(401, 404, 404, 404, 200),
        "GET /api/v1/me/export": .signedIn(401, 200),
        // The coordinator erases the details; the admin may erase again (nothing more changes).
        "POST /api/v1/contacts/{id}/erase": Row(401, 404, 404, 200, 200),
        "POST /contacts/{id}/erase": Row(303, 404, 404, 303, 303, body: form),
        "POST /api/v1/pause": Row(401, 201, 201, 403, 403, body: #"{"until":"2031-06-01"}"#),
        "DELETE /api/v1/pause": Row(401, 204, 204, 403, 403),
        "PUT /api/v1/me/language": .signedIn(401, 200, body: #"{"language":"nb"}"#),
        // The assignment waits for an answer, so its mentor's "done" passes authorization and is refused as too early.
        "POST /api/v1/assignments/{id}/done": Row(401, 409, 404, 403, 403, body: #"{"note":"Went well."}"#),
        // The coordinator who made it reassigns it (to Kari); the admin then finds it already reassigned.
        "POST /api/v1/assignments/{id}/reassign": Row(401, 403, 404, 201, 409, body: #"{"mentor":"kari"}"#),
        "GET /api/v1/scenarios": .signedIn(401, 200),
        "POST /api/v1/scenarios": Row(401, 403, 403, 201, 201, body: #"{"title":"A first visit","body":"Try it."}"#),
        "GET /api/v1/scenarios/{id}": Row(401, 200, 404, 200, 200),
        "POST /api/v1/scenarios/{id}/done": Row(401, 200, 404, 403, 403, body: #"{"reflection":"I listened first."}"#),
        "GET /api/v1/mentors/{id}/certifications": Row(401, 200, 404, 200, 200),
        "PUT /api/v1/mentors/{id}/certifications": Row(401, 403, 403, 200, 200, body: #"[{"name":"First aid","expiresOn":"2031-06-01"}]"#),
        "GET /api/v1/users": Row(401, 403, 403, 200, 200),
        "POST /api/v1/users": Row(401, 403, 403, 403, 201, body: #"{"username":"newcomer","password":"long enough pw","role":"mentor"}"#),
        // A stream never ends, so signed-in callers send a bad Last-Event-ID: 400 shows they got past authorization.
        "GET /api/v1/events": .signedIn(401, 400, headers: [.init("Last-Event-ID")!: "x"]),
        "GET /api/v1/push/public-key": .signedIn(200, 200),
        "GET /api/v1/push-subscriptions": .signedIn(401, 200),
        "POST /api/v1/push-subscriptions": .signedIn(401, 201, body: pushSubscription),
        "DELETE /api/v1/push-subscriptions/{id}": Row(401, 204, 404, 404, 404),
        // The push's token is the credential, whoever calls: the first call (anonymous) acknowledges, the rest find it answered.
        "POST /api/v1/push-subscriptions/{id}/acknowledge": Row(
            200, 409, 409, 409, 409, body: #"{"assignmentID":{assignment},"token":"{ackToken}"}"#),
        // The same for a shown receipt: the first records it, every later one is a repeat.
        "POST /api/v1/push-subscriptions/{id}/receipts": Row(
            204, 409, 409, 409, 409, body: #"{"notificationID":{notification},"token":"{shownToken}"}"#),
        "GET /sw.js": .signedIn(200, 200),
        "GET /offline": .signedIn(200, 200),
        "GET /static/{name}": .signedIn(200, 200),
        "GET /signin": .signedIn(200, 200),
        "POST /signin": .signedIn(303, 303, body: signInForm),
        "POST /signout": .signedIn(303, 303, body: form),
        "GET /": .signedIn(303, 200),
        "GET /assignments": .signedIn(303, 200),
        "GET /contacts": .signedIn(303, 200),
        "GET /profile": .signedIn(303, 200),
        "GET /notifications": .signedIn(303, 200),
        "GET /notifications/{id}/open": Row(303, 303, 404, 404, 404),
        "POST /notifications/read-all": .signedIn(303, 303, body: form),
        "POST /notifications/bulk": .signedIn(303, 303, body: form + "&ids%5B%5D=1&action=read"),
        "GET /settings": .signedIn(303, 200),
        "POST /settings": .signedIn(303, 303, body: form + "&sound=on"),
        "GET /contacts/{id}": Row(303, 200, 404, 200, 200),
        "POST /assignments/{id}/acknowledge": Row(303, 303, 404, 404, 404, body: form),
        "POST /assignments/{id}/decline": Row(303, 303, 404, 404, 404, body: form),
        "GET /certifications": .signedIn(303, 200),
        "GET /certifications/{id}": .signedIn(303, 200),
        "GET /pause": .signedIn(303, 200),
        "GET /scenarios": .signedIn(303, 200),
        "GET /scenarios/{id}": Row(303, 200, 404, 200, 200),
        "POST /scenarios/{id}/done": Row(303, 303, 404, 403, 403, body: form + "&reflection=I+listened"),
        "POST /coordinator/scenarios": Row(303, 403, 403, 303, 303, body: form + "&title=T&body=B&audience=all"),
        "POST /profile/pause": Row(303, 303, 303, 403, 403, body: form + "&until=2031-06-01"),
        "POST /profile/pause/end": Row(303, 303, 303, 403, 403, body: form),
        "POST /profile/language": .signedIn(303, 303, body: form + "&language=en"),
        "POST /profile/password": .signedIn(303, 303, body: form + "&currentPassword={password}&newPassword=another+long+one"),
        "POST /assignments/{id}/done": Row(303, 409, 404, 403, 403, body: form + "&note=ok"),
        "POST /assignments/{id}/reassign": Row(303, 403, 403, 303, 409, body: form + "&mentor={kari}"),
        "GET /coordinator": Row(303, 403, 403, 200, 200),
        "GET /coordinator/assignments": Row(303, 403, 403, 200, 200),
        "GET /api/v1/assignments": .signedIn(401, 200),
        "POST /coordinator/notifications": Row(303, 403, 403, 303, 303, body: form + "&recipient={kari}&kind=scenarioPrompt&title=Hi&body=b"),
        // No send is scheduled in this world: every role that may see one is told there is no such send.
        "GET /coordinator/scheduled/{id}": Row(303, 403, 403, 404, 404),
        "POST /coordinator/scheduled/{id}": Row(303, 403, 403, 404, 404, body: form + "&title=T&body=&sendTime=08:00"),
        "POST /coordinator/scheduled/{id}/cancel": Row(303, 403, 403, 404, 404, body: form),
        "POST /coordinator/assignments": Row(303, 403, 403, 303, 303, body: form + "&mentor={ola}&contactName=N&contactAddress=A"),
        // People: {id} is Ola's, but deactivation's is Kari's (Ola still signs in as the owner afterwards).
        "GET /people": Row(303, 403, 403, 200, 200),
        "GET /people/new": Row(303, 403, 403, 200, 200),
        // The coordinator adds the newcomer; the admin then finds the username taken.
        // Added: a redirect to the page that shows the new link (the admin then finds the username taken).
        "POST /people": Row(303, 403, 403, 303, 409, body: form + "&username=newcomer&displayName=New+Comer&role=mentor&language=en"),
        "GET /people/{id}": Row(303, 403, 403, 200, 200),
        "POST /people/{id}/link": Row(303, 403, 403, 303, 303, body: form),
        // Without the link handed over from the form, the person's page says it was shown once.
        "GET /people/{id}/link": Row(303, 403, 403, 303, 303),
        "POST /people/{id}/deactivate": Row(303, 403, 403, 303, 303, body: form),
        "POST /people/{id}/reactivate": Row(303, 403, 403, 303, 303, body: form),
        "POST /people/{id}/role": Row(303, 403, 403, 403, 303, body: form + "&role=mentor"),
        "POST /people/{id}/certifications": Row(303, 403, 403, 303, 303, body: form + "&name=Guide&expiresOn=2031-06-01"),
        "POST /people/{id}/certifications/{certification}/renew": Row(303, 403, 403, 303, 303, body: form + "&expiresOn=2031-06-01"),
        // The coordinator removes it; the admin then finds it gone.
        "POST /people/{id}/certifications/{certification}/remove": Row(303, 403, 403, 303, 404, body: form),
        // Integration tokens: administrators only. Without the handed-over token, its page sends the admin back to the list.
        // A code goes out once a minute per channel: each caller sets their own channel (or, as coordinator and admin,
        // Ola's), in the order anonymous, other mentor, coordinator, admin, owner.
        "GET /api/v1/me/channels": .signedIn(401, 200),
        "PUT /api/v1/me/channels/{channel}": .signedIn(401, 202, body: #"{"address":"912 34 567"}"#),
        "DELETE /api/v1/me/channels/{channel}": .signedIn(401, 404),
        "POST /api/v1/me/channels/{channel}/verification": .signedIn(401, 409, body: #"{"code":"123456"}"#),
        "GET /api/v1/users/{id}/channels": Row(401, 403, 403, 200, 200),
        "PUT /api/v1/users/{id}/channels/{channel}": Row(401, 403, 403, 202, 429, body: #"{"address":"912 34 567"}"#),
        "POST /profile/channels/{channel}": .signedIn(303, 303, body: form + "&address=912+34+567"),
        "POST /profile/channels/{channel}/verify": .signedIn(303, 422, body: form + "&code=123456"),
        "POST /profile/channels/{channel}/remove": .signedIn(303, 303, body: form),
        "POST /people/{id}/channels/{channel}": Row(303, 403, 403, 303, 422, body: form + "&address=912+34+567"),
        "GET /integrations": Row(303, 403, 403, 403, 200),
        "POST /integrations": Row(303, 403, 403, 403, 303, body: form + "&name=Member+system&role=coordinator"),
        "GET /integrations/{id}/token": Row(303, 403, 403, 403, 303),
        "POST /integrations/{id}/revoke": Row(303, 403, 403, 403, 303, body: form),
        // Webhooks: administrators only; adding one answers with the page that shows its secret.
        "GET /integrations/{id}/webhooks": Row(303, 403, 403, 403, 200),
        "POST /integrations/{id}/webhooks": Row(
            303, 403, 403, 403, 200, body: form + "&url=https%3A%2F%2Fhooks.example.org%2Fvarsel&events%5B%5D=assignment.created"),
        "POST /integrations/{id}/webhooks/{endpoint}/remove": Row(303, 403, 403, 403, 303, body: form),
        "GET /password": .signedIn(200, 200),
        // An unknown code, whoever asks (the page is anonymous: a session cookie is not used).
        "GET /password/{code}": .signedIn(404, 404),
        "POST /password/{code}": .signedIn(404, 404, body: "password=long+enough+pw&repeated=long+enough+pw"),
        "GET /api/v1/users/{id}": Row(401, 403, 403, 200, 200),
        "GET /api/v1/users/{id}/changes": Row(401, 403, 403, 200, 200),
        "POST /api/v1/users/{id}/password-link": Row(401, 403, 403, 201, 201),
        "POST /api/v1/users/{id}/deactivate": Row(401, 403, 403, 200, 200),
        "POST /api/v1/users/{id}/reactivate": Row(401, 403, 403, 200, 200),
        "PUT /api/v1/users/{id}/role": Row(401, 403, 403, 403, 200, body: #"{"role":"mentor"}"#),
        "POST /api/v1/password": .signedIn(404, 404, body: #"{"code":"ABCD-EFGH-JKMN","password":"long enough pw"}"#),
        // Passkeys: {id} is Ola's. A ceremony with no challenge in it is refused after authorization: 422 adding, 401 signing in.
        "POST /api/v1/me/passkeys/options": .signedIn(401, 200, body: "{}"),
        "POST /api/v1/me/passkeys": .signedIn(
            401, 422,
            body: #"{"name":"Phone","credential":{"id":"AAAA","type":"public-key","response":{"clientDataJSON":"e30","attestationObject":"oA"}}}"#),
        "GET /api/v1/me/passkeys": .signedIn(401, 200),
        "PATCH /api/v1/me/passkeys/{id}": Row(401, 200, 404, 404, 404, body: #"{"name":"Phone"}"#),
        "DELETE /api/v1/me/passkeys/{id}": Row(401, 204, 404, 404, 404),
        "POST /api/v1/session/passkey/options": .signedIn(200, 200, body: "{}"),
        "POST /api/v1/session/passkey": .signedIn(
            401, 401,
            body: #"{"credential":{"id":"AAAA","type":"public-key","response":{"clientDataJSON":"e30","authenticatorData":"AA","signature":"AA"}}}"#),
        "POST /profile/passkeys/{id}/rename": Row(303, 303, 404, 404, 404, body: form + "&name=Phone"),
        "POST /profile/passkeys/{id}/remove": Row(303, 303, 404, 404, 404, body: form),
        // An unknown code, whoever asks: the link is the credential.
        "POST /api/v1/password/passkey/options": .signedIn(404, 404, body: #"{"code":"ABCD-EFGH-JKMN"}"#),
        "POST /api/v1/password/passkey": .signedIn(
            404, 404,
            body:
                #"{"code":"ABCD-EFGH-JKMN","name":"Phone","credential":{"id":"AAAA","type":"public-key","response":{"clientDataJSON":"e30","attestationObject":"oA"}}}"#
        ),
    ]

    /// The routes the router serves, spelled `METHOD /path`, without the HEAD twins of GET routes.
    static func servedRoutes() async throws -> Set<String> {
        let world = try await TestWorld()
        let router = try await VarselRouter.build(services: world.services)
        return Set(
            router.routes.filter { $0.method != .head }.map { route in
                let path = route.path.description
                return "\(route.method.rawValue) \(path.hasPrefix("/") ? path : "/" + path)"
            })
    }

    @Test("every route the router serves has a row, and every row is a served route")
    func everyRouteHasARow() async throws {
        let served = try await Self.servedRoutes()
        let rows = Set(Self.matrix.keys)
        #expect(served.count > 40)
        #expect(served.subtracting(rows).isEmpty, "routes without a row: \(served.subtracting(rows).sorted())")
        #expect(rows.subtracting(served).isEmpty, "rows for no route: \(rows.subtracting(served).sorted())")
    }

    @Test("each route answers each caller as its row says", arguments: Self.matrix.keys.sorted())
    func routeAnswersEachCaller(_ route: String) async throws {
        let row = try #require(Self.matrix[route])
        let parts = route.split(separator: " ", maxSplits: 1)
        let method = HTTPRequest.Method(String(parts[0]))!
        let pattern = String(parts[1])
        // A fresh world per route: one caller's change (a deletion, a sign-out) cannot decide another's answer.
        var configuration = VarselServices.Configuration()
        configuration.metricsToken = "scrape-secret"
        configuration.publicURL = URL(string: "http://localhost:8080")
        let world = try await TestWorld(configuration: configuration)
        let (assignment, contact, item) = try await world.repository.createAssignment(
            mentorID: world.ola.id, coordinatorID: world.coordinator.id,
            contact: NewContact(name: "Per Olsen", phone: "1", address: "Torggata 3", notes: ""), at: world.clock.now
        ) { contactID, assignmentID in
            NewNotification(
                recipientID: world.ola.id, senderID: world.coordinator.id, kind: .assignment, title: "New assignment", body: "b",
                deepLink: .contact(contactID: contactID, assignmentID: assignmentID), personalDetails: ["Per Olsen"])
        }
        let (scenario, _) = try await world.repository.publishScenario(
            title: "A first visit", body: "Try it.", coordinatorID: world.coordinator.id, mentorIDs: [world.ola.id], at: world.clock.now
        ) { scenarioID, mentorID in
            NewNotification(
                recipientID: mentorID, senderID: world.coordinator.id, kind: .scenarioPrompt, title: "Scenario", body: "b",
                deepLink: .scenario(scenarioID: scenarioID))
        }
        // Ola's phone, subscribed from a session of its own.
        try await world.repository.createSession(
            Session(
                tokenHash: "ola-phone", userID: world.ola.id, csrfToken: "c",
                createdAt: world.clock.now, expiresAt: world.clock.now.addingTimeInterval(3600)))
        let subscription = try await world.repository.savePushSubscription(
            NewPushSubscription(
                userID: world.ola.id, sessionTokenHash: "ola-phone", endpoint: "https://push.example.net/wpush/ola",
                p256dh: Base64URL.decode("BCVxsr7N_eNgVRqvHtD0zTZsEc6-VV-JvLexhqUzORcxaOzi6-AYWXvTBHm4bjyPjs7Vd8pZGH6SRpkNtoIAiw4") ?? Data(),
                auth: Data(repeating: 1, count: 16), actionSecret: PushActionToken.newSecret()), at: world.clock.now)
        let acknowledgeToken = PushActionToken.acknowledge(assignmentID: assignment.id, subscription: subscription)
        try await world.repository.recordPushAccepted(subscriptionID: subscription.id, notificationID: item.id, at: world.clock.now)
        let shownToken = PushActionToken.shown(notificationID: item.id, subscription: subscription)
        let certification = try #require(
            try await world.repository.changeAccount(
                userID: world.ola.id,
                .certifications(
                    [NewCertification(name: "First aid", expiresAt: try Validation.day("2031-06-01", field: "expiresOn"))]), log: [],
                at: world.clock.now
            ).certifications.first)
        let passkey = try await world.repository.addPasskey(
            NewPasskey(
                userID: world.ola.id, credentialID: "ola-passkey", publicKey: Data([0xA0]),
                signCount: 0, name: "Ola's phone"), at: world.clock.now)
        let integration = try await world.repository.createIntegration(
            NewUser(username: "integration-matrix", displayName: "Member system", role: .coordinator, passwordHash: "", language: .english),
            tokenHash: "matrix-token", by: world.admin.id, at: world.clock.now)
        let endpoint = try await world.repository.createWebhookEndpoint(
            NewWebhookEndpoint(
                integrationID: integration.id, url: "https://hooks.example.org/varsel", events: [.assignmentCreated], secret: Data(count: 32),
                createdBy: world.admin.id), at: world.clock.now)
        let id: String =
            switch true {
            case pattern.contains("/passkeys/{id}"): "\(passkey.id)"
            case pattern.contains("/integrations/{id}"): "\(integration.id)"
            case pattern.hasSuffix("/deactivate"): "\(world.kari.id)"
            case pattern.contains("/people/{id}"), pattern.contains("/users/{id}"): "\(world.ola.id)"
            case pattern.contains("/push-subscriptions/{id}"): "\(subscription.id)"
            case pattern.contains("/notifications/{id}"): "\(item.id)"
            case pattern.contains("/assignments/{id}"): "\(assignment.id)"
            case pattern.contains("/contacts/{id}"): "\(contact.id)"
            case pattern.contains("/mentors/{id}"): "\(world.ola.id)"
            case pattern.contains("/scenarios/{id}"): "\(scenario.id)"
            default: "1"
            }
        let path = pattern.replacingOccurrences(of: "{id}", with: id).replacingOccurrences(of: "{name}", with: "varsel.css")
            .replacingOccurrences(of: "{certification}", with: "\(certification.id)").replacingOccurrences(of: "{code}", with: "ABCD-EFGH-JKMN")
            .replacingOccurrences(of: "{channel}", with: "sms").replacingOccurrences(of: "{endpoint}", with: "\(endpoint.id)")
        let isAPI = path.hasPrefix("/api/") || path == "/metrics"
        try await world.test { client in
            let callers: [(String, String?, Int)] = [
                ("anonymous", nil, row.anonymous), ("other mentor", "kari", row.otherMentor),
                ("coordinator", "coord", row.coordinator), ("admin", "admin", row.admin),
                ("owner", "ola", row.owner),
            ]
            for (name, username, expected) in callers {
                var headers = row.headers
                var body = row.body?.replacingOccurrences(of: "{kari}", with: "\(world.kari.id)")
                    .replacingOccurrences(of: "{ola}", with: "\(world.ola.id)")
                    .replacingOccurrences(of: "{assignment}", with: "\(assignment.id)")
                    .replacingOccurrences(of: "{ackToken}", with: acknowledgeToken)
                    .replacingOccurrences(of: "{shownToken}", with: shownToken)
                    .replacingOccurrences(of: "{notification}", with: "\(item.id)")
                    .replacingOccurrences(of: "{password}", with: TestWorld.password.replacingOccurrences(of: " ", with: "+"))
                if let username {
                    let (cookie, csrf) = try await client.cookieAndCSRF(username)
                    if isAPI {
                        headers[.authorization] = "Bearer \(cookie.split(separator: "=", maxSplits: 1)[1])"
                    } else {
                        headers[.cookie] = cookie
                        body = body?.replacingOccurrences(of: "{csrf}", with: csrf)
                    }
                }
                if body != nil {
                    headers[.contentType] = isAPI ? "application/json" : "application/x-www-form-urlencoded"
                }
                let response = try await client.execute(uri: path, method: method, headers: headers, body: body.map { ByteBuffer(string: $0) })
                #expect(Int(response.status.code) == expected, "\(route) as \(name): \(response.status) \(response.text.prefix(200))")
                // A refusal names no contact. A form sent back with what to correct (422) is the page itself, shown to
                // someone it may show: a coordinator's or admin's page of a person lists that person's assignments.
                let isCorrectedForm = !isAPI && response.status.code == 422 && ["coordinator", "admin"].contains(name)
                if response.status.code >= 400 && !isCorrectedForm {
                    #expect(!response.text.contains("Per Olsen") && !response.text.contains("Torggata"), "\(route) as \(name) leaked the contact")
                }
            }
        }
    }
}
