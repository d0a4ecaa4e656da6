import Foundation

/// The documented size limits of the API and the forms.
public enum Limits {
    public static let maxBodyBytes = 64 * 1024
    public static let maxTitleLength = 200
    public static let maxBodyLength = 4000
    public static let maxRecipients = 1000
    public static let maxPageSize = 100
    public static let defaultPageSize = 25
    public static let maxContactFieldLength = 2000
    /// A mentor's note from a visit, and their reflection on a training scenario.
    public static let maxVisitNoteLength = 1000
    public static let maxReflectionLength = 2000
    public static let maxIdempotencyKeyLength = 200
    public static let maxContactNameLength = 200
    public static let maxContactAddressLength = 300
    public static let maxContactPhoneLength = 50
    public static let maxDisplayNameLength = 100
    public static let maxPersonalDetails = 20
    public static let maxCertifications = 50
    public static let maxCertificationNameLength = 200
    public static let maxUsernameLength = 64
    public static let minPasswordLength = 8
    /// Passwords longer than bcrypt's 72 bytes are hashed with SHA-256 first (``PasswordHasher``).
    public static let maxPasswordLength = 72
    public static let maxPasskeyNameLength = 60
}

/// The Oslo time zone, in which calendar days (pauses, expiry dates) are counted.
public let osloTimeZone = TimeZone(identifier: "Europe/Oslo") ?? .gmt
