import Foundation

/// A CBOR value, limited to what WebAuthn sends: integers, byte and text strings, arrays, maps, booleans and null.
///
/// Definite lengths only, as CTAP2's canonical form requires; floats, tags, undefined and indefinite lengths are
/// refused, as is nesting deeper than ``CBORDecoder/maximumDepth``.
public indirect enum CBOR: Equatable, Sendable {
    case unsigned(UInt64)
    /// A negative integer, `-1 - n` for the stored `n`.
    case negative(UInt64)
    case bytes([UInt8])
    case text(String)
    case array([CBOR])
    /// Pairs in the order they came; keys are unique.
    case map([(CBOR, CBOR)])
    case bool(Bool)
    case null

    public static func == (lhs: CBOR, rhs: CBOR) -> Bool {
        switch (lhs, rhs) {
        case let (.unsigned(a), .unsigned(b)), let (.negative(a), .negative(b)): a == b
        case let (.bytes(a), .bytes(b)): a == b
        case let (.text(a), .text(b)): a == b
        case let (.array(a), .array(b)): a == b
        case let (.map(a), .map(b)): a.count == b.count && zip(a, b).allSatisfy { $0.0 == $1.0 && $0.1 == $1.1 }
        case let (.bool(a), .bool(b)): a == b
        case (.null, .null): true
        default: false
        }
    }

    /// The integer, when this is one that fits an `Int64`.
    public var integer: Int64? {
        switch self {
        case let .unsigned(n): n <= UInt64(Int64.max) ? Int64(n) : nil
        case let .negative(n): n <= UInt64(Int64.max) ? -1 - Int64(n) : nil
        default: nil
        }
    }

    /// The value of `key` in a map.
    public subscript(key: CBOR) -> CBOR? {
        guard case let .map(pairs) = self else { return nil }
        return pairs.first { $0.0 == key }?.1
    }

    public subscript(text key: String) -> CBOR? { self[.text(key)] }

    public subscript(int key: Int64) -> CBOR? {
        self[key >= 0 ? .unsigned(UInt64(key)) : .negative(UInt64(-1 - key))]
    }
}

/// Why bytes are not the CBOR WebAuthn sends; the message names the rule, never the bytes.
public struct CBORError: Error, Equatable, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}

/// Decodes CBOR items from bytes, refusing anything beyond ``CBOR``'s subset.
public struct CBORDecoder {
    /// The deepest nesting accepted: WebAuthn's deepest is an attestation statement's certificate array, 3.
    public static let maximumDepth = 8
    /// The most items one array or map may hold.
    public static let maximumCount = 1024

    private let bytes: [UInt8]
    /// Where the next item starts.
    public private(set) var offset: Int

    public init(_ bytes: [UInt8], offset: Int = 0) {
        self.bytes = bytes
        self.offset = offset
    }

    /// The one item `bytes` holds; trailing bytes are an error.
    public static func decode(_ bytes: [UInt8]) throws -> CBOR {
        var decoder = CBORDecoder(bytes)
        let value = try decoder.next()
        guard decoder.offset == bytes.count else { throw CBORError("Bytes follow the CBOR item.") }
        return value
    }

    /// The next item; ``offset`` moves past it.
    public mutating func next() throws -> CBOR {
        try item(depth: 0)
    }

    private mutating func item(depth: Int) throws -> CBOR {
        guard depth <= Self.maximumDepth else { throw CBORError("CBOR nests too deeply.") }
        let initial = try byte()
        let major = initial >> 5
        let info = initial & 0x1F
        if major == 7 {
            switch info {
            case 20: return .bool(false)
            case 21: return .bool(true)
            case 22: return .null
            default: throw CBORError("CBOR simple values other than false, true and null, and floats, are not accepted.")
            }
        }
        let argument = try self.argument(info)
        switch major {
        case 0: return .unsigned(argument)
        case 1: return .negative(argument)
        case 2: return .bytes(try take(argument))
        case 3:
            guard let text = String(validating: try take(argument), as: UTF8.self) else { throw CBORError("A CBOR text string is not UTF-8.") }
            return .text(text)
        case 4:
            let count = try self.count(argument)
            var items: [CBOR] = []
            items.reserveCapacity(count)
            for _ in 0..<count { items.append(try item(depth: depth + 1)) }
            return .array(items)
        case 5:
            let count = try self.count(argument)
            var pairs: [(CBOR, CBOR)] = []
            for _ in 0..<count {
                let key = try item(depth: depth + 1)
                switch key {
                case .unsigned, .negative, .text: break
                default: throw CBORError("A CBOR map key is not an integer or a text string.")
                }
                if pairs.contains(where: { $0.0 == key }) { throw CBORError("A CBOR map has a key twice.") }
                pairs.append((key, try item(depth: depth + 1)))
            }
            return .map(pairs)
        default:
            throw CBORError("CBOR tags are not accepted.")
        }
    }

    private mutating func argument(_ info: UInt8) throws -> UInt64 {
        switch info {
        case 0..<24: return UInt64(info)
        case 24: return UInt64(try byte())
        case 25: return try bigEndian(2)
        case 26: return try bigEndian(4)
        case 27: return try bigEndian(8)
        case 31: throw CBORError("CBOR indefinite lengths are not accepted.")
        default: throw CBORError("A CBOR item has a reserved length.")
        }
    }

    private mutating func count(_ argument: UInt64) throws -> Int {
        guard argument <= UInt64(Self.maximumCount) else { throw CBORError("A CBOR array or map holds too many items.") }
        return Int(argument)
    }

    private mutating func byte() throws -> UInt8 {
        guard offset < bytes.count else { throw CBORError("The CBOR ends early.") }
        defer { offset += 1 }
        return bytes[offset]
    }

    private mutating func bigEndian(_ width: Int) throws -> UInt64 {
        var value: UInt64 = 0
        for _ in 0..<width { value = value << 8 | UInt64(try byte()) }
        return value
    }

    private mutating func take(_ length: UInt64) throws -> [UInt8] {
        guard length <= UInt64(bytes.count - offset) else { throw CBORError("The CBOR ends early.") }
        let end = offset + Int(length)
        defer { offset = end }
        return Array(bytes[offset..<end])
    }
}

/// Encodes ``CBOR`` values in CTAP2's canonical form as given (for tests and the stand-in authenticator).
public enum CBOREncoder {
    public static func encode(_ value: CBOR) -> [UInt8] {
        var out: [UInt8] = []
        write(value, into: &out)
        return out
    }

    private static func write(_ value: CBOR, into out: inout [UInt8]) {
        switch value {
        case let .unsigned(n): head(0, n, &out)
        case let .negative(n): head(1, n, &out)
        case let .bytes(b):
            head(2, UInt64(b.count), &out)
            out += b
        case let .text(t):
            head(3, UInt64(t.utf8.count), &out)
            out += Array(t.utf8)
        case let .array(items):
            head(4, UInt64(items.count), &out)
            for item in items { write(item, into: &out) }
        case let .map(pairs):
            head(5, UInt64(pairs.count), &out)
            for (key, value) in pairs {
                write(key, into: &out)
                write(value, into: &out)
            }
        case let .bool(b): out.append(b ? 0xF5 : 0xF4)
        case .null: out.append(0xF6)
        }
    }

    private static func head(_ major: UInt8, _ n: UInt64, _ out: inout [UInt8]) {
        let m = major << 5
        switch n {
        case 0..<24: out.append(m | UInt8(n))
        case 24...0xFF: out += [m | 24, UInt8(n)]
        case 0x100...0xFFFF: out += [m | 25, UInt8(n >> 8), UInt8(n & 0xFF)]
        case 0x10000...0xFFFF_FFFF: out += [m | 26] + (0..<4).reversed().map { UInt8((n >> (8 * UInt64($0))) & 0xFF) }
        default: out += [m | 27] + (0..<8).reversed().map { UInt8((n >> (8 * UInt64($0))) & 0xFF) }
        }
    }
}
