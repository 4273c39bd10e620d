import COCDVarArgs
import Foundation

/// The arguments of a format string, read from a C variable argument list: what
/// `NSPredicate(format:arguments:)` and `NSExpression(format:arguments:)` take from
/// `withVaList`. The format's specifiers say how each argument was passed — `%@` and `%K` an
/// object, `%d` an `int`, `%ld` a `long`, `%f` a `double`, `%s` a C string — as C's own
/// `printf` reads them; a specifier inside a quoted string is text, not an argument. As in C, a
/// list holding fewer arguments than the format names cannot be told: the missing ones read
/// as zero or null (or as whatever lies beyond the list).
enum FormatVarArgs {
    /// The arguments `format` names, read from `list`; an object is given as it was passed, a
    /// string as a `String`, a null pointer as `NSNull`.
    static func arguments(for format: String, from list: CVaListPointer) -> [Any] {
        let kinds = self.kinds(in: format)
        guard !kinds.isEmpty else { return [] }
        var values = [OCDVarArgValue](repeating: OCDVarArgValue(), count: kinds.count)
        kinds.map { Int32($0.passedAs.rawValue) }.withUnsafeBufferPointer { kindBuffer in
            values.withUnsafeMutableBufferPointer { valueBuffer in
                ocd_read_var_args(list, kindBuffer.baseAddress, Int32(kinds.count), valueBuffer.baseAddress)
            }
        }
        return zip(kinds, values).map { kind, value in argument(of: kind, value) }
    }

    /// What an argument is: how it was passed, and for a pointer what it points to.
    enum Kind {
        case int, unsignedInt, long, unsignedLong, double, object, cString, utf16String

        /// The C type it was passed as.
        var passedAs: OCDVarArgKind {
            switch self {
            case .int: OCDVarArgInt
            case .unsignedInt: OCDVarArgUInt
            case .long: OCDVarArgLong
            case .unsignedLong: OCDVarArgULong
            case .double: OCDVarArgDouble
            case .object, .cString, .utf16String: OCDVarArgPointer
            }
        }
    }

    private static func argument(of kind: Kind, _ value: OCDVarArgValue) -> Any {
        switch kind {
        case .int: return Int(Int32(truncatingIfNeeded: value.integer))
        case .unsignedInt: return Int(UInt32(truncatingIfNeeded: value.unsignedInteger))
        case .long: return Int(value.integer)
        case .unsignedLong: return Int(exactly: value.unsignedInteger) ?? NSNumber(value: value.unsignedInteger)
        case .double: return value.real
        case .cString:
            guard let pointer = value.pointer else { return NSNull() }
            return String(cString: pointer.assumingMemoryBound(to: CChar.self))
        case .utf16String:
            guard let pointer = value.pointer?.assumingMemoryBound(to: UInt16.self) else { return NSNull() }
            var length = 0
            while pointer[length] != 0 { length += 1 }
            return String(decoding: UnsafeBufferPointer(start: pointer, count: length), as: UTF16.self)
        case .object:
            guard let pointer = value.pointer else { return NSNull() }
            let object = Unmanaged<AnyObject>.fromOpaque(pointer).takeUnretainedValue()
            if let value = CVarArgValues.value(for: object) { return value }
            if let string = object as? NSString { return string.description }
            return object
        }
    }

    /// The kinds of the arguments `format` names, in order.
    static func kinds(in format: String) -> [Kind] {
        let characters = Array(format)
        var kinds: [Kind] = []
        var index = 0
        while index < characters.count {
            let character = characters[index]
            if character == "\"" || character == "'" {
                index = end(ofStringAt: index, quote: character, in: characters)
                continue
            }
            index += 1
            guard character == "%", index < characters.count else { continue }
            var longs = 0
            while index < characters.count, "lqh".contains(characters[index]) {
                if characters[index] != "h" { longs += 1 }
                index += 1
            }
            guard index < characters.count else { break }
            let conversion = characters[index]
            index += 1
            switch conversion {
            case "@", "K": kinds.append(.object)
            case "s": kinds.append(.cString)
            case "S": kinds.append(.utf16String)
            case "d", "i", "c": kinds.append(longs > 0 ? .long : .int)
            case "u", "x", "X", "o": kinds.append(longs > 0 ? .unsignedLong : .unsignedInt)
            case "f", "e", "g", "a", "A": kinds.append(.double)
            default: break   // `%%`, or a specifier the parser will refuse, naming it
            }
        }
        return kinds
    }

    /// The index after the string that opens at `start`, as the format lexer reads strings
    /// (a backslash escapes the next character).
    private static func end(ofStringAt start: Int, quote: Character, in characters: [Character]) -> Int {
        var index = start + 1
        while index < characters.count {
            if characters[index] == "\\" { index += 2; continue }
            if characters[index] == quote { return index + 1 }
            index += 1
        }
        return index
    }
}

/// The values passed as C variable arguments through the `CoreData` module's `CVarArg`
/// conformances (`UUID`, `Date`, managed objects, …): each is passed as an `NSString` of its
/// description — what `String(format: "%@", …)` prints — which `withVaList` keeps alive for its
/// closure (`_CVarArgObject`), and is registered here with the value, so that
/// `NSPredicate(format:arguments:)` reads the value itself back. An entry lasts as long as its
/// string; entries of strings gone are dropped as new ones come.
package enum CVarArgValues {
    private struct Entry {
        weak var string: NSString?
        let value: Any
    }

    private final class Registry: @unchecked Sendable {
        // @unchecked Sendable: `entries` and `sweepAt` are only touched under `lock`.
        private let lock = NSLock()
        private var entries: [ObjectIdentifier: Entry] = [:]
        private var sweepAt = 64

        func register(_ value: Any, as string: NSString) {
            lock.withLock {
                if entries.count >= sweepAt {
                    entries = entries.filter { $0.value.string != nil }
                    sweepAt = max(64, entries.count * 2)
                }
                entries[ObjectIdentifier(string)] = Entry(string: string, value: value)
            }
        }

        func value(for object: AnyObject) -> Any? {
            lock.lock()
            defer { lock.unlock() }
            guard let entry = entries[ObjectIdentifier(object)], entry.string === object else { return nil }
            return entry.value
        }
    }

    private static let registry = Registry()

    /// The string `value` is passed as, registered for `value(for:)`.
    package static func object(for value: Any) -> NSString {
        let string = NSString(string: String(describing: value))
        registry.register(value, as: string)
        return string
    }

    /// The value `object` was passed for, when it is one of the strings `object(for:)` made
    /// and still alive.
    package static func value(for object: AnyObject) -> Any? {
        registry.value(for: object)
    }
}
