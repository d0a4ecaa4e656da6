import Crypto
import Foundation

/// Encrypts a push message for one subscription: `aes128gcm` content coding (RFC 8188) keyed as Web Push
/// specifies (RFC 8291), one record, so only the subscribed device can read it.
public enum WebPushEncryption {
    /// The record size written in the header.
    static let recordSize: UInt32 = 4096
    /// The most plaintext one push can carry: push services accept 4,096 bytes of body, and the header (86),
    /// the padding delimiter (1) and the authentication tag (16) take their share.
    public static let maximumPlaintextBytes = 4096 - 86 - 1 - 16

    /// Why a message could not be encrypted.
    public enum Failure: Error, Equatable, CustomStringConvertible {
        /// The subscription's `p256dh` is not an uncompressed P-256 point.
        case invalidPublicKey
        /// The subscription's `auth` is not 16 bytes.
        case invalidAuthSecret
        case payloadTooLarge(bytes: Int)

        public var description: String {
            switch self {
            case .invalidPublicKey: "the subscription's p256dh key is not an uncompressed P-256 public key"
            case .invalidAuthSecret: "the subscription's auth secret is not 16 bytes"
            case let .payloadTooLarge(bytes): "the message is \(bytes) bytes; at most \(WebPushEncryption.maximumPlaintextBytes) fit in one push"
            }
        }
    }

    /// Checks a subscription's keys without encrypting anything.
    public static func validate(p256dh: Data, auth: Data) throws(Failure) {
        guard auth.count == 16 else { throw .invalidAuthSecret }
        guard p256dh.count == 65, p256dh.first == 0x04, (try? P256.KeyAgreement.PublicKey(x963Representation: p256dh)) != nil else {
            throw .invalidPublicKey
        }
    }

    /// The encrypted body for `plaintext`: salt, record size, the sender's public key, then the one record.
    ///
    /// `ephemeralKey` and `salt` are fresh for every message; tests pass fixed ones to reproduce RFC 8291's example.
    public static func encrypt(
        _ plaintext: Data, p256dh: Data, auth: Data,
        ephemeralKey: P256.KeyAgreement.PrivateKey = P256.KeyAgreement.PrivateKey(),
        salt: Data = randomSalt()
    ) throws(Failure) -> Data {
        try validate(p256dh: p256dh, auth: auth)
        guard plaintext.count <= maximumPlaintextBytes else { throw .payloadTooLarge(bytes: plaintext.count) }
        guard let userAgentKey = try? P256.KeyAgreement.PublicKey(x963Representation: p256dh),
            let sharedSecret = try? ephemeralKey.sharedSecretFromKeyAgreement(with: userAgentKey)
        else {
            throw .invalidPublicKey
        }
        let senderPublicKey = ephemeralKey.publicKey.x963Representation
        // RFC 8291 §3.4: IKM = HKDF(salt: auth, IKM: ECDH secret, info: "WebPush: info" 0x00 ua_public as_public).
        let keyInfo = Data("WebPush: info".utf8) + [0] + p256dh + senderPublicKey
        let inputKeyMaterial = sharedSecret.hkdfDerivedSymmetricKey(using: SHA256.self, salt: auth, sharedInfo: keyInfo, outputByteCount: 32)
        // RFC 8188 §2.2–2.3: the content-encryption key and the nonce, from the message's salt.
        let contentKey = HKDF<SHA256>.deriveKey(
            inputKeyMaterial: inputKeyMaterial, salt: salt,
            info: Data("Content-Encoding: aes128gcm".utf8) + [0], outputByteCount: 16)
        let nonceKey = HKDF<SHA256>.deriveKey(
            inputKeyMaterial: inputKeyMaterial, salt: salt,
            info: Data("Content-Encoding: nonce".utf8) + [0], outputByteCount: 12)
        let nonceBytes = nonceKey.withUnsafeBytes { Data($0) }
        // One record, so it is the last: its padding delimiter is 0x02, with no padding after it.
        guard let nonce = try? AES.GCM.Nonce(data: nonceBytes),
            let sealed = try? AES.GCM.seal(plaintext + [2], using: contentKey, nonce: nonce)
        else {
            throw .invalidPublicKey
        }
        var body = salt
        withUnsafeBytes(of: recordSize.bigEndian) { body.append(contentsOf: $0) }
        body.append(UInt8(senderPublicKey.count))
        body.append(senderPublicKey)
        body.append(sealed.ciphertext)
        body.append(sealed.tag)
        return body
    }

    /// Sixteen random bytes.
    public static func randomSalt() -> Data {
        Data(SymmetricKey(size: .bits128).withUnsafeBytes { Array($0) })
    }
}
