/// A format string `NSPredicate(format:)` cannot parse: what was expected, and where.
///
/// ```swift
/// do { _ = try NSPredicate(validatingFormat: "age >") }
/// catch let error as PredicateFormatError { print(error) }
/// // Unable to parse the format string "age >": expected an expression at character 5
/// ```
public struct PredicateFormatError: Error, CustomStringConvertible, Sendable, Equatable {
    /// The format string.
    public let format: String
    /// The offset (in characters, from 0) where parsing failed.
    public let position: Int
    /// What was expected or found there.
    public let reason: String

    public var description: String {
        "Unable to parse the format string \"\(format)\": \(reason) at character \(position)"
    }
}
