import Foundation
import HTTPTypes
import Hummingbird
import Testing
import VarselCore
import VarselService
import VarselStore

@testable import VarselWeb

struct AssignmentListBody: Decodable {
    var id: AssignmentID
    var state: String
    var overdue: Bool
    var mentorId: UserID
    var accessibleName: String
    var trail: [AssignmentEvent]
}

struct ReassignedBody: Decodable {
    var assignment: AssignmentResource
    var notificationId: NotificationID
}

/// The assignment pipeline through HTTP: who sees a contact as an assignment moves on, the dashboard's filters, the history, the
/// Profile's forms and training scenarios, on the API and the pages alike.
@Suite("The assignment pipeline over HTTP")
struct PipelineWebTests {
    /// An assignment for Ola from the coordinator, through the API as a coordinator makes one.
    static func assignToOla(_ client: any TestClientProtocol, coordinator: String) async throws -> AssignmentResource {
        let created = try await client.call(
            .post, "/api/v1/assignments", token: coordinator,
            json: #"{"mentor":"ola","contact":{"name":"Per Olsen","phone":"1","address":"Torggata 3","notes":""}}"#)
        #expect(created.status == .created)
        return try created.decode(ReassignedBody.self).assignment
    }

    @Test("declining, reassigning or finishing ends the mentor's access to the contact; the coordinator keeps it")
    func accessFollowsTheAssignment() async throws {
        let world = try await TestWorld()
        try await world.test { client in
            let coordinator = try await client.token("coord")
            let ola = try await client.token("ola")
            let kari = try await client.token("kari")
            // Reassigned: Ola loses the contact, Kari gets it and is notified.
            let first = try await Self.assignToOla(client, coordinator: coordinator)
            #expect(try await client.call(.get, "/api/v1/contacts/\(first.contactId)", token: ola).status == .ok)
            #expect(try await client.call(.get, "/api/v1/contacts/\(first.contactId)", token: kari).status == .notFound)
            let moved = try await client.call(.post, "/api/v1/assignments/\(first.id)/reassign", token: coordinator, json: #"{"mentor":"kari"}"#)
            #expect(moved.status == .created)
            let second = try moved.decode(ReassignedBody.self)
            #expect(second.assignment.mentorId == world.kari.id && second.assignment.previousId == first.id)
            #expect(try await client.call(.get, "/api/v1/contacts/\(first.contactId)", token: ola).status == .notFound)
            #expect(try await client.call(.get, "/api/v1/contacts/\(first.contactId)", token: kari).status == .ok)
            #expect(try await client.call(.get, "/api/v1/contacts/\(first.contactId)", token: coordinator).status == .ok)
            let kariInbox = try await client.call(.get, "/api/v1/notifications", token: kari).decode(ListBody.self)
            #expect(kariInbox.items.first?.id == second.notificationId && kariInbox.items.first?.kind == .assignment)
            // Ola's old notification leads to a page that says why, without the person's details.
            let old = try await client.call(.get, "/contacts/\(first.contactId)?assignment=\(first.id)", token: ola)
            #expect(old.status == .ok && old.text.contains("Dette oppdraget er gitt til en annen likeperson."))
            #expect(!old.text.contains("Per Olsen") && !old.text.contains("Torggata"))
            try await client.call(.post, "/api/v1/assignments/\(first.id)/acknowledge", token: ola).expectProblem(.conflict)
            // Declined: Kari loses it. Done: Ola loses a second one once the visit is done.
            #expect(try await client.call(.post, "/api/v1/assignments/\(second.assignment.id)/decline", token: kari).status == .ok)
            #expect(try await client.call(.get, "/api/v1/contacts/\(first.contactId)", token: kari).status == .notFound)
            let third = try await Self.assignToOla(client, coordinator: coordinator)
            try await client.call(.post, "/api/v1/assignments/\(third.id)/done", token: ola, json: #"{"note":"x"}"#).expectProblem(.conflict)
            #expect(try await client.call(.post, "/api/v1/assignments/\(third.id)/acknowledge", token: ola).status == .ok)
            let done = try await client.call(
                .post, "/api/v1/assignments/\(third.id)/done", token: ola, json: #"{"note":"She wants a walk next time."}"#)
            #expect(try done.decode(AssignmentResource.self).status == .done)
            #expect(try await client.call(.get, "/api/v1/contacts/\(third.contactId)", token: ola).status == .notFound)
            let seen = try await client.call(.get, "/api/v1/assignments/\(third.id)", token: coordinator).decode(AssignmentResource.self)
            #expect(seen.visitNote == "She wants a walk next time." && seen.contact?.name == "Per Olsen")
            #expect(seen.trail?.map(\.step) == [.created, .notified, .acknowledged, .done])
        }
    }

    @Test("the history of a reassigned assignment runs through both mentors: reassigned to whom, notified, read")
    func reassignedTrail() async throws {
        let world = try await TestWorld()
        try await world.test { client in
            let coordinator = try await client.token("coord")
            let first = try await Self.assignToOla(client, coordinator: coordinator)
            world.clock.advance(by: 3600)
            let moved = try await client.call(.post, "/api/v1/assignments/\(first.id)/reassign", token: coordinator, json: #"{"mentor":"kari"}"#)
            let second = try moved.decode(ReassignedBody.self)
            world.clock.advance(by: 60)
            let kari = try await client.token("kari")
            #expect(try await client.call(.get, "/contacts/\(first.contactId)?assignment=\(second.assignment.id)", token: kari).status == .ok)
            let list = try await client.call(.get, "/api/v1/assignments", token: coordinator).decode([AssignmentListBody].self)
            #expect(list.map(\.id) == [second.assignment.id], "the replaced assignment shows through the one that replaced it")
            let trail = try #require(list.first?.trail)
            #expect(trail.map(\.step) == [.created, .notified, .reassigned, .notified, .read])
            #expect(trail[2].mentorName == "Kari")
            let page = try await client.call(.get, "/coordinator/assignments", token: coordinator).text
            #expect(page.contains("Reassigned to Kari,"))
            // The first assignment's old link (as in an escalation notice) shows the one that replaced it.
            let old = try await client.call(.get, "/contacts/\(first.contactId)?assignment=\(first.id)", token: coordinator).text
            #expect(old.contains("Reassigned to Kari,") && old.contains(#"action="/assignments/\#(second.assignment.id)/reassign""#))
        }
    }

    @Test("'overdue' is an assignment waiting past the deadline: the dashboard's filter, its row's name and the API agree")
    func overdueFilter() async throws {
        let world = try await TestWorld()
        try await world.test { client in
            let coordinator = try await client.token("coord")
            let old = try await Self.assignToOla(client, coordinator: coordinator)
            world.clock.advance(by: 25 * 3600)
            let fresh = try await Self.assignToOla(client, coordinator: coordinator)
            let overdue = try await client.call(.get, "/api/v1/assignments?show=overdue", token: coordinator).decode([AssignmentListBody].self)
            #expect(overdue.map(\.id) == [old.id])
            #expect(overdue.first?.accessibleName.hasSuffix(", 25 hours, overdue") == true, "\(overdue.first?.accessibleName ?? "")")
            let waiting = try await client.call(.get, "/api/v1/assignments?show=waiting", token: coordinator).decode([AssignmentListBody].self)
            #expect(Set(waiting.map(\.id)) == [old.id, fresh.id])
            #expect(
                try await client.call(.get, "/api/v1/assignments?mentor=\(world.kari.id)", token: coordinator).decode([AssignmentListBody].self)
                    .isEmpty)
            let page = try await client.call(.get, "/coordinator/assignments?show=overdue", token: coordinator).text
            #expect(page.contains(#"id="assignment-\#(old.id)""#) && !page.contains(#"id="assignment-\#(fresh.id)""#))
            #expect(page.contains(#"<option value="overdue" selected>Overdue</option>"#))
            let ola = try await client.token("ola")
            #expect(try await client.call(.post, "/api/v1/assignments/\(old.id)/acknowledge", token: ola).status == .ok)
            #expect(try await client.call(.get, "/api/v1/assignments?show=overdue", token: coordinator).decode([AssignmentListBody].self).isEmpty)
        }
    }

    @Test("the Profile books a pause for later, ends it early, and each is confirmed by a notification in the mentor's language")
    func pauseFromTheProfile() async throws {
        let world = try await TestWorld()
        try await world.test { client in
            let kari = try await client.token("kari")
            let booked = try await PageFormTests.post(client, "/profile/pause", token: kari, form: "from=2026-12-01&until=2026-12-08")
            #expect(booked.status == .seeOther && booked.headers[.location] == "/profile?done=pause")
            let inbox = try await client.call(.get, "/api/v1/notifications", token: kari).decode(ListBody.self)
            #expect(inbox.items.first?.title == "Your pause is booked")
            #expect(inbox.items.first?.body == "You will not get new assignments from December 1, 2026 until December 8, 2026.")
            let home = try await client.call(.get, "/", token: kari).text
            #expect(home.contains("Pause booked from December 1, 2026 until December 8, 2026"))
            #expect(
                try await world.services.sender.unavailability(of: try #require(try await world.repository.user(id: world.kari.id))) == nil,
                "a booked pause does not keep assignments away before it starts")
            let profile = try await client.call(.get, "/profile", token: kari).text
            #expect(profile.contains(#"id="end-pause""#))
            let ended = try await PageFormTests.post(client, "/profile/pause/end", token: kari, form: "")
            #expect(ended.headers[.location] == "/profile?done=pause-ended")
            #expect(
                try await client.call(.get, "/api/v1/notifications", token: kari).decode(ListBody.self).items.first?.title == "Your pause has ended")
            #expect(try await world.repository.user(id: world.kari.id)?.pausedUntil == nil)
            let wrong = try await PageFormTests.post(client, "/profile/pause", token: kari, form: "from=2026-12-09&until=2026-12-08")
            #expect(wrong.status == .unprocessableContent && wrong.text.contains("The pause must start before it ends."))
            let notADay = try await PageFormTests.post(client, "/profile/pause", token: kari, form: "until=soon")
            #expect(notADay.status == .unprocessableContent && notADay.text.contains(#"aria-invalid="true" aria-describedby="pause-until-error""#))
        }
    }

    @Test("the Profile changes the language and the password; a new password ends the other sessions")
    func languageAndPassword() async throws {
        let world = try await TestWorld()
        try await world.test { client in
            let kari = try await client.token("kari")
            let other = try await client.token("kari")
            #expect(try await PageFormTests.post(client, "/profile/language", token: kari, form: "language=nb").status == .seeOther)
            #expect(try await client.call(.get, "/profile", token: kari).text.contains(#"<html lang="nb">"#))
            let wrong = try await PageFormTests.post(
                client, "/profile/password", token: kari, form: "currentPassword=nope&newPassword=another+long+one")
            #expect(wrong.status == .unprocessableContent && wrong.text.contains("Det nåværende passordet stemmer ikke."))
            let password = TestWorld.password.replacingOccurrences(of: " ", with: "+")
            let changed = try await PageFormTests.post(
                client, "/profile/password", token: kari, form: "currentPassword=\(password)&newPassword=another+long+one")
            #expect(changed.status == .seeOther)
            #expect(try await client.call(.get, "/api/v1/me", token: kari).status == .ok)
            #expect(try await client.call(.get, "/api/v1/me", token: other).status == .unauthorized)
            #expect(try await client.token("kari", password: "another long one").isEmpty == false)
        }
    }

    @Test("a coordinator publishes a scenario to chosen mentors; only they are told, and their reflection comes back")
    func scenarios() async throws {
        let world = try await TestWorld()
        try await world.test { client in
            let coordinator = try await client.token("coord")
            let missing = try await PageFormTests.post(client, "/coordinator/scenarios", token: coordinator, form: "title=&body=Try&audience=chosen")
            #expect(missing.status == .unprocessableContent && missing.text.contains("Choose at least one mentor."))
            let published = try await PageFormTests.post(
                client, "/coordinator/scenarios", token: coordinator,
                form: "title=A+first+visit&body=Try+it.&audience=chosen&mentors%5B%5D=\(world.ola.id)")
            #expect(published.status == .seeOther)
            let ola = try await client.token("ola")
            let kari = try await client.token("kari")
            #expect(try await client.call(.get, "/api/v1/notifications", token: kari).decode(ListBody.self).items.isEmpty)
            let told = try #require(try await client.call(.get, "/api/v1/notifications", token: ola).decode(ListBody.self).items.first)
            #expect(told.kind == .scenarioPrompt && told.title == "Treningsscenario: A first visit")
            let scenarioPath = told.deepLink.path
            #expect(try await client.call(.get, scenarioPath, token: kari).status == .notFound)
            let page = try await client.call(.get, scenarioPath + "?from=notification", token: ola).text
            #expect(page.contains(#"<h1 id="scenario-heading" tabindex="-1" autofocus data-focus-on-load>A first visit</h1>"#))
            #expect(page.contains("<p>Try it.</p>") && page.contains("A first visit, ikke gjort ennå"))
            let done = try await PageFormTests.post(client, scenarioPath + "/done", token: ola, form: "reflection=I+listened+first.")
            #expect(done.status == .seeOther)
            #expect(try await client.call(.get, scenarioPath, token: ola).text.contains(">I listened first.</textarea>"))
            let list = try await client.call(.get, "/scenarios", token: coordinator).text
            #expect(list.contains("A first visit, 1 of 1 mentors done"))
            #expect(try await client.call(.get, scenarioPath, token: coordinator).text.contains("I listened first."))
        }
    }
}
