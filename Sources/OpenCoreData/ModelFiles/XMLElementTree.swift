import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif

/// One element of a small XML document, with the line it starts on, so that errors about the
/// file can name the line (FoundationXML's `XMLDocument` does not keep positions).
final class XMLElementNode {
    let name: String
    let attributes: [String: String]
    let line: Int
    private(set) var children: [XMLElementNode] = []
    /// The element's own character data (not its children's), as written.
    fileprivate(set) var text = ""

    init(name: String, attributes: [String: String], line: Int) {
        self.name = name
        self.attributes = attributes
        self.line = line
    }

    fileprivate func append(_ child: XMLElementNode) { children.append(child) }

    /// The child elements named `name`.
    func children(named name: String) -> [XMLElementNode] { children.filter { $0.name == name } }

    /// The first child element named `name`.
    func child(named name: String) -> XMLElementNode? { children.first { $0.name == name } }

    subscript(attribute: String) -> String? { attributes[attribute] }

    /// Whether the attribute is `YES` (Xcode's spelling of true).
    func flag(_ attribute: String) -> Bool { attributes[attribute] == "YES" }
}

/// Parses a whole XML document into `XMLElementNode`s.
enum XMLElementTree {
    /// The document's root element; an error naming the line where the XML is not well formed.
    static func parse(_ data: Data, file: URL) throws -> XMLElementNode {
        let builder = TreeBuilder()
        let parser = XMLParser(data: data)
        parser.delegate = builder
        parser.shouldProcessNamespaces = false
        parser.shouldResolveExternalEntities = false
        // On Linux `parse()` can return true after an error; the delegate hears of every one.
        let succeeded = parser.parse()
        if let failure = builder.firstError ?? (succeeded ? nil : parser.parserError.map { ($0, parser.lineNumber) }) {
            throw ModelFileError(file: file, line: failure.line > 0 ? failure.line : nil,
                                 reason: "the XML is not well formed (\(describe(failure.error)))")
        }
        guard let root = builder.root else { throw ModelFileError(file: file, reason: "the file holds no XML element") }
        return root
    }

    /// libxml2's error numbers carry no message on Linux; name the common ones.
    private static func describe(_ error: Error) -> String {
        let code = (error as NSError).code
        let names = [4: "the document is empty", 5: "the document ends too early", 9: "invalid character",
                     23: "unescaped '&' or '<'", 38: "an attribute value is not quoted", 39: "an attribute has no value",
                     41: "an attribute is not closed", 68: "'<' expected", 73: "'>' expected", 76: "mismatched end tag"]
        return names[code].map { "\($0), XML parser error \(code)" } ?? "XML parser error \(code)"
    }

    /// Collects elements as the parser reports them.
    private final class TreeBuilder: NSObject, XMLParserDelegate {
        var root: XMLElementNode?
        var firstError: (error: Error, line: Int)?
        private var open: [XMLElementNode] = []

        func parser(_ parser: XMLParser, parseErrorOccurred parseError: Error) {
            if firstError == nil { firstError = (parseError, parser.lineNumber) }
        }

        func parser(_ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?,
                    qualifiedName: String?, attributes: [String: String]) {
            let node = XMLElementNode(name: elementName, attributes: attributes, line: parser.lineNumber)
            if let parent = open.last { parent.append(node) } else if root == nil { root = node }
            open.append(node)
        }

        func parser(_ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName: String?) {
            _ = open.popLast()
        }

        func parser(_ parser: XMLParser, foundCharacters string: String) {
            open.last?.text += string
        }
    }
}
