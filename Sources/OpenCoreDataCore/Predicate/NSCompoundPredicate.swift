/// Predicates combined with AND, OR or NOT.
///
/// ```swift
/// NSCompoundPredicate(andPredicateWithSubpredicates: [adults, named])
/// ```
open class NSCompoundPredicate: NSPredicate, @unchecked Sendable {
    /// How the subpredicates combine. Raw values as Core Data's.
    public enum LogicalType: UInt, Sendable {
        case not = 0, and = 1, or = 2
    }

    public let compoundPredicateType: LogicalType
    public let subpredicates: [NSPredicate]

    public init(type: LogicalType, subpredicates: [NSPredicate]) {
        self.compoundPredicateType = type
        self.subpredicates = subpredicates
        super.init()
    }

    public convenience init(andPredicateWithSubpredicates subpredicates: [NSPredicate]) {
        self.init(type: .and, subpredicates: subpredicates)
    }

    public convenience init(orPredicateWithSubpredicates subpredicates: [NSPredicate]) {
        self.init(type: .or, subpredicates: subpredicates)
    }

    public convenience init(notPredicateWithSubpredicate predicate: NSPredicate) {
        self.init(type: .not, subpredicates: [predicate])
    }

    open override func evaluate(with object: Any?, substitutionVariables variables: [String: Any]?) -> Bool {
        switch compoundPredicateType {
        case .and: subpredicates.allSatisfy { $0.evaluate(with: object, substitutionVariables: variables) }
        case .or: subpredicates.contains { $0.evaluate(with: object, substitutionVariables: variables) }
        // NOT of nothing is NOT TRUEPREDICATE, as its format prints it and SQL runs it.
        case .not: !(subpredicates.first?.evaluate(with: object, substitutionVariables: variables) ?? true)
        }
    }

    open override func withSubstitutionVariables(_ variables: [String: Any]) -> NSPredicate {
        NSCompoundPredicate(type: compoundPredicateType, subpredicates: subpredicates.map { $0.withSubstitutionVariables(variables) })
    }

    open override var predicateFormat: String {
        switch compoundPredicateType {
        case .not:
            return "NOT \(Self.operand(subpredicates.first ?? NSPredicate(value: true)))"
        case .and, .or:
            // Core Data: an empty AND is TRUEPREDICATE, an empty OR is FALSEPREDICATE.
            if subpredicates.isEmpty { return compoundPredicateType == .and ? "TRUEPREDICATE" : "FALSEPREDICATE" }
            let joiner = compoundPredicateType == .and ? " AND " : " OR "
            return subpredicates.map(Self.operand).joined(separator: joiner)
        }
    }

    private static func operand(_ predicate: NSPredicate) -> String {
        predicate.resolved is NSCompoundPredicate ? "(\(predicate.predicateFormat))" : predicate.predicateFormat
    }
}
