import Crypto
import Foundation

/// A credential's public key from its COSE form: ES256 (P-256) or EdDSA (Ed25519), the two Varsel asks for.
public enum COSEKey: Sendable {
    case es256(P256.Signing.PublicKey)
    case ed25519(Curve25519.Signing.PublicKey)

    /// The COSE algorithm numbers Varsel offers, in order of preference: ES256, then EdDSA.
    public static let algorithms: [Int64] = [-7, -8]

    /// The key a COSE_Key map describes; any other key type, algorithm or curve is refused.
    public init(_ cose: CBOR) throws {
        guard case .map = cose else { throw PasskeyError.malformed("The credential's public key is not a COSE map.") }
        switch (cose[int: 1]?.integer, cose[int: 3]?.integer) {
        case (2, -7):
            guard cose[int: -1]?.integer == 1, case let .bytes(x)? = cose[int: -2], case let .bytes(y)? = cose[int: -3], x.count == 32, y.count == 32,
                let key = try? P256.Signing.PublicKey(x963Representation: [0x04] + x + y)
            else {
                throw PasskeyError.malformed("The credential's ES256 key is not a P-256 point.")
            }
            self = .es256(key)
        case (1, -8):
            guard cose[int: -1]?.integer == 6, case let .bytes(x)? = cose[int: -2], x.count == 32,
                let key = try? Curve25519.Signing.PublicKey(rawRepresentation: x)
            else {
                throw PasskeyError.malformed("The credential's EdDSA key is not an Ed25519 key.")
            }
            self = .ed25519(key)
        default:
            throw PasskeyError.unsupportedAlgorithm
        }
    }

    /// Whether `signature` signs `message` under this key (ES256 signatures are DER, as WebAuthn sends them).
    public func verifies(_ signature: [UInt8], of message: [UInt8]) -> Bool {
        switch self {
        case let .es256(key):
            guard let parsed = try? P256.Signing.ECDSASignature(derRepresentation: signature) else { return false }
            return key.isValidSignature(parsed, for: message)
        case let .ed25519(key):
            return key.isValidSignature(signature, for: message)
        }
    }
}
