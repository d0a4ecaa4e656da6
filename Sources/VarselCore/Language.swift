import Foundation

/// A language Varsel speaks: English or Norwegian Bokmål.
public enum Language: String, Sendable, Codable, Hashable, CaseIterable {
    case english = "en"
    case norwegianBokmal = "nb"

    /// The Foundation locale used for numbers, dates and relative times in this language.
    public var locale: Locale { Locale(identifier: rawValue) }

    /// The BCP 47 tag, suitable for an HTML `lang` attribute.
    public var tag: String { rawValue }

    /// The language's own name, which is how a reader finds theirs in a list: `English`, `Norsk bokmål`.
    public var autonym: String {
        switch self {
        case .english: "English"
        case .norwegianBokmal: "Norsk bokmål"
        }
    }

    /// Parses a language tag such as `nb`, `nb-NO`, `no`, `nn` or `en-GB`; nil when Varsel does not speak it.
    public init?(tag: String) {
        let primary = tag.split(whereSeparator: { $0 == "-" || $0 == "_" }).first.map { $0.lowercased() } ?? ""
        switch primary {
        case "en": self = .english
        case "nb", "no", "nn": self = .norwegianBokmal
        default: return nil
        }
    }

    /// Picks the best language from an HTTP `Accept-Language` header, honouring q-values; English when none match.
    public static func preferred(fromAcceptLanguage header: String?) -> Language {
        guard let header else { return .english }
        var best: (Language, Double)?
        for part in header.split(separator: ",") {
            let pieces = part.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
            guard let tag = pieces.first, let language = Language(tag: tag) else { continue }
            var quality = 1.0
            for parameter in pieces.dropFirst() where parameter.hasPrefix("q=") {
                quality = Double(parameter.dropFirst(2)) ?? 0
            }
            if quality > 0, quality > (best?.1 ?? -1) { best = (language, quality) }
        }
        return best?.0 ?? .english
    }
}
