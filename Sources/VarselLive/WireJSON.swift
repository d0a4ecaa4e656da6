import Foundation

/// The JSON the API and the live stream write: sorted keys, ISO 8601 dates, no escaped slashes. ``HotJSON`` writes
/// the same bytes by hand for the two payloads sent once per notification.
public enum WireJSON {
    public static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()
}
