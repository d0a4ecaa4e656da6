import Foundation
import HTTPTypes
import Hummingbird
import Logging
import Testing
import VarselCore
import VarselService
import VarselServiceTesting
import VarselStore

@testable import VarselWeb

/// People and their accounts through the API and ``UserAdministration``: the one-time link, who manages whom,
/// deactivation, certifications and the change log.
@Suite("People and accounts", .timeLimit(.minutes(1)))
struct PeopleTests {
    struct Invited: Decodable {
        struct Link: Decodable {
            var url: String
            var code: String
            var expiresAt: Date
        }
        var user: UserResource
        var setPasswordLink: Link
    }

    static let newPassword = "a fresh long password"

    @Test("a coordinator adds a mentor; the link's code sets her password once, within 72 hours, and she signs in")
    func linkWorksOnceWithinItsLifetime() async throws {
        let world = try await TestWorld()
        try await world.test { client in
            let coordinator = try await client.token("coord")
            let added = try await client.call(
                .post, "/api/v1/users", token: coordinator,
                json: #"{"username":"ingrid","displayName":"Ingrid Berg","role":"mentor","locale":"nb"}"#)
            #expect(added.status == .created)
            #expect(added.headers[.cacheControl] == "no-store")
            let invited = try added.decode(Invited.self)
            let code = invited.setPasswordLink.code
            #expect(SetPasswordCode.normalized(code) == code)
            #expect(invited.setPasswordLink.url.hasSuffix("/password/\(code)"))
            #expect(invited.setPasswordLink.expiresAt == world.clock.now.addingTimeInterval(72 * 3600))
            #expect(invited.user.active)

            // No password yet: nothing signs in, not even an empty one.
            let before = try await client.call(.post, "/api/v1/session", token: nil, json: #"{"username":"ingrid","password":"anything at all"}"#)
            #expect(before.status == .unauthorized)

            // Typed as read aloud: lower case, spaces, O for 0.
            let typed = code.lowercased().replacingOccurrences(of: "-", with: " ").replacingOccurrences(of: "0", with: "o")
            let set = try await client.call(.post, "/api/v1/password", token: nil, json: #"{"code":"\#(typed)","password":"\#(Self.newPassword)"}"#)
            #expect(set.status == .noContent)
            #expect(try await client.token("ingrid", password: Self.newPassword).isEmpty == false)
            let again = try await client.call(.post, "/api/v1/password", token: nil, json: #"{"code":"\#(code)","password":"another long password"}"#)
            #expect(again.status == .notFound)
            #expect(!again.text.contains(code))

            // A link made later expires after 72 hours.
            let ingrid = try #require(try await world.repository.user(username: "ingrid"))
            let reset = try await client.call(.post, "/api/v1/users/\(ingrid.id)/password-link", token: coordinator)
            #expect(reset.status == .created)
            let late = try reset.decode(Invited.Link.self)
            world.clock.advance(by: 72 * 3600)
            let expired = try await client.call(
                .post, "/api/v1/password", token: nil, json: #"{"code":"\#(late.code)","password":"another long password"}"#)
            #expect(expired.status == .notFound)
        }
    }

    @Test("a short password or two different ones are refused by field, and the link still works")
    func passwordRulesOnTheLink() async throws {
        let world = try await TestWorld()
        let issued = try await world.services.users.invite(
            username: "ingrid", displayName: "Ingrid", role: "mentor", locale: "en", by: world.coordinator)
        await #expect(throws: InvalidInput([.init(field: "password", rule: .other("8 to 72 characters (Unicode scalars)"))])) {
            try await world.services.users.choosePassword(code: issued.code, password: "short", repeated: "short")
        }
        await #expect(throws: InvalidInput([.init(field: "repeat", rule: .other("must be the same password"))])) {
            try await world.services.users.choosePassword(code: issued.code, password: Self.newPassword, repeated: "something else")
        }
        #expect(try await world.services.users.linkHolder(code: issued.code)?.username == "ingrid")
        let user = try await world.services.users.choosePassword(code: issued.code, password: Self.newPassword, repeated: Self.newPassword)
        #expect(try await world.services.passwords.verify(Self.newPassword, hash: user.passwordHash))
        #expect(try await world.services.users.linkHolder(code: issued.code) == nil)
    }

    @Test("coordinators manage mentors only; only admins change roles; nobody their own role or access")
    func whoManagesWhom() async throws {
        let world = try await TestWorld()
        let users = world.services.users
        await #expect(throws: UserAdministration.Refusal.adminOnly) {
            try await users.invite(username: "boss", displayName: nil, role: "coordinator", locale: nil, by: world.coordinator)
        }
        await #expect(throws: UserAdministration.Refusal.unknownPerson) { try await users.deactivate(world.admin.id, by: world.coordinator) }
        await #expect(throws: UserAdministration.Refusal.adminOnly) {
            try await users.changeRole(of: world.kari.id, to: .coordinator, by: world.coordinator)
        }
        await #expect(throws: UserAdministration.Refusal.ownAccount) { try await users.changeRole(of: world.admin.id, to: .mentor, by: world.admin) }
        await #expect(throws: UserAdministration.Refusal.ownAccount) { try await users.deactivate(world.admin.id, by: world.admin) }
        await #expect(throws: UserAdministration.Refusal.ownAccount) { try await users.issueLink(for: world.coordinator.id, by: world.coordinator) }
        await #expect(throws: UserAdministration.Refusal.unknownPerson) { try await users.person(world.kari.id, for: world.ola) }
        #expect(try await users.people(for: world.coordinator).map(\.user.username) == ["kari", "ola"])
        #expect(try await users.people(for: world.admin).count == 4)
        let promoted = try await users.changeRole(of: world.kari.id, to: .coordinator, by: world.admin)
        #expect(promoted.user.role == .coordinator)
        #expect(try await users.people(for: world.coordinator).map(\.user.username) == ["ola"])

        try await world.test { client in
            let coordinator = try await client.token("coord")
            #expect(try await client.call(.get, "/api/v1/users/\(world.admin.id)", token: coordinator).status == .notFound)
            #expect(
                try await client.call(.put, "/api/v1/users/\(world.ola.id)/role", token: coordinator, json: #"{"role":"admin"}"#).status == .forbidden
            )
            let listed = try await client.call(.get, "/api/v1/users?show=active", token: coordinator).decode([UserResource].self)
            #expect(listed.map(\.username) == ["ola"])
            #expect(try await client.call(.get, "/api/v1/users?show=nonsense", token: coordinator).status == .badRequest)
        }
    }

    @Test("deactivating ends the open stream with its reason, refuses sign-in with a clear message, keeps the data; reactivating undoes it")
    func deactivation() async throws {
        let world = try await TestWorld()
        try await world.test { client in
            let ola = try await client.token("ola")
            let (_, messages) = world.services.broker.subscribe(userID: world.ola.id)
            let coordinator = try await client.token("coord")
            let deactivated = try await client.call(.post, "/api/v1/users/\(world.ola.id)/deactivate", token: coordinator)
            #expect(deactivated.status == .ok)
            #expect(try deactivated.decode(UserResource.self).active == false)
            var received: [String] = []
            for await message in messages {
                if case let .closing(reason) = message { received.append(reason.rawValue) }
            }
            #expect(received == ["account-deactivated"])
            #expect(try await client.call(.get, "/api/v1/me", token: ola).status == .unauthorized)
            let refused = try await client.call(
                .post, "/api/v1/session", token: nil, json: #"{"username":"ola","password":"\#(TestWorld.password)"}"#)
            #expect(refused.status == .forbidden)
            #expect(refused.text.contains("This account is deactivated. Ask your coordinator."))
            let wrong = try await client.call(.post, "/api/v1/session", token: nil, json: #"{"username":"ola","password":"not the password"}"#)
            #expect(wrong.status == .unauthorized, "the state is told only to whoever knows the password")
            #expect(try await world.repository.user(id: world.ola.id) != nil)

            #expect(try await client.call(.post, "/api/v1/users/\(world.ola.id)/reactivate", token: coordinator).status == .ok)
            #expect(try await client.token("ola").isEmpty == false)
            let changes = try await client.call(.get, "/api/v1/users/\(world.ola.id)/changes", token: coordinator)
            #expect(changes.text.contains(#""action":"deactivated""#) && changes.text.contains(#""action":"reactivated""#))
        }
    }

    @Test("a certification kept after its mentor became a coordinator, or was deactivated, warns no one and is not shown")
    func certificationsWarnOnlyMentors() async throws {
        let world = try await TestWorld()
        let users = world.services.users
        let expiry = world.clock.now.addingTimeInterval(5 * 86400)
        _ = try await users.addCertification(name: "Guide certificate", expiresAt: expiry, for: world.kari.id, by: world.coordinator)
        _ = try await users.addCertification(name: "Guide certificate", expiresAt: expiry, for: world.ola.id, by: world.coordinator)
        _ = try await users.changeRole(of: world.kari.id, to: .coordinator, by: world.admin)
        try await users.deactivate(world.ola.id, by: world.admin)
        #expect(try await world.services.sender.sendDueCertificationWarnings(now: world.clock.now).isEmpty)
        #expect(try await users.details(of: world.kari.id, for: world.admin).person.certifications.isEmpty)
        // Back as a mentor, and back from leaving: the warnings are theirs again.
        _ = try await users.changeRole(of: world.kari.id, to: .mentor, by: world.admin)
        _ = try await users.reactivate(world.ola.id, by: world.admin)
        #expect(
            Set(try await world.services.sender.sendDueCertificationWarnings(now: world.clock.now).map(\.recipientID)) == [
                world.kari.id, world.ola.id,
            ])
    }

    @Test("renewing a certification re-arms its expiry warnings; each change is in the log with who made it")
    func certificationsFollowTheirDates() async throws {
        let world = try await TestWorld()
        let users = world.services.users
        let expiry = world.clock.now.addingTimeInterval(5 * 86400)
        _ = try await users.addCertification(name: "Guide certificate", expiresAt: expiry, for: world.kari.id, by: world.coordinator)
        let first = try await world.services.sender.sendDueCertificationWarnings(now: world.clock.now)
        #expect(first.count == 1 && first[0].recipientID == world.kari.id)
        #expect(try await world.services.sender.sendDueCertificationWarnings(now: world.clock.now).isEmpty)

        let stored = try #require(try await world.repository.certifications(mentorID: world.kari.id).first)
        let renewed = world.clock.now.addingTimeInterval(365 * 86400)
        _ = try await users.renewCertification(stored.id, until: renewed, for: world.kari.id, by: world.coordinator)
        #expect(try await world.services.sender.sendDueCertificationWarnings(now: world.clock.now).isEmpty, "a year away: nothing due")
        world.clock.set(renewed.addingTimeInterval(-5 * 86400))
        #expect(try await world.services.sender.sendDueCertificationWarnings(now: world.clock.now).count == 1, "the renewed date warns again")

        let current = try #require(try await world.repository.certifications(mentorID: world.kari.id).first)
        _ = try await users.removeCertification(current.id, for: world.kari.id, by: world.admin)
        let log = try await users.log(of: world.kari.id, for: world.coordinator)
        #expect(log.map(\.action) == [.created, .certificationAdded, .certificationRenewed, .certificationRemoved])
        #expect(log.map(\.actorID) == [nil, world.coordinator.id, world.coordinator.id, world.admin.id])
        #expect(log[2].date == renewed)
    }
}

@Suite("The deactivation event", .timeLimit(.minutes(1)))
struct DeactivationEventTests {
    @Test("a deactivation read from the log (another instance, the command line) ends the person's streams, not anyone else's")
    func eventEndsStreams() async throws {
        let broker = EventBroker(bufferLimit: 16, metrics: ServiceMetrics())
        let (_, ola) = broker.subscribe(userID: 2)
        let (_, kari) = broker.subscribe(userID: 1)
        broker.publish(contentsOf: [
            StoredEvent(id: 7, userID: 2, payload: .accountDeactivated, createdAt: DemoData.now),
            StoredEvent(id: 8, userID: 1, payload: .unreadCount(3), createdAt: DemoData.now),
        ])
        var closing: [StreamCloseReason] = []
        for await message in ola {
            if case let .closing(reason) = message { closing.append(reason) }
            if case .event = message { Issue.record("the deactivation event is not sent to the client") }
        }
        #expect(closing == [.deactivated])
        var kariIterator = kari.makeAsyncIterator()
        guard case let .event(event)? = await kariIterator.next() else {
            Issue.record("Kari's stream got nothing")
            return
        }
        #expect(event.id == 8)
        #expect(broker.streamCount(userID: 1) == 1)
    }
}

/// Who read a contact's details: every read path records one entry; the coordinator and admins see the record.
@Suite("Who read a contact's details")
struct ContactReadTests {
    @Test("the contact page, the contact API and the assignment API each record one read; the record is pruned after its time")
    func eachReadPathRecordsOneRead() async throws {
        let world = try await TestWorld()
        let (assignment, contact, _) = try await world.services.sender.assign(
            mentor: world.ola, coordinatorID: world.coordinator.id,
            contact: NewContact(name: "Per Olsen", phone: "1", address: "Torggata 3", notes: ""), urgency: .normal)
        try await world.test { client in
            let ola = try await client.token("ola")
            #expect(try await client.call(.get, "/contacts/\(contact.id)?assignment=\(assignment.id)", token: ola).status == .ok)
            #expect(try await client.call(.get, "/api/v1/contacts/\(contact.id)", token: ola).status == .ok)
            #expect(try await client.call(.get, "/api/v1/assignments/\(assignment.id)", token: ola).status == .ok)
            // Kari may not see it: nothing is recorded for her.
            let kari = try await client.token("kari")
            #expect(try await client.call(.get, "/api/v1/contacts/\(contact.id)", token: kari).status == .notFound)
            let reads = try await world.repository.contactReads(contactID: contact.id)
            #expect(reads.map(\.channel) == [.contactPage, .contactAPI, .assignmentAPI])
            #expect(reads.allSatisfy { $0.userID == world.ola.id })

            // The coordinator sees the record (her own look included) on the page and through the API; the mentor does not.
            let coordinator = try await client.token("coord")
            let page = try await client.call(.get, "/contacts/\(contact.id)?assignment=\(assignment.id)", token: coordinator)
            #expect(page.text.contains("Who has read these details"))
            #expect(page.text.contains("Ola, through the contact API, "))
            #expect(page.text.contains("Coord, through this page, "))
            let listed = try await client.call(.get, "/api/v1/contacts/\(contact.id)/reads", token: coordinator)
            #expect(listed.status == .ok)
            #expect(listed.text.contains(#""channel":"assignment-api""#))
            #expect(try await client.call(.get, "/api/v1/contacts/\(contact.id)/reads", token: ola).status == .notFound)
            #expect(!(try await client.call(.get, "/contacts/\(contact.id)?assignment=\(assignment.id)", token: ola).text.contains("Who has read")))
        }
        let upkeep = MaintenanceService(
            repository: world.repository, sender: world.services.sender, erasure: world.services.erasure, now: { world.clock.now },
            accessLogRetention: 30 * 86400, logger: Logger(label: "test"))
        world.clock.advance(by: 30 * 86400 + 1)
        await upkeep.runOnce()
        #expect(try await world.repository.contactReads(contactID: contact.id).isEmpty)
    }
}
