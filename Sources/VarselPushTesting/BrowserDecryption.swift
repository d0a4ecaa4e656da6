import Crypto
import Foundation

/// A browser's side of Web Push, for tests: opens an aes128gcm body as a browser does.
///
/// Written out from RFC 8291 independently of the encrypting code's helpers, so that a test of what a phone shows
/// does not trust the code it checks.
public enum BrowserDecryption {
    /// A body whose record is not the last one (its padding delimiter is not 2).
    public struct NotTheLastRecord: Error {}

    /// The plaintext of `body`, encrypted for `receiver` with the authentication secret `auth`.
    public static func decrypt(_ body: Data, receiver: P256.KeyAgreement.PrivateKey, auth: Data) throws -> Data {
        let salt = body.prefix(16)
        let keyLength = Int(body[body.startIndex + 20])
        let senderKey = body.dropFirst(21).prefix(keyLength)
        let record = body.dropFirst(21 + keyLength)
        let secret = try receiver.sharedSecretFromKeyAgreement(with: P256.KeyAgreement.PublicKey(x963Representation: senderKey))
        let prkKey = HMAC<SHA256>.authenticationCode(for: secret.withUnsafeBytes { Data($0) }, using: SymmetricKey(data: auth))
        let info = Data("WebPush: info".utf8) + [0] + receiver.publicKey.x963Representation + senderKey + [1]
        let ikm = Data(HMAC<SHA256>.authenticationCode(for: info, using: SymmetricKey(data: Data(prkKey))))
        let prk = Data(HMAC<SHA256>.authenticationCode(for: ikm, using: SymmetricKey(data: salt)))
        let cek = Data(HMAC<SHA256>.authenticationCode(for: Data("Content-Encoding: aes128gcm".utf8) + [0, 1], using: SymmetricKey(data: prk)))
            .prefix(16)
        let nonce = Data(HMAC<SHA256>.authenticationCode(for: Data("Content-Encoding: nonce".utf8) + [0, 1], using: SymmetricKey(data: prk)))
            .prefix(12)
        let box = try AES.GCM.SealedBox(nonce: AES.GCM.Nonce(data: nonce), ciphertext: record.dropLast(16), tag: record.suffix(16))
        let padded = try AES.GCM.open(box, using: SymmetricKey(data: cek))
        guard padded.last == 2 else { throw NotTheLastRecord() }
        return padded.dropLast()
    }
}
