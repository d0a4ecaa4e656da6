/// How Varsel's hand-written JSON writes a string's characters: quotes, backslashes and control characters escaped as
/// `JSONEncoder` escapes them; slashes and everything else (all of Unicode) as they are.
///
/// Both hand writers use it: the event log's (``StoredNotificationJSON``) and the live stream's.
public enum JSONStringEscaping {
    /// Whether `value` has a character to escape; most have none, and are written as they are.
    public static func needsEscaping(_ value: String) -> Bool {
        value.utf8.contains { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") }
    }

    /// The UTF-8 of `value` with its characters escaped, without the quotes around it.
    public static func escaped(_ value: String) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(value.utf8.count + 8)
        for byte in value.utf8 {
            switch byte {
            case UInt8(ascii: "\""): bytes.append(contentsOf: #"\""#.utf8)
            case UInt8(ascii: "\\"): bytes.append(contentsOf: #"\\"#.utf8)
            case 0x0A: bytes.append(contentsOf: #"\n"#.utf8)
            case 0x0D: bytes.append(contentsOf: #"\r"#.utf8)
            case 0x09: bytes.append(contentsOf: #"\t"#.utf8)
            case 0x08: bytes.append(contentsOf: #"\b"#.utf8)
            case 0x0C: bytes.append(contentsOf: #"\f"#.utf8)
            case ..<0x20:
                let hex = Array("0123456789abcdef".utf8)
                bytes.append(contentsOf: #"\u00"#.utf8)
                bytes.append(hex[Int(byte >> 4)])
                bytes.append(hex[Int(byte & 0x0F)])
            default: bytes.append(byte)
            }
        }
        return bytes
    }
}
