/// How a database's tables stand against the layout this version of Varsel writes.
public enum SchemaState: Sendable, Equatable {
    /// Every change this version knows is applied, and no other.
    case current
    /// Set up by an earlier version: `pending` changes are still to apply, which opening the store for work does.
    case older(pending: Int)
    /// Changed by a later version: it holds `unknown` changes this version does not know, so this version refuses to
    /// work on it (``SchemaFromNewerVersion``).
    case newer(unknown: Int)

    /// The state of a database that has applied the changes named `applied`, of the `known` ones this version
    /// makes, in order.
    public init(applied: Set<String>, known: [String]) {
        let unknown = applied.subtracting(known).count
        if unknown > 0 {
            self = .newer(unknown: unknown)
        } else {
            let pending = known.filter { !applied.contains($0) }.count
            self = pending == 0 ? .current : .older(pending: pending)
        }
    }
}

/// The database was changed by a later version of Varsel, whose tables this version could misread or break; it is
/// refused rather than opened for work. A database never goes back to an older layout: run the later version.
public struct SchemaFromNewerVersion: Error, Sendable, Equatable {
    /// How many of its changes this version does not know.
    public var unknown: Int

    public init(unknown: Int) { self.unknown = unknown }
}
