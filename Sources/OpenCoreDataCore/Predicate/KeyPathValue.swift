import Foundation

/// Reads a value at a key path from whatever a predicate is evaluated against.
enum KeyPathValue {
    static func value(of object: Any?, keyPath: String?) -> Any? {
        guard let keyPath, !keyPath.isEmpty, keyPath != "self", keyPath != "SELF" else { return object }
        var current: Any? = object
        let keys = keyPath.split(separator: ".").map(String.init)
        for (index, key) in keys.enumerated() {
            if key.hasPrefix("@") {
                let rest = keys[(index + 1)...].joined(separator: ".")
                let members = ValueComparison.elements(of: current)
                return aggregate(key, rest.isEmpty ? members : members.map { value(of: $0, keyPath: rest) })
            }
            current = value(of: current, key: key)
            if current == nil { return nil }
        }
        return current
    }

    /// `@count`, `@sum`, `@avg`, `@min`, `@max` over the members' values: the collection
    /// functions `count:`, `sum:`, `average:`, `min:` and `max:`, which skip nil values (the
    /// average, minimum and maximum of nothing are nil; the sum of nothing is 0), as SQL does.
    /// `@unionOfObjects` and `@distinctUnionOfObjects` are the members' values without nils,
    /// the second without repeats (equal as predicates compare), in the members' order.
    /// An unknown operator reads nil.
    static func aggregate(_ operation: String, _ values: [Any?]) -> Any? {
        let operation = operation.lowercased()
        switch operation {
        case "@unionofobjects":
            return values.compactMap { $0 }
        case "@distinctunionofobjects":
            var distinct: [Any] = []
            for case let value? in values where !distinct.contains(where: { ValueComparison.isEqual($0, value) }) {
                distinct.append(value)
            }
            return distinct
        default:
            guard let function = collectionFunctionNames[operation] else { return nil }
            return PredicateFunction.evaluate(function, [values])
        }
    }

    private static let collectionFunctionNames = ["@count": "count:", "@sum": "sum:", "@avg": "average:", "@min": "min:", "@max": "max:"]

    /// The value for one key, as key-value coding reads it: an object's property, a
    /// dictionary's value, a string's `length` (in UTF-16 units, as `NSString`'s), and for a
    /// collection, the collection of its members' values.
    static func value(of object: Any?, key: String) -> Any? {
        if key == "self" || key == "SELF" { return object }
        switch object {
        case let object as NSManagedObject: return object.value(forKey: key)
        case let dictionary as [String: Any]: return dictionary[key]
        case let dictionary as NSDictionary: return dictionary[key]
        case let source as KeyValueReadable: return source.value(forKey: key)
        case let collection as Set<NSManagedObject>:
            return collection.map { value(of: $0, key: key) as Any }
        case let rows as [StoredRow]:
            return rows.map { value(of: $0, key: key) as Any }
        case let text as String:
            return key == "length" ? text.utf16.count : nil
        case let text as NSString:
            return key == "length" ? text.length : nil
        case let ordered as NSOrderedSet:
            return ordered.array.map { value(of: $0, key: key) as Any }
        case let array as [Any]:
            return array.map { value(of: $0, key: key) as Any }
        default:
            return Mirror(reflecting: object as Any).children.first { $0.label == key }?.value
        }
    }
}

/// Something a predicate can read keys from (the in-memory store's rows, for instance).
protocol KeyValueReadable {
    func value(forKey key: String) -> Any?
    /// The identity of the object the values belong to, when there is one.
    var rowObjectID: NSManagedObjectID? { get }
}
