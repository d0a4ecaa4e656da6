import Crypto
import Foundation
import Testing

@testable import VarselPush

/// VAPID (RFC 8292): the Authorization header a push service checks.
@Suite("VAPID")
struct VAPIDTests {
    @Test("the header is 'vapid t=<ES256 JWT>,k=<public key>', and the JWT verifies with that key")
    func headerVerifies() throws {
        let key = VAPIDKey.generate()
        let expiry = Date(timeIntervalSince1970: 1_800_000_000)
        let header = try key.authorization(audience: "https://push.example.net", subject: "mailto:drift@varsel.example", expiresAt: expiry)
        let match = try #require(header.wholeMatch(of: /vapid t=([A-Za-z0-9_-]+)\.([A-Za-z0-9_-]+)\.([A-Za-z0-9_-]+),k=([A-Za-z0-9_-]+)/))
        let publicKey = try #require(Base64URL.decode(String(match.4)))
        #expect(publicKey.count == 65 && publicKey.first == 4)
        #expect(String(match.4) == key.publicKeyBase64URL)
        let joseHeader = try JSONSerialization.jsonObject(with: try #require(Base64URL.decode(String(match.1)))) as? [String: String]
        #expect(joseHeader == ["typ": "JWT", "alg": "ES256"])
        let claims = try JSONSerialization.jsonObject(with: try #require(Base64URL.decode(String(match.2)))) as? [String: Any]
        #expect(claims?["aud"] as? String == "https://push.example.net")
        #expect(claims?["sub"] as? String == "mailto:drift@varsel.example")
        #expect(claims?["exp"] as? Int == 1_800_000_000)
        let signature = try P256.Signing.ECDSASignature(rawRepresentation: try #require(Base64URL.decode(String(match.3))))
        let verifier = try P256.Signing.PublicKey(x963Representation: publicKey)
        #expect(verifier.isValidSignature(signature, for: Data("\(match.1).\(match.2)".utf8)))
        #expect(!verifier.isValidSignature(signature, for: Data("\(match.1).x\(match.2)".utf8)))
    }

    @Test("a key survives the store (raw) and a PEM file")
    func keyForms() throws {
        let key = VAPIDKey.generate()
        #expect(try VAPIDKey(rawRepresentation: key.rawRepresentation).publicKeyBase64URL == key.publicKeyBase64URL)
        #expect(try VAPIDKey(pem: key.privateKey.pemRepresentation).publicKeyBase64URL == key.publicKeyBase64URL)
        #expect(throws: (any Error).self) { try VAPIDKey(pem: "not a key") }
    }
}

/// Which endpoints the server will POST to (SSRF).
@Suite("Push endpoint policy")
struct PushEndpointPolicyTests {
    let strict = PushEndpointPolicy()

    @Test(
        "real push services' endpoints pass",
        arguments: [
            "https://fcm.googleapis.com/fcm/send/abc:def",
            "https://updates.push.services.mozilla.com/wpush/v2/gAAAA",
            "https://web.push.apple.com/QGuQyavXutnMH6_GDh",
            "https://[2001:4860:4860::8888]/push",
        ])
    func accepted(endpoint: String) throws {
        _ = try strict.check(endpoint)
    }

    @Test(
        "http, private, loopback, link-local and odd endpoints are refused",
        arguments: [
            "http://fcm.googleapis.com/fcm/send/abc", "https://127.0.0.1/push", "https://localhost/push", "https://10.1.2.3/",
            "https://192.168.1.1/", "https://172.20.0.1/", "https://169.254.169.254/latest/meta-data", "https://[::1]/",
            "https://[fd00::1]/", "https://[::ffff:127.0.0.1]/", "https://0.0.0.0/", "https://user:pw@push.example.net/",
            "https://push.example.net/#x", "https://printer/", "https://db.internal/", "ftp://push.example.net/", "not a url", "",
        ])
    func refused(endpoint: String) {
        #expect(throws: PushEndpointPolicy.Refusal.self) { try strict.check(endpoint) }
    }

    @Test("a refusal never repeats the endpoint")
    func refusalDoesNotEcho() {
        do {
            _ = try strict.check("https://10.0.0.7/secret-path-Kari")
            Issue.record("expected a refusal")
        } catch {
            #expect(!error.description.contains("secret-path") && !error.description.contains("10.0.0.7"))
        }
    }

    @Test("a host name that resolves to loopback is refused at send time")
    func resolvedLoopback() async throws {
        let url = try #require(URL(string: "https://localhost.localdomain.test/push"))
        // A name that does not resolve is refused too.
        await #expect(throws: PushEndpointPolicy.Refusal.self) { try await strict.checkResolved(url) }
        await #expect(throws: PushEndpointPolicy.Refusal.self) {
            try await strict.checkResolved(try #require(URL(string: "https://localhost/push")))
        }
    }

    @Test("the test flag lets a stand-in push service on loopback through")
    func testFlag() throws {
        let relaxed = PushEndpointPolicy(allowsInsecureEndpoints: true)
        _ = try relaxed.check("http://127.0.0.1:9999/push/1")
        #expect(throws: PushEndpointPolicy.Refusal.self) { try relaxed.check("ftp://127.0.0.1/") }
    }
}
