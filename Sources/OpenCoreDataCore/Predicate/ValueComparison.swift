import Foundation

/// How predicates compare values in memory: numbers by value whatever their Swift type, strings
/// with the predicate's case and diacritic options, dates by time, objects by identity.
package enum ValueComparison {
    /// The result of `left <operator> right`.
    package static func evaluate(_ left: Any?, _ type: NSComparisonPredicate.Operator, _ right: Any?,
                         options: NSComparisonPredicate.Options) -> Bool {
        switch type {
        case .equalTo: return isEqual(left, right, options: options)
        case .notEqualTo: return !isEqual(left, right, options: options)
        case .lessThan, .lessThanOrEqualTo, .greaterThan, .greaterThanOrEqualTo:
            guard let order = order(left, right, options: options) else { return false }
            switch type {
            case .lessThan: return order == .orderedAscending
            case .lessThanOrEqualTo: return order != .orderedDescending
            case .greaterThan: return order == .orderedDescending
            default: return order != .orderedAscending
            }
        case .between:
            let bounds = elements(of: right)
            guard bounds.count == 2, let low = order(left, bounds[0], options: options),
                  let high = order(left, bounds[1], options: options) else { return false }
            return low != .orderedAscending && high != .orderedDescending
        case .in:
            if let haystack = string(right), let needle = string(left) {
                return fold(haystack, options).contains(fold(needle, options))
            }
            guard !isNilOrNull(right) else { return false }
            return elements(of: right).contains { isEqual(left, $0, options: options) }
        case .contains:
            if let haystack = string(left), let needle = string(right) {
                return needle.isEmpty ? false : fold(haystack, options).contains(fold(needle, options))
            }
            guard isCollection(left) else { return false }
            return elements(of: left).contains { isEqual($0, right, options: options) }
        case .beginsWith:
            guard let text = string(left), let prefix = string(right) else { return false }
            return fold(text, options).hasPrefix(fold(prefix, options))
        case .endsWith:
            guard let text = string(left), let suffix = string(right) else { return false }
            return fold(text, options).hasSuffix(fold(suffix, options))
        case .like:
            guard let text = string(left), let pattern = string(right) else { return false }
            return WildcardPattern(fold(pattern, options)).matches(fold(text, options))
        case .matches:
            guard let text = string(left), let pattern = string(right) else { return false }
            return text.matchesWhole(pattern: options.contains(.caseInsensitive) ? "(?i)" + pattern : pattern)
        case .customSelector:
            return false
        }
    }

    // MARK: Equality and order

    static func isEqual(_ left: Any?, _ right: Any?, options: NSComparisonPredicate.Options = []) -> Bool {
        let leftIsNil = isNilOrNull(left)
        let rightIsNil = isNilOrNull(right)
        if leftIsNil || rightIsNil { return leftIsNil && rightIsNil }
        if let a = objectID(left), let b = objectID(right) { return a == b }
        if let a = string(left), let b = string(right) { return fold(a, options) == fold(b, options) }
        if left is UUID || right is UUID, let a = comparableString(left), let b = comparableString(right) {
            return a.uppercased() == b.uppercased()  // UUID strings are hexadecimal, in either case
        }
        if left is URL || right is URL, let a = comparableString(left), let b = comparableString(right) {
            return a == b
        }
        if let order = order(left, right, options: options) { return order == .orderedSame }
        if let a = left as? AnyHashable, let b = right as? AnyHashable { return a == b }
        return false
    }

    /// The order of two comparable values, or nil when they cannot be ordered (nil, mixed types).
    static func order(_ left: Any?, _ right: Any?, options: NSComparisonPredicate.Options = []) -> ComparisonResult? {
        if let a = number(left), let b = number(right) { return compareNumbers(a, b) }
        if let a = string(left), let b = string(right) { return compareStrings(fold(a, options), fold(b, options)) }
        if let a = date(left), let b = date(right) { return a < b ? .orderedAscending : (a > b ? .orderedDescending : .orderedSame) }
        if let a = left as? Data, let b = right as? Data { return compareBytes(Array(a), Array(b)) }
        if let a = left as? UUID, let b = right as? UUID { return compareBytes(a.bytes, b.bytes) }
        return nil
    }

    /// The order used for sorting: like `order`, with nil before everything (as SQLite sorts
    /// NULL first when ascending).
    static func sortOrder(_ left: Any?, _ right: Any?, strings: StringOrdering) -> ComparisonResult {
        let leftIsNil = isNilOrNull(left)
        let rightIsNil = isNilOrNull(right)
        if leftIsNil || rightIsNil {
            if leftIsNil && rightIsNil { return .orderedSame }
            return leftIsNil ? .orderedAscending : .orderedDescending
        }
        if strings == .standard, let leftText = string(left), let rightText = string(right) {
            return standardOrder(leftText, rightText)
        }
        return order(left, right, options: strings == .caseInsensitive ? .caseInsensitive : []) ?? .orderedSame
    }

    /// The Finder's order (`localizedStandardCompare:`): case and width ignored, runs of digits
    /// compared by value, ties broken so that the order is total. Not localized, so that the
    /// SQLite store's `ocd_standard` collation, which calls this, and memory agree everywhere.
    package static func standardOrder(_ left: String, _ right: String) -> ComparisonResult {
        left.compare(right, options: [.caseInsensitive, .numeric, .widthInsensitive, .forcedOrdering], range: nil, locale: nil)
    }

    // MARK: Reading values

    /// Numbers (and Booleans) as exact integers when possible, else as doubles.
    package enum Number { case integer(Int64), double(Double) }

    package static func number(_ value: Any?) -> Number? {
        guard let value else { return nil }
        switch KnownType.of(value) {
        case KnownType.int: return .integer(Int64(value as! Int))
        case KnownType.int64: return .integer(value as! Int64)
        case KnownType.double: return .double(value as! Double)
        case KnownType.bool: return .integer((value as! Bool) ? 1 : 0)
        case KnownType.string, KnownType.date, KnownType.uuid, KnownType.data: return nil
        default: return castNumber(value)
        }
    }

    private static func castNumber(_ value: Any) -> Number? {
        switch value {
        case let value as Int: .integer(Int64(value))
        case let value as Int64: .integer(value)
        case let value as Int32: .integer(Int64(value))
        case let value as Int16: .integer(Int64(value))
        case let value as Bool: .integer(value ? 1 : 0)
        case let value as Double: .double(value)
        case let value as Float: .double(Double(value))
        case let value as Decimal: .double(value.nearestDouble)
        case let value as NSNumber:
            if let exact = Int64(exactly: value.doubleValue), Double(exact) == value.doubleValue { .integer(value.int64Value) } else { .double(value.doubleValue) }
        default: nil
        }
    }

    /// The order of two numbers; nil when one is NaN, which is neither equal to, less than nor
    /// greater than any number (as in SQL, where SQLite stores NaN as NULL).
    private static func compareNumbers(_ a: Number, _ b: Number) -> ComparisonResult? {
        switch (a, b) {
        case let (.integer(x), .integer(y)): return x < y ? .orderedAscending : (x > y ? .orderedDescending : .orderedSame)
        default:
            if a.double.isNaN || b.double.isNaN { return nil }
            return a.double < b.double ? .orderedAscending : (a.double > b.double ? .orderedDescending : .orderedSame)
        }
    }

    package static func string(_ value: Any?) -> String? {
        guard let value else { return nil }
        switch KnownType.of(value) {
        case KnownType.string: return (value as! String)
        case KnownType.int, KnownType.int64, KnownType.double, KnownType.bool, KnownType.date, KnownType.uuid, KnownType.data:
            return nil
        default: return castString(value)
        }
    }

    private static func castString(_ value: Any) -> String? {
        switch value {
        case let value as String: value
        case let value as Substring: String(value)
        case let value as NSString: value as String
        default: nil
        }
    }

    /// UUIDs and URLs compared with strings are compared by their string forms (as predicates
    /// print them).
    static func comparableString(_ value: Any?) -> String? {
        switch value {
        case let uuid as UUID: uuid.uuidString
        case let url as URL: url.absoluteString
        default: string(value)
        }
    }

    private static func date(_ value: Any?) -> Date? {
        guard let value else { return nil }
        switch KnownType.of(value) {
        case KnownType.date: return (value as! Date)
        case KnownType.string, KnownType.int, KnownType.int64, KnownType.double, KnownType.bool: return nil
        default: return value as? Date
        }
    }

    /// The exact types of the values predicates meet most, recognised by identity before any
    /// cast: on Linux an `as?` from `Any` that fails costs a few hundred nanoseconds (the
    /// runtime looks for a bridge through Foundation), and in-memory evaluation made several
    /// such casts for every comparison. Other types take the casts as before.
    private enum KnownType {
        static let int = ObjectIdentifier(Int.self)
        static let int64 = ObjectIdentifier(Int64.self)
        static let double = ObjectIdentifier(Double.self)
        static let bool = ObjectIdentifier(Bool.self)
        static let string = ObjectIdentifier(String.self)
        static let date = ObjectIdentifier(Date.self)
        static let uuid = ObjectIdentifier(UUID.self)
        static let data = ObjectIdentifier(Data.self)

        @inline(__always)
        static func of(_ value: Any) -> ObjectIdentifier { ObjectIdentifier(type(of: value)) }
    }

    private static func objectID(_ value: Any?) -> NSManagedObjectID? {
        switch value {
        case let object as NSManagedObject: object.objectID
        case let id as NSManagedObjectID: id
        case let row as KeyValueReadable: row.rowObjectID
        default: nil
        }
    }

    /// Strings compare by Unicode code point, as SQLite's BINARY collation compares UTF-8 bytes.
    static func compareStrings(_ a: String, _ b: String) -> ComparisonResult {
        compareBytes(Array(a.utf8), Array(b.utf8))
    }

    private static func compareBytes(_ a: [UInt8], _ b: [UInt8]) -> ComparisonResult {
        for (x, y) in zip(a, b) where x != y { return x < y ? .orderedAscending : .orderedDescending }
        return a.count < b.count ? .orderedAscending : (a.count > b.count ? .orderedDescending : .orderedSame)
    }

    /// Applies `[c]` and `[d]`: case folding and diacritic removal.
    package static func fold(_ string: String, _ options: NSComparisonPredicate.Options) -> String {
        if options.isEmpty { return string }  // the common case, on every comparison of a fetch
        var foldOptions: String.CompareOptions = []
        if options.contains(.caseInsensitive) { foldOptions.insert(.caseInsensitive) }
        if options.contains(.diacriticInsensitive) { foldOptions.insert(.diacriticInsensitive) }
        if foldOptions.isEmpty || options.contains(.normalized) { return string }
        return string.folding(options: foldOptions, locale: nil)
    }

    static func isCollection(_ value: Any?) -> Bool {
        value is [Any] || value is Set<NSManagedObject> || value is NSOrderedSet || value is NSSet || value is NSArray
    }

    /// The members of a collection value (array, set, ordered set, dictionary values).
    package static func elements(of value: Any?) -> [Any?] {
        switch value {
        // Arrays of one common type first: casting them to `[Any?]` converts the whole array
        // through the runtime, which costs thousands of instructions even for two elements.
        case let array as [Int]: array.map { $0 }
        case let array as [String]: array.map { $0 }
        case let array as [Int64]: array.map { $0 }
        case let array as [Double]: array.map { $0 }
        case let array as [Date]: array.map { $0 }
        case let array as [UUID]: array.map { $0 }
        case let array as [NSManagedObjectID]: array.map { $0 }
        case let array as [NSManagedObject]: array.map { $0 }
        case let array as [Any?]: array
        case let array as [Any]: array.map { $0 }
        case let set as Set<NSManagedObject>: Array(set)
        case let ordered as NSOrderedSet: ordered.array
        case let set as NSSet: set.allObjects
        case let array as NSArray: array.map { $0 }
        case let dictionary as [String: Any]: Array(dictionary.values)
        default: []
        }
    }
}

extension ValueComparison.Number {
    var double: Double {
        switch self {
        case .integer(let value): Double(value)
        case .double(let value): value
        }
    }
}

extension UUID {
    package var bytes: [UInt8] {
        withUnsafeBytes(of: uuid) { Array($0) }
    }
}

/// Core Data's LIKE wildcards: `*` matches any run of characters, `?` one character.
struct WildcardPattern {
    private let pattern: [Character]

    init(_ pattern: String) { self.pattern = Array(pattern) }

    func matches(_ text: String) -> Bool {
        let text = Array(text)
        var memo: [[Bool?]] = Array(repeating: Array(repeating: nil, count: text.count + 1), count: pattern.count + 1)
        func match(_ p: Int, _ t: Int) -> Bool {
            if let known = memo[p][t] { return known }
            let result: Bool
            if p == pattern.count {
                result = t == text.count
            } else if pattern[p] == "*" {
                result = match(p + 1, t) || (t < text.count && match(p, t + 1))
            } else if pattern[p] == "\\" && p + 1 < pattern.count {
                result = t < text.count && text[t] == pattern[p + 1] && match(p + 2, t + 1)
            } else {
                result = t < text.count && (pattern[p] == "?" || pattern[p] == text[t]) && match(p + 1, t + 1)
            }
            memo[p][t] = result
            return result
        }
        return match(0, 0)
    }
}

