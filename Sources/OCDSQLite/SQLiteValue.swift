// The SQL layer's values and fragments are shared with the PostgreSQL layer (`OCDSQL`); code
// that imports the SQLite layer sees them as before.
@_exported import OCDSQL

/// One value as SQLite stores it: its five storage classes (the SQL layer's `SQLValue`).
public typealias SQLiteValue = SQLValue
