import Foundation

extension NSPredicate {
    /// A predicate parsed from Core Data's format language, with `%@`, `%K`, `%d`, … taken from
    /// `args`.
    ///
    /// ```swift
    /// request.predicate = NSPredicate(format: "age > %d AND note CONTAINS[cd] %@", 30, "tea")
    /// ```
    /// As in Core Data, a malformed format stops the program (Core Data raises an exception);
    /// use `NSPredicate(validatingFormat:_:)` to get the error, with its position, instead.
    /// See `PredicateFormatParser` for what the parser supports so far.
    public convenience init(format predicateFormat: String, _ args: Any?...) {
        self.init(format: predicateFormat, argumentArray: args.map { $0 ?? NSNull() })
    }

    /// A predicate parsed from a format string with its arguments in an array.
    public convenience init(format predicateFormat: String, argumentArray arguments: [Any]?) {
        do {
            try self.init(validatingFormat: predicateFormat, argumentArray: arguments ?? [])
        } catch {
            preconditionFailure("\(error)")
        }
    }

    /// A predicate parsed from a format string with its arguments in a C variable argument list,
    /// as `withVaList` makes one.
    ///
    /// ```swift
    /// static func predicate(format: String, _ args: CVarArg...) -> NSPredicate {
    ///     withVaList(args) { NSPredicate(format: format, arguments: $0) }
    /// }
    /// ```
    /// Each argument is read as its specifier says it was passed — `%@` and `%K` an object (a
    /// `String`, an `NSNumber`, … or, through the `CoreData` module, a `UUID`, a `Date`, a managed
    /// object), `%d` an `Int32`, `%ld` an `Int`, `%f` a `Double` — so, as in C and Core Data, an
    /// argument that does not match its specifier is read wrongly (an `Int` for `%@` stops the
    /// program).
    public convenience init(format predicateFormat: String, arguments argList: CVaListPointer) {
        self.init(format: predicateFormat, argumentArray: FormatVarArgs.arguments(for: predicateFormat, from: argList))
    }

    /// Parses `predicateFormat`, throwing `PredicateFormatError` (naming what was expected and
    /// at which character) when it is malformed.
    public convenience init(validatingFormat predicateFormat: String, _ args: Any?...) throws {
        try self.init(validatingFormat: predicateFormat, argumentArray: args.map { $0 ?? NSNull() })
    }

    /// Parses `predicateFormat` with its arguments in an array, throwing `PredicateFormatError`.
    public convenience init(validatingFormat predicateFormat: String, argumentArray arguments: [Any]) throws {
        var parser = try PredicateFormatParser(format: predicateFormat, arguments: arguments.map { Optional($0) })
        self.init(wrapping: try parser.parse())
    }
}
