import Crypto
import Foundation

/// The server's VAPID identity (RFC 8292): an ES256 key pair whose public half the browser pins when it
/// subscribes, and whose signature on each push proves the push came from this server.
public struct VAPIDKey: Sendable {
    public let privateKey: P256.Signing.PrivateKey

    public init(privateKey: P256.Signing.PrivateKey) {
        self.privateKey = privateKey
    }

    /// A key from its raw 32-byte scalar, as the store keeps it.
    public init(rawRepresentation: Data) throws {
        privateKey = try P256.Signing.PrivateKey(rawRepresentation: rawRepresentation)
    }

    /// A key from a PEM file (`EC PRIVATE KEY` or PKCS #8 `PRIVATE KEY`, as `openssl ecparam -genkey` or
    /// py-vapid write it).
    public init(pem: String) throws {
        privateKey = try P256.Signing.PrivateKey(pemRepresentation: pem)
    }

    /// A new random key.
    public static func generate() -> VAPIDKey { VAPIDKey(privateKey: P256.Signing.PrivateKey()) }

    public var rawRepresentation: Data { privateKey.rawRepresentation }

    /// The public key as the browser's `applicationServerKey` takes it: the uncompressed point, base64url.
    public var publicKeyBase64URL: String { Base64URL.encode(privateKey.publicKey.x963Representation) }

    /// The `Authorization` header for a push to `audience` (the push service's origin), valid until `expiresAt`:
    /// `vapid t=<JWT>,k=<public key>` (no space after the comma: RFC 8292 allows either, and some verifiers, py-vapid among them, split on the last space).
    public func authorization(audience: String, subject: String, expiresAt: Date) throws -> String {
        struct Header: Encodable { let typ = "JWT", alg = "ES256" }
        struct Claims: Encodable { let aud: String, exp: Int, sub: String }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let header = Base64URL.encode(try encoder.encode(Header()))
        let claims = Base64URL.encode(try encoder.encode(Claims(aud: audience, exp: Int(expiresAt.timeIntervalSince1970), sub: subject)))
        let signingInput = Data("\(header).\(claims)".utf8)
        // JWS ES256 wants the raw r‖s signature (64 bytes), not DER.
        let signature = try privateKey.signature(for: signingInput).rawRepresentation
        return "vapid t=\(header).\(claims).\(Base64URL.encode(signature)),k=\(publicKeyBase64URL)"
    }
}
