import OCDSQL

extension SQLiteConnection {
    /// The cached statement for `fragment`'s text (as `cachedStatement(_:)`), with its
    /// arguments bound.
    public func cachedStatement(_ fragment: SQLFragment) throws -> SQLiteStatement {
        let statement = try cachedStatement(fragment.text)
        try statement.bind(fragment.arguments)
        return statement
    }

    /// Runs `fragment`, ignoring any rows.
    public func run(_ fragment: SQLFragment) throws {
        try run(fragment.text, fragment.arguments)
    }

    /// Every row of `fragment` as values.
    public func rows(_ fragment: SQLFragment) throws -> [[SQLiteValue]] {
        try rows(fragment.text, fragment.arguments)
    }
}
