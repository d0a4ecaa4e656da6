/// Why a store refused a change. Messages never carry personal details.
public enum StoreError: Error, Sendable, Equatable {
    /// A unique value is taken, such as a username.
    case conflict(String)
    /// The thing named does not exist (or is not the caller's).
    case notFound(String)
    /// The idempotency key was used before with a different request.
    case idempotencyKeyReused
    /// The assignment was already answered.
    case alreadyResponded(AssignmentStatus)
}
