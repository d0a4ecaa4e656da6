import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import Testing
import VarselCore
import VarselService
import VarselStore

@testable import VarselWeb

/// Integration tokens: a member system acts through the API with a token an administrator made, as itself, until the
/// token is revoked; and the administrator's pages that make, show once and revoke one.
@Suite("Integration tokens", .timeLimit(.minutes(1)))
struct IntegrationTokenTests {
    static let assignment = #"{"mentor":"kari","contact":{"name":"Per Olsen","phone":"900 00 000","address":"Torggata 3","notes":""}}"#

    @Test("a member system's token creates an assignment recorded as the system's, and reads its state")
    func tokenActsAsTheSystem() async throws {
        let world = try await TestWorld()
        let issued = try await world.services.integrations.create(name: "Member system", role: "coordinator", by: world.admin)
        #expect(issued.token.hasPrefix(Integrations.tokenPrefix))
        try await world.test { client in
            let created = try await client.call(.post, "/api/v1/assignments", token: issued.token, json: Self.assignment)
            #expect(created.status == .created, "\(created.text)")
            struct Created: Decodable {
                struct Assignment: Decodable {
                    var id: AssignmentID
                    var status: String
                }
                var assignment: Assignment
            }
            let body = try created.decode(Created.self)
            let read = try await client.call(.get, "/api/v1/assignments/\(body.assignment.id)", token: issued.token)
            #expect(read.status == .ok)
            #expect(read.text.contains(#""status":"pending""#))
            let stored = try #require(try await world.repository.assignment(id: body.assignment.id))
            #expect(stored.coordinatorID == issued.integration.id)
        }
    }

    @Test("an administrator's token adds a person, and that person's change log names the system")
    func changeLogNamesTheSystem() async throws {
        let world = try await TestWorld()
        let issued = try await world.services.integrations.create(name: "Member system", role: "admin", by: world.admin)
        try await world.test { client in
            let added = try await client.call(
                .post, "/api/v1/users", token: issued.token,
                json: #"{"username":"ingrid","displayName":"Ingrid Berg","role":"mentor","locale":"nb"}"#)
            #expect(added.status == .created, "\(added.text)")
            let ingrid = try #require(try await world.repository.user(username: "ingrid"))
            let log = try await world.repository.accountLog(userID: ingrid.id)
            #expect(log.map(\.actorID) == [issued.integration.id])
            let (cookie, _) = try await client.cookieAndCSRF("admin")
            let page = try await client.execute(uri: "/people/\(ingrid.id)", method: .get, headers: [.cookie: cookie])
            #expect(page.text.contains("Member system"), "\(page.text)")
        }
    }

    @Test("a revoked token, an unknown one and a made-up one are refused alike, and revoking is for good")
    func revokedTokenIsRefused() async throws {
        let world = try await TestWorld()
        let issued = try await world.services.integrations.create(name: "Member system", role: "coordinator", by: nil)
        try await world.test { client in
            #expect(try await client.call(.get, "/api/v1/me", token: issued.token).status == .ok)
            try await world.services.integrations.revoke(issued.integration.id, by: world.admin)
            let detail = try await client.call(.get, "/api/v1/me", token: issued.token).expectProblem(.unauthorized)
            #expect(!detail.contains(issued.token))
            try await client.call(.get, "/api/v1/me", token: Integrations.tokenPrefix + "made-up").expectProblem(.unauthorized)
            // Nobody reactivates a token's account through the people administration.
            await #expect(throws: UserAdministration.Refusal.unknownPerson) {
                try await world.services.users.reactivate(issued.integration.id, by: world.admin)
            }
            #expect(try await client.call(.get, "/api/v1/me", token: issued.token).status == .unauthorized)
            let log = try await world.repository.accountLog(userID: issued.integration.id)
            #expect(log.map(\.action) == [.created, .deactivated])
            #expect(log.last?.actorID == world.admin.id)
        }
    }

    @Test("only an administrator who is a person makes or revokes tokens; names and roles are checked")
    func whoMakesTokens() async throws {
        let world = try await TestWorld()
        let integrations = world.services.integrations
        await #expect(throws: Integrations.Refusal.adminOnly) { try await integrations.create(name: "X", role: "coordinator", by: world.coordinator) }
        let system = try await integrations.create(name: "Member system", role: "admin", by: world.admin).integration.account
        await #expect(throws: Integrations.Refusal.adminOnly) { try await integrations.create(name: "Y", role: "coordinator", by: system) }
        await #expect(throws: Integrations.Refusal.adminOnly) { try await integrations.revoke(system.id, by: system) }
        await #expect(throws: Integrations.Refusal.unknownIntegration) { try await integrations.revoke(world.kari.id, by: world.admin) }
        do {
            _ = try await integrations.create(name: " ", role: "mentor", by: world.admin)
            Issue.record("a blank name and the mentor role were accepted")
        } catch let invalid as InvalidInput {
            #expect(invalid.issues.map(\.field) == ["name", "role"])
        }
        // The accounts of tokens are nobody's people.
        #expect(try await world.services.users.people(for: world.admin).contains { $0.user.isIntegration } == false)
        #expect(try await world.services.directory.everyone().contains { $0.isIntegration } == false)
    }

    @Test("a token's last use is recorded, at most once a minute")
    func lastUseIsRecorded() async throws {
        let world = try await TestWorld()
        let issued = try await world.services.integrations.create(name: "Member system", role: "coordinator", by: world.admin)
        try await world.test { (client: any TestClientProtocol) async throws in
            #expect(try await client.call(.get, "/api/v1/me", token: issued.token).status == .ok)
            let first = world.clock.now
            world.clock.advance(by: 30)
            #expect(try await client.call(.get, "/api/v1/me", token: issued.token).status == .ok)
            #expect(try await world.repository.integrations().first?.lastUsedAt == first)
            world.clock.advance(by: 31)
            #expect(try await client.call(.get, "/api/v1/me", token: issued.token).status == .ok)
            #expect(try await world.repository.integrations().first?.lastUsedAt == world.clock.now)
        }
    }

    @Test("a token acts for a system: it cannot sign out, change a password, add a passkey or a push device")
    func tokenIsNoPerson() async throws {
        let world = try await TestWorld()
        let issued = try await world.services.integrations.create(name: "Member system", role: "coordinator", by: world.admin)
        try await world.test { client in
            try await client.call(.delete, "/api/v1/session", token: issued.token).expectProblem(.forbidden)
            try await client.call(.post, "/api/v1/me/passkeys/options", token: issued.token, json: "{}").expectProblem(.forbidden)
            try await client.call(
                .put, "/api/v1/me/password", token: issued.token,
                json: #"{"currentPassword":"x","newPassword":"a long new password"}"#
            ).expectProblem(.forbidden)
            // Still works afterwards: nothing above ended it.
            #expect(try await client.call(.get, "/api/v1/me", token: issued.token).status == .ok)
        }
    }

    @Test("the admin makes a token on the page, sees it once after a redirect, and revokes it")
    func pagesMakeShowOnceAndRevoke() async throws {
        let world = try await TestWorld()
        try await world.test { client in
            let (cookie, csrf) = try await client.cookieAndCSRF("admin")
            let form: HTTPFields = [.cookie: cookie, .contentType: "application/x-www-form-urlencoded"]
            let list = try await client.execute(uri: "/integrations", method: .get, headers: [.cookie: cookie])
            #expect(list.status == .ok)
            #expect(list.text.contains("No integration tokens yet."))

            let refused = try await client.execute(
                uri: "/integrations", method: .post, headers: form, body: ByteBuffer(string: "_csrf=\(csrf)&name=&role=coordinator"))
            #expect(refused.status == .unprocessableContent)
            #expect(refused.text.contains(##"<a href="#token-name">"##))

            let made = try await client.execute(
                uri: "/integrations", method: .post, headers: form,
                body: ByteBuffer(string: "_csrf=\(csrf)&name=Member+system&role=coordinator"))
            #expect(made.status == .seeOther)
            let location = try #require(made.headers[.location])
            let handed = try #require(made.headers[.setCookie])
            #expect(handed.contains("Path=\(location)"))
            #expect(!location.contains(Integrations.tokenPrefix))
            let sealed = String(handed.split(separator: ";")[0])
            let shown = try await client.execute(uri: location, method: .get, headers: [.cookie: "\(cookie); \(sealed)"])
            #expect(shown.status == .ok)
            #expect(shown.headers[.cacheControl] == "no-store")
            let token = try #require(shown.text.firstMatch(of: /value="(varsel_it_[A-Za-z0-9_-]+)"/)).output.1
            #expect(try await client.call(.get, "/api/v1/me", token: String(token)).status == .ok)
            #expect(shown.text.contains("Made a token for Member system"))

            // The page clears the handed-over token as it shows it, so the browser's reload sends none and gets none.
            let clearing = try #require(shown.headers[.setCookie])
            #expect(clearing.hasPrefix("varsel_token=;") && clearing.contains("Max-Age=0") && clearing.contains("Path=\(location)"))
            let again = try await client.execute(uri: location, method: .get, headers: [.cookie: cookie])
            #expect(again.status == .seeOther)
            #expect(again.headers[.location] == "/integrations?done=token-shown")

            let id = try #require(try await world.repository.integrations().first?.id)
            let listed = try await client.execute(uri: "/integrations", method: .get, headers: [.cookie: cookie])
            #expect(listed.text.contains("Member system, coordinator, made "))
            #expect(listed.text.contains("by Admin, last used just now"))
            let revoked = try await client.execute(
                uri: "/integrations/\(id)/revoke", method: .post, headers: form, body: ByteBuffer(string: "_csrf=\(csrf)"))
            #expect(revoked.headers[.location] == "/integrations?done=token-revoked")
            #expect(try await client.call(.get, "/api/v1/me", token: String(token)).status == .unauthorized)
            let after = try await client.execute(uri: "/integrations", method: .get, headers: [.cookie: cookie])
            #expect(after.text.contains(", revoked "))
            #expect(!after.text.contains("integration-\(id)-revoke"))
        }
    }
}
