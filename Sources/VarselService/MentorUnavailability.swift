import Foundation

/// Why a mentor is not offered new assignments.
public enum MentorUnavailability: Sendable, Hashable {
    /// The account was deactivated: the mentor has left, and no one reads what is sent to it.
    case deactivated
    case paused(until: Date)
    case certificationExpired(name: String, on: Date)
}
