import Foundation
import Testing
import VarselCore
import VarselPush
import VarselStore

@testable import VarselWeb

/// The sealed cookie that carries a new set-password link to the page that shows it once.
@Suite struct LinkHandoverTests {
    let session = Session(
        tokenHash: "hash", userID: 2, csrfToken: "the session's secret", createdAt: Date(timeIntervalSince1970: 0),
        expiresAt: Date(timeIntervalSince1970: 86400))
    let expiry = Date(timeIntervalSince1970: 1_795_683_600)

    @Test func theCodeOpensForThePersonAndTheSessionItWasSealedFor() throws {
        let sealed = try LinkHandover.seal(code: "417B-R1XK-ZEC3", expiresAt: expiry, personID: 7, session: session)
        #expect(!sealed.contains("417B"))
        let opened = try #require(LinkHandover.open(sealed, personID: 7, session: session))
        #expect(opened.code == "417B-R1XK-ZEC3" && opened.expiresAt == expiry)
    }

    @Test func anotherPersonAnotherSessionOrAChangedValueOpensNothing() throws {
        let sealed = try LinkHandover.seal(code: "417B-R1XK-ZEC3", expiresAt: expiry, personID: 7, session: session)
        #expect(LinkHandover.open(sealed, personID: 8, session: session) == nil)
        var other = session
        other.csrfToken = "another session's secret"
        #expect(LinkHandover.open(sealed, personID: 7, session: other) == nil)
        // One bit of the ciphertext changed: the tag no longer matches.
        var bytes = try #require(Base64URL.decode(sealed))
        bytes[14] ^= 0x01
        #expect(LinkHandover.open(Base64URL.encode(bytes), personID: 7, session: session) == nil)
        #expect(LinkHandover.open("", personID: 7, session: session) == nil)
    }

    @Test func aCodeIsShownInItsGroupsWithTheDashesBetween() {
        let groups = CodeGroup.groups(of: "417B-R1XK-ZEC3")
        #expect(groups.map(\.text) == ["417B", "R1XK", "ZEC3"])
        #expect(groups.map(\.isLast) == [false, false, true])
    }
}
