import Foundation
import OCDSQLite
import OpenCoreDataCore

/// SQLite's spelling of what the predicate compiler needs.
///
/// Truth values are the integers 1 and 0; `IS` is SQLite's null-safe equality; `TOTAL` is its
/// floating-point sum; string comparisons with options, folding, the functions and statistics
/// that SQL has no exact equivalent for, and Finder-like ordering call the functions and the
/// collation `SQLiteStore.registerFunctions` registers on each connection, which run the same
/// Swift code as in-memory evaluation. Values are bound as the store writes them
/// (`SQLiteValueCoding`).
package enum SQLiteDialect: SQLDialect {
    package static let storeName = "the SQLite store"

    package static var alwaysTrue: SQLFragment { "1" }
    package static var alwaysFalse: SQLFragment { "0" }

    package static func nullSafeEqual(_ left: SQLFragment, _ right: SQLFragment) -> SQLFragment {
        "\(left) IS \(right)"
    }

    package static func knownTrue(_ condition: SQLFragment) -> SQLFragment {
        "COALESCE((\(condition)), 0)"
    }

    package static func fold(_ string: SQLFragment, _ options: NSComparisonPredicate.Options) -> SQLFragment {
        "ocd_fold(\(string), \(raw: options.rawValue))"
    }

    package static func stringComparison(_ left: SQLFragment, _ type: NSComparisonPredicate.Operator, _ right: SQLFragment,
                                 options: NSComparisonPredicate.Options) -> SQLFragment {
        "ocd_string_compare(\(left), \(right), \(raw: type.rawValue), \(raw: options.rawValue))"
    }

    package static func function(_ name: String, _ arguments: [SQLFragment]) -> SQLFragment {
        "ocd_function(\(bind: .text(name)), \(arguments.joined(separator: ", ")))"
    }

    package static let numericFunctions: Set<String> = [
        "sqrt:", "log:", "ln:", "exp:", "ceiling:", "floor:", "raise:toPower:", "bitwiseAnd:with:", "bitwiseOr:with:",
        "bitwiseXor:with:", "leftshift:by:", "rightshift:by:", "onesComplement:",
    ]

    package static func statistic(_ name: String, of values: SQLFragment) -> SQLFragment {
        "ocd_aggregate(\(bind: .text(name)), \(values))"
    }

    package static func floatingDivision(_ left: SQLFragment, _ right: SQLFragment) -> SQLFragment {
        // SQLite divides integers as integers.
        "(CAST(\(left) AS REAL) / \(right))"
    }

    package static func integerRemainder(_ left: SQLFragment, _ right: SQLFragment) -> SQLFragment {
        // SQLite's % by zero is NULL.
        "(\(left) % \(right))"
    }

    package static let ordersRowsOnlyWhenAsked = false

    package static func truncatedToInteger(_ number: SQLFragment) -> SQLFragment {
        "CAST(\(number) AS INTEGER)"
    }

    package static func total(_ values: SQLFragment) -> SQLFragment {
        "TOTAL(\(values))"
    }

    package static func sortKey(_ string: SQLFragment, _ ordering: StringOrdering) -> SQLFragment {
        switch ordering {
        case .binary: string
        case .caseInsensitive: fold(string, .caseInsensitive)
        case .standard: "\(string) COLLATE ocd_standard"
        }
    }

    package static func sortTerm(_ key: SQLFragment, ascending: Bool) -> SQLFragment {
        // SQLite orders NULL before every value.
        "\(key) \(raw: ascending ? "ASC" : "DESC")"
    }

    package static func limit(_ limit: Int, offset: Int) -> SQLFragment {
        // SQLite's LIMIT -1 is no limit.
        " LIMIT \(bind: .integer(limit > 0 ? Int64(limit) : -1)) OFFSET \(bind: .integer(Int64(offset)))"
    }

    package static func argument(_ value: PrimitiveValue, of attribute: NSAttributeDescription) throws -> SQLiteValue {
        try SQLiteValueCoding.sqliteValue(value, of: attribute)
    }

    /// `json_extract(column, '$."a"."b"')`: element names are quoted, so any name is a key.
    package static func compositeElement(_ column: SQLFragment, _ elementPath: [String]) -> SQLFragment {
        let path = "$" + elementPath.map { "." + "\"" + $0.replacingOccurrences(of: "\"", with: "\\\"") + "\"" }.joined()
        return "json_extract(\(column), \(bind: .text(path)))"
    }
}
