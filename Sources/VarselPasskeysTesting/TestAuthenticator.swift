import Crypto
import Foundation
import VarselPasskeys

/// An authenticator made of swift-crypto keys, building the bytes a browser hands over, so each check can be broken
/// on its own.
public struct TestAuthenticator: Sendable {
    public enum Key: Sendable {
        case p256(P256.Signing.PrivateKey)
        case ed25519(Curve25519.Signing.PrivateKey)
    }

    public var key: Key
    public let credentialID: [UInt8]
    public var counter: UInt32 = 0

    public init(key: Key = .p256(P256.Signing.PrivateKey())) {
        self.key = key
        credentialID = (0..<32).map { _ in UInt8.random(in: 0...255) }
    }

    /// User present and verified.
    public static let presentAndVerified: UInt8 = 0x05

    public var coseKey: [UInt8] {
        switch key {
        case let .p256(key):
            let point = Array(key.publicKey.x963Representation)
            return CBOREncoder.encode(
                .map([
                    (.unsigned(1), .unsigned(2)), (.unsigned(3), .negative(6)), (.negative(0), .unsigned(1)),
                    (.negative(1), .bytes(Array(point[1..<33]))), (.negative(2), .bytes(Array(point[33..<65]))),
                ]))
        case let .ed25519(key):
            return CBOREncoder.encode(
                .map([
                    (.unsigned(1), .unsigned(1)), (.unsigned(3), .negative(7)), (.negative(0), .unsigned(6)),
                    (.negative(1), .bytes(Array(key.publicKey.rawRepresentation))),
                ]))
        }
    }

    public func authenticatorData(rpID: String, flags: UInt8, counter: UInt32, attested: Bool) -> [UInt8] {
        var bytes = Array(SHA256.hash(data: Data(rpID.utf8)))
        bytes.append(flags | (attested ? 0x40 : 0))
        bytes += [UInt8(counter >> 24), UInt8(counter >> 16 & 0xFF), UInt8(counter >> 8 & 0xFF), UInt8(counter & 0xFF)]
        if attested {
            bytes += [UInt8](repeating: 0, count: 16) + [UInt8(credentialID.count >> 8), UInt8(credentialID.count & 0xFF)] + credentialID + coseKey
        }
        return bytes
    }

    public static func clientData(type: String, challenge: [UInt8], origin: String, crossOrigin: Bool = false) -> [UInt8] {
        Array("{\"type\":\"\(type)\",\"challenge\":\"\(Base64URL.encode(challenge))\",\"origin\":\"\(origin)\",\"crossOrigin\":\(crossOrigin)}".utf8)
    }

    public func registration(
        challenge: [UInt8], rpID: String = "localhost", origin: String = "http://localhost:8080",
        flags: UInt8 = presentAndVerified
    ) -> (clientData: [UInt8], attestationObject: [UInt8]) {
        let authData = authenticatorData(rpID: rpID, flags: flags, counter: counter, attested: true)
        let object = CBOREncoder.encode(.map([(.text("fmt"), .text("none")), (.text("attStmt"), .map([])), (.text("authData"), .bytes(authData))]))
        return (Self.clientData(type: "webauthn.create", challenge: challenge, origin: origin), object)
    }

    public mutating func assertion(
        challenge: [UInt8], rpID: String = "localhost", origin: String = "http://localhost:8080",
        flags: UInt8 = presentAndVerified, type: String = "webauthn.get"
    )
        -> (clientData: [UInt8], authenticatorData: [UInt8], signature: [UInt8])
    {
        counter += 1
        let authData = authenticatorData(rpID: rpID, flags: flags, counter: counter, attested: false)
        let clientData = Self.clientData(type: type, challenge: challenge, origin: origin)
        let message = Data(authData + Array(SHA256.hash(data: clientData)))
        let signature: [UInt8] =
            switch key {
            case let .p256(key): Array(try! key.signature(for: message).derRepresentation)
            case let .ed25519(key): Array(try! key.signature(for: message))
            }
        return (clientData, authData, signature)
    }
}
