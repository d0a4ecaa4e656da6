import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// An IPv4 or IPv6 network written `address/prefix` (a bare address means a single host).
public struct CIDR: Sendable, Equatable, CustomStringConvertible {
    let network: [UInt8]
    let prefixLength: Int

    public init?(_ text: String) {
        let parts = text.split(separator: "/", maxSplits: 1)
        guard let first = parts.first, let bytes = Self.parseAddress(String(first)) else { return nil }
        let maximum = bytes.count * 8
        let length = parts.count == 2 ? Int(parts[1]) : maximum
        guard let length, (0...maximum).contains(length) else { return nil }
        network = bytes
        prefixLength = length
    }

    public var description: String { "\(network.map(String.init).joined(separator: "."))/\(prefixLength)" }

    /// Whether `address` lies in this network.
    public func contains(_ address: String) -> Bool {
        guard var bytes = Self.parseAddress(address) else { return false }
        // An IPv4 address written as IPv6 (::ffff:a.b.c.d) is compared as IPv4.
        if network.count == 4, bytes.count == 16, bytes[0..<10].allSatisfy({ $0 == 0 }), bytes[10] == 0xff, bytes[11] == 0xff {
            bytes = Array(bytes[12...])
        }
        guard bytes.count == network.count else { return false }
        var remaining = prefixLength
        for index in 0..<bytes.count where remaining > 0 {
            let bits = min(8, remaining)
            let mask: UInt8 = bits == 8 ? 0xff : ~(0xff >> UInt8(bits))
            if bytes[index] & mask != network[index] & mask { return false }
            remaining -= bits
        }
        return true
    }

    /// The bytes of an IPv4 (4) or IPv6 (16) address, or nil when `text` is neither.
    public static func parseAddress(_ text: String) -> [UInt8]? {
        var v4 = in_addr()
        if inet_pton(AF_INET, text, &v4) == 1 {
            return withUnsafeBytes(of: &v4) { Array($0) }
        }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, text, &v6) == 1 {
            return withUnsafeBytes(of: &v6) { Array($0) }
        }
        return nil
    }
}
