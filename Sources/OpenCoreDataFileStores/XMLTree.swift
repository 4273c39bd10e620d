import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif

/// An XML document read into a small tree of elements, with `XMLParser` (which, unlike
/// `XMLDocument`, reports a document that is not well-formed instead of repairing it). External
/// entities and DTDs are never loaded.
final class XMLTreeElement {
    let name: String
    let attributes: [String: String]
    var children: [XMLTreeElement] = []
    var text = ""
    /// The line the element starts on, for errors.
    let line: Int

    init(name: String, attributes: [String: String], line: Int) {
        self.name = name
        self.attributes = attributes
        self.line = line
    }

    func children(named name: String) -> [XMLTreeElement] { children.filter { $0.name == name } }
    func child(named name: String) -> XMLTreeElement? { children.first { $0.name == name } }

    /// The element written back as XML (for the property list inside `<metadata>`).
    var xmlString: String {
        var result = "<\(name)"
        for (key, value) in attributes.sorted(by: { $0.key < $1.key }) { result += " \(key)=\"\(XMLText.escaped(value))\"" }
        result += ">"
        result += XMLText.escaped(text)
        for child in children { result += child.xmlString }
        return result + "</\(name)>"
    }

    /// The document's root element, or the parser's complaint (with its line).
    static func parse(_ data: Data) -> Result<XMLTreeElement, XMLTreeError> {
        let parser = XMLParser(data: data)
        parser.shouldResolveExternalEntities = false
        let builder = Builder(parser: parser)
        parser.delegate = builder
        _ = parser.parse()
        if let error = parser.parserError ?? builder.error {
            return .failure(XMLTreeError(line: parser.lineNumber, reason: (error as NSError).localizedFailureReason ?? "\(error)"))
        }
        guard let root = builder.root else { return .failure(XMLTreeError(line: parser.lineNumber, reason: "there is no root element")) }
        return .success(root)
    }

    private final class Builder: NSObject, XMLParserDelegate {
        unowned let parser: XMLParser
        var stack: [XMLTreeElement] = []
        var root: XMLTreeElement?
        var error: Error?

        init(parser: XMLParser) { self.parser = parser }

        func parser(_ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?, qualifiedName qName: String?,
                    attributes attributeDict: [String: String] = [:]) {
            let element = XMLTreeElement(name: elementName, attributes: attributeDict, line: parser.lineNumber)
            if let parent = stack.last { parent.children.append(element) } else if root == nil { root = element }
            stack.append(element)
        }

        func parser(_ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName qName: String?) {
            _ = stack.popLast()
        }

        func parser(_ parser: XMLParser, foundCharacters string: String) {
            stack.last?.text += string
        }

        func parser(_ parser: XMLParser, foundCDATA CDATABlock: Data) {
            stack.last?.text += String(decoding: CDATABlock, as: UTF8.self)
        }

        func parser(_ parser: XMLParser, parseErrorOccurred parseError: Error) {
            if error == nil { error = parseError }
        }
    }
}

struct XMLTreeError: Error {
    let line: Int
    let reason: String
}

/// Escaping text for XML.
enum XMLText {
    static func escaped(_ text: String) -> String {
        // By scalar: "\r\n" is one Character, whose carriage return must still be escaped.
        guard text.unicodeScalars.contains(where: { $0 == "&" || $0 == "<" || $0 == ">" || $0 == "\"" || $0 == "\r" }) else { return text }
        var result = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": result.append(contentsOf: "&amp;".unicodeScalars)
            case "<": result.append(contentsOf: "&lt;".unicodeScalars)
            case ">": result.append(contentsOf: "&gt;".unicodeScalars)
            case "\"": result.append(contentsOf: "&quot;".unicodeScalars)
            case "\r": result.append(contentsOf: "&#13;".unicodeScalars)
            default: result.append(scalar)
            }
        }
        return String(result)
    }
}
