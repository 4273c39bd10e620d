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
