/// A piece of SQL and the values bound to its parameters, kept together.
///
/// Each `?` in `text` is a parameter, and `arguments` holds their values in the order the
/// parameters appear. Fragments are composed by interpolation or `+`, which append both text
/// and arguments, so a statement's arguments follow its text by construction — whatever order
/// the pieces are made in.
///
/// ```swift
/// let age: SQLFragment = "t0.ZAGE > \(bind: 30)"
/// let name: SQLFragment = "t0.ZNAME = \(bind: "Ada")"
/// let condition: SQLFragment = "\(age) AND \(name)"
/// // condition.text == "t0.ZAGE > ? AND t0.ZNAME = ?", condition.arguments == [30, "Ada"]
/// ```
///
/// Literal text (string literals, `raw:` interpolations) is SQL as written: identifiers from a
/// schema and keywords, never a value, and never a `?` that is not a parameter — a renderer for
/// another engine may number the parameters (`$1`, `$2`, …) by finding them.
///
/// Its members are inlinable: fragments are built on every fetch, in another module, and a call
/// per interpolated piece would cost more than the piece.
public struct SQLFragment: Sendable, Hashable {
    /// The SQL, with a `?` for each parameter.
    @inlinable public var text: String { storedText }
    /// The values of the parameters, in text order.
    @inlinable public var arguments: [SQLValue] { storedArguments }

    @usableFromInline var storedText: String
    @usableFromInline var storedArguments: [SQLValue]

    /// `text` as SQL: its `?`s are parameters whose values are `arguments`.
    @inlinable public init(_ text: String, arguments: [SQLValue] = []) {
        storedText = text
        storedArguments = arguments
    }

    /// A parameter (`?`) bound to `value`.
    @inlinable public static func bind(_ value: SQLValue) -> SQLFragment {
        SQLFragment("?", arguments: [value])
    }

    @inlinable public static var empty: SQLFragment { SQLFragment("") }

    /// `?, ?, …`: one parameter for each of `values`, bound to them (for `IN (…)`).
    @inlinable public static func list(_ values: [SQLValue]) -> SQLFragment {
        guard !values.isEmpty else { return .empty }
        return SQLFragment(String(repeating: "?, ", count: values.count - 1) + "?", arguments: values)
    }

    @inlinable public var isEmpty: Bool { text.isEmpty }

    /// `(fragment)`.
    @inlinable public var parenthesized: SQLFragment { "(\(self))" }

    @inlinable public mutating func append(_ other: SQLFragment) {
        storedText += other.storedText
        // Most fragments bind nothing (columns, joins, keywords): skip the array work for them;
        // and the first that binds something lends its array (shared, not copied value by value).
        if storedArguments.isEmpty {
            storedArguments = other.storedArguments
        } else if !other.storedArguments.isEmpty {
            storedArguments += other.storedArguments
        }
    }

    /// Appends a parameter bound to `value`.
    @inlinable public mutating func append(bind value: SQLValue) {
        storedText += "?"
        storedArguments.append(value)
    }

    /// Appends literal SQL (identifiers, keywords).
    @inlinable public mutating func append(raw: String) {
        storedText += raw
    }

    @inlinable public static func + (left: SQLFragment, right: SQLFragment) -> SQLFragment {
        var result = left
        result.append(right)
        return result
    }

    @inlinable public static func += (left: inout SQLFragment, right: SQLFragment) {
        left.append(right)
    }
}

extension SQLFragment: ExpressibleByStringInterpolation {
    @inlinable public init(stringLiteral value: String) {
        self.init(value)
    }

    @inlinable public init(stringInterpolation: Interpolation) {
        self = stringInterpolation.fragment
    }

    public struct Interpolation: StringInterpolationProtocol {
        @usableFromInline var fragment = SQLFragment("")

        // No capacity is reserved: most fragments are short (`t0.ZNAME`, `?`), and a string
        // that small is stored inline, without the allocation reserving would force.
        @inlinable public init(literalCapacity: Int, interpolationCount: Int) {}

        @inlinable public mutating func appendLiteral(_ literal: String) {
            fragment.append(raw: literal)
        }

        /// Another fragment, its arguments with it.
        @inlinable public mutating func appendInterpolation(_ other: SQLFragment) {
            fragment.append(other)
        }

        /// Literal SQL: an identifier from a schema, a keyword, a number made by the caller.
        @inlinable public mutating func appendInterpolation(raw text: String) {
            fragment.append(raw: text)
        }

        /// Literal SQL for an integer the caller made (an entity number, a flag).
        @inlinable public mutating func appendInterpolation(raw number: some BinaryInteger) {
            fragment.append(raw: String(number))
        }

        /// A parameter bound to `value`.
        @inlinable public mutating func appendInterpolation(bind value: SQLValue) {
            fragment.append(bind: value)
        }
    }
}

extension Sequence<SQLFragment> {
    /// The fragments with `separator` between them, their arguments in order.
    @inlinable public func joined(separator: String) -> SQLFragment {
        var result = SQLFragment("")
        var first = true
        for fragment in self {
            if !first { result.append(raw: separator) }
            result.append(fragment)
            first = false
        }
        return result
    }
}
