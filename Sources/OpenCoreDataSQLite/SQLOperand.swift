import OCDSQLite
import OpenCoreDataCore

/// One value in compiled SQL: its fragment, and what the compiler knows of it — the attribute it
/// reads, whether it is an object reference, or what kind of value a computation gives — so
/// that SQL compares and computes only what it computes as memory does.
package struct SQLOperand {
    package var sql: SQLFragment
    package let attribute: NSAttributeDescription?
    /// Set when the operand is an object reference (a to-one column or `SELF`).
    package let isObjectReference: Bool
    /// What a computed value (arithmetic, a function, TERNARY, a bound constant, `@count`)
    /// is; nil for a column.
    package var computed: ValueKind? = nil
    /// Set when the operand is an element of a composite attribute's JSON (`attribute` is the
    /// element): constants are bound as the JSON holds them.
    package var isCompositeElement = false

    /// What kind of value the operand is.
    package var kind: ValueKind {
        if let computed { return computed }
        if isObjectReference { return .object }
        return attribute.map { ValueKind($0.attributeType) } ?? .number(isInteger: false)
    }
}
