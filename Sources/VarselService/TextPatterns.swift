import Foundation

/// The rules of ``Validation`` written as the regular expressions the OpenAPI document states as `pattern`s, so a
/// client (and a fuzzer) knows exactly what the server accepts; a test checks the document against these.
///
/// The expressions hold the characters themselves, not escapes, so ECMA-262, Python and Rust read them alike; the
/// document writes them in YAML's double-quoted escapes.
public enum TextPatterns {
    /// One line of text holding something other than white space: a title, a name, an address.
    public static let requiredLine = pattern(allowsNewlines: false, required: true)
    /// One line of text, possibly empty or only white space (stored trimmed, so as empty): a phone number.
    public static let optionalLine = pattern(allowsNewlines: false, required: false)
    /// Text with line breaks holding something other than white space: a scenario's body.
    public static let requiredText = pattern(allowsNewlines: true, required: true)
    /// Text with line breaks, possibly empty: a notification's body, a note, a reflection.
    public static let optionalText = pattern(allowsNewlines: true, required: false)

    /// A username: 2 to 64 ASCII letters, digits, `.`, `_` or `-`.
    public static let username = "^[A-Za-z0-9._-]{2,\(Limits.maxUsernameLength)}$"
    /// A language tag whose first subtag is English or Norwegian (`en`, `nb`, `no`, `nn`, `en-GB`, `nb_NO`).
    public static let languageTag = "^([Ee][Nn]|[Nn][BbOoNn])([-_][A-Za-z0-9]{1,8})*$"

    /// `^[^C]*$`, or `^[^C]*[^CW][^C]*$` when `required`, where C are the characters ``Validation`` refuses and W
    /// the white space it trims.
    static func pattern(allowsNewlines: Bool, required: Bool) -> String {
        let refused = ranges { Validation.hasControlCharacters(String(Character($0)), allowsNewlines: allowsNewlines) }
        let anyRefused = "[^\(refused)]*"
        guard required else { return "^\(anyRefused)$" }
        let invisible = ranges { Validation.hasControlCharacters(String(Character($0)), allowsNewlines: false) || isTrimmed($0) }
        return "^\(anyRefused)[^\(invisible)]\(anyRefused)$"
    }

    /// Whether trimming removes `scalar` (`CharacterSet.whitespacesAndNewlines`).
    static func isTrimmed(_ scalar: Unicode.Scalar) -> Bool {
        CharacterSet.whitespacesAndNewlines.contains(scalar)
    }

    /// Every scalar for which `included` holds, as a character class's contents: `a-z` runs and single characters.
    static func ranges(_ included: (Unicode.Scalar) -> Bool) -> String {
        var text = ""
        var start: Unicode.Scalar?
        var last: Unicode.Scalar?
        func close() {
            guard let start, let last else { return }
            text.unicodeScalars.append(start)
            if last != start {
                text += "-"
                text.unicodeScalars.append(last)
            }
        }
        for value in UInt32(0)...0x10FFFF {
            guard let scalar = Unicode.Scalar(value), included(scalar) else { continue }
            if let previous = last, previous.value + 1 == value {
                last = scalar
            } else {
                close()
                start = scalar
                last = scalar
            }
        }
        close()
        return text
    }
}
