import Foundation

/// A hashed form of the constant collection on the right of `IN`, so that evaluating
/// `score IN {…}` in memory costs one lookup per object instead of a scan of the list.
///
/// Built only when it gives exactly the answers of `ValueComparison.isEqual`: every element is
/// a number that compares exactly as a `Double` (no NaN, integers within ±2⁵³), or every element
/// is a string (folded with the predicate's options). A value of another kind on the left gets
/// no answer here (`contains` returns nil) and is compared element by element as before.
struct MembershipIndex: Sendable {
    private enum Kind: Sendable { case numbers, strings }

    private let kind: Kind
    private let numbers: Set<Double>
    private let strings: Set<String>
    private let options: NSComparisonPredicate.Options

    /// Lists shorter than this are scanned: hashing costs more than a few comparisons.
    private static let minimumCount = 8

    /// The index of `collection`, or nil when it is too short or mixes kinds of values.
    init?(_ collection: Any?, options: NSComparisonPredicate.Options) {
        let elements = ValueComparison.elements(of: collection)
        guard elements.count >= Self.minimumCount else { return nil }
        self.options = options
        if let numbers = Self.exactNumbers(elements) {
            kind = .numbers
            self.numbers = numbers
            strings = []
        } else if let strings = Self.strings(elements, options: options) {
            kind = .strings
            self.strings = strings
            numbers = []
        } else {
            return nil
        }
    }

    /// Whether `value` is a member; nil when the index cannot tell (a value of another kind).
    func contains(_ value: Any?) -> Bool? {
        switch kind {
        case .numbers:
            guard let number = Self.exactDouble(value) else { return nil }
            return numbers.contains(number)
        case .strings:
            guard let text = ValueComparison.string(value) else { return nil }
            return strings.contains(ValueComparison.fold(text, options))
        }
    }

    private static func exactNumbers(_ elements: [Any?]) -> Set<Double>? {
        var result = Set<Double>(minimumCapacity: elements.count)
        for element in elements {
            guard let number = exactDouble(element) else { return nil }
            result.insert(number)
        }
        return result
    }

    private static func strings(_ elements: [Any?], options: NSComparisonPredicate.Options) -> Set<String>? {
        var result = Set<String>(minimumCapacity: elements.count)
        for element in elements {
            // Only plain strings: a UUID or URL element compares with strings by its text form,
            // which the scan handles.
            guard let text = ValueComparison.string(element) else { return nil }
            result.insert(ValueComparison.fold(text, options))
        }
        return result
    }

    /// A number as a `Double` that compares with any other number exactly as `ValueComparison`
    /// compares them, or nil (not a number, NaN, or an integer a `Double` cannot hold exactly).
    private static func exactDouble(_ value: Any?) -> Double? {
        guard let number = ValueComparison.number(value) else { return nil }
        switch number {
        case .integer(let integer):
            guard integer.magnitude <= 1 << 53 else { return nil }
            return Double(integer)
        case .double(let double):
            guard !double.isNaN, double.magnitude <= 0x1p53 else { return nil }
            return double
        }
    }
}
