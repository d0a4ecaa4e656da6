import Foundation
import HTTPTypes
import Hummingbird
import Testing
import VarselCore
import VarselLive
import VarselService
import VarselStore

@testable import VarselWeb

struct ListBody: Decodable {
    var items: [NotificationResource]
    var nextCursor: String?
    var unreadCount: Int
}

struct CreatedBody: Decodable {
    var items: [Item]
    struct Item: Decodable {
        var id: NotificationID
        var recipientId: UserID
    }
}

struct OutcomeBody: Decodable {
    var count: Int
    var outcome: String
    var announcement: AnnouncementResource
}

@Suite("JSON API")
struct APITests {
    @Test("sign in, me, sign out; a wrong password is a 401 problem")
    func sessionLifecycle() async throws {
        let world = try await TestWorld()
        try await world.test { client in
            let token = try await client.token("kari")
            let me = try await client.call(.get, "/api/v1/me", token: token)
            #expect(try me.decode(UserResource.self).username == "kari")
            #expect(!me.text.contains("passwordHash"))
            #expect(try await client.call(.delete, "/api/v1/session", token: token).status == .noContent)
            try await client.call(.get, "/api/v1/me", token: token).expectProblem(.unauthorized)
            let wrong = try await client.call(.post, "/api/v1/session", token: nil, json: #"{"username":"kari","password":"nope"}"#)
            let detail = try wrong.expectProblem(.unauthorized)
            #expect(detail == "The username or password is wrong.")
        }
    }

    @Test("repeated failed sign-ins are slowed down with 429 and Retry-After")
    func loginThrottle() async throws {
        let world = try await TestWorld()
        try await world.test { client in
            for _ in 0..<5 {
                try await client.call(.post, "/api/v1/session", token: nil, json: #"{"username":"kari","password":"nope"}"#).expectProblem(
                    .unauthorized)
            }
            let slowed = try await client.call(
                .post, "/api/v1/session", token: nil, json: #"{"username":"kari","password":"\#(TestWorld.password)"}"#)
            try slowed.expectProblem(.tooManyRequests)
            #expect(slowed.headers[.retryAfter] == "1")
            world.clock.advance(by: 2)
            #expect(
                try await client.call(.post, "/api/v1/session", token: nil, json: #"{"username":"kari","password":"\#(TestWorld.password)"}"#).status
                    == .created)
        }
    }

    @Test("the list carries 003's list-item phrase and the count carries the tab phrase")
    func listAndCountPhrases() async throws {
        let world = try await TestWorld()
        let kari = world.kari!
        for entry in DemoData.entries(.english).reversed() {
            let item = try await world.repository.createNotifications(
                [
                    NewNotification(
                        recipientID: kari.id, senderID: nil, kind: entry.kind, title: entry.title, body: entry.body,
                        deepLink: entry.deepLink(contactID: 1), personalDetails: entry.personalDetails)
                ], idempotencyKey: nil, at: world.clock.now.addingTimeInterval(-entry.age)
            ).items[0]
            if entry.isRead { _ = try await world.repository.setRead(true, notificationID: item.id, userID: kari.id, at: world.clock.now) }
        }
        try await world.test { client in
            let token = try await client.token("kari")
            let list = try await client.call(.get, "/api/v1/notifications", token: token).decode(ListBody.self)
            // 003_6ff2725032226ce3.txt, criterion 1: '[type]: [title], [body], [time ago], [read/unread]'
            #expect(
                list.items[0].accessibility.label == "Assignment: New assignment, Visit Kari Nordmann at Storgata 1 on Tuesday, 5 minutes ago, unread"
            )
            #expect(list.items[0].deepLink.focusElementId == "contact-name-heading")
            #expect(list.unreadCount == 3)
            let count = try await client.call(.get, "/api/v1/notifications/unread-count", token: token).decode(UnreadCountResource.self)
            // 003, criterion 2: 'Notifications, 3 unread, tab, 5 of 5'
            #expect(count.badge.phrase == "Notifications, 3 unread, tab, 5 of 5")
            let assignments = try await client.call(.get, "/api/v1/notifications?filter=assignment", token: token).decode(ListBody.self)
            #expect(assignments.items.map(\.kind) == [.assignment, .assignment])
            let page = try await client.call(.get, "/api/v1/notifications?limit=2", token: token).decode(ListBody.self)
            let cursor = try #require(page.nextCursor)
            let next = try await client.call(.get, "/api/v1/notifications?limit=2&cursor=\(cursor)", token: token).decode(ListBody.self)
            #expect(Set(page.items.map(\.id)).isDisjoint(with: next.items.map(\.id)))
            #expect(next.items.count == 2)
        }
    }

    @Test("a coordinator creates for several recipients by id or username; the Norwegian mentor gets Norwegian phrases")
    func createForSeveral() async throws {
        let world = try await TestWorld()
        try await world.test { client in
            let coordinator = try await client.token("coord")
            let response = try await client.call(
                .post, "/api/v1/notifications", token: coordinator,
                json: #"{"recipients":[\#(world.kari.id),"ola"],"kind":"scenarioPrompt","title":"Ny øvelse","body":"Les den"}"#)
            #expect(response.status == .created)
            #expect(try response.decode(CreatedBody.self).items.map(\.recipientId) == [world.kari.id, world.ola.id])
            let ola = try await client.token("ola")
            let list = try await client.call(.get, "/api/v1/notifications", token: ola).decode(ListBody.self)
            #expect(list.items[0].accessibility.label == "Scenariooppgave: Ny øvelse, Les den, akkurat nå, ulest")
            // 003_6ff2725032226ce3.txt criterion 6: "New notification: [title]", in the reader's language.
            #expect(list.items[0].accessibility.announcement == AnnouncementResource(text: "Nytt varsel: Ny øvelse", politeness: .polite))
        }
    }

    @Test("an Idempotency-Key retry returns the first result and creates nothing; another body under it is refused")
    func idempotentCreate() async throws {
        let world = try await TestWorld()
        try await world.test { client in
            let coordinator = try await client.token("coord")
            let body = #"{"recipients":["kari"],"kind":"certificationExpiry","title":"Renew","body":"Soon","urgency":"urgent"}"#
            let first = try await client.call(
                .post, "/api/v1/notifications", token: coordinator, json: body, headers: [.init("Idempotency-Key")!: "retry-1"])
            let second = try await client.call(
                .post, "/api/v1/notifications", token: coordinator, json: body, headers: [.init("Idempotency-Key")!: "retry-1"])
            #expect(first.status == .created)
            #expect(second.status == .ok)
            #expect(second.headers[.init("Idempotent-Replayed")!] == "true")
            #expect(try first.decode(CreatedBody.self).items.map(\.id) == second.decode(CreatedBody.self).items.map(\.id))
            #expect(try await world.repository.unreadCount(for: world.kari.id) == 1)
            let other = try await client.call(
                .post, "/api/v1/notifications", token: coordinator,
                json: body.replacingOccurrences(of: "Soon", with: "Later"), headers: [.init("Idempotency-Key")!: "retry-1"])
            try other.expectProblem(.unprocessableContent)
            #expect(try await world.repository.unreadCount(for: world.kari.id) == 1)
        }
    }

    @Test("mark all as read says how many, and says when there was nothing to do (002)")
    func readAllOutcomes() async throws {
        let world = try await TestWorld()
        _ = try await world.repository.createNotifications(
            [NewNotification(recipientID: world.kari.id, senderID: nil, kind: .pauseConfirmation, title: "P", body: "", deepLink: .pause)],
            idempotencyKey: nil, at: world.clock.now)
        try await world.test { client in
            let token = try await client.token("kari")
            let first = try await client.call(.post, "/api/v1/notifications/read-all", token: token).decode(OutcomeBody.self)
            #expect(first.count == 1)
            #expect(first.outcome == "done")
            #expect(first.announcement.text == "1 notification marked as read")
            let second = try await client.call(.post, "/api/v1/notifications/read-all", token: token).decode(OutcomeBody.self)
            #expect(second.outcome == "nothingToDo")
            #expect(second.announcement.text == "No unread notifications, nothing to mark as read")
        }
    }

    @Test("read, unread, bulk and delete on one's own notifications")
    func readStateChanges() async throws {
        let world = try await TestWorld()
        let items = try await world.repository.createNotifications(
            (1...3).map { _ in
                NewNotification(
                    recipientID: world.kari.id, senderID: nil, kind: .scenarioPrompt, title: "S", body: "", deepLink: .scenario(scenarioID: nil))
            }, idempotencyKey: nil, at: world.clock.now
        ).items
        try await world.test { client in
            let token = try await client.token("kari")
            let read = try await client.call(.post, "/api/v1/notifications/\(items[0].id)/read", token: token).decode(NotificationResource.self)
            #expect(!read.isUnread)
            #expect(read.accessibility.readState == "read")
            let unread = try await client.call(.post, "/api/v1/notifications/\(items[0].id)/unread", token: token).decode(NotificationResource.self)
            #expect(unread.isUnread)
            let bulk = try await client.call(
                .post, "/api/v1/notifications/bulk", token: token, json: #"{"action":"read","ids":[\#(items[0].id),\#(items[1].id)]}"#)
            #expect(try bulk.decode(OutcomeBody.self).count == 2)
            let deleted = try await client.call(
                .post, "/api/v1/notifications/bulk", token: token, json: #"{"action":"delete","ids":[\#(items[2].id)]}"#)
            #expect(try deleted.decode(OutcomeBody.self).announcement.text == "1 notification deleted")
            #expect(try await client.call(.delete, "/api/v1/notifications/\(items[1].id)", token: token).status == .noContent)
            try await client.call(.get, "/api/v1/notifications/\(items[1].id)", token: token).expectProblem(.notFound)
        }
    }

    @Test("preferences are one's own; the privacy switch decides whether names are announced")
    func preferencesAndPrivacy() async throws {
        let world = try await TestWorld()
        try await world.test { client in
            let coordinator = try await client.token("coord")
            let created = try await client.call(
                .post, "/api/v1/assignments", token: coordinator,
                json: """
                    {"mentor":"kari","contact":{"name":"Kari Nordmann","phone":"+47 912 34 567","address":"Storgata 1","notes":"Prefers mornings"}}
                    """)
            #expect(created.status == .created)
            let token = try await client.token("kari")
            let guarded = try await client.call(.get, "/api/v1/notifications", token: token).decode(ListBody.self).items[0]
            #expect(guarded.accessibility.announcement.text == "New notification: New assignment")
            #expect(guarded.body == "Visit Kari Nordmann at Storgata 1")
            let prefs = try await client.call(.get, "/api/v1/preferences", token: token).decode(PreferencesResource.self)
            #expect(prefs.speakPersonalDetails == false)
            var changed = prefs
            changed.speakPersonalDetails = true
            changed.sound = false
            let json = String(decoding: try JSONEncoder().encode(changed), as: UTF8.self)
            #expect(try await client.call(.put, "/api/v1/preferences", token: token, json: json).decode(PreferencesResource.self) == changed)
            #expect(try await client.call(.get, "/api/v1/preferences", token: token).decode(PreferencesResource.self) == changed)
            // The coordinator's own preferences are untouched: there is no route to another user's.
            #expect(try await client.call(.get, "/api/v1/preferences", token: coordinator).decode(PreferencesResource.self).sound)
            try await client.call(.get, "/api/v1/users/\(world.kari.id)/preferences", token: coordinator).expectProblem(.notFound)
        }
    }

    @Test("an assignment: the mentor is told, follows it to the contact, and acknowledges it once")
    func assignmentFlow() async throws {
        let world = try await TestWorld()
        try await world.test { client in
            let coordinator = try await client.token("coord")
            let created = try await client.call(
                .post, "/api/v1/assignments", token: coordinator,
                json: """
                    {"mentor":\(world.kari.id),"contact":{"name":"Per Olsen","phone":"","address":"Torggata 3","notes":""}}
                    """)
            struct Created: Decodable {
                var assignment: AssignmentResource
                var notificationId: NotificationID
            }
            let assignment = try created.decode(Created.self).assignment
            let kari = try await client.token("kari")
            let item = try await client.call(.get, "/api/v1/notifications", token: kari).decode(ListBody.self).items[0]
            #expect(item.deepLink.path == "/contacts/\(assignment.contactId)?assignment=\(assignment.id)")
            #expect(item.deepLink.focusElementId == "contact-name-heading")
            #expect(!item.deepLink.path.contains("Per"))
            let contact = try await client.call(.get, "/api/v1/contacts/\(assignment.contactId)", token: kari).decode(ContactResource.self)
            #expect(contact.name == "Per Olsen")
            let acknowledged = try await client.call(.post, "/api/v1/assignments/\(assignment.id)/acknowledge", token: kari)
            #expect(try acknowledged.decode(AssignmentResource.self).status == .acknowledged)
            try await client.call(.post, "/api/v1/assignments/\(assignment.id)/decline", token: kari).expectProblem(.conflict)
            let seen = try await client.call(.get, "/api/v1/assignments/\(assignment.id)", token: coordinator).decode(AssignmentResource.self)
            #expect(seen.status == .acknowledged)
        }
    }

    @Test("a pause confirms itself with a notification")
    func pause() async throws {
        let world = try await TestWorld()
        try await world.test { client in
            let kari = try await client.token("kari")
            let response = try await client.call(.post, "/api/v1/pause", token: kari, json: #"{"until":"2026-12-01"}"#)
            #expect(response.status == .created)
            let item = try await client.call(.get, "/api/v1/notifications", token: kari).decode(ListBody.self).items[0]
            #expect(item.kind == .pauseConfirmation)
            #expect(item.body == "You will not get new assignments until December 1, 2026.")
            #expect(try await world.repository.user(id: world.kari.id)?.pausedUntil != nil)
            try await client.call(.post, "/api/v1/pause", token: kari, json: #"{"until":"2020-01-01"}"#).expectProblem(.unprocessableContent)
            try await client.call(.post, "/api/v1/pause", token: kari, json: #"{"until":"2026-02-30"}"#).expectProblem(.unprocessableContent)
        }
    }

    @Test("certification warnings come 30, 7 and 1 days before expiry, once each, urgent on the last day")
    func certificationWarnings() async throws {
        let world = try await TestWorld()
        try await world.test { client in
            let coordinator = try await client.token("coord")
            let put = try await client.call(
                .put, "/api/v1/mentors/\(world.kari.id)/certifications", token: coordinator,
                json: #"[{"name":"Peer mentor certificate","expiresOn":"2027-01-31"}]"#)
            #expect(put.status == .ok)
            try await client.call(.put, "/api/v1/mentors/\(world.kari.id)/certifications", token: try await client.token("kari"), json: "[]")
                .expectProblem(.forbidden)
        }
        let warnings = world.services.sender
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = osloTimeZone
        func day(_ text: String) -> Date {
            let parts = text.split(separator: "-").map { Int($0)! }
            return calendar.date(from: DateComponents(year: parts[0], month: parts[1], day: parts[2], hour: 9))!
        }
        #expect(try await warnings.sendDueCertificationWarnings(now: day("2026-12-31")).isEmpty)  // 31 days left
        let first = try await warnings.sendDueCertificationWarnings(now: day("2027-01-01"))  // 30 days left
        #expect(first.map(\.title) == ["Certification expires in 30 days"])
        // Already sent (a restart changes nothing: it is in the store).
        #expect(try await warnings.sendDueCertificationWarnings(now: day("2027-01-02")).isEmpty)
        #expect(try await warnings.sendDueCertificationWarnings(now: day("2027-01-24")).map(\.title) == ["Certification expires in 7 days"])
        let last = try await warnings.sendDueCertificationWarnings(now: day("2027-01-30"))
        #expect(last.map(\.title) == ["Certification expires tomorrow"])
        #expect(last.map(\.urgency) == [.urgent])
        #expect(try await warnings.sendDueCertificationWarnings(now: day("2027-01-30")).isEmpty)
        #expect(
            try await world.repository.notifications(for: world.kari.id, filter: .kind(.certificationExpiry), after: nil, limit: 10).items.count == 3)
    }

    @Test("admins add users; others may not")
    func userAdministration() async throws {
        let world = try await TestWorld()
        try await world.test { client in
            let admin = try await client.token("admin")
            let created = try await client.call(
                .post, "/api/v1/users", token: admin,
                json: #"{"username":"nora","password":"long enough pw","role":"mentor","locale":"nb"}"#)
            #expect(try created.decode(UserResource.self).locale == .norwegianBokmal)
            try await client.call(.post, "/api/v1/users", token: admin, json: #"{"username":"nora","password":"long enough pw","role":"mentor"}"#)
                .expectProblem(.conflict)
            try await client.call(.post, "/api/v1/users", token: admin, json: #"{"username":"x","password":"short","role":"boss"}"#)
                .expectProblem(.unprocessableContent)
            try await client.call(
                .post, "/api/v1/users", token: try await client.token("coord"),
                json: #"{"username":"eve","password":"long enough pw","role":"admin"}"#
            ).expectProblem(.forbidden)
        }
    }

    @Test("health, metrics (with the metrics token) and the OpenAPI document are served")
    func operationalRoutes() async throws {
        var configuration = VarselServices.Configuration()
        configuration.metricsToken = "scrape-secret"
        let world = try await TestWorld(configuration: configuration)
        try await world.test { client in
            let health = try await client.call(.get, "/healthz", token: nil)
            let metrics = try await client.call(.get, "/metrics", token: "scrape-secret")
            let openAPI = try await client.call(.get, "/api/v1/openapi.yaml", token: nil)
            #expect(health.text == "ok\n")
            #expect(metrics.text.contains("varsel_notification_delivery_seconds_bucket"))
            #expect(openAPI.text.hasPrefix("openapi: 3.1"))
        }
    }
}
