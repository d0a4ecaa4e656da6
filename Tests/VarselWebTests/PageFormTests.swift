import Foundation
import HTTPTypes
import Hummingbird
import Testing
import VarselCore
import VarselService
import VarselStore

@testable import VarselWeb

@Suite("Page forms and page rendering")
struct PageFormTests {
    /// A form post to a page, signed in by bearer token (the CSRF rule applies to cookies only).
    static func post(_ client: any TestClientProtocol, _ path: String, token: String, form: String) async throws -> TestResponse {
        try await client.execute(
            uri: path, method: .post,
            headers: [.authorization: "Bearer \(token)", .contentType: "application/x-www-form-urlencoded"],
            body: ByteBuffer(string: form))
    }

    @Test(
        "the coordinator's page form and the API refuse the same bad input, field by field",
        arguments: [
            // (form fields, API fields, the invalid field): a title over the limit, an empty title, an unknown kind.
            (
                "kind=scenarioPrompt&title=" + String(repeating: "a", count: Limits.maxTitleLength + 1),
                #""kind":"scenarioPrompt","title":"\#(String(repeating: "a", count: Limits.maxTitleLength + 1))""#, "title"
            ),
            ("kind=scenarioPrompt&title=", #""kind":"scenarioPrompt","title":"""#, "title"),
            ("kind=birthday&title=Hello", #""kind":"birthday","title":"Hello""#, "kind"),
        ])
    func pageAndAPIShareTheRules(form: String, json: String, field: String) async throws {
        let world = try await TestWorld()
        let kari = try #require(world.kari)
        try await world.test { client in
            let token = try await client.token("coord")
            let api = try await client.call(
                .post, "/api/v1/notifications", token: token,
                json: #"{"recipients":[\#(kari.id)],\#(json),"body":""}"#)
            try api.expectProblem(.unprocessableContent)
            #expect(try api.decode(ProblemBody.self).errors?.map(\.field) == [field])
            let page = try await Self.post(client, "/coordinator/notifications", token: token, form: "recipient=\(kari.id)&body=&" + form)
            #expect(page.status == .unprocessableContent)
            #expect(page.text.contains("id=\"error-summary\""))
            #expect(
                try await world.repository.notifications(for: kari.id, filter: .all, after: nil, limit: 10).items.isEmpty,
                "neither the API nor the page stored anything")
        }
    }

    @Test("a valid page form sends through the same sender as the API, and the redirect carries its flash")
    func validFormSends() async throws {
        let world = try await TestWorld()
        let kari = try #require(world.kari)
        try await world.test { client in
            let token = try await client.token("coord")
            let page = try await Self.post(
                client, "/coordinator/notifications", token: token,
                form: "recipient=\(kari.id)&kind=scenarioPrompt&title=Practice+call&body=&urgent=on")
            #expect(page.status == .seeOther)
            #expect(page.headers[.location] == "/coordinator?done=sent")
            let sent = try await world.repository.notifications(for: kari.id, filter: .all, after: nil, limit: 10).items
            #expect(sent.map(\.title) == ["Practice call"])
            #expect(sent.map(\.urgency) == [.urgent])
        }
    }

    @Test("a mentor is refused the coordinator's page and its forms by the same role gate as the API")
    func mentorsAreRefusedCoordinatorPages() async throws {
        let world = try await TestWorld()
        try await world.test { client in
            let token = try await client.token("kari")
            let api = try await client.call(
                .post, "/api/v1/notifications", token: token, json: #"{"recipients":[1],"kind":"scenarioPrompt","title":"x","body":""}"#)
            let apiDetail = try api.expectProblem(.forbidden)
            let page = try await client.call(.get, "/coordinator", token: token)
            #expect(try page.expectProblem(.forbidden) == apiDetail)
            try await Self.post(client, "/coordinator/assignments", token: token, form: "mentor=1&contactName=A&contactAddress=B").expectProblem(
                .forbidden)
        }
    }

    @Test("every flash survives its trip through the redirect's query")
    func flashRoundTrip() {
        let all: [Flash] = [.markedRead(count: 3), .deleted(count: 0), .settingsSaved, .acknowledged, .declined, .sent, .assignmentCreated]
        for flash in all {
            #expect(Flash(query: flash.query) == flash)
        }
        #expect(Flash(query: "readall") == nil)
        #expect(Flash(query: "anything-else") == nil)
        #expect(Flash.sent.added(to: "/contacts/4?assignment=2") == "/contacts/4?assignment=2&done=sent")
    }

    @Test("a template that does not render is a 500 problem that names nothing, never an empty page")
    func renderFailureIsAProblem() async throws {
        let renderer = try await PageRenderer.load()
        #expect(throws: PageRenderer.RenderFailure.self) {
            _ = try renderer.page("no-such-template", ["title": "x"])
        }
        let problem = Problem.from(PageRenderer.RenderFailure(template: "no-such-template"))
        #expect(problem.status == .internalServerError)
        #expect(!problem.detail.contains("no-such-template"))
    }
}
