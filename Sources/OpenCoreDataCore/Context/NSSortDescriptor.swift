import Foundation

/// An ordering of fetch results by a key path.
///
/// ```swift
/// request.sortDescriptors = [NSSortDescriptor(key: "time", ascending: false)]
/// ```
/// Strings sort as SQLite's `BINARY` collation does (by code point) with `compare:`;
/// case-insensitively with `caseInsensitiveCompare:` / `localizedCaseInsensitiveCompare:`; and as
/// the Finder does with `localizedStandardCompare:` (case ignored, digits compared as numbers:
/// "file2" before "file10"). nil sorts first when ascending, as in Core Data's SQLite store.
///
/// Difference from Core Data: the `localized…` comparisons do not depend on the current locale,
/// so that a store and memory sort alike on every machine.
public final class NSSortDescriptor: @unchecked Sendable, CustomStringConvertible {
    // @unchecked Sendable: immutable; a comparator block is called only by the thread sorting
    // with it, as with Foundation's (Apple's `Comparator` is not `@Sendable` either).
    /// The key path to sort by.
    public let key: String?
    public let ascending: Bool
    /// The comparison selector's name (`compare:`, `caseInsensitiveCompare:`, …); empty for a
    /// descriptor that compares with a block.
    public let selectorName: String
    /// The block the descriptor compares its key's values with, when it was made with one.
    private let block: Comparator?

    public init(key: String?, ascending: Bool) {
        self.key = key
        self.ascending = ascending
        self.selectorName = "compare:"
        block = nil
    }

    /// A sort descriptor that compares its key's values with `cmptr`: for sorting in memory
    /// (`sortedArray(using:)`). A fetch request refuses it, as Core Data's SQLite store does.
    ///
    /// ```swift
    /// let natural = NSSortDescriptor(key: "name", ascending: true) { lhs, rhs in
    ///     (lhs as! String).compare(rhs as! String, options: [.caseInsensitive, .numeric])
    /// }
    /// ```
    public init(key: String?, ascending: Bool, comparator cmptr: @escaping Comparator) {
        self.key = key
        self.ascending = ascending
        selectorName = ""
        block = cmptr
    }

    /// The comparison the descriptor makes of two values of its key.
    public var comparator: Comparator {
        if let block { return block }
        let ordering = stringOrdering
        return { ValueComparison.sortOrder($0, $1, strings: ordering) }
    }

    /// A sort descriptor with a named comparison: `compare:`, `caseInsensitiveCompare:`,
    /// `localizedCompare:`, `localizedCaseInsensitiveCompare:` or `localizedStandardCompare:`.
    public init(key: String?, ascending: Bool, selectorName: String) {
        self.key = key
        self.ascending = ascending
        self.selectorName = selectorName
        block = nil
    }

    /// A sort descriptor with a named comparison, as Foundation's takes it:
    /// `NSSortDescriptor(key: "name", ascending: true, selector: Selector("localizedStandardCompare:"))`;
    /// nil compares with `compare:`. See `init(key:ascending:selectorName:)` for the comparisons.
    ///
    /// Difference from Apple: `#selector(…)` needs Objective-C, which Swift on Linux lacks;
    /// `ocd port` writes `Selector("…")` in its place.
    public convenience init(key: String?, ascending: Bool, selector: Selector?) {
        self.init(key: key, ascending: ascending, selectorName: selector?.name ?? "compare:")
    }

    /// The comparison selector; nil for a descriptor that compares with a block.
    public var selector: Selector? { selectorName.isEmpty ? nil : Selector(selectorName) }

    private init(key: String?, ascending: Bool, selectorName: String, block: Comparator?) {
        self.key = key
        self.ascending = ascending
        self.selectorName = selectorName
        self.block = block
    }

    /// The descriptor sorting the opposite way: an `NSSortDescriptor` typed `Any`, as
    /// Foundation's is (`descriptor.reversedSortDescriptor as! NSSortDescriptor`).
    public var reversedSortDescriptor: Any {
        NSSortDescriptor(key: key, ascending: !ascending, selectorName: selectorName, block: block)
    }

    /// The comparison selectors fetches can sort by.
    package static let supportedSelectorNames: Set<String> = [
        "compare:", "caseInsensitiveCompare:", "localizedCompare:", "localizedCaseInsensitiveCompare:",
        "localizedStandardCompare:",
    ]

    /// How the comparison orders strings.
    package var stringOrdering: StringOrdering {
        switch selectorName {
        case "caseInsensitiveCompare:", "localizedCaseInsensitiveCompare:": .caseInsensitive
        case "localizedStandardCompare:": .standard
        default: .binary
        }
    }

    /// Compares two objects by this descriptor.
    public func compare(_ lhs: Any, to rhs: Any) -> ComparisonResult {
        let left = KeyPathValue.value(of: lhs, keyPath: key)
        let right = KeyPathValue.value(of: rhs, keyPath: key)
        let order: ComparisonResult
        if let block {
            // Nil (and NSNull) first, as the selector comparisons order them; the block sees values.
            switch (left.flatMap { $0 is NSNull ? nil : $0 }, right.flatMap { $0 is NSNull ? nil : $0 }) {
            case (nil, nil): order = .orderedSame
            case (nil, _): order = .orderedAscending
            case (_, nil): order = .orderedDescending
            case let (left?, right?): order = block(left, right)
            }
        } else {
            order = ValueComparison.sortOrder(left, right, strings: stringOrdering)
        }
        return ascending ? order : order.reversed
    }

    public var description: String {
        "(\(key ?? "SELF"), \(ascending ? "ascending" : "descending"), \(block == nil ? selectorName : "<comparator>"))"
    }
}

extension ComparisonResult {
    var reversed: ComparisonResult {
        switch self {
        case .orderedAscending: .orderedDescending
        case .orderedDescending: .orderedAscending
        case .orderedSame: .orderedSame
        }
    }
}

extension Sequence {
    /// The elements sorted by `sortDescriptors`, the first one deciding first: what
    /// `NSArray.sortedArray(using:)` answers, for OpenCoreData's `NSSortDescriptor`.
    ///
    /// ```swift
    /// let sorted = (people as NSArray).sortedArray(using: [NSSortDescriptor(key: "age", ascending: true)])
    /// ```
    public func sortedArray(using sortDescriptors: [NSSortDescriptor]) -> [Element] {
        Array(self).sorted(by: sortDescriptors)
    }
}

extension Array {
    /// The elements sorted by several descriptors, the first one deciding first.
    func sorted(by descriptors: [NSSortDescriptor]) -> [Element] {
        guard !descriptors.isEmpty else { return self }
        return sorted { lhs, rhs in
            for descriptor in descriptors {
                switch descriptor.compare(lhs, to: rhs) {
                case .orderedAscending: return true
                case .orderedDescending: return false
                case .orderedSame: continue
                }
            }
            return false
        }
    }
}

/// How a sort orders strings.
package enum StringOrdering {
    /// By code point (`compare:`).
    case binary
    /// Case folded (`caseInsensitiveCompare:`, `localizedCaseInsensitiveCompare:`).
    case caseInsensitive
    /// As the Finder: case ignored, runs of digits compared as numbers (`localizedStandardCompare:`).
    case standard
}
