/// The name of an Objective-C method, as a sort descriptor's comparison names it:
/// `Selector("localizedStandardCompare:")`.
///
/// ```swift
/// let byName = NSSortDescriptor(key: "name", ascending: true, selector: Selector("localizedStandardCompare:"))
/// ```
/// Swift on Linux has no Objective-C runtime, so `#selector(…)` does not compile there;
/// `ocd port` rewrites `#selector(NSString.localizedStandardCompare(_:))` into
/// `Selector("localizedStandardCompare:")`, which Apple's SDK also accepts (warning that
/// `#selector` is preferred). Where another imported module declares a `Selector` too, write
/// `CoreData.Selector`.
///
/// Difference from Apple: a plain value holding the name, declared only where the Objective-C
/// runtime's `Selector` does not exist; nothing is looked up by it but the comparisons
/// `NSSortDescriptor` knows.
#if !canImport(ObjectiveC)
public struct Selector: Hashable, Sendable, ExpressibleByStringLiteral, CustomStringConvertible {
    /// The method's name, with a colon for each argument (`compare:`).
    public let name: String

    public init(_ name: String) { self.name = name }

    public init(stringLiteral name: String) { self.name = name }

    public var description: String { name }
}
#endif
