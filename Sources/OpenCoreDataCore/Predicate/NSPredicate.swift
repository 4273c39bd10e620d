import Foundation
import Synchronization

/// A logical condition on objects, used to filter fetch results and collections.
///
/// OpenCoreData's own predicate tree, under Core Data's names (it shadows the mostly
/// unavailable Foundation class on Linux). Build one in code:
/// ```swift
/// let adults = NSComparisonPredicate(key: "age", .greaterThanOrEqualTo, 18)
/// let named = NSComparisonPredicate(key: "name", .beginsWith, "A", options: .caseInsensitive)
/// let both = NSCompoundPredicate(andPredicateWithSubpredicates: [adults, named])
/// ```
/// and run it in a fetch request (as SQL in the SQLite store) or in memory with
/// `evaluate(with:)`.
open class NSPredicate: @unchecked Sendable, CustomStringConvertible, Equatable {
    // @unchecked Sendable: predicates are immutable once built (their constants are treated as
    // values, as Core Data does).

    private let constantValue: Bool?
    private let block: (@Sendable (Any?, [String: Any]?) -> Bool)?
    /// For a predicate made by `NSPredicate(format:)`: the parsed tree it stands for. (A Swift
    /// initializer cannot return an instance of a subclass, as Core Data's class cluster does.)
    let parsedPredicate: NSPredicate?

    /// A predicate that is always `value` (`TRUEPREDICATE` / `FALSEPREDICATE`).
    public init(value: Bool) {
        constantValue = value
        block = nil
        parsedPredicate = nil
    }

    /// A predicate evaluated by a closure. It works in memory only: the SQLite store refuses it,
    /// as Core Data's does.
    public init(block: @escaping @Sendable (Any?, [String: Any]?) -> Bool) {
        constantValue = nil
        self.block = block
        parsedPredicate = nil
    }

    init() {
        constantValue = nil
        block = nil
        parsedPredicate = nil
    }

    /// A predicate that stands for `predicate` (the result of parsing a format string).
    init(wrapping predicate: NSPredicate) {
        constantValue = nil
        block = nil
        parsedPredicate = predicate.parsedPredicate ?? predicate
    }

    /// The predicate itself, or the tree a parsed one stands for.
    package var resolved: NSPredicate { parsedPredicate ?? self }

    /// The last resolution against an entity, kept with the entity so that its identity stays
    /// the entity's (see `resolved(for:)`).
    private let resolution = Mutex<(entity: NSEntityDescription, tree: ResolvedPredicate)?>(nil)

    /// The predicate resolved against `entity` (checked against the model, key paths as
    /// properties): made once and kept, since a fetch request's predicate is usually run
    /// against one entity again and again, by its store and by the context's unsaved objects.
    ///
    /// Kept only when the tree does not hold this predicate itself (a comparison or a block
    /// predicate is its own tree's source), which would keep both alive for good; a format
    /// string's predicate and a compound keep theirs. The kept tree holds the entity.
    package func resolved(for entity: NSEntityDescription) throws -> ResolvedPredicate {
        if let kept = resolution.withLock({ $0?.entity === entity ? $0?.tree : nil }) { return kept }
        let tree = try ResolvedPredicate(self, for: entity)
        if resolved is NSCompoundPredicate || resolved !== self {
            resolution.withLock { $0 = (entity, tree) }
        }
        return tree
    }

    /// Whether `object` satisfies the predicate.
    open func evaluate(with object: Any?) -> Bool {
        evaluate(with: object, substitutionVariables: nil)
    }

    /// Whether `object` satisfies the predicate, with `$VARIABLE`s replaced by `variables`.
    open func evaluate(with object: Any?, substitutionVariables variables: [String: Any]?) -> Bool {
        if let parsedPredicate { return parsedPredicate.evaluate(with: object, substitutionVariables: variables) }
        if let constantValue { return constantValue }
        if let block { return block(object, variables) }
        return false
    }

    /// The predicate with its `$VARIABLE`s replaced by values.
    open func withSubstitutionVariables(_ variables: [String: Any]) -> NSPredicate {
        parsedPredicate?.withSubstitutionVariables(variables) ?? self
    }

    /// The predicate in Core Data's format-string syntax.
    open var predicateFormat: String {
        if let parsedPredicate { return parsedPredicate.predicateFormat }
        if let constantValue { return constantValue ? "TRUEPREDICATE" : "FALSEPREDICATE" }
        return "BLOCKPREDICATE(\(block.map { "\(type(of: $0))" } ?? ""))"
    }

    public var description: String { predicateFormat }

    /// Whether this is a block predicate (which only memory can evaluate).
    var isBlockPredicate: Bool { block != nil || (parsedPredicate?.isBlockPredicate ?? false) }
    /// The constant truth value of `NSPredicate(value:)`.
    package var constantTruth: Bool? { constantValue ?? parsedPredicate?.constantTruth }

    public static func == (lhs: NSPredicate, rhs: NSPredicate) -> Bool {
        lhs === rhs || (type(of: lhs.resolved) == type(of: rhs.resolved) && lhs.predicateFormat == rhs.predicateFormat
                        && !lhs.isBlockPredicate)
    }
}

extension Sequence {
    /// The elements that satisfy `predicate` (Core Data's `filtered(using:)`).
    public func filtered(using predicate: NSPredicate) -> [Element] {
        filter { predicate.evaluate(with: $0) }
    }
}
