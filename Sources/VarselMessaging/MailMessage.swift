import Foundation

/// An email to send: plain text first, with a simple HTML part.
public struct MailMessage: Sendable, Hashable {
    /// The sender's display name; it may contain any Unicode, such as æøå.
    public var fromName: String
    /// The sender's address, ASCII only.
    public var fromAddress: String
    /// The one recipient's address, ASCII only.
    public var to: String
    /// The subject line; it may contain any Unicode.
    public var subject: String
    /// The plain text body, shown by mail programs that do not show HTML.
    public var plainText: String
    /// The HTML body, a complete small document or a fragment.
    public var html: String
    /// The language of the text, such as "en" or "nb", sent as Content-Language.
    public var language: String

    /// Creates a message from its parts.
    public init(
        fromName: String,
        fromAddress: String,
        to: String,
        subject: String,
        plainText: String,
        html: String,
        language: String
    ) {
        self.fromName = fromName
        self.fromAddress = fromAddress
        self.to = to
        self.subject = subject
        self.plainText = plainText
        self.html = html
        self.language = language
    }
}

// MARK: - Rendering (RFC 5322, MIME, RFC 2047)

extension MailMessage {
    /// Tells whether an address can go into an SMTP command and a header as it is.
    ///
    /// Without SMTPUTF8 only ASCII can be sent; CR, LF, spaces and angle brackets could
    /// smuggle in commands or headers, and commas or semicolons would add recipients.
    static func isSendableAddress(_ address: String) -> Bool {
        let forbidden = Set("<>,;\\\" ".unicodeScalars)
        guard !address.isEmpty, address.utf8.count <= 254 else { return false }
        guard let at = address.lastIndex(of: "@"), at != address.startIndex,
            address.index(after: at) != address.endIndex
        else { return false }
        return address.unicodeScalars.allSatisfy { scalar in
            scalar.value > 32 && scalar.value < 127 && !forbidden.contains(scalar)
        }
    }

    /// Renders the whole message with CRLF line endings, ready for DATA (before dot-stuffing).
    func rendered(date: Date = Date(), messageID: String? = nil, boundary: String? = nil) -> String {
        let domain = fromAddress.split(separator: "@").last.map(String.init) ?? "localhost"
        let id = messageID ?? "<\(UUID().uuidString.lowercased())@\(domain)>"
        let boundary = boundary ?? "=_varsel_\(UUID().uuidString.replacingOccurrences(of: "-", with: ""))"
        let isLanguageTag =
            !language.isEmpty && language.utf8.count <= 35
            && language.unicodeScalars.allSatisfy { MIME.isASCIILetterOrDigit($0) || $0 == "-" }
        let language = isLanguageTag ? language : "en"

        var headers: [String] = [
            MIME.fold(name: "From", tokens: MIME.displayNameTokens(fromName) + ["<\(fromAddress)>"]),
            "To: <\(to)>",
            MIME.unstructuredHeader(name: "Subject", value: subject),
            "Date: \(MIME.rfc5322Date(date))",
            "Message-ID: \(id)",
            "MIME-Version: 1.0",
            "Content-Language: \(language)",
            "Auto-Submitted: auto-generated",
            MIME.fold(name: "Content-Type", tokens: ["multipart/alternative;", "boundary=\"\(boundary)\""]),
        ]
        headers.append("")
        var lines = headers
        lines.append("This is a multipart message in MIME format.")
        for (subtype, text) in [("plain", plainText), ("html", html)] {
            lines.append("--\(boundary)")
            lines.append("Content-Type: text/\(subtype); charset=utf-8")
            lines.append("Content-Transfer-Encoding: quoted-printable")
            lines.append("")
            lines.append(MIME.quotedPrintable(text))
        }
        lines.append("--\(boundary)--")
        return lines.joined(separator: "\r\n") + "\r\n"
    }
}

/// Encoders for the parts of a message: headers, encoded words and quoted-printable.
enum MIME {
    /// The longest header line written, not counting CRLF (RFC 5322 recommends 78).
    static let maxHeaderLine = 78

    /// Tells whether a scalar is an ASCII letter or digit.
    static func isASCIILetterOrDigit(_ scalar: Unicode.Scalar) -> Bool {
        ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar) || ("0"..."9").contains(scalar)
    }

    /// Formats a date as RFC 5322 wants it, for example "Tue, 03 Mar 2026 09:05:00 +0000".
    static func rfc5322Date(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(secondsFromGMT: 0)
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss Z"
        return formatter.string(from: date)
    }

    /// Joins tokens after "Name:", starting a continuation line where the next one would pass 78.
    static func fold(name: String, tokens: [String]) -> String {
        var lines: [String] = []
        var line = name + ":"
        for token in tokens {
            if line.count + 1 + token.count > maxHeaderLine, line != name + ":" {
                lines.append(line)
                line = ""
            }
            line += " " + token
        }
        lines.append(line)
        return lines.joined(separator: "\r\n")
    }

    /// Writes an unstructured header such as Subject: folded ASCII when that fits, else encoded words.
    static func unstructuredHeader(name: String, value: String) -> String {
        let words = value.split(whereSeparator: { $0.isWhitespace || $0.isNewline }).map(String.init)
        let plain = words.allSatisfy { word in
            word.unicodeScalars.allSatisfy { $0.value > 32 && $0.value < 127 }
                && !word.contains("=?") && name.count + 2 + word.count <= maxHeaderLine
        }
        return fold(name: name, tokens: plain ? words : encodedWords(value))
    }

    /// Returns the tokens of a From display name: as it is, quoted, or as encoded words.
    static func displayNameTokens(_ name: String) -> [String] {
        let name = name.split(whereSeparator: { $0.isWhitespace || $0.isNewline }).joined(separator: " ")
        guard !name.isEmpty else { return [] }
        let atext = Set("!#$%&'*+-/=?^_`{|}~ ".unicodeScalars)
        let ascii = name.unicodeScalars.allSatisfy { $0.value >= 32 && $0.value < 127 }
        if ascii, !name.contains("=?"), name.count < 40 {
            if name.unicodeScalars.allSatisfy({ isASCIILetterOrDigit($0) || atext.contains($0) }) {
                return [name]
            }
            let escaped = name.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
            return ["\"\(escaped)\""]
        }
        return encodedWords(name)
    }

    /// Encodes text as RFC 2047 B encoded words, each short enough for a folded header line.
    ///
    /// Each word holds at most 39 bytes of UTF-8 (52 base64 characters, 64 in all), never
    /// splitting a character, so "Subject: " plus one word stays within 78 characters.
    static func encodedWords(_ text: String) -> [String] {
        let text = text.replacingOccurrences(of: "\r", with: " ").replacingOccurrences(of: "\n", with: " ")
        var words: [String] = []
        var chunk: [UInt8] = []
        for scalar in text.unicodeScalars {
            let bytes = Array(String(scalar).utf8)
            if chunk.count + bytes.count > 39 {
                words.append("=?utf-8?B?\(Data(chunk).base64EncodedString())?=")
                chunk = []
            }
            chunk += bytes
        }
        if !chunk.isEmpty || words.isEmpty {
            words.append("=?utf-8?B?\(Data(chunk).base64EncodedString())?=")
        }
        return words
    }

    /// Encodes text as quoted-printable (RFC 2045) with CRLF line breaks and lines of at most 76.
    ///
    /// Any line ending (LF, CRLF or CR) becomes a hard CRLF break; `=`, bytes outside printable
    /// ASCII, and a space or tab at the end of a line are written as `=XX`; a longer line gets soft
    /// breaks (`=` at its end) that never split an `=XX`.
    static func quotedPrintable(_ text: String) -> String {
        let normalized = text.replacingOccurrences(of: "\r\n", with: "\n").replacingOccurrences(of: "\r", with: "\n")
        let hex = Array("0123456789ABCDEF".utf8)
        var output: [UInt8] = []
        for (index, line) in normalized.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            if index > 0 { output += Array("\r\n".utf8) }
            let bytes = Array(line.utf8)
            var length = 0
            for (position, byte) in bytes.enumerated() {
                let isLast = position == bytes.count - 1
                let literal =
                    (byte >= 33 && byte <= 126 && byte != UInt8(ascii: "="))
                    || ((byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t")) && !isLast)
                let token = literal ? [byte] : [UInt8(ascii: "="), hex[Int(byte >> 4)], hex[Int(byte & 0x0F)]]
                // Room must stay for the "=" of a soft break, unless this token ends the line.
                if length + token.count > (isLast ? 76 : 75) {
                    output += Array("=\r\n".utf8)
                    length = 0
                }
                output += token
                length += token.count
            }
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// Prepares rendered message text for DATA: doubles a leading "." and ends with CRLF "." CRLF.
    static func dotStuffed(_ message: String) -> String {
        var lines = message.components(separatedBy: "\r\n")
        if lines.last == "" { lines.removeLast() }
        let stuffed = lines.map { $0.hasPrefix(".") ? "." + $0 : $0 }
        return stuffed.joined(separator: "\r\n") + "\r\n.\r\n"
    }
}
