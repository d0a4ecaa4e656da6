import Foundation
import VarselStore

/// The one sentence each refusal of the store and of the people administration is told in, for the API's problem
/// details and the command line alike. No sentence names a value that was typed in or any personal detail.
extension StoreError {
    public var sentence: String {
        switch self {
        case let .conflict(what): "Conflict: \(what)."
        case let .notFound(what): "No such \(what.rawValue)."
        case .unknownStoredValue, .dataKeyMissing, .dataKeyRequired: "\(self)"
        case .idempotencyKeyReused: "This Idempotency-Key was already used with a different request body. Use a new key for a new request."
        case let .alreadyResponded(status): "The assignment was already \(status.rawValue)."
        case let .notAllowed(why): why
        }
    }
}

extension UserAdministration.Refusal {
    public var sentence: String {
        switch self {
        case .unknownPerson: "No such person, or not one you manage."
        case .adminOnly: "Only an administrator may do this: coordinators manage mentors."
        case .ownAccount: "Nobody changes their own role or access this way: change your password on your Profile; ask another administrator for the rest."
        case .linkNotValid: "This set-password link has expired, has been used, or its account is deactivated."
        }
    }
}
