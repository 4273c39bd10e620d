import Foundation

/// The methods `FUNCTION(receiver, 'selector', …)` can call. Linux has no Objective-C runtime to
/// send an arbitrary selector, so these common ones are evaluated by name:
///
/// - strings: `length` (UTF-16 units, as `NSString`), `uppercaseString`, `lowercaseString`,
///   `stringByAppendingString:`;
/// - numbers: `stringValue`, `intValue`, `integerValue`, `longLongValue`, `doubleValue`,
///   `floatValue`, `boolValue`;
/// - dates: `timeIntervalSinceReferenceDate`, `timeIntervalSince1970`,
///   `dateByAddingTimeInterval:` (the usual way to write "a day ago":
///   `FUNCTION(now(), 'dateByAddingTimeInterval:', -86400)`);
/// - collections: `count`;
/// - anything: `valueForKey:`, `valueForKeyPath:`, and the built-in functions'
///   names (`FUNCTION(SELF, 'uppercase:', name)`, as `_NSPredicateUtilities` methods).
///
/// Any other selector evaluates to nil (Core Data would call the method), except on a receiver
/// that answers selectors of its own (`ExpressionFunctionReceiver`: a migration's `$manager`
/// and `$entityPolicy`).
enum PredicateMethod {
    static func invoke(_ selector: String, on receiver: Any?, arguments: [Any?]) -> Any? {
        if let receiver = receiver as? any ExpressionFunctionReceiver {
            return receiver.answerFunction(selector, arguments: arguments)
        }
        let argument = arguments.first ?? nil
        switch (selector, arguments.count) {
        case ("valueForKey:", 1), ("valueForKeyPath:", 1):
            return ValueComparison.string(argument).map { KeyPathValue.value(of: receiver, keyPath: $0) } ?? nil
        case ("length", 0):
            return ValueComparison.string(receiver)?.utf16.count
        case ("uppercaseString", 0):
            return ValueComparison.string(receiver)?.uppercased()
        case ("lowercaseString", 0):
            return ValueComparison.string(receiver)?.lowercased()
        case ("stringByAppendingString:", 1):
            guard let text = ValueComparison.string(receiver), let suffix = ValueComparison.string(argument) else { return nil }
            return text + suffix
        case ("stringValue", 0):
            return PredicateNumber(receiver)?.text
        case ("intValue", 0), ("integerValue", 0), ("longLongValue", 0):
            guard let number = PredicateNumber(receiver) else { return nil }
            return number.exactInteger.map { Int($0) } ?? Int(exactly: number.double.rounded(.towardZero))
        case ("doubleValue", 0), ("floatValue", 0):
            return PredicateNumber(receiver)?.double
        case ("boolValue", 0):
            return PredicateNumber(receiver).map { $0.double != 0 }
        case ("count", 0):
            return ValueComparison.isCollection(receiver) ? ValueComparison.elements(of: receiver).count : nil
        case ("timeIntervalSinceReferenceDate", 0):
            return (receiver as? Date)?.timeIntervalSinceReferenceDate
        case ("timeIntervalSince1970", 0):
            return (receiver as? Date)?.timeIntervalSince1970
        case ("dateByAddingTimeInterval:", 1), ("addingTimeInterval:", 1):
            guard let date = receiver as? Date, let seconds = PredicateNumber(argument) else { return nil }
            return date.addingTimeInterval(seconds.double)
        default:
            if PredicateFunction.arities[selector] == arguments.count { return PredicateFunction.evaluate(selector, arguments) }
            return nil
        }
    }
}

/// An object that answers `FUNCTION(receiver, "selector", …)` itself, as an Objective-C object
/// answers the selectors it implements.
package protocol ExpressionFunctionReceiver: AnyObject {
    /// The value of the function; a receiver that cannot answer records why (and answers nil).
    func answerFunction(_ selector: String, arguments: [Any?]) -> Any?
}
