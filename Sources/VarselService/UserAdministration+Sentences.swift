import Foundation
import VarselStore

/// The one sentence each refusal of the people administration is told in, for the API's problem details and the
/// command line alike (the store's own refusals are told by `StoreError.description`). No sentence names a value
/// that was typed in or any personal detail.
extension UserAdministration.Refusal {
    public var sentence: String {
        switch self {
        case .unknownPerson: "No such person, or not one you manage."
        case .adminOnly: "Only an administrator may do this: coordinators manage mentors."
        case .ownAccount:
            "Nobody changes their own role or access this way: change your password on your Profile; ask another administrator for the rest."
        case .linkNotValid: "This set-password link has expired, has been used, or its account is deactivated."
        }
    }
}
