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
    // @unchecked Sendable: immutable.
    /// The key path to sort by.
    public let key: String?
    public let ascending: Bool
    /// The comparison selector's name (`compare:`, `caseInsensitiveCompare:`, …).
    public let selectorName: String

    public init(key: String?, ascending: Bool) {
        self.key = key
        self.ascending = ascending
        self.selectorName = "compare:"
    }

    /// A sort descriptor with a named comparison: `compare:`, `caseInsensitiveCompare:`,
    /// `localizedCompare:`, `localizedCaseInsensitiveCompare:` or `localizedStandardCompare:`.
    public init(key: String?, ascending: Bool, selectorName: String) {
        self.key = key
        self.ascending = ascending
        self.selectorName = selectorName
    }

    /// The descriptor sorting the opposite way.
    public var reversedSortDescriptor: NSSortDescriptor {
        NSSortDescriptor(key: key, ascending: !ascending, selectorName: selectorName)
    }

    /// The comparison selectors fetches can sort by.
    static let supportedSelectorNames: Set<String> = [
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
        let order = ValueComparison.sortOrder(left, right, strings: stringOrdering)
        return ascending ? order : order.reversed
    }

    public var description: String {
        "(\(key ?? "SELF"), \(ascending ? "ascending" : "descending"), \(selectorName))"
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
