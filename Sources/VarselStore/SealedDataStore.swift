import Foundation
import VarselCore

/// The personal details sealed under the data keys, for rotating a key.
public protocol SealedDataStore: Sendable {
    /// Re-encrypts under the current data key up to `limit` stored personal details that are sealed under an older
    /// key or still plain; returns how many. A store without keys does nothing.
    func resealStale(limit: Int) async throws -> Int
    /// How many stored values each data key seals, by key id.
    func sealedValueCounts() async throws -> [String: Int]
}

extension SealedDataStore {
    /// Re-encrypts under the current data key everything an older key sealed or that was stored before encryption
    /// began, `batch` values per transaction; returns how many.
    public func resealAllStale(batch: Int = 500) async throws -> Int {
        var total = 0
        while true {
            let count = try await resealStale(limit: batch)
            total += count
            if count < batch { return total }
        }
    }
}
