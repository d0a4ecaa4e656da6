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

    /// Varsel's database could not serve (503, or 507 for a full disk): what was tried, and when to try again.
    static func unavailable(_ action: String, status: Int, answer: Components.Responses.Unavailable) -> MemberSystemFailure {
        let retry = answer.headers.retryAfter.map { " Try again in \($0) seconds." } ?? ""
        switch answer.body {
        case .applicationProblemJson(let details):
            return MemberSystemFailure("Varsel could not serve \(action) (\(status)): \(details.detail)\(retry)")
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
