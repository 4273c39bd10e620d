import Foundation
import OCDSQL
import OpenCoreDataCore
import OpenCoreDataSQLite

/// PostgreSQL's spelling of what the predicate compiler needs: the second renderer of the
/// resolved predicate tree.
///
/// Truth values are SQL booleans; `IS NOT DISTINCT FROM` is null-safe equality; text columns
/// are created `COLLATE "C"` (`PostgresSchemaDefinition`), so comparing and ordering strings
/// is by code point, as in memory, whatever the database's own collation.
///
/// What SQLite computes by calling the same Swift code as memory — comparisons with `[c]` or
/// `[d]`, the string operators (BEGINSWITH, CONTAINS, LIKE, MATCHES, …), the string and
/// numeric functions, `median:` and `stddev:`, case-insensitive and Finder-like sort orders,
/// elements of composite attributes — PostgreSQL's SQL cannot compute exactly as memory does
/// (its `lower()` and pattern operators follow other rules). The dialect refuses them with a
/// `PostgresDialect.Refusal`, and the store answers such a fetch in memory over the rows of a
/// wider one (`PostgreSQLStore.answerInMemory`), never differently.
enum PostgresDialect: SQLDialect {
    static let storeName = "the PostgreSQL store"

    static var alwaysTrue: SQLFragment { "TRUE" }
    static var alwaysFalse: SQLFragment { "FALSE" }

    static func nullSafeEqual(_ left: SQLFragment, _ right: SQLFragment) -> SQLFragment {
        "\(left) IS NOT DISTINCT FROM \(right)"
    }

    static func knownTrue(_ condition: SQLFragment) -> SQLFragment {
        "COALESCE((\(condition)), FALSE)"
    }

    static func fold(_ string: SQLFragment, _ options: NSComparisonPredicate.Options) throws -> SQLFragment {
        throw refusal("comparisons with [c] or [d]")
    }

    static func stringComparison(_ left: SQLFragment, _ type: NSComparisonPredicate.Operator, _ right: SQLFragment,
                                         options: NSComparisonPredicate.Options) throws -> SQLFragment {
        throw refusal("the string operator \(type.formatName)")
    }

    static func function(_ name: String, _ arguments: [SQLFragment]) throws -> SQLFragment {
        throw refusal("the function \(name)")
    }

    /// The same functions as SQLite's, so that the compiler hands them to `function(_:_:)`,
    /// whose refusal has the store answer them in memory (an empty set would make the compiler
    /// refuse the fetch outright).
    static let numericFunctions = SQLiteDialect.numericFunctions

    static func statistic(_ name: String, of values: SQLFragment) throws -> SQLFragment {
        throw refusal("\(name)")
    }

    static func floatingDivision(_ left: SQLFragment, _ right: SQLFragment) -> SQLFragment {
        // PostgreSQL divides integers as integers, and fails on a division by zero.
        "(CAST(\(left) AS double precision) / NULLIF(\(right), 0))"
    }

    static func integerRemainder(_ left: SQLFragment, _ right: SQLFragment) -> SQLFragment {
        // PostgreSQL fails on a remainder by zero; its % truncates toward zero, as Swift's.
        "(\(left) % NULLIF(\(right), 0))"
    }

    /// A heap returns rows in the order they were last written.
    static let ordersRowsOnlyWhenAsked = true

    static func truncatedToInteger(_ number: SQLFragment) -> SQLFragment {
        // A cast to bigint rounds; trunc() truncates toward zero, as memory does.
        "CAST(trunc(\(number)) AS bigint)"
    }

    static func total(_ values: SQLFragment) -> SQLFragment {
        // SUM of integers is a numeric, and NULL over no rows: a double, 0.0 over none.
        "COALESCE(CAST(SUM(\(values)) AS double precision), 0.0)"
    }

    static func sortKey(_ string: SQLFragment, _ ordering: StringOrdering) throws -> SQLFragment {
        switch ordering {
        case .binary: return string
        case .caseInsensitive: throw refusal("case-insensitive sort orders")
        case .standard: throw refusal("localizedStandardCompare: sort orders")
        }
    }

    static func sortTerm(_ key: SQLFragment, ascending: Bool) -> SQLFragment {
        // PostgreSQL orders NULL after every value unless told.
        "\(key) \(raw: ascending ? "ASC NULLS FIRST" : "DESC NULLS LAST")"
    }

    static func limit(_ limit: Int, offset: Int) -> SQLFragment {
        // LIMIT NULL is no limit.
        " LIMIT \(bind: limit > 0 ? .integer(Int64(limit)) : .null) OFFSET \(bind: .integer(Int64(offset)))"
    }

    static func argument(_ value: PrimitiveValue, of attribute: NSAttributeDescription) throws -> SQLValue {
        try PostgresValueCoding.sqlValue(value, of: attribute)
    }

    static func compositeElement(_ column: SQLFragment, _ elementPath: [String]) throws -> SQLFragment {
        throw refusal("elements of composite attributes")
    }

    /// What PostgreSQL's SQL cannot compute as memory does.
    struct Refusal: Error, CustomStringConvertible {
        let what: String
        var description: String { "\(what) is not computed in PostgreSQL's SQL" }
    }

    private static func refusal(_ what: String) -> Refusal { Refusal(what: what) }
}
