import Crypto
import Foundation
import Testing
import VarselPasskeys
import VarselPasskeysTesting

@Suite("WebAuthn verification")
struct WebAuthnVerifierTests {
    let verifier = WebAuthnVerifier(relyingParty: RelyingParty(publicURL: URL(string: "http://localhost:8080/")!)!)
    let challenge = (0..<32).map { _ in UInt8.random(in: 0...255) }

    func registered(_ authenticator: TestAuthenticator) throws -> RegisteredCredential {
        let (clientData, object) = authenticator.registration(challenge: challenge)
        return try verifier.register(clientDataJSON: clientData, attestationObject: object, challenge: challenge)
    }

    @Test("the relying party comes from the public URL: its host is the RP id, scheme, host and port the origin")
    func relyingParty() {
        #expect(
            RelyingParty(publicURL: URL(string: "https://Varsel.Example/")!) == RelyingParty(id: "varsel.example", origin: "https://varsel.example"))
        #expect(RelyingParty(publicURL: URL(string: "http://localhost:8080")!)?.origin == "http://localhost:8080")
        #expect(RelyingParty(publicURL: URL(string: "https://varsel.example:443")!)?.origin == "https://varsel.example")
    }

    @Test("an ES256 and an EdDSA passkey register, then sign in with a counter that goes forward")
    func registersAndAuthenticates() throws {
        for key in [TestAuthenticator.Key.p256(P256.Signing.PrivateKey()), .ed25519(Curve25519.Signing.PrivateKey())] {
            var authenticator = TestAuthenticator(key: key)
            let credential = try registered(authenticator)
            #expect(credential.id == authenticator.credentialID)
            #expect(credential.publicKey == authenticator.coseKey)
            let (clientData, authData, signature) = authenticator.assertion(challenge: challenge)
            let counter = try verifier.authenticate(
                clientDataJSON: clientData, authenticatorData: authData, signature: signature,
                challenge: challenge, publicKey: credential.publicKey, storedCount: 0)
            #expect(counter == 1)
        }
    }

    @Test("refused: another origin, a cross-origin frame, another RP id, another challenge, the other ceremony")
    func refusesWhereAndWhat() throws {
        var authenticator = TestAuthenticator()
        let key = try registered(authenticator).publicKey
        func attempt(
            origin: String = "http://localhost:8080", rpID: String = "localhost", challenge sent: [UInt8]? = nil,
            type: String = "webauthn.get"
        ) throws {
            let (clientData, authData, signature) = authenticator.assertion(challenge: sent ?? challenge, rpID: rpID, origin: origin, type: type)
            _ = try verifier.authenticate(
                clientDataJSON: clientData, authenticatorData: authData, signature: signature, challenge: challenge,
                publicKey: key, storedCount: 0)
        }
        #expect(throws: PasskeyError.originMismatch) { try attempt(origin: "http://localhost:8081") }
        #expect(throws: PasskeyError.originMismatch) { try attempt(origin: "http://evil.example") }
        #expect(throws: PasskeyError.relyingPartyMismatch) { try attempt(rpID: "evil.example") }
        #expect(throws: PasskeyError.challengeMismatch) { try attempt(challenge: [1, 2, 3]) }
        #expect(throws: PasskeyError.wrongCeremony) { try attempt(type: "webauthn.create") }
        let crossOrigin = TestAuthenticator.clientData(
            type: "webauthn.create", challenge: challenge, origin: "http://localhost:8080", crossOrigin: true)
        #expect(throws: PasskeyError.originMismatch) {
            try verifier.register(
                clientDataJSON: crossOrigin, attestationObject: authenticator.registration(challenge: challenge).attestationObject,
                challenge: challenge)
        }
    }

    @Test("refused: no user verification, no user presence, a counter that went back, a signature by another key")
    func refusesWho() throws {
        var authenticator = TestAuthenticator()
        let key = try registered(authenticator).publicKey
        let (unverifiedData, unverifiedObject) = authenticator.registration(challenge: challenge, flags: 0x01)
        #expect(throws: PasskeyError.userNotVerified) {
            try verifier.register(clientDataJSON: unverifiedData, attestationObject: unverifiedObject, challenge: challenge)
        }
        var assertion = authenticator.assertion(challenge: challenge, flags: 0x04)
        #expect(throws: PasskeyError.userNotPresent) {
            try verifier.authenticate(
                clientDataJSON: assertion.clientData, authenticatorData: assertion.authenticatorData, signature: assertion.signature,
                challenge: challenge, publicKey: key, storedCount: 0)
        }
        assertion = authenticator.assertion(challenge: challenge)
        #expect(throws: PasskeyError.counterWentBack) {
            try verifier.authenticate(
                clientDataJSON: assertion.clientData, authenticatorData: assertion.authenticatorData, signature: assertion.signature,
                challenge: challenge, publicKey: key, storedCount: authenticator.counter)
        }
        #expect(throws: PasskeyError.badSignature) {
            try verifier.authenticate(
                clientDataJSON: assertion.clientData, authenticatorData: assertion.authenticatorData, signature: assertion.signature,
                challenge: challenge, publicKey: TestAuthenticator().coseKey, storedCount: 0)
        }
        var tampered = assertion.authenticatorData
        tampered[36] ^= 0x01
        #expect(throws: PasskeyError.badSignature) {
            try verifier.authenticate(
                clientDataJSON: assertion.clientData, authenticatorData: tampered, signature: assertion.signature,
                challenge: challenge, publicKey: key, storedCount: 0)
        }
    }

    @Test("refused: an RS256 key, and malformed CBOR (a key twice, an indefinite length, a tag, bytes cut short)")
    func refusesWhatItCannotRead() throws {
        let rs256 = CBOREncoder.encode(
            .map([
                (.unsigned(1), .unsigned(3)), (.unsigned(3), .negative(256)), (.negative(0), .bytes([1])),
                (.negative(1), .bytes([1, 0, 1])),
            ]))
        #expect(throws: PasskeyError.unsupportedAlgorithm) { try COSEKey(try CBORDecoder.decode(rs256)) }
        #expect(throws: CBORError("A CBOR map has a key twice.")) { try CBORDecoder.decode([0xA2, 0x01, 0x01, 0x01, 0x02]) }
        #expect(throws: CBORError("CBOR indefinite lengths are not accepted.")) { try CBORDecoder.decode([0xBF, 0x01, 0x01, 0xFF]) }
        #expect(throws: CBORError("CBOR tags are not accepted.")) { try CBORDecoder.decode([0xC0, 0x60]) }
        #expect(throws: CBORError("The CBOR ends early.")) { try CBORDecoder.decode([0x58, 0x20, 0x00]) }
        #expect(throws: CBORError("Bytes follow the CBOR item.")) { try CBORDecoder.decode([0x01, 0x02]) }
        #expect(throws: CBORError("CBOR nests too deeply.")) { try CBORDecoder.decode([UInt8](repeating: 0x81, count: 20) + [0x01]) }
        let (clientData, object) = TestAuthenticator().registration(challenge: challenge)
        var broken = object
        broken[0] = 0xA4  // says four pairs, holds three
        #expect(throws: CBORError("The CBOR ends early.")) {
            try verifier.register(clientDataJSON: clientData, attestationObject: broken, challenge: challenge)
        }
    }

    @Test("fuzzed: no input crashes the decoders, and what the encoder writes decodes to the same value")
    func fuzz() throws {
        var generator = SplitMix64(seed: 0x7661_7273_656C)
        let (clientData, object) = TestAuthenticator().registration(challenge: challenge)
        var refused = 0
        for round in 0..<20_000 {
            var bytes = object
            if round % 2 == 0 {
                for _ in 0..<(1 + Int(generator.next() % 4)) {
                    bytes[Int(generator.next() % UInt64(bytes.count))] = UInt8(truncatingIfNeeded: generator.next())
                }
            } else {
                bytes = (0..<Int(generator.next() % 64)).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
            }
            do {
                _ = try verifier.register(clientDataJSON: clientData, attestationObject: bytes, challenge: challenge)
            } catch is PasskeyError {
                refused += 1
            } catch is CBORError {
                refused += 1
            }
            _ = try? AuthenticatorData(bytes)
        }
        #expect(refused > 19_000, "almost every mutation is refused, with a reason")
        for _ in 0..<2_000 {
            let value = Self.randomValue(&generator, depth: 0)
            #expect(try CBORDecoder.decode(CBOREncoder.encode(value)) == value)
        }
    }

    static func randomValue(_ generator: inout SplitMix64, depth: Int) -> CBOR {
        switch generator.next() % (depth > 3 ? 5 : 7) {
        case 0: return .unsigned(generator.next() >> (generator.next() % 64))
        case 1: return .negative(generator.next() >> (generator.next() % 64))
        case 2: return .bytes((0..<Int(generator.next() % 40)).map { _ in UInt8(truncatingIfNeeded: generator.next()) })
        case 3: return .text(String((0..<Int(generator.next() % 12)).map { _ in Character(UnicodeScalar(UInt8(65 + generator.next() % 26))) }) + "ø")
        case 4: return [CBOR.bool(true), .bool(false), .null][Int(generator.next() % 3)]
        case 5: return .array((0..<Int(generator.next() % 5)).map { _ in randomValue(&generator, depth: depth + 1) })
        default:
            var pairs: [(CBOR, CBOR)] = []
            for index in 0..<Int(generator.next() % 5) { pairs.append((.text("k\(index)"), randomValue(&generator, depth: depth + 1))) }
            return .map(pairs)
        }
    }
}

/// A small seeded generator, so the fuzz test is the same on every run.
struct SplitMix64: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
