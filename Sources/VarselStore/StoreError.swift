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
        case scenario
    }
    /// The idempotency key was used before with a different request.
    case idempotencyKeyReused
    /// The assignment was already answered.
    case alreadyResponded(AssignmentStatus)
    /// The assignment is not in a state that allows the change: a visit is marked done only once acknowledged; a
    /// done or already reassigned assignment is not reassigned. The message is safe to show.
    case notAllowed(String)
}

extension RawRepresentable where RawValue == String {
    /// The value a stored text names; a text this version does not know is ``StoreError/unknownStoredValue(column:)``,
    /// never a default. Every store reads its kinds, roles, states and steps through this.
    public init(stored raw: String, column: String) throws {
        guard let value = Self(rawValue: raw) else { throw StoreError.unknownStoredValue(column: column) }
        self = value
    }
}
