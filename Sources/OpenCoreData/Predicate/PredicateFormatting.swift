import Foundation

/// Formats constants the way `predicateFormat` prints them.
enum PredicateFormatting {
    /// Words of the format language; a key spelled like one is printed with a `#` escape.
    static let reservedWords: Set<String> = [
        "AND", "OR", "NOT", "BETWEEN", "IN", "CONTAINS", "BEGINSWITH", "ENDSWITH", "LIKE", "MATCHES", "ANY", "ALL",
        "NONE", "SOME", "TRUEPREDICATE", "FALSEPREDICATE", "SELF", "NIL", "NULL", "TRUE", "YES", "FALSE", "NO",
        "SUBQUERY", "FUNCTION", "CAST",
    ]

    /// A key path with reserved words escaped (`#in`).
    static func keyPath(_ path: String) -> String {
        path.split(separator: ".", omittingEmptySubsequences: false)
            .map { reservedWords.contains($0.uppercased()) ? "#\($0)" : String($0) }
            .joined(separator: ".")
    }

    static func literal(_ value: Any?) -> String {
        switch value {
        case nil, is NSNull: return "nil"
        case let string as String: return "\"" + string.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
        case let bool as Bool: return bool ? "1" : "0"
        case let date as Date: return "CAST(\(date.timeIntervalSinceReferenceDate), \"NSDate\")"
        case let array as [Any]: return "{" + array.map(literal).joined(separator: ", ") + "}"
        case let set as Set<AnyHashable>: return "{" + set.map { literal($0.base) }.sorted().joined(separator: ", ") + "}"
        case let uuid as UUID: return literal(uuid.uuidString)
        case let url as URL: return literal(url.absoluteString)
        case let object as NSManagedObject: return object.objectID.description
        case let number as NSNumber: return number.stringValue
        default: return "\(value!)"
        }
    }
}
