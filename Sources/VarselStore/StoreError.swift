import VarselCore

/// Why a store refused a change. Messages never carry personal details.
public enum StoreError: Error, Sendable, Equatable {
    /// A unique value is taken, such as a username.
    case conflict(String)
    /// The thing named does not exist (or is not the caller's).
    case notFound(Entity)
    /// A notification names a recipient that does not exist: the first such id, so the caller can say which one it
    /// was without asking again.
    case unknownRecipient(UserID)
    /// A stored value this version does not know (a kind, role or event type written by another version, or a
    /// damaged row); named by its column, never by its value.
    case unknownStoredValue(column: String)

    /// What was not found.
    public enum Entity: String, Sendable {
        case user
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
    /// A value is sealed under a data key this store was not given: the key file is missing one (see ``DataKeyring``).
    case dataKeyMissing(keyID: String)
    /// The database holds encrypted details and the store was opened without a data key file.
    case dataKeyRequired
    /// A value is sealed under a person's key that the key store never held: the store was given another key store
    /// than the database's (see ``PersonKeyring``).
    case personKeyMissing(keyID: String)
}

extension StoreError: CustomStringConvertible {
    /// One sentence, never a stored value.
    public var description: String {
        switch self {
        case let .conflict(what): "Conflict: \(what)."
        case let .notFound(what): "No such \(what.rawValue)."
        case .unknownRecipient: "No such recipient."
        case let .unknownStoredValue(column): "The database holds a value in \(column) this version cannot read."
        case .idempotencyKeyReused: "The idempotency key was used with a different request."
        case let .alreadyResponded(status): "The assignment was already \(status.rawValue)."
        case let .notAllowed(why): why
        case let .dataKeyMissing(id):
            "The data key file does not hold the key \(id) this database's details are encrypted with; start with the key file that holds it."
        case .dataKeyRequired:
            "This database's personal details are encrypted; start Varsel with --data-key-file naming the file that holds its key."
        case let .personKeyMissing(id):
            "The people's key store does not hold the key \(id) this database's details are sealed with; start with the key store that holds it."
        }
    }
}

extension RawRepresentable where RawValue == String {
    /// The value a stored text names; a text this version does not know is ``StoreError/unknownStoredValue(column:)``,
    /// never a default. Every store reads its kinds, roles, states and steps through this.
    public init(stored raw: String, column: String) throws {
        guard let value = Self(rawValue: raw) else { throw StoreError.unknownStoredValue(column: column) }
        self = value
    }
}
