import Foundation
import Synchronization
import VarselCore

/// The unread-count event's JSON, encoded once per language and count.
///
/// Every notification sends one to each of its recipient's streams, and what it says depends on nothing but the
/// count and the reader's language, so the thousandth stream to hear "3 unread" in English reuses the first's bytes.
final class UnreadCountJSON: Sendable {
    /// Counts above this are encoded each time, which keeps the cache to a few hundred kilobytes.
    static let largestCached = 1000
    private let cache = Mutex<[Language: [Int: Data]]>([:])

    func json(count: Int, describer: Describer) throws -> Data {
        guard (0...Self.largestCached).contains(count) else { return try Self.encode(count, describer) }
        if let cached = cache.withLock({ $0[describer.language]?[count] }) { return cached }
        let json = try Self.encode(count, describer)
        cache.withLock { $0[describer.language, default: [:]][count] = json }
        return json
    }

    private static func encode(_ count: Int, _ describer: Describer) throws -> Data {
        try WireJSON.encoder.encode(UnreadCountResource(count: count, describer: describer))
    }
}
