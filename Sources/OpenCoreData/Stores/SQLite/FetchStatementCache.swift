import Foundation

/// The SELECTs of a SQLite store's recent fetches, by what they were made from, so that a fetch
/// request run again (kept and re-run, as Core Data code does) skips turning its predicate and
/// sort descriptors into SQL.
///
/// A fetch is recognised by the very objects its request holds — the same entity, predicate and
/// sort descriptor objects, compared by identity and kept alive by the entry, so that an address
/// is never mistaken for another object's — and by its other settings. Predicates and sort
/// descriptors are immutable, so the same ones give the same SQL and arguments, with one
/// exception the cache leaves out: statements whose arguments could differ from one run to the
/// next (see `PredicateReuse`). Used under the store's lock.
struct FetchStatementCache {
    private struct Entry {
        let fetch: StoreFetch
        /// The statement kept for the fetch; nil until the fetch runs a second time (most
        /// requests run once, and checking whether a statement can be kept costs more than a
        /// lookup), and for fetches whose statement cannot be kept.
        var statement: SQLiteFetchStatement?
        /// Whether the fetch's statement was found unfit to keep.
        var isRefused = false
    }

    private var entries: [Entry] = []
    /// A handful: a hit must cost less than the compilation it saves, and the entries keep their
    /// predicates alive.
    private static let capacity = 16

    /// The statement for `fetch`: the kept one when `fetch` ran before, else `make()`, kept from
    /// the second run on when its arguments cannot change.
    mutating func statement(for fetch: StoreFetch, make: () throws -> SQLiteFetchStatement) rethrows -> SQLiteFetchStatement {
        guard var index = entries.firstIndex(where: { Self.isSame($0.fetch, fetch) }) else {
            if entries.count == Self.capacity { entries.removeFirst() }
            entries.append(Entry(fetch: fetch))
            return try make()
        }
        // Fetches run often drift to the back, where they are evicted last.
        if index < entries.count - 1 {
            entries.swapAt(index, index + 1)
            index += 1
        }
        if let kept = entries[index].statement { return kept }
        let made = try make()
        if !entries[index].isRefused {
            if Self.isKept(fetch) { entries[index].statement = made } else { entries[index].isRefused = true }
        }
        return made
    }

    mutating func removeAll() { entries = [] }

    private static func isKept(_ fetch: StoreFetch) -> Bool {
        switch fetch.result {
        case .snapshots, .objectIDs, .count, .keys: fetch.predicate.map(PredicateReuse.givesFixedArguments) ?? true
        case .dictionaries: false
        }
    }

    private static func isSame(_ a: StoreFetch, _ b: StoreFetch) -> Bool {
        a.entity === b.entity && a.predicate === b.predicate && a.includesSubentities == b.includesSubentities
            && a.fetchLimit == b.fetchLimit && a.fetchOffset == b.fetchOffset && a.returnsDistinctResults == b.returnsDistinctResults
            && a.result.kind == b.result.kind && a.sortDescriptors.count == b.sortDescriptors.count
            && zip(a.sortDescriptors, b.sortDescriptors).allSatisfy { $0 === $1 }
    }
}

/// Whether a predicate's SQL arguments are the same every time it is compiled.
///
/// They are when every constant is a plain value (numbers, strings, dates, data, UUIDs, URLs,
/// permanent object IDs, and collections of them) and no function is evaluated: `now()` changes,
/// an object's key changes when it is first saved, and an instance of a class could be changed
/// in place.
enum PredicateReuse {
    static func givesFixedArguments(_ predicate: NSPredicate) -> Bool {
        let resolved = predicate.resolved
        switch resolved {
        case let compound as NSCompoundPredicate:
            return compound.subpredicates.allSatisfy(givesFixedArguments)
        case let comparison as NSComparisonPredicate:
            return isFixed(comparison.leftExpression) && isFixed(comparison.rightExpression)
        default:
            return resolved.constantTruth != nil
        }
    }

    private static func isFixed(_ expression: NSExpression) -> Bool {
        switch expression.expressionType {
        case .keyPath, .evaluatedObject, .variable: true
        case .constantValue: isFixedValue(expression.constantValue)
        case .aggregate: expression.members.allSatisfy(isFixed)
        case .subquery: (expression.collection as? NSExpression).map(isFixed) ?? false && givesFixedArguments(expression.predicate)
        case .conditional:
            givesFixedArguments(expression.predicate) && isFixed(expression.trueExpression) && isFixed(expression.falseExpression)
        case .function, .unionSet, .intersectSet, .minusSet: false
        }
    }

    private static func isFixedValue(_ value: Any?) -> Bool {
        guard let value, !isNilOrNull(value) else { return true }
        if let id = value as? NSManagedObjectID { return !id.isTemporaryID }
        // An instance of a class (an NSMutableArray, a managed object) could change in place.
        if Swift.type(of: value) is AnyClass { return false }
        switch value {
        case is String, is Int, is Int64, is Int32, is Int16, is Int8, is UInt, is UInt64, is UInt32, is UInt16, is UInt8,
             is Double, is Float, is Bool, is Decimal, is Date, is Data, is UUID, is URL,
             // Arrays of one plain type, without the cost of converting them to `[Any]`.
             is [String], is [Int], is [Int64], is [Double], is [Date], is [UUID]:
            return true
        case let values as [Any?]: return values.allSatisfy(isFixedValue)
        default: return false
        }
    }
}

extension StoreFetch.Result {
    /// The case, without the dictionary columns.
    var kind: Int {
        switch self {
        case .snapshots: 0
        case .objectIDs: 1
        case .count: 2
        case .keys: 3
        case .dictionaries: 4
        }
    }
}
