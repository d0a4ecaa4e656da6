import Foundation
import HTTPTypes
import Hummingbird
import Testing

@testable import VarselWeb

@Suite("A browser at an address that is no page")
struct NotFoundPageTests {
    static let browser: HTTPFields = [.accept: "text/html,application/xhtml+xml,*/*;q=0.8"]

    @Test("a signed-out browser gets an HTML page in its language, with the way to sign in; an API client keeps problem+json")
    func signedOut() async throws {
        let world = try await TestWorld()
        try await world.test { client in
            var norwegian = Self.browser
            norwegian[.acceptLanguage] = "nb-NO,nb;q=0.9"
            let page = try await client.call(.get, "/dashboard", token: nil, headers: norwegian)
            #expect(page.status == .notFound)
            #expect(page.headers[.contentType]?.hasPrefix("text/html") == true)
            #expect(page.text.contains(#"<html lang="nb">"#))
            #expect(page.text.contains(">Fant ikke siden</h1>"))
            #expect(page.text.contains(#"<a id="not-found-home" href="/signin">Gå til innloggingen</a>"#))
            try await client.call(.get, "/dashboard", token: nil).expectProblem(.notFound)
            try await client.call(.get, "/api/v1/nothing", token: nil, headers: Self.browser).expectProblem(.notFound)
            try await client.call(.post, "/dashboard", token: nil, headers: Self.browser).expectProblem(.notFound)
        }
    }

    @Test("a signed-in browser gets the page inside the frame, tab bar and all, in the person's language, with the way home")
    func signedIn() async throws {
        let world = try await TestWorld()
        try await world.test { client in
            let kari = try await client.token("kari")
            let page = try await client.call(.get, "/dashboard", token: kari, headers: Self.browser)
            #expect(page.status == .notFound)
            #expect(page.text.contains(">Page not found</h1>"))
            #expect(page.text.contains("There is no page at this address."))
            #expect(page.text.contains(#"<a id="not-found-home" href="/notifications">Go to your notifications</a>"#))
            #expect(page.text.contains(#"role="tablist""#))
            #expect(page.text.contains(#"data-csrf=""#))
            let contact = try await client.call(.get, "/contacts/999999", token: kari, headers: Self.browser)
            #expect(contact.status == .notFound)
            #expect(contact.text.contains(">Page not found</h1>"), "a page's own 404 is the page too")
            let ola = try await client.token("ola")
            #expect(try await client.call(.get, "/dashboard", token: ola, headers: Self.browser).text.contains(">Fant ikke siden</h1>"))
        }
    }
}
