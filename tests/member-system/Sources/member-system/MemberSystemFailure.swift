import Foundation
import OpenAPIRuntime

/// An error the member system reports as one sentence on standard error.
struct MemberSystemFailure: Error {
    /// The sentence, ending with a full stop.
    let message: String

    init(_ message: String) {
        self.message = message.hasSuffix(".") ? message : message + "."
    }

    /// A refusal Varsel answered as problem details: what was tried, the status, and Varsel's `detail`.
    static func refused(_ action: String, status: Int, problem: Components.Responses.Problem) -> MemberSystemFailure {
        switch problem.body {
        case .applicationProblemJson(let details):
            MemberSystemFailure("Varsel refused \(action) (\(status)): \(details.detail)")
        }
    }

    /// An answer the OpenAPI document does not list for the operation.
    static func undocumented(_ action: String, status: Int) -> MemberSystemFailure {
        MemberSystemFailure("Varsel answered \(action) with status \(status), which its OpenAPI document does not list")
    }

    /// A request that failed before Varsel answered, or an answer that did not match the document.
    static func client(_ action: String, _ error: ClientError) -> MemberSystemFailure {
        if error.response == nil {
            let place = error.baseURL.map { " at \($0.absoluteString)" } ?? ""
            let reason = (error.underlyingError as NSError).localizedDescription
            return MemberSystemFailure("Could not reach Varsel\(place) for \(action): \(reason)")
        }
        return MemberSystemFailure("Varsel's answer to \(action) did not match its OpenAPI document: \(error.causeDescription)")
    }
}
