import Foundation
import HTTPTypes
import Hummingbird
import Testing
import VarselCore
import VarselService
import VarselStore

@testable import VarselWeb

/// A page form refused for what was typed comes back as the page, in the person's language, with what they typed and
/// the rule beside its field: never a JSON answer in the browser, never an English sentence on a Norwegian page.
@Suite("Refused page forms")
struct PageRefusalsTests {
    static let formHeaders: HTTPFields = [.contentType: "application/x-www-form-urlencoded"]

    static func acknowledged(_ world: TestWorld) async throws -> Assignment {
        let (assignment, _, _) = try await world.services.sender.assign(
            mentor: world.kari, coordinatorID: world.coordinator.id,
            contact: NewContact(name: "Per Olsen", phone: "", address: "Torggata 3", notes: ""), urgency: .normal)
        return try await world.services.answers.answer(assignment, with: .acknowledged, by: world.kari.id)
    }

    @Test("a visit note with a tab comes back on the contact's page with the note as typed and the rule beside it; the visit stays open")
    func visitNoteRefusedOnItsPage() async throws {
        let world = try await TestWorld()
        let assignment = try await Self.acknowledged(world)
        try await world.test { client in
            let token = try await client.token("kari")
            let page = try await PageFormTests.post(client, "/assignments/\(assignment.id)/done", token: token, form: "note=Tea%09and+a+walk")
            #expect(page.status == .unprocessableContent)
            #expect(page.headers[.contentType] == "text/html; charset=utf-8")
            #expect(page.text.contains(##"<li><a href="#visit-note">A short note about the visit: Remove the tabs and other control characters"##))
            #expect(
                page.text.contains(#"aria-describedby="visit-note-error visit-note-hint" aria-invalid="true">Tea&#9;and a walk</textarea>"#)
                    || page.text.contains("aria-describedby=\"visit-note-error visit-note-hint\" aria-invalid=\"true\">Tea\tand a walk</textarea>"))
            #expect(page.text.contains(#"<span class="field-error" id="visit-note-error">Remove the tabs"#))
        }
        #expect(try await world.repository.assignment(id: assignment.id)?.status == .acknowledged)
    }

    @Test(
        "a visit note of 1,000 characters typed over several lines is taken: a line break the browser sends as CR LF counts once, as its maxlength did"
    )
    func visitNoteLineBreaksCountOnce() async throws {
        let world = try await TestWorld()
        let assignment = try await Self.acknowledged(world)
        let lines = Array(repeating: String(repeating: "a", count: 199), count: 5)
        let typed = lines.joined(separator: "\n")
        #expect(typed.unicodeScalars.count == 999)
        try await world.test { client in
            let token = try await client.token("kari")
            let page = try await PageFormTests.post(
                client, "/assignments/\(assignment.id)/done", token: token,
                form: "note=" + lines.joined(separator: "%0D%0A") + "b")
            #expect(page.status == .seeOther)
        }
        #expect(try await world.repository.assignment(id: assignment.id)?.visitNote == typed + "b")
    }

    @Test("a scenario reflection with a tab comes back on the scenario's page with the reflection as typed")
    func reflectionRefusedOnItsPage() async throws {
        let world = try await TestWorld()
        let (scenario, _) = try await world.services.sender.publishScenario(
            title: "Stairs", body: "Practise the stairs.",
            from: world.coordinator.id, to: [world.kari])
        try await world.test { client in
            let token = try await client.token("kari")
            let page = try await PageFormTests.post(client, "/scenarios/\(scenario.id)/done", token: token, form: "reflection=Went%09well")
            #expect(page.status == .unprocessableContent)
            #expect(page.text.contains(#"id="error-summary""#))
            #expect(page.text.contains(#"<span class="field-error" id="reflection-error">Remove the tabs"#))
            #expect(page.text.contains(#"aria-describedby="reflection-error reflection-hint" aria-invalid="true">Went"#))
        }
        #expect(try await world.services.scenarios.scenarios(ofMentor: world.kari.id).first?.doneAt == nil)
    }

    @Test("a sign-in slowed after wrong passwords says so in the browser's language")
    func signInThrottleInNorwegian() async throws {
        let world = try await TestWorld()
        try await world.test { client in
            var last: TestResponse?
            for _ in 0..<6 {
                last = try await client.execute(
                    uri: "/signin", method: .post,
                    headers: [.contentType: "application/x-www-form-urlencoded", .acceptLanguage: "nb-NO,nb;q=0.9"],
                    body: ByteBuffer(string: "username=kari&password=nope"))
            }
            let page = try #require(last)
            #expect(page.status == .tooManyRequests)
            #expect(page.text.contains("For mange innloggingsforsøk. Prøv igjen om 1 sekund."))
            #expect(!page.text.contains("Too many"))
        }
    }

    @Test("a password change slowed after wrong current passwords says so on the Profile beside the field, not as JSON")
    func passwordChangeThrottleOnTheProfile() async throws {
        let world = try await TestWorld()
        try await world.services.settings.setLanguage(.norwegianBokmal, for: world.kari.id)
        try await world.test { client in
            let token = try await client.token("kari")
            var last: TestResponse?
            for _ in 0..<6 {
                last = try await PageFormTests.post(
                    client, "/profile/password", token: token,
                    form: "currentPassword=nope&newPassword=another+long+passphrase")
            }
            let page = try #require(last)
            #expect(page.status == .tooManyRequests)
            #expect(page.headers[.retryAfter] == "1")
            #expect(page.headers[.contentType] == "text/html; charset=utf-8")
            #expect(
                page.text.contains(#"<span class="field-error" id="current-password-error">For mange feil passord. Prøv igjen om 1 sekund.</span>"#))
        }
    }

    @Test("a coordinator's form refused for a control character says the rule in the coordinator's language")
    func controlCharactersInNorwegian() async throws {
        let world = try await TestWorld()
        try await world.services.settings.setLanguage(.norwegianBokmal, for: world.coordinator.id)
        try await world.test { client in
            let token = try await client.token("coord")
            let page = try await PageFormTests.post(
                client, "/coordinator/notifications", token: token,
                form: "recipient=\(world.kari.id)&kind=scenarioPrompt&title=%C3%98velse%09i+dag&body=")
            #expect(page.status == .unprocessableContent)
            #expect(page.text.contains(#"<span class="field-error" id="send-title-error">Fjern tabulatorer og andre kontrolltegn"#))
            #expect(!page.text.contains("must not contain"))
            let details = try await PageFormTests.post(
                client, "/coordinator/notifications", token: token,
                form: "recipient=\(world.kari.id)&kind=scenarioPrompt&title=%C3%98velse&body=&personalDetails=Per%09Olsen")
            #expect(details.status == .unprocessableContent)
            #expect(
                details.text.contains(
                    #"<span class="field-error" id="send-details-error">Høyst 20 linjer på høyst 200 tegn hver, uten tabulatorer eller andre kontrolltegn.</span>"#
                ))
            #expect(!details.text.contains("Per\tOlsen</li>") && !details.text.contains("Per%09Olsen"), "the detail is kept in its field only")
        }
    }
}

/// The notification centre a page at a time: a list longer than a page links to the next, and back to the first.
@Suite("The centre's pages")
struct CentrePagesTests {
    @Test("with 101 notifications the centre shows the newest 100 and links to the older one, whose page links back and takes no live rows")
    func olderNotificationsAreReachable() async throws {
        let world = try await TestWorld()
        let message = try Validation.notification(
            kind: "scenarioPrompt", title: "Practice", body: "", urgency: nil, personalDetails: [],
            allowAssignment: false)
        var sent: [NotificationID] = []
        for _ in 0..<101 {
            sent += try await world.services.sender.send(message, from: world.coordinator.id, to: [world.kari.id]).items.map(\.id)
        }
        let ids = sent
        let oldest = try #require(ids.first)
        try await world.test { client in
            let token = try await client.token("kari")
            let first = try await client.call(.get, "/notifications", token: token)
            #expect(first.text.components(separatedBy: #"<li id="notification-"#).count - 1 == 100)
            #expect(!first.text.contains(#"id="notification-\#(oldest)""#))
            let older = try #require(first.text.firstMatch(of: /<a href="([^"]+)" id="older-notifications">Older notifications<\/a>/)?.1)
            #expect(older == "/notifications?cursor=n\(ids[1])")
            #expect(!first.text.contains("newest-notifications") && !first.text.contains("data-cursor"))

            let second = try await client.call(.get, String(older), token: token)
            #expect(second.text.components(separatedBy: #"<li id="notification-"#).count - 1 == 1)
            #expect(second.text.contains(#"id="notification-\#(oldest)""#))
            #expect(second.text.contains(#"<a href="/notifications" id="newest-notifications">Newest notifications</a>"#))
            #expect(second.text.contains(#"data-cursor="n\#(ids[1])""#), "the script adds no live rows to a later page")
            #expect(!second.text.contains("older-notifications"))

            // A filter is kept from page to page; a cursor this Varsel did not give out is the first page.
            let unread = try await client.call(.get, "/notifications?filter=unread", token: token)
            #expect(unread.text.contains(#"href="/notifications?filter=unread&amp;cursor=n\#(ids[1])" id="older-notifications""#))
            let made = try await client.call(.get, "/notifications?cursor=n0", token: token)
            #expect(made.status == .ok && !made.text.contains("newest-notifications"))

            // Marking on a later page comes back to that page.
            #expect(second.text.contains(#"<input type="hidden" name="cursor" value="n\#(ids[1])">"#))
            let marked = try await PageFormTests.post(
                client, "/notifications/bulk", token: token,
                form: "filter=all&cursor=n\(ids[1])&action=read&ids[]=\(oldest)")
            #expect(marked.headers[.location] == "/notifications?cursor=n\(ids[1])&done=readall-1")
        }
    }
}
