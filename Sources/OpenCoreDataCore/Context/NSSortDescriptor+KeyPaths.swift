import Foundation

extension NSSortDescriptor {
    /// A sort descriptor for a Swift key path: `NSSortDescriptor(keyPath: \Person.age, ascending: true)`.
    ///
    /// A `@Managed` property's key path is resolved through its class's entity (see
    /// `NSPredicate(validating:)` for how key paths are named); a key path that names no
    /// property stops the program, as Core Data's does for a key path Objective-C cannot see.
    public convenience init<Root, Value>(keyPath: KeyPath<Root, Value>, ascending: Bool) {
        self.init(key: Self.key(of: keyPath), ascending: ascending)
    }

    /// The `NSSortDescriptor` of a Foundation `SortDescriptor` made from a key path, with the
    /// same direction and string comparison (`.localizedStandard` → `localizedStandardCompare:`,
    /// case-insensitive → `caseInsensitiveCompare:` …).
    ///
    /// ```swift
    /// request.sortDescriptors = [NSSortDescriptor(SortDescriptor(\Person.name, comparator: .localizedStandard))]
    /// ```
    public convenience init<Compared>(_ sortDescriptor: SortDescriptor<Compared>) {
        guard let keyPath = sortDescriptor.keyPath else {
            preconditionFailure("NSSortDescriptor(_:) needs a SortDescriptor made from a key path")
        }
        var selector = "compare:"
        if let comparator = sortDescriptor.stringComparator {
            selector = Self.selectorName(of: comparator)
        }
        self.init(key: Self.key(of: keyPath), ascending: sortDescriptor.order == .forward, selectorName: selector)
    }

    /// The comparison selector of a string comparator. Its options and localization are not
    /// public on Linux (nor are `.localized` / `.localizedStandard` to compare with), so they
    /// are read from its description: `isLocalized: true`, and the compare options' raw value
    /// (case-insensitive 1, numeric 64).
    private static func selectorName(of comparator: String.StandardComparator) -> String {
        let description = String(describing: comparator)
        let localized = description.contains("isLocalized: true")
        var options: UInt = 0
        if let range = description.range(of: "rawValue: ") {
            options = UInt(description[range.upperBound...].prefix { $0.isNumber }) ?? 0
        }
        let caseInsensitive = options & String.CompareOptions.caseInsensitive.rawValue != 0
        let numeric = options & String.CompareOptions.numeric.rawValue != 0
        return switch (localized, caseInsensitive, numeric) {
        case (true, _, true): "localizedStandardCompare:"
        case (true, true, false): "localizedCaseInsensitiveCompare:"
        case (true, false, false): "localizedCompare:"
        case (false, true, _): "caseInsensitiveCompare:"
        case (false, false, _): "compare:"
        }
    }

    static func key(of keyPath: AnyKeyPath) -> String {
        switch KeyPathName(keyPath) {
        case .property(let name): return name
        case .count: return "@count"
        case .length: return "length"
        case .isEmpty, .unknown:
            preconditionFailure("The key path \(keyPath) names no property a sort descriptor can sort by")
        }
    }
}
