import Foundation

/// The dictionaries of a dictionary fetch from the in-memory store: one per row, or, with
/// grouping or aggregates, one per group, with the same values and types as the SQLite store
/// gives (`AggregateValue`).
struct InMemoryDictionaries {
    let entity: NSEntityDescription
    let columns: [DictionaryColumn]
    let groupBy: [String]

    func dictionaries(of rows: [StoredRow]) -> [[String: Any]] {
        let aggregates = columns.contains { if case .aggregate = $0.kind { true } else { false } }
        guard aggregates || !groupBy.isEmpty else { return rows.map { dictionary(for: $0) } }
        // Groups in the order their first row comes (rows are already sorted as asked).
        // Grouped by the values themselves, as SQL's GROUP BY (printed text would merge dates in
        // the same second, or data of the same length).
        var order: [[AnyHashable]] = []
        var groups: [[AnyHashable]: [StoredRow]] = [:]
        for row in rows {
            let key = groupBy.map { Self.groupKey(Self.stored(KeyPathValue.value(of: row, keyPath: $0))) }
            if groups[key] == nil { order.append(key) }
            groups[key, default: []].append(row)
        }
        // Without grouping, the aggregates cover every row, even none (as SQL gives one row).
        if groupBy.isEmpty && order.isEmpty { order = [[]]; groups[[]] = [] }
        // The attribute each aggregate reads, found once rather than per group.
        let attributes: [NSAttributeDescription?] = columns.map { column in
            guard case .aggregate(_, let keyPath) = column.kind else { return nil }
            return (try? PredicateCheck.resolve(keyPath: keyPath, from: entity, allowsToMany: false, in: nil))?.last
                as? NSAttributeDescription
        }
        return order.map { key in dictionary(forGroup: groups[key] ?? [], attributes: attributes) }
    }

    private func dictionary(for row: StoredRow) -> [String: Any] {
        var dictionary: [String: Any] = [:]
        for column in columns {
            if case .value(let keyPath) = column.kind, let value = Self.stored(KeyPathValue.value(of: row, keyPath: keyPath)) {
                dictionary[column.name] = value
            }
        }
        return dictionary
    }

    private func dictionary(forGroup rows: [StoredRow], attributes: [NSAttributeDescription?]) -> [String: Any] {
        var dictionary: [String: Any] = [:]
        for (column, attribute) in zip(columns, attributes) {
            switch column.kind {
            case .value(let keyPath):
                if let first = rows.first, let value = Self.stored(KeyPathValue.value(of: first, keyPath: keyPath)) {
                    dictionary[column.name] = value
                }
            case .aggregate(let function, let keyPath):
                let values = rows.compactMap { Self.stored(KeyPathValue.value(of: $0, keyPath: keyPath)) }
                if let value = AggregateValue.make(function, value: Self.aggregate(function, values), attribute: attribute,
                                                   resultType: column.resultType) {
                    dictionary[column.name] = value
                }
            }
        }
        return dictionary
    }

    /// A value as dictionaries hold it: a to-one as its object ID.
    /// A grouped value as a key: itself when hashable, else its text; nil as `NSNull`.
    private static func groupKey(_ value: Any?) -> AnyHashable {
        guard let value else { return AnyHashable(NSNull()) }
        return value as? AnyHashable ?? AnyHashable("\(value)")
    }

    private static func stored(_ value: Any?) -> Any? {
        if let row = value as? StoredRow { return row.snapshot.objectID }
        if isNilOrNull(value) { return nil }
        return value
    }

    /// The aggregate of non-nil values, as SQL computes it.
    private static func aggregate(_ function: AggregateFunction, _ values: [Any]) -> Any? {
        switch function {
        case .count:
            return Int64(values.count)
        case .sum:
            return values.reduce(0.0) { $0 + AggregateValue.double($1) }
        case .average:
            return values.isEmpty ? nil : values.reduce(0.0) { $0 + AggregateValue.double($1) } / Double(values.count)
        case .min:
            return values.min { ValueComparison.order($0, $1) == .orderedAscending }
        case .max:
            return values.max { ValueComparison.order($0, $1) == .orderedAscending }
        }
    }
}
