import Crypto
import Foundation

/// Why a WebAuthn ceremony was refused: one reason each, safe to log (no challenge, key or credential in it).
public enum PasskeyError: Error, Equatable, Sendable {
    /// The bytes are not what WebAuthn sends; the message names the rule broken.
    case malformed(String)
    /// The client data is for the other ceremony (`webauthn.get` where `webauthn.create` was expected, or back).
    case wrongCeremony
    /// The challenge is not the one Varsel issued for this ceremony.
    case challengeMismatch
    /// The page that ran the ceremony is not Varsel's origin, or ran it in a cross-origin frame.
    case originMismatch
    /// The authenticator signed for another relying party.
    case relyingPartyMismatch
    case userNotPresent
    /// The authenticator did not verify the user (PIN, fingerprint, face): Varsel requires it.
    case userNotVerified
    /// The signature counter did not go forward: a cloned authenticator, or a replay.
    case counterWentBack
    case badSignature
    /// A key type or algorithm Varsel does not accept (only ES256 and EdDSA).
    case unsupportedAlgorithm
}

/// Who Varsel is to authenticators: the RP id (the host of `--public-url`) and the origin pages run on.
public struct RelyingParty: Sendable, Equatable {
    public let id: String
    public let origin: String
    public let name: String

    public init(id: String, origin: String, name: String = "Varsel") {
        self.id = id
        self.origin = origin
        self.name = name
    }

    /// The relying party of a public URL: its host is the RP id, its scheme, host and port the origin.
    public init?(publicURL: URL) {
        guard let scheme = publicURL.scheme?.lowercased(), ["http", "https"].contains(scheme), let host = publicURL.host?.lowercased(), !host.isEmpty
        else { return nil }
        let defaultPort = scheme == "https" ? 443 : 80
        let port = publicURL.port.flatMap { $0 == defaultPort ? nil : $0 }
        self.init(id: host, origin: "\(scheme)://\(host)" + (port.map { ":\($0)" } ?? ""))
    }
}

/// A credential a registration created, as Varsel keeps it.
public struct RegisteredCredential: Sendable, Equatable {
    public let id: [UInt8]
    /// The COSE_Key, as the authenticator encoded it.
    public let publicKey: [UInt8]
    public let signCount: UInt32
    /// Whether the credential may be synced to the user's other devices (the BE flag).
    public let backupEligible: Bool
}

/// The checks of WebAuthn Level 2 §7.1 (registration) and §7.2 (authentication), for `none` attestation.
public struct WebAuthnVerifier: Sendable {
    public let relyingParty: RelyingParty

    public init(relyingParty: RelyingParty) {
        self.relyingParty = relyingParty
    }

    /// Verifies a registration: the client data, then the attestation object's authenticator data; returns the
    /// new credential. The attestation statement is not checked: Varsel asks for none and trusts no maker.
    public func register(clientDataJSON: [UInt8], attestationObject: [UInt8], challenge: [UInt8]) throws -> RegisteredCredential {
        try checkClientData(clientDataJSON, type: "webauthn.create", challenge: challenge)
        let attestation = try CBORDecoder.decode(attestationObject)
        guard case .text? = attestation[text: "fmt"], case .map? = attestation[text: "attStmt"],
            case let .bytes(authData)? = attestation[text: "authData"]
        else { throw PasskeyError.malformed("The attestation object lacks fmt, attStmt or authData.") }
        let data = try AuthenticatorData(authData)
        try check(data)
        guard let credential = data.attestedCredential else { throw PasskeyError.malformed("The authenticator data holds no credential.") }
        _ = try COSEKey(try CBORDecoder.decode(credential.publicKey))
        return RegisteredCredential(
            id: credential.id, publicKey: credential.publicKey, signCount: data.signCount, backupEligible: data.flags & 0x08 != 0)
    }

    /// Verifies an assertion by the credential with `publicKey` whose counter stood at `storedCount`; returns the
    /// new counter to store.
    public func authenticate(
        clientDataJSON: [UInt8], authenticatorData: [UInt8], signature: [UInt8], challenge: [UInt8],
        publicKey: [UInt8], storedCount: UInt32
    ) throws -> UInt32 {
        try checkClientData(clientDataJSON, type: "webauthn.get", challenge: challenge)
        let data = try AuthenticatorData(authenticatorData)
        try check(data)
        let key = try COSEKey(try CBORDecoder.decode(publicKey))
        guard key.verifies(signature, of: authenticatorData + Array(SHA256.hash(data: clientDataJSON))) else { throw PasskeyError.badSignature }
        // An authenticator without a counter always says 0; one with a counter must go forward.
        if data.signCount != 0 || storedCount != 0, data.signCount <= storedCount { throw PasskeyError.counterWentBack }
        return data.signCount
    }

    private func checkClientData(_ json: [UInt8], type: String, challenge: [UInt8]) throws {
        guard let object = try? JSONSerialization.jsonObject(with: Data(json)) as? [String: Any],
            let actualType = object["type"] as? String, let sentChallenge = object["challenge"] as? String, let origin = object["origin"] as? String
        else { throw PasskeyError.malformed("The client data is not JSON with type, challenge and origin.") }
        guard actualType == type else { throw PasskeyError.wrongCeremony }
        guard let decoded = Base64URL.decode(sentChallenge), decoded == challenge else { throw PasskeyError.challengeMismatch }
        guard origin == relyingParty.origin, (object["crossOrigin"] as? Bool) != true else { throw PasskeyError.originMismatch }
    }

    private func check(_ data: AuthenticatorData) throws {
        guard data.rpIDHash == Array(SHA256.hash(data: Data(relyingParty.id.utf8))) else { throw PasskeyError.relyingPartyMismatch }
        guard data.flags & 0x01 != 0 else { throw PasskeyError.userNotPresent }
        guard data.flags & 0x04 != 0 else { throw PasskeyError.userNotVerified }
    }
}

/// The authenticator data of WebAuthn §6.1, read strictly: every byte accounted for.
public struct AuthenticatorData: Sendable {
    public let rpIDHash: [UInt8]
    public let flags: UInt8
    public let signCount: UInt32
    /// The credential a registration created (the AT flag), with its COSE key's bytes.
    public let attestedCredential: (id: [UInt8], publicKey: [UInt8])?

    /// The longest credential id WebAuthn allows.
    static let maximumCredentialIDLength = 1023

    public init(_ bytes: [UInt8]) throws {
        guard bytes.count >= 37 else { throw PasskeyError.malformed("The authenticator data is shorter than 37 bytes.") }
        rpIDHash = Array(bytes[0..<32])
        flags = bytes[32]
        signCount = bytes[33..<37].reduce(0) { $0 << 8 | UInt32($1) }
        var offset = 37
        if flags & 0x40 != 0 {
            guard bytes.count >= offset + 18 else { throw PasskeyError.malformed("The attested credential data ends early.") }
            offset += 16  // AAGUID
            let length = Int(bytes[offset]) << 8 | Int(bytes[offset + 1])
            offset += 2
            guard length > 0, length <= Self.maximumCredentialIDLength, bytes.count >= offset + length else {
                throw PasskeyError.malformed("The credential id's length is not right.")
            }
            let id = Array(bytes[offset..<offset + length])
            offset += length
            var decoder = CBORDecoder(bytes, offset: offset)
            do { _ = try decoder.next() } catch let error as CBORError { throw PasskeyError.malformed(error.description) }
            attestedCredential = (id, Array(bytes[offset..<decoder.offset]))
            offset = decoder.offset
        } else {
            attestedCredential = nil
        }
        if flags & 0x80 != 0 {
            var decoder = CBORDecoder(bytes, offset: offset)
            let extensions: CBOR
            do { extensions = try decoder.next() } catch let error as CBORError { throw PasskeyError.malformed(error.description) }
            guard case .map = extensions else { throw PasskeyError.malformed("The authenticator's extensions are not a map.") }
            offset = decoder.offset
        }
        guard offset == bytes.count else { throw PasskeyError.malformed("Bytes follow the authenticator data.") }
    }
}

/// Base64url without padding, as WebAuthn's JSON carries bytes.
public enum Base64URL {
    public static func encode(_ bytes: [UInt8]) -> String {
        Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    public static func decode(_ text: String) -> [UInt8]? {
        guard text.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") }) else { return nil }
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.count % 4 != 0 { base64 += "=" }
        return Data(base64Encoded: base64).map(Array.init)
    }
}
