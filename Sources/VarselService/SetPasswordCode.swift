import Foundation

/// The code of a one-time set-password link: 12 characters of Crockford's base 32 (60 random bits) in groups of
/// four, `K7QM-4XHD-9TRB`, so it can be read aloud over the phone and typed without confusion (O is 0, I and L are 1).
public enum SetPasswordCode {
    static let alphabet = Array("0123456789ABCDEFGHJKMNPQRSTVWXYZ")

    /// A new random code, grouped.
    public static func generate() -> String {
        var generator = SystemRandomNumberGenerator()
        let characters = (0..<12).map { _ in alphabet[Int.random(in: 0..<alphabet.count, using: &generator)] }
        return stride(from: 0, to: 12, by: 4).map { String(characters[$0..<$0 + 4]) }.joined(separator: "-")
    }

    /// The code as typed or read from a link, in canonical grouped form; nil when it cannot be a code.
    public static func normalized(_ typed: String) -> String? {
        var characters: [Character] = []
        for character in typed.uppercased() where character != "-" && character != " " {
            switch character {
            case "O": characters.append("0")
            case "I", "L": characters.append("1")
            default:
                guard alphabet.contains(character) else { return nil }
                characters.append(character)
            }
            if characters.count > 12 { return nil }
        }
        guard characters.count == 12 else { return nil }
        return stride(from: 0, to: 12, by: 4).map { String(characters[$0..<$0 + 4]) }.joined(separator: "-")
    }

    /// The hash the store keeps for `code` (grouped form).
    public static func hash(_ code: String) -> String { Tokens.hash(normalized(code) ?? code) }

    /// The hash the store keeps for a code as typed or read from a link; nil when it cannot be a code.
    public static func tokenHash(typed: String) -> String? { normalized(typed).map(Tokens.hash) }
}
