import Foundation

/// `FIRST`, `LAST` and `SIZE` in an index expression (`tags[FIRST]`, `tags[SIZE]`). The constant
/// of the index argument of `objectFrom:withIndex:`.
public enum PredicateIndexSymbol: String, Sendable, CaseIterable {
    case first = "FIRST", last = "LAST", size = "SIZE"
}

/// The built-in functions of the predicate language, under Core Data's names (the methods of
/// Foundation's `_NSPredicateUtilities`): what `NSExpression(forFunction:arguments:)` and the
/// format string's `sum(…)`, `a + b`, `a[0]`, `CAST(…)` evaluate to in memory.
///
/// ```swift
/// PredicateFunction.evaluate("add:to:", [2, 3])        // 5
/// PredicateFunction.evaluate("median:", [[1, 2, 4, 8]]) // 3
/// ```
/// Differences from Core Data, where it raises an exception: an argument that is nil or of the
/// wrong type gives nil, as does a division (or modulus) by zero; the collection functions
/// skip nil members and take a single value as a collection of one; `distanceToLocation:
/// fromLocation:` (no CoreLocation on Linux) gives nil. `median:` of an even count is the mean
/// of the two middle values; `stddev:` is the population standard deviation (as Core Data's).
/// `random:` takes a collection (a random member) or a number `n` (an integer below `n`).
package enum PredicateFunction {
    /// Every built-in function, with the number of arguments it takes.
    package static let arities: [String: Int] = [
        "sum:": 1, "count:": 1, "min:": 1, "max:": 1, "average:": 1, "median:": 1, "mode:": 1, "stddev:": 1,
        "add:to:": 2, "from:subtract:": 2, "multiply:by:": 2, "divide:by:": 2, "modulus:by:": 2,
        "sqrt:": 1, "log:": 1, "ln:": 1, "raise:toPower:": 2, "exp:": 1, "ceiling:": 1, "abs:": 1, "trunc:": 1,
        "floor:": 1, "random": 0, "random:": 1, "randomn:": 1, "now": 0, "uppercase:": 1, "lowercase:": 1,
        "length:": 1, "bitwiseAnd:with:": 2, "bitwiseOr:with:": 2, "bitwiseXor:with:": 2, "leftshift:by:": 2,
        "rightshift:by:": 2, "onesComplement:": 1, "noindex:": 1, "distanceToLocation:fromLocation:": 2,
        "castObject:toType:": 2, "objectFrom:withIndex:": 2,
    ]

    /// The functions a format string writes as infix operators (`a + b` is `add:to:`).
    static let infixOperators: [String: String] = [
        "add:to:": "+", "from:subtract:": "-", "multiply:by:": "*", "divide:by:": "/", "raise:toPower:": "**",
    ]

    /// The collection functions: their argument is a collection.
    static let collectionFunctions: Set<String> = ["sum:", "count:", "min:", "max:", "average:", "median:", "mode:", "stddev:"]

    /// The function a format string names `name` with `count` arguments: `sum` with one argument
    /// is `sum:`, `now` with none is `now`, and a full name (`add:to:`) is itself. Nil when there
    /// is no such built-in function.
    static func named(_ name: String, argumentCount count: Int) -> String? {
        let candidate = name.contains(":") || count == 0 ? name : name + ":"
        if arities[candidate] == count { return candidate }
        // Keywords are case-insensitive in the format language; accept `SUM(x)` as well.
        return arities.first { $0.key.lowercased() == candidate.lowercased() && $0.value == count }?.key
    }

    /// The value of the function `name` for the argument values `arguments`.
    package static func evaluate(_ name: String, _ arguments: [Any?]) -> Any? {
        guard arities[name] == arguments.count else { return nil }
        let first = arguments.first ?? nil
        let second = arguments.count > 1 ? arguments[1] : nil
        switch name {
        case "add:to:", "from:subtract:", "multiply:by:", "divide:by:", "modulus:by:", "raise:toPower:":
            return PredicateNumber.arithmetic(name, first, second)
        case _ where collectionFunctions.contains(name):
            return collectionFunction(name, members(of: first))
        case "sqrt:", "log:", "ln:", "exp:":
            guard let number = PredicateNumber(first) else { return nil }
            switch name {
            case "sqrt:": return number.double.squareRoot()
            case "log:": return Foundation.log10(number.double)
            case "ln:": return Foundation.log(number.double)
            default: return Foundation.exp(number.double)
            }
        case "ceiling:": return PredicateNumber(first)?.rounded(.up).value
        case "floor:": return PredicateNumber(first)?.rounded(.down).value
        case "trunc:": return PredicateNumber(first)?.rounded(.towardZero).value
        case "abs:": return PredicateNumber(first)?.magnitude.value
        case "bitwiseAnd:with:", "bitwiseOr:with:", "bitwiseXor:with:", "leftshift:by:", "rightshift:by:":
            guard let a = PredicateNumber(first)?.exactInteger, let b = PredicateNumber(second)?.exactInteger else { return nil }
            switch name {
            case "bitwiseAnd:with:": return Int(a & b)
            case "bitwiseOr:with:": return Int(a | b)
            case "bitwiseXor:with:": return Int(a ^ b)
            case "leftshift:by:": return Int(a << b)
            default: return Int(a >> b)
            }
        case "onesComplement:":
            return PredicateNumber(first)?.exactInteger.map { Int(~$0) }
        case "now": return Date()
        case "random": return Double.random(in: 0..<1)
        case "random:":
            if ValueComparison.isCollection(first) { return members(of: first).randomElement() ?? nil }
            return randomInteger(below: first)
        case "randomn:": return randomInteger(below: first)
        case "uppercase:": return ValueComparison.string(first)?.uppercased()
        case "lowercase:": return ValueComparison.string(first)?.lowercased()
        case "length:": return ValueComparison.string(first).map { $0.utf16.count }
        case "noindex:": return first
        case "castObject:toType:": return cast(first, to: second)
        case "objectFrom:withIndex:": return element(of: first, at: second)
        default: return nil  // distanceToLocation:fromLocation: needs CoreLocation
        }
    }

    private static func randomInteger(below bound: Any?) -> Any? {
        guard let bound = PredicateNumber(bound)?.exactInteger, bound > 0 else { return nil }
        return Int(Int64.random(in: 0..<bound))
    }

    // MARK: Collections

    /// The members a collection function works on: a collection's members, or a single value as
    /// a collection of one; nothing for nil.
    static func members(of value: Any?) -> [Any?] {
        if isNilOrNull(value) { return [] }
        if ValueComparison.isCollection(value) || value is [String: Any] { return ValueComparison.elements(of: value) }
        return [value]
    }

    private static func collectionFunction(_ name: String, _ members: [Any?]) -> Any? {
        let present = members.compactMap { isNilOrNull($0) ? nil : $0 }
        let numbers = present.compactMap(PredicateNumber.init)
        switch name {
        case "count:":
            return members.count
        case "sum:":
            return numbers.reduce(PredicateNumber.integer(0)) { $0.combined(with: $1, "add:to:") ?? .double($0.double + $1.double) }.value
        case "average:":
            guard !numbers.isEmpty else { return nil }
            let sum = numbers.reduce(PredicateNumber.integer(0)) { $0.combined(with: $1, "add:to:") ?? .double($0.double + $1.double) }
            if case .decimal(let total) = sum { return total / Decimal(numbers.count) }
            return sum.double / Double(numbers.count)
        case "min:", "max:":
            let wantsMax = name == "max:"
            return present.reduce(nil as Any?) { best, value in
                guard let best else { return value }
                let order = ValueComparison.order(value, best)
                return (wantsMax ? order == .orderedDescending : order == .orderedAscending) ? value : best
            }
        case "median:":
            let sorted = numbers.sorted { $0.double < $1.double }
            guard !sorted.isEmpty else { return nil }
            if sorted.count % 2 == 1 { return sorted[sorted.count / 2].value }
            let pair = sorted[sorted.count / 2 - 1].combined(with: sorted[sorted.count / 2], "add:to:")
            return pair.flatMap { $0.combined(with: .integer(2), "divide:by:") }?.value
        case "mode:":
            var counted: [(value: Any, count: Int)] = []
            for value in present {
                if let index = counted.firstIndex(where: { ValueComparison.isEqual($0.value, value) }) {
                    counted[index].count += 1
                } else {
                    counted.append((value, 1))
                }
            }
            let most = counted.map(\.count).max() ?? 0
            return counted.filter { $0.count == most }.map(\.value)
        case "stddev:":
            guard !numbers.isEmpty else { return nil }
            let values = numbers.map(\.double)
            let mean = values.reduce(0, +) / Double(values.count)
            return (values.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / Double(values.count)).squareRoot()
        default:
            return nil
        }
    }

    // MARK: Indexing and casting

    /// `collection[index]`: a member of an array or ordered set by position (`FIRST`, `LAST`, a
    /// number from 0), a dictionary's value (or an object's) by key, or the count (`SIZE`).
    /// Nil when out of range, and for a position in an unordered set.
    static func element(of collection: Any?, at index: Any?) -> Any? {
        guard let collection, !isNilOrNull(collection) else { return nil }
        if let symbol = index as? PredicateIndexSymbol {
            if symbol == .size {
                if let dictionary = collection as? [String: Any] { return dictionary.count }
                if let dictionary = collection as? NSDictionary { return dictionary.count }
                return ValueComparison.isCollection(collection) ? ValueComparison.elements(of: collection).count : nil
            }
            guard let ordered = orderedMembers(of: collection) else { return nil }
            return (symbol == .first ? ordered.first : ordered.last) ?? nil
        }
        if let key = ValueComparison.string(index) {
            return KeyPathValue.value(of: collection, key: key)
        }
        guard let position = PredicateNumber(index)?.exactInteger, let ordered = orderedMembers(of: collection),
              position >= 0, position < Int64(ordered.count) else { return nil }
        return ordered[Int(position)]
    }

    private static func orderedMembers(of value: Any) -> [Any?]? {
        switch value {
        case let array as [Any?]: array
        case let array as [Any]: array.map { $0 }
        case let ordered as NSOrderedSet: ordered.array
        case let array as NSArray: array.map { $0 }
        default: nil
        }
    }

    /// `CAST(value, "NSDate" | "NSNumber" | "NSString" | "NSDecimalNumber")`: a number of
    /// seconds since 2001 as a date and back, a string as a number and a number as a string
    /// (as `NSNumber.stringValue` writes it). Nil for other types and values that do not convert.
    static func cast(_ value: Any?, to type: Any?) -> Any? {
        guard let type = ValueComparison.string(type), let value, !isNilOrNull(value) else { return nil }
        switch type {
        case "NSDate", "Date":
            if let date = value as? Date { return date }
            return PredicateNumber(value).map { Date(timeIntervalSinceReferenceDate: $0.double) }
        case "NSNumber":
            if let date = value as? Date { return date.timeIntervalSinceReferenceDate }
            if let text = ValueComparison.string(value) {
                let trimmed = text.trimmingCharacters(in: .whitespaces)
                if let integer = Int(trimmed) { return integer }
                return Double(trimmed)
            }
            return PredicateNumber(value)?.value
        case "NSDecimalNumber", "Decimal":
            if let text = ValueComparison.string(value) { return Decimal(string: text, locale: Locale(identifier: "en_US_POSIX")) }
            return PredicateNumber(value)?.decimal
        case "NSString", "String":
            if let text = ValueComparison.string(value) { return text }
            if let number = PredicateNumber(value) { return number.text }
            return ValueComparison.comparableString(value) ?? "\(value)"
        default:
            return nil
        }
    }
}

/// A number in predicate arithmetic, as NSNumber holds it: an exact integer, a double or a
/// decimal.
package enum PredicateNumber {
    case integer(Int64), double(Double), decimal(Decimal)

    package init?(_ value: Any?) {
        switch value {
        case let decimal as Decimal: self = .decimal(decimal)
        case let decimal as NSDecimalNumber: self = .decimal(decimal.decimalValue)
        default:
            switch ValueComparison.number(value) {
            case .integer(let integer): self = .integer(integer)
            case .double(let double): self = .double(double)
            case nil: return nil
            }
        }
    }

    /// The Swift value: `Int`, `Double` or `Decimal`.
    var value: Any {
        switch self {
        case .integer(let integer): Int(integer)
        case .double(let double): double
        case .decimal(let decimal): decimal
        }
    }

    var double: Double {
        switch self {
        case .integer(let integer): Double(integer)
        case .double(let double): double
        case .decimal(let decimal): decimal.nearestDouble
        }
    }

    var decimal: Decimal {
        switch self {
        case .integer(let integer): Decimal(integer)
        case .double(let double): Decimal(string: "\(double)", locale: Locale(identifier: "en_US_POSIX")) ?? Decimal(double)
        case .decimal(let decimal): decimal
        }
    }

    /// The value as an integer when it is one exactly (`2.0` is 2, `2.5` is not).
    var exactInteger: Int64? {
        switch self {
        case .integer(let integer): integer
        case .double(let double): Int64(exactly: double)
        case .decimal(let decimal): Int64(exactly: decimal.nearestDouble)
        }
    }

    /// The number as `NSNumber.stringValue` writes it.
    var text: String {
        switch self {
        case .integer(let integer): "\(integer)"
        case .double(let double): Int64(exactly: double).map { "\($0)" } ?? "\(double)"
        case .decimal(let decimal): "\(decimal)"
        }
    }

    var magnitude: PredicateNumber {
        switch self {
        case .integer(let integer): integer == .min ? .double(-Double(integer)) : .integer(Swift.abs(integer))
        case .double(let double): .double(Swift.abs(double))
        case .decimal(let decimal): .decimal(decimal < 0 ? -decimal : decimal)
        }
    }

    func rounded(_ rule: FloatingPointRoundingRule) -> PredicateNumber {
        switch self {
        case .integer: return self
        case .double(let double): return .double(double.rounded(rule))
        case .decimal(var decimal):
            var result = Decimal()
            let mode: NSDecimalNumber.RoundingMode = switch rule {
            case .up: .up
            case .down: .down
            default: decimal < 0 ? .up : .down
            }
            NSDecimalRound(&result, &decimal, 0, mode)
            return .decimal(result)
        }
    }

    /// `left <operator> right` for the arithmetic functions (`add:to:`, …, `raise:toPower:`):
    /// nil when either side is not a number, or for a division by zero.
    static func arithmetic(_ name: String, _ left: Any?, _ right: Any?) -> Any? {
        guard let left = PredicateNumber(left), let right = PredicateNumber(right) else { return nil }
        return left.combined(with: right, name)?.value
    }

    func combined(with other: PredicateNumber, _ name: String) -> PredicateNumber? {
        switch (self, other) {
        case (.decimal, _), (_, .decimal):
            return Self.decimalResult(name, decimal, other.decimal, fallback: (double, other.double))
        case let (.integer(a), .integer(b)):
            return Self.integerResult(name, a, b)
        default:
            return Self.doubleResult(name, double, other.double)
        }
    }

    private static func integerResult(_ name: String, _ a: Int64, _ b: Int64) -> PredicateNumber? {
        let result: (partialValue: Int64, overflow: Bool)
        switch name {
        case "add:to:": result = a.addingReportingOverflow(b)
        case "from:subtract:": result = a.subtractingReportingOverflow(b)
        case "multiply:by:": result = a.multipliedReportingOverflow(by: b)
        case "divide:by:":
            guard b != 0 else { return nil }
            let remainder = a.remainderReportingOverflow(dividingBy: b)
            guard !remainder.overflow, remainder.partialValue == 0 else { return .double(Double(a) / Double(b)) }
            result = a.dividedReportingOverflow(by: b)
        case "modulus:by:":
            guard b != 0 else { return nil }
            let remainder = a.remainderReportingOverflow(dividingBy: b)
            return .integer(remainder.overflow ? 0 : remainder.partialValue)
        case "raise:toPower:":
            guard b >= 0 else { return .double(Foundation.pow(Double(a), Double(b))) }
            switch a {
            case 0: return .integer(b == 0 ? 1 : 0)
            case 1: return .integer(1)
            case -1: return .integer(b % 2 == 0 ? 1 : -1)
            default:
                // |a| ≥ 2 overflows within 63 steps.
                var power: Int64 = 1
                for _ in 0..<b {
                    let next = power.multipliedReportingOverflow(by: a)
                    if next.overflow { return .double(Foundation.pow(Double(a), Double(b))) }
                    power = next.partialValue
                }
                return .integer(power)
            }
        default:
            return nil
        }
        return result.overflow ? doubleResult(name, Double(a), Double(b)) : .integer(result.partialValue)
    }

    private static func doubleResult(_ name: String, _ a: Double, _ b: Double) -> PredicateNumber? {
        switch name {
        case "add:to:": return .double(a + b)
        case "from:subtract:": return .double(a - b)
        case "multiply:by:": return .double(a * b)
        case "divide:by:": return b == 0 ? nil : .double(a / b)
        case "modulus:by:": return b == 0 ? nil : .double(Foundation.fmod(a, b))
        case "raise:toPower:": return .double(Foundation.pow(a, b))
        default: return nil
        }
    }

    private static func decimalResult(_ name: String, _ a: Decimal, _ b: Decimal, fallback: (Double, Double)) -> PredicateNumber? {
        switch name {
        case "add:to:": return .decimal(a + b)
        case "from:subtract:": return .decimal(a - b)
        case "multiply:by:": return .decimal(a * b)
        case "divide:by:": return b == 0 ? nil : .decimal(a / b)
        case "raise:toPower:":
            if let exponent = Int(exactly: b.nearestDouble), exponent >= 0, exponent <= 1_000 { return .decimal(Foundation.pow(a, exponent)) }
            return doubleResult(name, fallback.0, fallback.1)
        default:
            return doubleResult(name, fallback.0, fallback.1)
        }
    }
}
