import VarselCore

extension Describer {
    /// The describer for `language`: one per language, shared, so a request or stream does not build its own
    /// calendar and formatters.
    public static func shared(_ language: Language) -> Describer { describers[language] ?? Describer(language: language) }

    private static let describers = Dictionary(uniqueKeysWithValues: Language.allCases.map { ($0, Describer(language: $0)) })
}
