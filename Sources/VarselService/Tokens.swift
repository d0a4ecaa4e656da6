import Crypto
import Foundation

/// Makes session tokens and the hashes under which they are stored.
public enum Tokens {
    /// A new random token: 32 bytes, base64url without padding.
    public static func random() -> String {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<32).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        return Data(bytes).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    /// The SHA-256 of `token`, hex: what the store keeps instead of the token.
    public static func hash(_ token: String) -> String {
        var hex: [UInt8] = []
        hex.reserveCapacity(2 * SHA256.byteCount)
        for byte in SHA256.hash(data: Data(token.utf8)) {
            hex.append(hexDigits[Int(byte >> 4)])
            hex.append(hexDigits[Int(byte & 0x0f)])
        }
        return String(decoding: hex, as: UTF8.self)
    }

    /// Lower-case hex digits, as bytes: a hash is formatted on every signed-in request, so without `String(format:)`.
    private static let hexDigits = Array("0123456789abcdef".utf8)

    /// Compares two secrets in time independent of where they differ.
    public static func constantTimeEquals(_ lhs: String, _ rhs: String) -> Bool {
        let a = Array(lhs.utf8)
        let b = Array(rhs.utf8)
        guard a.count == b.count else { return false }
        return zip(a, b).reduce(0) { $0 | ($1.0 ^ $1.1) } == 0
    }
}
