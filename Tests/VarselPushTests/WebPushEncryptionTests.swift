import Crypto
import Foundation
import Testing
import VarselPushTesting

@testable import VarselPush

/// Payload encryption against RFC 8291's own example (§5 and Appendix A), to the byte.
@Suite("Web Push encryption (RFC 8291)")
struct WebPushEncryptionTests {
    // RFC 8291 Appendix A: the inputs…
    static let plaintext = "When I grow up, I want to be a watermelon"
    static let authSecret = "BTBZMqHH6r4Tts7J_aSIgg"
    static let receiverPublicKey = "BCVxsr7N_eNgVRqvHtD0zTZsEc6-VV-JvLexhqUzORcxaOzi6-AYWXvTBHm4bjyPjs7Vd8pZGH6SRpkNtoIAiw4"
    static let receiverPrivateKey = "q1dXpw3UpT5VOmu_cf_v6ih07Aems3njxI-JWgLcM94"
    static let senderPrivateKey = "yfWPiYE-n46HLnH0KqZOF1fJJU3MYrct3AELtAQ-oRw"
    static let senderPublicKey = "BP4z9KsN6nGRTbVYI_c7VJSPQTBtkgcy27mlmlMoZIIgDll6e3vCYLocInmYWAmS6TlzAC8wEqKK6PBru3jl7A8"
    static let salt = "DGv6ra1nlYgDCS1FRnbzlw"
    // …and the message it gives (§5).
    static let expectedBody =
        "DGv6ra1nlYgDCS1FRnbzlwAAEABBBP4z9KsN6nGRTbVYI_c7VJSPQTBtkgcy27mlmlMoZIIgDll6e3vCYLocInmYWAmS6TlzAC8wEqKK6PBru3jl7A_yl95bQpu6cVPTpK4Mqgkf1CXztLVBSt2Ks3oZwbuwXPXLWyouBWLVWGNWQexSgSxsj_Qulcy4a-fN"

    func decoded(_ text: String) throws -> Data { try #require(Base64URL.decode(text)) }

    @Test("RFC 8291's example message, from its fixed sender key and salt")
    func rfcExample() throws {
        let senderKey = try P256.KeyAgreement.PrivateKey(rawRepresentation: try decoded(Self.senderPrivateKey))
        #expect(Base64URL.encode(senderKey.publicKey.x963Representation) == Self.senderPublicKey)
        let body = try WebPushEncryption.encrypt(
            Data(Self.plaintext.utf8), p256dh: try decoded(Self.receiverPublicKey),
            auth: try decoded(Self.authSecret), ephemeralKey: senderKey, salt: try decoded(Self.salt))
        #expect(Base64URL.encode(body) == Self.expectedBody)
        // The header alone: salt, record size 4096, key length 65, the sender's key (Appendix A).
        #expect(
            Base64URL.encode(body.prefix(86))
                == "DGv6ra1nlYgDCS1FRnbzlwAAEABBBP4z9KsN6nGRTbVYI_c7VJSPQTBtkgcy27mlmlMoZIIgDll6e3vCYLocInmYWAmS6TlzAC8wEqKK6PBru3jl7A8")
    }

    @Test("a fresh message decrypts with the receiver's private key, and differs each time")
    func roundTrip() throws {
        let receiver = P256.KeyAgreement.PrivateKey()
        let auth = Data((0..<16).map { UInt8($0) })
        let message = Data(#"{"title":"Assignment: New assignment"}"#.utf8)
        let first = try WebPushEncryption.encrypt(message, p256dh: receiver.publicKey.x963Representation, auth: auth)
        let second = try WebPushEncryption.encrypt(message, p256dh: receiver.publicKey.x963Representation, auth: auth)
        #expect(first != second)
        #expect(try BrowserDecryption.decrypt(first, receiver: receiver, auth: auth) == message)
    }

    @Test("bad subscription keys and oversized messages are refused")
    func refusals() throws {
        let receiver = P256.KeyAgreement.PrivateKey().publicKey.x963Representation
        #expect(throws: WebPushEncryption.Failure.invalidAuthSecret) {
            try WebPushEncryption.encrypt(Data("x".utf8), p256dh: receiver, auth: Data(count: 15))
        }
        #expect(throws: WebPushEncryption.Failure.invalidPublicKey) {
            try WebPushEncryption.encrypt(Data("x".utf8), p256dh: Data(repeating: 4, count: 65), auth: Data(count: 16))
        }
        let tooLarge = WebPushEncryption.maximumPlaintextBytes + 1
        #expect(throws: WebPushEncryption.Failure.payloadTooLarge(bytes: tooLarge)) {
            try WebPushEncryption.encrypt(Data(count: tooLarge), p256dh: receiver, auth: Data(count: 16))
        }
        let fits = try WebPushEncryption.encrypt(Data(count: WebPushEncryption.maximumPlaintextBytes), p256dh: receiver, auth: Data(count: 16))
        #expect(fits.count == 4096)
    }
}
