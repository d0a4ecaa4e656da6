/// A stored thing's id, typed by what it names: a user's id cannot be passed where a notification's is wanted.
///
/// Each is the store's 64-bit row id underneath; in JSON, in URLs and in the database it is that number, so the
/// types change no wire format. An integer literal makes one (in tests and demo data); a value from outside (a path,
/// a form) goes through ``init(_:)-(String)``, which refuses anything that is not a number.
public protocol StoredID: RawRepresentable, Hashable, Comparable, Sendable, Codable, CustomStringConvertible,
    LosslessStringConvertible, ExpressibleByIntegerLiteral
where RawValue == Int64, IntegerLiteralType == Int64 {
    init(rawValue: Int64)
}

extension StoredID {
    public init(_ rawValue: Int64) { self.init(rawValue: rawValue) }
    public init(integerLiteral value: Int64) { self.init(rawValue: value) }
    public init?(_ description: String) {
        guard let raw = Int64(description) else { return nil }
        self.init(rawValue: raw)
    }
    public var description: String { String(rawValue) }
    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }

    // In JSON, the number itself.
    public init(from decoder: any Decoder) throws {
        self.init(rawValue: try decoder.singleValueContainer().decode(Int64.self))
    }
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }
}

/// A user's id: a mentor, a coordinator, an administrator.
public struct UserID: StoredID {
    public let rawValue: Int64
    public init(rawValue: Int64) { self.rawValue = rawValue }
}

/// A notification's id.
public struct NotificationID: StoredID {
    public let rawValue: Int64
    public init(rawValue: Int64) { self.rawValue = rawValue }
}

/// An assignment's id: one mentor's turn with a contact.
public struct AssignmentID: StoredID {
    public let rawValue: Int64
    public init(rawValue: Int64) { self.rawValue = rawValue }
}

/// A contact's id: a person a mentor visits.
public struct ContactID: StoredID {
    public let rawValue: Int64
    public init(rawValue: Int64) { self.rawValue = rawValue }
}

/// A scheduled send's id: a notification a sender chose to send later.
public struct ScheduledSendID: StoredID {
    public let rawValue: Int64
    public init(rawValue: Int64) { self.rawValue = rawValue }
}
