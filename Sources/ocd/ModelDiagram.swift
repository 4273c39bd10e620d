import Foundation
import OpenCoreData
import Synchronization

/// A model as a Graphviz DOT graph: one box per entity listing its attributes, one edge per
/// relationship (an inverse pair is one edge, labelled with both names, their cardinality and
/// delete rules; crow's feet mark a to-many end), and dashed edges with hollow arrows from a
/// sub-entity to its parent. Entities and properties keep a stable order, so the text compares.
struct ModelDiagram {
    let model: NSManagedObjectModel
    let title: String

    var dot: String {
        var lines = [
            "digraph \(Self.quoted(title)) {",
            "  graph [rankdir=LR, fontname=\"Helvetica\", nodesep=0.4, ranksep=1.0];",
            "  node [shape=plaintext, fontname=\"Helvetica\", fontsize=11];",
            "  edge [fontname=\"Helvetica\", fontsize=9];",
        ]
        let entities = model.entities.sorted { ($0.name ?? "") < ($1.name ?? "") }
        for entity in entities { lines.append("  \(Self.quoted(entity.name ?? "")) [label=<\(Self.table(of: entity))>];") }
        for entity in entities {
            if let parent = entity.superentity {
                lines.append("  \(Self.quoted(entity.name ?? "")) -> \(Self.quoted(parent.name ?? "")) "
                             + "[style=dashed, arrowhead=empty, label=\"inherits\"];")
            }
        }
        for relationship in Self.edges(of: entities) { lines.append("  " + Self.edge(relationship)) }
        lines.append("}")
        return lines.joined(separator: "\n") + "\n"
    }

    /// Each relationship once: of an inverse pair, the one met first (entities by name, then
    /// properties in order); an entity's `properties` are its own, so inherited ones are drawn once,
    /// from the parent.
    private static func edges(of entities: [NSEntityDescription]) -> [NSRelationshipDescription] {
        var drawn = Set<ObjectIdentifier>()
        var edges: [NSRelationshipDescription] = []
        for entity in entities {
            for relationship in entity.properties.compactMap({ $0 as? NSRelationshipDescription })
            where !drawn.contains(ObjectIdentifier(relationship)) {
                drawn.insert(ObjectIdentifier(relationship))
                if let inverse = relationship.inverseRelationship, inverse !== relationship { drawn.insert(ObjectIdentifier(inverse)) }
                edges.append(relationship)
            }
        }
        return edges
    }

    private static func edge(_ relationship: NSRelationshipDescription) -> String {
        let source = quoted(relationship.entity?.name ?? "")
        let destination = quoted(relationship.destinationEntity?.name ?? "?")
        var label = [describe(relationship)]
        var attributes = ["arrowhead=\(relationship.isToMany ? "crow" : "tee")"]
        if let inverse = relationship.inverseRelationship, inverse !== relationship {
            label.append(describe(inverse))
            attributes += ["dir=both", "arrowtail=\(inverse.isToMany ? "crow" : "tee")"]
        }
        attributes.insert("label=\(quoted(label.joined(separator: "\n")))", at: 0)
        return "\(source) -> \(destination) [\(attributes.joined(separator: ", "))];"
    }

    /// "pets: to-many, ordered, cascade" (read from the relationship's own entity).
    private static func describe(_ relationship: NSRelationshipDescription) -> String {
        var parts = [relationship.isToMany ? "to-many" : "to-one"]
        if relationship.isOrdered { parts.append("ordered") }
        parts.append(ModelReport.deleteRuleName(relationship.deleteRule))
        return "\(relationship.entity?.name ?? "").\(relationship.name): " + parts.joined(separator: ", ")
    }

    /// The entity's box: its name (italic when abstract), then its own attributes as
    /// `name: Type`, with `?` for optional ones.
    private static func table(of entity: NSEntityDescription) -> String {
        let name = escaped(entity.name ?? "")
        var rows = ["<TR><TD BGCOLOR=\"#DDE6F0\"><B>\(entity.isAbstract ? "<I>\(name)</I>" : name)</B></TD></TR>"]
        let attributes = entity.properties.compactMap { $0 as? NSAttributeDescription }
        for attribute in attributes {
            var text = "\(attribute.name): \(attribute.attributeType.modelName)\(attribute.isOptional ? "?" : "")"
            if attribute.isTransient { text += " (transient)" }
            rows.append("<TR><TD ALIGN=\"LEFT\">\(escaped(text))</TD></TR>")
        }
        return "<TABLE BORDER=\"0\" CELLBORDER=\"1\" CELLSPACING=\"0\" CELLPADDING=\"4\">" + rows.joined() + "</TABLE>"
    }

    /// A DOT string literal.
    private static func quoted(_ text: String) -> String {
        "\"" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
            .replacingOccurrences(of: "\n", with: "\\n") + "\""
    }

    /// Text inside an HTML-like label.
    private static func escaped(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }

    /// The diagram as SVG, drawn by Graphviz's `dot`; a clear failure when it is not installed.
    func svg() throws -> String {
        guard let dotProgram = Self.graphvizDot() else {
            throw CommandFailure("--format svg needs Graphviz's dot program, which is not installed "
                                 + "(Debian/Ubuntu: apt-get install graphviz); --format dot prints the DOT text without it")
        }
        let process = Process()
        process.executableURL = dotProgram
        process.arguments = ["-Tsvg"]
        let input = Pipe(), output = Pipe(), errors = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = errors
        // A `dot` that exits before reading everything must not kill `ocd` with SIGPIPE.
        signal(SIGPIPE, SIG_IGN)
        try process.run()
        // The input is written and the errors read on threads of their own, so that no pipe can
        // fill up while `ocd` waits on another.
        let text = Data(dot.utf8)
        let writer = Thread {
            try? input.fileHandleForWriting.write(contentsOf: text)
            try? input.fileHandleForWriting.close()
        }
        let message = Mutex(Data())
        let errorsRead = DispatchSemaphore(value: 0)
        let errorReader = Thread {
            let data = errors.fileHandleForReading.readDataToEndOfFile()
            message.withLock { $0 = data }
            errorsRead.signal()
        }
        writer.start()
        errorReader.start()
        let svg = output.fileHandleForReading.readDataToEndOfFile()
        errorsRead.wait()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw CommandFailure("Graphviz's dot failed (exit \(process.terminationStatus)): "
                                 + String(decoding: message.withLock { $0 }, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
        }
        return String(decoding: svg, as: UTF8.self)
    }

    /// `dot` on the `PATH`, if there is one.
    private static func graphvizDot() -> URL? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        return path.split(separator: ":").lazy
            .map { URL(fileURLWithPath: String($0)).appendingPathComponent("dot") }
            .first { FileManager.default.isExecutableFile(atPath: $0.path) }
    }
}
