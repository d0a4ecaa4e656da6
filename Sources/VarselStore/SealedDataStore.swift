import Foundation
import VarselCore

/// The personal details sealed under the data keys, for rotating a key.
public protocol SealedDataStore: Sendable {
    /// Re-encrypts under the current data key up to `limit` stored personal details that are sealed under an older
    /// key or still plain; returns how many. A store without keys does nothing.
    func resealStale(limit: Int) async throws -> Int
    /// How many stored values each data key seals, by key id (a data key that wraps people's keys counts too).
    func sealedValueCounts() async throws -> [String: Int]
    /// Seals the details of up to `limit` people visited that are still under the data key (stored before people had
    /// keys of their own) under a new key each (``PersonKeyring``), one person per transaction; returns how many. A
    /// store without people's keys does nothing.
    func movePeopleToTheirKeys(limit: Int) async throws -> Int
    /// How many people visited, not erased, have their details under keys of their own, and how many still under
    /// the data key.
    func peopleKeyCounts() async throws -> PeopleKeyCounts
}

/// How the details of the people visited (not erased) are sealed: under keys of their own, or still under the data key.
public struct PeopleKeyCounts: Sendable, Equatable {
    public var ownKeys: Int
    public var underDataKey: Int

    public init(ownKeys: Int, underDataKey: Int) {
        self.ownKeys = ownKeys
        self.underDataKey = underDataKey
    }
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

    /// Moves every person still under the data key to a key of their own, `batch` people per round; returns how many.
    /// Safe to stop at any point and run again: each person moves in one transaction.
    public func moveAllPeopleToTheirKeys(batch: Int = 100) async throws -> Int {
        var total = 0
        while true {
            let count = try await movePeopleToTheirKeys(limit: batch)
            total += count
            if count < batch { return total }
        }
    }
}
