import Foundation
import OCDSQLite
import OpenCoreDataCore

/// How one SQL engine spells what the predicate compiler needs: the parts of a statement that
/// differ between engines, as fragments.
///
/// `PredicateSQLCompiler` decides *what* a predicate means over Core Data's tables — which
/// tables to join, which sub-selects find a to-many's members, what SQL can compute as memory
/// does and what it must refuse. A dialect decides only how that is written: null-safe
/// equality, truth values, the functions that share their implementation with in-memory
/// evaluation, casts, collations, and limits. A second SQL engine is a second dialect, not a
/// copy of the compiler. `SQLiteDialect` is SQLite's.
///
/// Every requirement is static: a dialect has no state, and the compiler is specialised for it,
/// so nothing is dispatched at run time. What an engine cannot compute exactly as memory does,
/// its dialect refuses by throwing (134091, naming the store), never by answering differently.
package protocol SQLDialect {
    /// The store, as refusals name it ("the SQLite store").
    static var storeName: String { get }

    /// A condition that always holds, and one that never does.
    static var alwaysTrue: SQLFragment { get }
    static var alwaysFalse: SQLFragment { get }

    /// `left == right` where nil equals nil, as in memory.
    static func nullSafeEqual(_ left: SQLFragment, _ right: SQLFragment) -> SQLFragment

    /// `condition`, with an unknown (NULL) result counted as false.
    static func knownTrue(_ condition: SQLFragment) -> SQLFragment

    /// `string` folded as a comparison with `options` (`[c]`, `[d]`) folds it.
    static func fold(_ string: SQLFragment, _ options: NSComparisonPredicate.Options) throws -> SQLFragment

    /// A string operator (BEGINSWITH, ENDSWITH, CONTAINS, LIKE, MATCHES, IN a string) between
    /// two strings, with the comparison's options.
    static func stringComparison(_ left: SQLFragment, _ type: NSComparisonPredicate.Operator, _ right: SQLFragment,
                                 options: NSComparisonPredicate.Options) throws -> SQLFragment

    /// One of the predicate functions the compiler leaves to the engine (`length:`,
    /// `uppercase:`, `lowercase:`, `sqrt:`, `floor:`, the bitwise functions, …), with the same
    /// results as in memory.
    static func function(_ name: String, _ arguments: [SQLFragment]) throws -> SQLFragment

    /// The numeric functions (beyond arithmetic, `abs:` and `trunc:`) that `function(_:_:)`
    /// computes; the compiler refuses the others.
    static var numericFunctions: Set<String> { get }

    /// A statistic the engine computes over a sub-select's values as memory does: `median:` or
    /// `stddev:`.
    static func statistic(_ name: String, of values: SQLFragment) throws -> SQLFragment

    /// `left / right` in floating point, whatever the operands' types; NULL when `right` is 0,
    /// as in memory.
    static func floatingDivision(_ left: SQLFragment, _ right: SQLFragment) -> SQLFragment

    /// `left % right` of two integers, truncated toward zero as in memory; NULL when `right` is 0.
    static func integerRemainder(_ left: SQLFragment, _ right: SQLFragment) -> SQLFragment

    /// Whether rows come back in no particular order unless the statement orders them: then a
    /// fetch with a limit or an offset is ordered by key after its sort descriptors, so that it
    /// picks the rows the in-memory stores pick (SQLite returns a table's rows in key order).
    static var ordersRowsOnlyWhenAsked: Bool { get }

    /// A number truncated toward zero to an integer (NULL stays NULL).
    static func truncatedToInteger(_ number: SQLFragment) -> SQLFragment

    /// The sum of a column in a dictionary fetch: a floating-point 0 over no rows, as
    /// `NSExpression(forFunction: "sum:")` gives.
    static func total(_ values: SQLFragment) -> SQLFragment

    /// A sort key in a sort descriptor's string ordering.
    static func sortKey(_ string: SQLFragment, _ ordering: StringOrdering) throws -> SQLFragment

    /// One term of an ORDER BY: `key` ascending or descending, with NULL before every value
    /// when ascending (after every value when descending), as memory orders nil.
    static func sortTerm(_ key: SQLFragment, ascending: Bool) -> SQLFragment

    /// The LIMIT and OFFSET clause, with a leading space; `limit` 0 means none.
    static func limit(_ limit: Int, offset: Int) -> SQLFragment

    /// How a model value is bound as an argument: the same representation the store writes.
    static func argument(_ value: PrimitiveValue, of attribute: NSAttributeDescription) throws -> SQLiteValue

    /// The element at `elementPath` of a composite attribute's column, which holds the
    /// composite's JSON object (`CompositeValue`): the element's JSON value as SQL compares it
    /// (NULL when absent).
    static func compositeElement(_ column: SQLFragment, _ elementPath: [String]) throws -> SQLFragment
}
