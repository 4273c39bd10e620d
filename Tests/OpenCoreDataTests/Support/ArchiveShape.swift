import Foundation
@testable import OpenCoreDataCore

/// A keyed archive flattened into lines, one per object and value, named by their path from
/// the root (`root.NSEntities[Car].NSProperties[owner].NSDeleteRule = int 1`), so that two
/// archives of the same model can be compared whatever their object numbering and ordering.
///
/// Dictionaries are walked in key order, sets in the order of their members' text; an object
/// met again is a line pointing at the path where it was first met.
struct ArchiveShape {
    private(set) var lines: [String] = []
    private var firstPaths: [Int: String] = [:]

    init(_ data: Data) throws {
        let archive = try KeyedArchive(data: data)
        try walk(archive.rootObject(), path: "root")
    }

    private mutating func walk(_ value: ArchivedValue, path: String) throws {
        guard case .object(let object) = value else {
            lines.append("\(path) = \(Self.scalar(value))")
            return
        }
        if let first = firstPaths[object.uid] {
            lines.append("\(path) -> \(first)")
            return
        }
        firstPaths[object.uid] = path
        lines.append("\(path): \(object.className)")
        if object.isKind(of: "NSString") {
            lines.append("\(path) = \(Self.scalar(.string(try ArchivedValue.object(object).stringValue() ?? "")))")
        } else if object.isDictionary {
            let entries = try object.dictionaryEntries().map { (Self.scalar($0.key), $0.value) }.sorted { $0.0 < $1.0 }
            for (key, member) in entries { try walk(member, path: "\(path)[\(key)]") }
        } else if object.isKind(of: "NSSet") {
            let members = try object.collectionElements().sorted { Self.sortKey($0) < Self.sortKey($1) }
            for (index, member) in members.enumerated() { try walk(member, path: "\(path){\(index)}") }
        } else if object.isCollection {
            for (index, member) in try object.collectionElements().enumerated() { try walk(member, path: "\(path)[\(index)]") }
        } else {
            for key in object.fields.keys.sorted() where key != "$class" {
                try walk(object.value(forKey: key), path: "\(path).\(key)")
            }
        }
    }

    private static func sortKey(_ value: ArchivedValue) -> String {
        if case .object(let object) = value {
            return (try? object.string(forKey: "NSEntityName")) ?? nil ?? object.className
        }
        return scalar(value)
    }

    private static func scalar(_ value: ArchivedValue) -> String {
        switch value {
        case .null: "nil"
        case .bool(let flag): "bool \(flag)"
        case .integer(let number): "int \(number)"
        case .real(let number): "real \(number)"
        case .string(let text): "str \(text)"
        case .data(let bytes): "data \(bytes.map { String(format: "%02x", $0) }.joined())"
        case .date(let date): "date \(date.timeIntervalSinceReferenceDate)"
        case .object(let object): (try? ArchivedValue.object(object).stringValue()).flatMap { $0.map { "str \($0)" } } ?? "object \(object.className)"
        }
    }

    /// The same shape with every line passed through `transform` (to overlook a known
    /// difference).
    func mappingLines(_ transform: (String) -> String) -> ArchiveShape {
        var copy = self
        copy.lines = lines.map(transform)
        return copy
    }

    /// The lines of `self` that `other` lacks, and those `other` has that `self` lacks.
    func differences(from other: ArchiveShape) -> (missing: [String], extra: [String]) {
        let mine = Set(lines), theirs = Set(other.lines)
        return (other.lines.filter { !mine.contains($0) }, lines.filter { !theirs.contains($0) })
    }
}
