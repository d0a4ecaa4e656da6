import Foundation

/// Input that breaks one or more of the documented rules, field by field; the HTTP layer answers it with 422.
public struct InvalidInput: Error, Sendable, Equatable {
    /// Every broken rule.
    public var issues: [Validation.Issue]
    /// One sentence for the whole; by default it names every invalid field and its rule, never a value.
    public var summary: String

    public init(_ issues: [Validation.Issue], summary: String? = nil) {
        self.issues = issues
        self.summary = summary ?? Validation.summary(issues)
    }
}
