/// Why a store refused a change. Messages never carry personal details.
public enum StoreError: Error, Sendable, Equatable {
    /// A unique value is taken, such as a username.
    case conflict(String)
    /// The thing named does not exist (or is not the caller's).
    case notFound(Entity)
    /// A stored value this version does not know (a kind, role or event type written by another version, or a
    /// damaged row); named by its column, never by its value.
    case unknownStoredValue(column: String)

    /// What was not found.
    public enum Entity: String, Sendable {
        case user
        case recipient
        case mentor
        case assignment
    }
    /// The idempotency key was used before with a different request.
    case idempotencyKeyReused
    /// The assignment was already answered.
    case alreadyResponded(AssignmentStatus)
}
