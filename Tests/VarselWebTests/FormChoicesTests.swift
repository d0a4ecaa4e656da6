import Foundation
import HTTPTypes
import Hummingbird
import Testing
import VarselCore
import VarselService
import VarselStore

@testable import VarselWeb

/// Whom the coordinator's forms offer and accept, and what a refused form shows chosen when it comes back: never a
/// mentor in place of the one chosen, never someone who has left, never a contact whose details were erased.
@Suite("Form choices")
struct FormChoicesTests {
    static func page(_ client: any TestClientProtocol, _ path: String, token: String) async throws -> TestResponse {
        try await client.call(.get, path, token: token)
    }

    static func assignments(_ world: TestWorld, of mentor: User) async throws -> [Assignment] {
        try await world.repository.assignments(.mentor(mentor.id, scope: .all))
    }

    @Test("a refused send form comes back with its recipient, kind and urgency still chosen")
    func sendFormKeepsItsChoices() async throws {
        let world = try await TestWorld()
        let ola = try #require(world.ola)
        try await world.test { client in
            let token = try await client.token("coord")
            // The second mentor, the second kind and urgent: none of them the form's first choice.
            let page = try await PageFormTests.post(
                client, "/coordinator/notifications", token: token,
                form: "recipient=\(ola.id)&kind=pauseConfirmation&title=&body=&urgent=on")
            #expect(page.status == .unprocessableContent)
            #expect(page.text.contains(#"<option value="\#(ola.id)" selected>Ola</option>"#))
            #expect(page.text.components(separatedBy: " selected>").count == 3, "the recipient and the kind, nothing else")
            #expect(page.text.contains(#"<option value="pauseConfirmation" selected>"#))
            #expect(page.text.contains(#"<input type="checkbox" id="send-urgent" name="urgent" checked>"#))
            // A first visit chooses nothing.
            let fresh = try await Self.page(client, "/coordinator", token: token)
            #expect(!fresh.text.contains(" selected>") && !fresh.text.contains(" checked>"))
        }
    }

    @Test("a refused assignment form comes back with the same mentor chosen, not the list's first")
    func assignmentFormKeepsItsMentor() async throws {
        let world = try await TestWorld()
        let ola = try #require(world.ola)
        try await world.test { client in
            let token = try await client.token("coord")
            let page = try await PageFormTests.post(
                client, "/coordinator/assignments", token: token,
                form: "mentor=\(ola.id)&contactName=Per+Olsen&contactAddress=&contactPhone=&contactNotes=")
            #expect(page.status == .unprocessableContent)
            #expect(page.text.contains(#"<option value="\#(ola.id)" selected>Ola</option>"#))
            #expect(!page.text.contains("assignment-mentor-error"), "the mentor was fine; the address was not")
            #expect(try await Self.assignments(world, of: ola).isEmpty)
        }
    }

    @Test("an assignment form whose mentor cannot take it (none chosen, unknown, paused since the page was shown) is refused on the mentor's field")
    func assignmentFormRefusesAMentorItDoesNotOffer() async throws {
        let world = try await TestWorld()
        let (kari, ola) = (try #require(world.kari), try #require(world.ola))
        _ = try await world.services.sender.pause(ola, until: world.clock.now.addingTimeInterval(7 * 86400))
        try await world.test { client in
            let token = try await client.token("coord")
            for mentor in ["", "mentor=999&", "mentor=\(ola.id)&", "mentor=\(world.coordinator.id)&"] {
                let page = try await PageFormTests.post(
                    client, "/coordinator/assignments", token: token,
                    form: mentor + "contactName=Per+Olsen&contactAddress=Torggata+3&contactPhone=&contactNotes=")
                #expect(page.status == .unprocessableContent, "\(mentor)")
                #expect(
                    page.text.contains(
                        #"<select id="assignment-mentor" name="mentor" aria-invalid="true" aria-describedby="assignment-mentor-error assignment-not-offered">"#
                    ), "\(mentor)")
                #expect(
                    page.text.contains(#"<span class="field-error" id="assignment-mentor-error">Choose a mentor who can take the assignment.</span>"#)
                )
                #expect(page.text.contains(##"<li><a href="#assignment-mentor">Mentor: Choose a mentor who can take the assignment.</a></li>"##))
                #expect(
                    page.text.contains(
                        #"aria-describedby="assignment-mentor-error assignment-not-offered"><option value="" selected>Choose a mentor who can take the assignment.</option><option value="\#(kari.id)">Kari</option></select>"#
                    ),
                    "no mentor is chosen for the coordinator, not even the list's first")
                #expect(page.text.components(separatedBy: " selected>").count == 2)
                #expect(page.text.contains(#"value="Torggata 3""#), "what was typed is kept")
            }
            #expect(try await Self.assignments(world, of: ola).isEmpty)
            #expect(try await Self.assignments(world, of: kari).isEmpty)
        }
    }

    @Test("a deactivated mentor is offered by no form, and the API refuses them an assignment or a reassignment by name of the field")
    func deactivatedMentorsAreNotOffered() async throws {
        let world = try await TestWorld()
        let (kari, ola) = (try #require(world.kari), try #require(world.ola))
        let (assignment, _, _) = try await world.services.sender.assign(
            mentor: kari, coordinatorID: world.coordinator.id,
            contact: NewContact(name: "Per Olsen", phone: "", address: "Torggata 3", notes: ""), urgency: .normal)
        try await world.services.users.deactivate(ola.id, by: world.admin)
        try await world.test { client in
            let token = try await client.token("coord")
            let coordinator = try await Self.page(client, "/coordinator", token: token)
            #expect(coordinator.text.contains(">Kari</option>"))
            #expect(!coordinator.text.contains(">Ola</option>"), "neither as a recipient nor as a mentor")
            let contact = try await Self.page(client, "/contacts/\(assignment.contactID)?assignment=\(assignment.id)", token: token)
            #expect(!contact.text.contains(">Ola</option>"), "nor to reassign to")
            let scenarios = try await Self.page(client, "/scenarios", token: token)
            #expect(scenarios.text.contains("Kari") && !scenarios.text.contains("Ola"), "nor to publish to")

            let assigned = try await client.call(
                .post, "/api/v1/assignments", token: token,
                json:
                    #"{"mentor":\#(ola.id),"contact":{"name":"Ida Lund","phone":"","address":"Kirkegata 5","notes":""}}"#)
            #expect(try assigned.expectProblem(.conflict).contains("deactivated"))
            #expect(try assigned.decode(ProblemBody.self).errors?.map(\.field) == ["mentor"])
            #expect(!assigned.text.contains("Ida Lund"))
            let reassigned = try await client.call(
                .post, "/api/v1/assignments/\(assignment.id)/reassign", token: token, json: #"{"mentor":\#(ola.id)}"#)
            #expect(try reassigned.expectProblem(.conflict).contains("deactivated"))
            let sent = try await PageFormTests.post(
                client, "/coordinator/notifications", token: token,
                form: "recipient=\(ola.id)&kind=scenarioPrompt&title=Practice&body=")
            #expect(sent.status == .unprocessableContent)
            #expect(sent.text.contains(#"id="send-recipient-error""#))
            let published = try await client.call(
                .post, "/api/v1/scenarios", token: token, json: #"{"title":"Stairs","body":"Practise the stairs."}"#)
            #expect(published.status == .created)
            let chosen = try await client.call(
                .post, "/api/v1/scenarios", token: token,
                json: #"{"title":"Stairs","body":"Practise the stairs.","mentors":[\#(ola.id)]}"#)
            #expect(try chosen.expectProblem(.conflict).contains("deactivated"))
            #expect(try chosen.decode(ProblemBody.self).errors?.map(\.field) == ["mentors"])
        }
        #expect(try await Self.assignments(world, of: ola).isEmpty)
        #expect(
            try await world.repository.notifications(for: ola.id, filter: .all, after: nil, limit: 10).items.isEmpty,
            "no message, assignment or scenario reached the account nobody reads")
    }

    @Test("an assignment whose contact's details were erased is not reassigned, and the mentor's screens name it as removed, never blank")
    func erasedContactsAreNotReassignedOrNamedBlank() async throws {
        let world = try await TestWorld()
        let (kari, ola) = (try #require(world.kari), try #require(world.ola))
        let (waiting, _, _) = try await world.services.sender.assign(
            mentor: kari, coordinatorID: world.coordinator.id,
            contact: NewContact(name: "Per Olsen", phone: "", address: "Torggata 3", notes: ""), urgency: .normal)
        let (visiting, _, _) = try await world.services.sender.assign(
            mentor: kari, coordinatorID: world.coordinator.id,
            contact: NewContact(name: "Ida Lund", phone: "", address: "Kirkegata 5", notes: ""), urgency: .normal)
        _ = try await world.services.answers.answer(visiting, with: .acknowledged, by: kari.id)
        for assignment in [waiting, visiting] {
            _ = try await world.services.erasure.erase(contactID: assignment.contactID, by: world.coordinator)
        }
        try await world.test { client in
            let mentor = try await client.token("kari")
            let home = try await Self.page(client, "/", token: mentor)
            #expect(home.text.contains("Next visit: details removed"))
            let contacts = try await Self.page(client, "/contacts", token: mentor)
            #expect(contacts.text.components(separatedBy: ">details removed</a>").count == 3)
            let list = try await Self.page(client, "/assignments", token: mentor)
            #expect(list.text.contains(#"aria-label="Acknowledge the assignment whose details were removed""#))
            #expect(list.text.contains(#"aria-label="Decline the assignment whose details were removed""#))
            for page in [home, contacts, list] {
                #expect(!page.text.contains(">, <") && !page.text.contains(": , ") && !page.text.contains("with \""))
                #expect(!page.text.contains("Per Olsen") && !page.text.contains("Ida Lund"))
            }

            let token = try await client.token("coord")
            let refused = try await client.call(.post, "/api/v1/assignments/\(waiting.id)/reassign", token: token, json: #"{"mentor":\#(ola.id)}"#)
            #expect(try refused.expectProblem(.conflict).contains("were removed"))
        }
        #expect(try await Self.assignments(world, of: ola).isEmpty)
    }

    @Test("an urgent assignment given to another mentor stays urgent for them, so their quiet hours do not hold it")
    func reassignedUrgentStaysUrgent() async throws {
        let world = try await TestWorld()
        let (kari, ola) = (try #require(world.kari), try #require(world.ola))
        let (urgent, _, _) = try await world.services.sender.assign(
            mentor: kari, coordinatorID: world.coordinator.id,
            contact: NewContact(name: "Per Olsen", phone: "", address: "Torggata 3", notes: ""), urgency: .urgent)
        let (_, told) = try await world.services.sender.reassign(urgent, to: ola, by: world.coordinator.id)
        #expect(told.urgency == .urgent)
        let (normal, _, _) = try await world.services.sender.assign(
            mentor: kari, coordinatorID: world.coordinator.id,
            contact: NewContact(name: "Ida Lund", phone: "", address: "Kirkegata 5", notes: ""), urgency: .normal)
        #expect(try await world.services.sender.reassign(normal, to: ola, by: world.coordinator.id).1.urgency == .normal)
    }

    @Test("a refused settings form comes back with its switches as sent, not as stored, and stores nothing")
    func settingsFormKeepsItsSwitches() async throws {
        let world = try await TestWorld()
        let kari = try #require(world.kari)
        let before = try await world.services.settings.preferences(of: kari.id)
        #expect(before.isSoundEnabled && !before.textMessageKinds.contains(.scenarioPrompt), "the switches start the other way round")
        try await world.test { client in
            let (cookie, csrf) = try await client.cookieAndCSRF("kari")
            // Sound switched off and scenarios by text message on, with a start time that is no time.
            let refused = try await client.execute(
                uri: "/settings", method: .post,
                headers: [.cookie: cookie, .contentType: "application/x-www-form-urlencoded"],
                body: ByteBuffer(string: "_csrf=\(csrf)&sms-scenarioPrompt=on&quiet-start=25%3A00&quiet-end=07%3A00"))
            #expect(refused.status == .unprocessableContent)
            #expect(refused.text.contains(#"name="sms-scenarioPrompt" checked"#))
            #expect(!refused.text.contains(#"name="sound" checked"#))
            #expect(refused.text.contains(#"value="25:00""#), "the times as typed")
        }
        #expect(try await world.services.settings.preferences(of: kari.id) == before)
    }
}
