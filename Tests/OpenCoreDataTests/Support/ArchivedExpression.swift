import Foundation

/// Writes an expression as an `NSKeyedArchiver` archive of Foundation's expression classes
/// (`NSFunctionExpression`, `NSKeyPathExpression`, `NSVariableExpression`,
/// `NSConstantValueExpression`, `NSKeyPathSpecifierExpression`), as Xcode's mapping editor
/// keeps the expressions it is given: test fixtures for the readers. Foundation on Linux
/// cannot archive its own `NSExpression`, so stand-in classes encode the same keys under the
/// same class names.
enum ArchivedExpression {
    indirect enum Node {
        case variable(String)
        case constant(String)
        /// `operand.keyPath`, as Foundation archives `$source.name`.
        case keyPath(Node, String)
        case function(Node, String, [Node])
    }

    static func archive(_ node: Node) throws -> Data {
        try archive(root: object(node))
    }

    /// `root` (stand-ins and Foundation's collections) archived by `NSKeyedArchiver`, each
    /// stand-in under its Foundation or Core Data class name (`otherNames`: more stand-ins).
    static func archive(root: NSObject, otherNames: [String: String] = [:]) throws -> Data {
        let archiver = NSKeyedArchiver(requiringSecureCoding: false)
        archiver.encode(root, forKey: NSKeyedArchiveRootObjectKey)
        archiver.finishEncoding()
        return try renamingClasses(in: archiver.encodedData, otherNames: otherNames)
    }

    /// Foundation's class names in place of the stand-ins' (Foundation on Linux ignores
    /// `setClassName(_:for:)`), written back as a binary property list.
    private static func renamingClasses(in data: Data, otherNames: [String: String]) throws -> Data {
        let names = ["ArchivedFunctionStandIn": "NSFunctionExpression", "ArchivedKeyPathStandIn": "NSKeyPathExpression",
                     "ArchivedVariableStandIn": "NSVariableExpression", "ArchivedConstantStandIn": "NSConstantValueExpression",
                     "ArchivedSpecifierStandIn": "NSKeyPathSpecifierExpression"].merging(otherNames) { first, _ in first }
        func foundationName(_ name: String) -> String? { names[String(name.split(separator: ".").last ?? "")] }
        guard var archive = try PropertyListSerialization.propertyList(from: data, format: nil) as? [String: Any],
              let objects = archive["$objects"] as? [Any] else { throw CocoaError(.propertyListReadCorrupt) }
        archive["$objects"] = objects.map { object -> Any in
            guard var description = object as? [String: Any], let name = description["$classname"] as? String,
                  let renamed = foundationName(name) else { return object }
            description["$classname"] = renamed
            // A key-path expression is a function expression, as in Foundation.
            description["$classes"] = renamed == "NSKeyPathExpression"
                ? [renamed, "NSFunctionExpression", "NSExpression", "NSObject"]
                : renamed.hasSuffix("Expression") ? [renamed, "NSExpression", "NSObject"] : [renamed, "NSObject"]
            return description
        }
        return try PropertyListSerialization.data(fromPropertyList: archive, format: .binary, options: 0)
    }

    static func object(_ node: Node) -> NSObject {
        switch node {
        case .variable(let name): ArchivedVariableStandIn(name)
        case .constant(let value): ArchivedConstantStandIn(value)
        case .keyPath(let operand, let path): ArchivedKeyPathStandIn(operand: object(operand), path: path)
        case .function(let operand, let selector, let arguments):
            ArchivedFunctionStandIn(operand: object(operand), selector: selector, arguments: arguments.map(object))
        }
    }
}

// The stand-ins are top-level and internal: NSKeyedArchiver names classes with NSStringFromClass,
// which refuses nested and private ones.
class ArchivedExpressionStandIn: NSObject, NSCoding {
    override init() {}
    required init?(coder: NSCoder) { nil }
    func encode(with coder: NSCoder) {}
}

final class ArchivedVariableStandIn: ArchivedExpressionStandIn {
    let name: String
    init(_ name: String) { self.name = name; super.init() }
    required init?(coder: NSCoder) { nil }
    override func encode(with coder: NSCoder) {
        coder.encode(name as NSString, forKey: "NSVariable")
        coder.encode(2, forKey: "NSExpressionType")
    }
}

final class ArchivedConstantStandIn: ArchivedExpressionStandIn {
    let value: String
    init(_ value: String) { self.value = value; super.init() }
    required init?(coder: NSCoder) { nil }
    override func encode(with coder: NSCoder) {
        coder.encode(value as NSString, forKey: "NSConstantValue")
        coder.encode(0, forKey: "NSExpressionType")
    }
}

final class ArchivedSpecifierStandIn: ArchivedExpressionStandIn {
    let path: String
    init(_ path: String) { self.path = path; super.init() }
    required init?(coder: NSCoder) { nil }
    override func encode(with coder: NSCoder) {
        coder.encode(path as NSString, forKey: "NSKeyPath")
        coder.encode(10, forKey: "NSExpressionType")
    }
}

class ArchivedFunctionStandIn: ArchivedExpressionStandIn {
    let operand: NSObject
    let selector: String
    let arguments: [NSObject]
    init(operand: NSObject, selector: String, arguments: [NSObject]) {
        self.operand = operand
        self.selector = selector
        self.arguments = arguments
        super.init()
    }
    required init?(coder: NSCoder) { nil }
    override func encode(with coder: NSCoder) {
        coder.encode(operand, forKey: "NSOperand")
        coder.encode(selector as NSString, forKey: "NSSelectorName")
        coder.encode(arguments as NSArray, forKey: "NSArguments")
        coder.encode(4, forKey: "NSExpressionType")
    }
}

final class ArchivedKeyPathStandIn: ArchivedFunctionStandIn {
    init(operand: NSObject, path: String) {
        super.init(operand: operand, selector: "valueForKeyPath:", arguments: [ArchivedSpecifierStandIn(path)])
    }
    required init?(coder: NSCoder) { nil }
}
