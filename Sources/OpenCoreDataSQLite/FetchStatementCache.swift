import Foundation
import OpenCoreDataCore

/// The SELECTs of a SQLite store's recent fetches, by what they were made from, so that a fetch
/// request run again (kept and re-run, as Core Data code does) skips turning its predicate and
/// sort descriptors into SQL.
///
/// A fetch is recognised by the identities of the objects its request holds — the same entity,
/// predicate and sort descriptor objects — and by its other settings. Predicates and sort
/// descriptors are immutable, so the same ones give the same SQL and arguments, with one
/// exception the cache leaves out: statements whose arguments could differ from one run to the
/// next (see `PredicateReuse`). Used under the store's lock.
///
/// A fetch seen once is remembered by identities only, holding nothing alive: its predicate may
/// hold managed objects, which must not be released later on another context's thread. Should a
/// new object take a freed one's address, the only effect is that its fetch is checked for
/// keeping one run early. A kept statement holds its fetch's objects, so their identities stay
/// theirs while it is kept; those predicates hold plain values only.
struct FetchStatementCache {
    private struct Entry {
        let entity: ObjectIdentifier
        let predicate: ObjectIdentifier?
        let sortDescriptors: [ObjectIdentifier]
        let includesSubentities: Bool
        let fetchLimit: Int
        let fetchOffset: Int
        let returnsDistinctResults: Bool
        let resultKind: Int
        /// The kept statement, with the fetch it was made for (holding its objects); nil until
        /// the fetch runs a second time (most requests run once, and checking whether a statement
        /// can be kept costs more than a lookup), and for fetches whose statement cannot be kept.
        var kept: (fetch: StoreFetch, statement: SQLiteFetchStatement)?
        /// Whether the fetch's statement was found unfit to keep.
        var isRefused = false

        init(_ fetch: StoreFetch) {
            entity = ObjectIdentifier(fetch.entity)
            predicate = fetch.predicate.map(ObjectIdentifier.init)
            sortDescriptors = fetch.sortDescriptors.map(ObjectIdentifier.init)
            includesSubentities = fetch.includesSubentities
            fetchLimit = fetch.fetchLimit
            fetchOffset = fetch.fetchOffset
            returnsDistinctResults = fetch.returnsDistinctResults
            resultKind = fetch.result.kind
        }

        func matches(_ fetch: StoreFetch) -> Bool {
            entity == ObjectIdentifier(fetch.entity) && predicate == fetch.predicate.map(ObjectIdentifier.init)
                && includesSubentities == fetch.includesSubentities && fetchLimit == fetch.fetchLimit
                && fetchOffset == fetch.fetchOffset && returnsDistinctResults == fetch.returnsDistinctResults
                && resultKind == fetch.result.kind && sortDescriptors.count == fetch.sortDescriptors.count
                && zip(sortDescriptors, fetch.sortDescriptors).allSatisfy { $0 == ObjectIdentifier($1) }
        }
    }

    private var entries: [Entry] = []
    /// A handful: a hit must cost less than the compilation it saves, and kept entries keep their
    /// predicates alive.
    private static let capacity = 16

    /// The statement for `fetch`: the kept one when `fetch` ran before, else `make()`, kept from
    /// the second run on when its arguments cannot change.
    mutating func statement(for fetch: StoreFetch, make: () throws -> SQLiteFetchStatement) rethrows -> SQLiteFetchStatement {
        guard var index = entries.firstIndex(where: { $0.matches(fetch) }) else {
            if entries.count == Self.capacity { entries.removeFirst() }
            entries.append(Entry(fetch))
            return try make()
        }
        // Fetches run often drift to the back, where they are evicted last.
        if index < entries.count - 1 {
            entries.swapAt(index, index + 1)
            index += 1
        }
        if let kept = entries[index].kept { return kept.statement }
        let made = try make()
        if !entries[index].isRefused {
            if Self.isKept(fetch) {
                entries[index].kept = (fetch.withoutAsker, made)
            } else {
                entries[index].isRefused = true
            }
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
        case .function, .unionSet, .intersectSet, .minusSet, .fetchRequest: false
        }
    }

    private static func isFixedValue(_ value: Any?) -> Bool {
        guard let value, !isNilOrNull(value) else { return true }
        // By type identity first: a chain of failing `is` casts from `Any` costs microseconds on
        // Linux (the runtime looks for bridges), which a fetch would pay every time.
        if plainTypes.contains(ObjectIdentifier(type(of: value))) { return true }
        if let id = value as? NSManagedObjectID { return !id.isTemporaryID }
        // An instance of a class (an NSMutableArray, a managed object) could change in place.
        if type(of: value) is AnyClass { return false }
        if let values = value as? [Any?] { return values.allSatisfy(isFixedValue) }
        return false
    }

    /// Value types whose instances never change, alone or in arrays.
    private static let plainTypes: Set<ObjectIdentifier> = [
        ObjectIdentifier(String.self), ObjectIdentifier(Int.self), ObjectIdentifier(Int64.self), ObjectIdentifier(Int32.self),
        ObjectIdentifier(Int16.self), ObjectIdentifier(Int8.self), ObjectIdentifier(UInt.self), ObjectIdentifier(UInt64.self),
        ObjectIdentifier(UInt32.self), ObjectIdentifier(UInt16.self), ObjectIdentifier(UInt8.self), ObjectIdentifier(Double.self),
        ObjectIdentifier(Float.self), ObjectIdentifier(Bool.self), ObjectIdentifier(Decimal.self), ObjectIdentifier(Date.self),
        ObjectIdentifier(Data.self), ObjectIdentifier(UUID.self), ObjectIdentifier(URL.self),
        ObjectIdentifier([String].self), ObjectIdentifier([Int].self), ObjectIdentifier([Int64].self),
        ObjectIdentifier([Double].self), ObjectIdentifier([Date].self), ObjectIdentifier([UUID].self),
    ]
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
