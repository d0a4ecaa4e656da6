import Foundation

/// Finds a field given twice in one object of a JSON body, which the decoder would quietly settle by keeping one of
/// its values: a proxy or log that read the other value would then disagree with what Varsel did.
///
/// Only members named as a field of one of the API's schemas are looked at, and only inside them: any other member is
/// ignored, as the API ignores members its schemas do not name, so a path it reports holds nothing but the schemas'
/// own spelling of field names, and positions, never a name the client made up. Any bytes end the scan, JSON or not:
/// the decoder checks the structure of members it does not read, but not the escapes in their strings.
enum RepeatedJSONMembers {
    /// The path of the first named field given twice (`title`, `contact.name`, `recipients[2].id`), or nil.
    static func first(in body: [UInt8], fieldNames: Set<String>) -> String? {
        var scanner = Scanner(bytes: body, fieldNames: fieldNames)
        return scanner.value(at: "")
    }

    /// The names of the properties the OpenAPI document's schemas declare: every key directly under a `properties:`.
    ///
    /// One pass over the lines, keeping the indents of the `properties:` whose members may still follow. It is read at
    /// every start, so it walks the bytes by index: a debug build's tests start hundreds of servers.
    static func fieldNames(inOpenAPI document: String) -> Set<String> {
        let bytes = Array(document.utf8)
        let (space, newline, carriageReturn, colon, hash) = (
            UInt8(ascii: " "), UInt8(ascii: "\n"), UInt8(ascii: "\r"), UInt8(ascii: ":"), UInt8(ascii: "#")
        )
        let properties = Array("properties:".utf8)
        var names = Set<String>()
        var open: [Int] = []
        var lineStart = 0
        while lineStart <= bytes.count {
            var lineEnd = lineStart
            while lineEnd < bytes.count, bytes[lineEnd] != newline { lineEnd += 1 }
            defer { lineStart = lineEnd + 1 }
            var start = lineStart
            while start < lineEnd, bytes[start] == space { start += 1 }
            var end = lineEnd
            while end > start, bytes[end - 1] == space || bytes[end - 1] == carriageReturn { end -= 1 }
            if start == end || bytes[start] == hash { continue }
            let indent = start - lineStart
            // A line at or left of a `properties:` ends its members.
            while let last = open.last, indent <= last { open.removeLast() }
            if open.last == indent - 2, let at = bytes[start..<end].firstIndex(of: colon) {
                names.insert(String(decoding: bytes[start..<at], as: UTF8.self))
            }
            if bytes[start..<end].elementsEqual(properties) { open.append(indent) }
        }
        return names
    }

    private struct Scanner {
        let bytes: [UInt8]
        let fieldNames: Set<String>
        var index = 0

        init(bytes: [UInt8], fieldNames: Set<String>) {
            self.bytes = bytes
            self.fieldNames = fieldNames
        }

        /// Reads one value; returns the path of a repeated field inside it, or nil. With no path, the value is only
        /// skipped: it belongs to a member no schema names.
        mutating func value(at path: String?) -> String? {
            skipSpace()
            guard index < bytes.count else { return nil }
            switch bytes[index] {
            case UInt8(ascii: "{"): return object(at: path)
            case UInt8(ascii: "["): return array(at: path)
            case UInt8(ascii: "\""):
                _ = string()
                return nil
            default:
                // A number, true, false or null: up to the next delimiter. At least one byte is read, so that no
                // loop stands still, even on bytes that are not JSON.
                index += 1
                while index < bytes.count, !Self.delimiters.contains(bytes[index]) { index += 1 }
                return nil
            }
        }

        private mutating func object(at path: String?) -> String? {
            index += 1
            var names = Set<String>()
            while true {
                skipSpace()
                guard index < bytes.count, bytes[index] != UInt8(ascii: "}") else {
                    index += 1
                    return nil
                }
                guard bytes[index] == UInt8(ascii: "\"") else {
                    index += 1
                    continue
                }  // a comma (or not JSON)
                let name = string()
                var member: String?
                if let path, let known = fieldNames.firstIndex(of: name) {
                    // The schema's spelling: a name equal to it in Swift may be written with other scalars (the
                    // Kelvin sign for K).
                    let field = fieldNames[known]
                    let joined = path.isEmpty ? field : path + "." + field
                    if !names.insert(name).inserted { return joined }
                    member = joined
                }
                skipSpace()
                if index < bytes.count, bytes[index] == UInt8(ascii: ":") { index += 1 }
                if let repeated = value(at: member) { return repeated }
            }
        }

        private mutating func array(at path: String?) -> String? {
            index += 1
            var position = 0
            while true {
                skipSpace()
                guard index < bytes.count, bytes[index] != UInt8(ascii: "]") else {
                    index += 1
                    return nil
                }
                if bytes[index] == UInt8(ascii: ",") {
                    index += 1
                    continue
                }
                if let repeated = value(at: path.map { "\($0)[\(position)]" }) { return repeated }
                position += 1
            }
        }

        /// Reads a string from its opening quote, with its escapes undone (a broken escape reads as U+FFFD).
        private mutating func string() -> String {
            index += 1
            var scalars = String.UnicodeScalarView()
            var raw: [UInt8] = []
            func flush() {
                scalars.append(contentsOf: String(decoding: raw, as: UTF8.self).unicodeScalars)
                raw.removeAll()
            }
            while index < bytes.count, bytes[index] != UInt8(ascii: "\"") {
                guard bytes[index] == UInt8(ascii: "\\"), index + 1 < bytes.count else {
                    raw.append(bytes[index])
                    index += 1
                    continue
                }
                flush()
                let escaped = bytes[index + 1]
                index += 2
                switch escaped {
                case UInt8(ascii: "u"): scalars.append(escapedScalar())
                case UInt8(ascii: "b"): scalars.append("\u{08}")
                case UInt8(ascii: "f"): scalars.append("\u{0C}")
                case UInt8(ascii: "n"): scalars.append("\n")
                case UInt8(ascii: "r"): scalars.append("\r")
                case UInt8(ascii: "t"): scalars.append("\t")
                default: scalars.append(Unicode.Scalar(escaped))  // " \ /
                }
            }
            flush()
            index += 1
            return String(scalars)
        }

        /// The scalar of a `\uXXXX` escape whose `\u` was read, joining a surrogate pair; U+FFFD for a lone surrogate
        /// or digits that are not hexadecimal.
        private mutating func escapedScalar() -> Unicode.Scalar {
            guard let high = hex4() else { return "\u{FFFD}" }
            guard (0xD800..<0xDC00).contains(high) else { return Unicode.Scalar(high) ?? "\u{FFFD}" }
            // A high surrogate: the pair's low half is the next escape, if it is one.
            let afterHigh = index
            guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u") else {
                return "\u{FFFD}"
            }
            index += 2
            guard let low = hex4(), (0xDC00..<0xE000).contains(low) else {
                index = afterHigh  // not a low half: read it as an escape of its own
                return "\u{FFFD}"
            }
            return Unicode.Scalar(0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00)) ?? "\u{FFFD}"
        }

        /// Four hexadecimal digits as a number, or nil: then only the digits before the first other byte are read.
        private mutating func hex4() -> UInt32? {
            var value: UInt32 = 0
            for _ in 0..<4 {
                guard index < bytes.count, let nibble = Self.hexValue(bytes[index]) else { return nil }
                value = value << 4 | nibble
                index += 1
            }
            return value
        }

        private static func hexValue(_ byte: UInt8) -> UInt32? {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): UInt32(byte - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): UInt32(byte - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): UInt32(byte - UInt8(ascii: "A") + 10)
            default: nil
            }
        }

        private mutating func skipSpace() {
            while index < bytes.count, Self.space.contains(bytes[index]) { index += 1 }
        }

        private static let space: Set<UInt8> = [0x20, 0x09, 0x0A, 0x0D]
        private static let delimiters: Set<UInt8> = space.union([UInt8(ascii: ","), UInt8(ascii: "]"), UInt8(ascii: "}")])
    }
}
