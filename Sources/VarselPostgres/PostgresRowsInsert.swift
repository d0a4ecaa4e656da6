import PostgresNIO

/// Rows for one table, inserted with as few multi-row `INSERT` statements as the protocol allows, in row order.
///
/// A statement carries at most 65,535 parameters, so a new statement starts once one holds
/// ``parametersPerStatement``; a row's values always stay in its statement. With one sequence per table, the rows
/// of a statement take their ids in row order, and a later statement's ids are higher.
struct PostgresRowsInsert {
    /// Where a statement ends and the next begins: far enough below the protocol's limit for any one row.
    static let parametersPerStatement = 30_000

    private let head: String
    private let tail: String
    private var statements: [PostgresQuery] = []
    private var rows: [String] = []
    private var bindings = PostgresBindings()

    /// An insert of rows after `head` (`INSERT INTO t (a, b) VALUES`), each statement ending with `tail` (`RETURNING id`).
    init(_ head: String, tail: String = "") {
        self.head = head
        self.tail = tail
    }

    /// Binds `value`, or NULL, for the row being built; returns its placeholder.
    mutating func bind(_ value: (some PostgresNonThrowingEncodable)?) -> String {
        if let value { bindings.append(value) } else { bindings.appendNull() }
        return "$\(bindings.count)"
    }

    /// Ends the row being built: `sql` is its `( … )`, written with the placeholders ``bind(_:)`` returned for it.
    mutating func addRow(_ sql: String) {
        rows.append(sql)
        if bindings.count >= Self.parametersPerStatement { endStatement() }
    }

    /// The statements, in order; none when no row was added.
    mutating func queries() -> [PostgresQuery] {
        endStatement()
        return statements
    }

    private mutating func endStatement() {
        guard !rows.isEmpty else { return }
        statements.append(PostgresQuery(unsafeSQL: "\(head) \(rows.joined(separator: ", ")) \(tail)", binds: bindings))
        rows = []
        bindings = PostgresBindings()
    }
}
