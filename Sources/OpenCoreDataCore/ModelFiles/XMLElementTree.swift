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
    var text = ""

    init(name: String, attributes: [String: String], line: Int) {
        self.name = name
        self.attributes = attributes
        self.line = line
    }

    func append(_ child: XMLElementNode) { children.append(child) }

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
        // Foundation's XMLParser stops the program on some bytes that are not UTF-8 (in a
        // processing instruction, for one), so a document read as UTF-8 is checked first.
        let readAsUTF8 = isReadAsUTF8(data)
        if readAsUTF8, let offset = firstInvalidUTF8Offset(in: data) {
            throw ModelFileError(file: file, line: lineNumber(ofOffset: offset, in: data),
                                 reason: "the file is not valid UTF-8 (byte 0x\(String(data[data.startIndex + offset], radix: 16, uppercase: true)) at offset \(offset))")
        }
        // A plain UTF-8 document (every model file Xcode writes) is read without FoundationXML's
        // parser, which gives the same tree at many times the cost; any other goes to it.
        if readAsUTF8, let root = PlainXMLReader.read(data) { return root }
        return try parsedByFoundation(data, file: file)
    }

    /// What FoundationXML's parser makes of `data`: its root element, or an error naming the
    /// line where the XML is not well formed.
    static func parsedByFoundation(_ data: Data, file: URL) throws -> XMLElementNode {
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

    /// Whether the XML parser reads `data` as UTF-8. It does not when the first bytes show
    /// UTF-16 or UCS-4 (a byte-order mark, or `<?` in two or four bytes, as the XML
    /// specification's appendix F detects them), or when the declaration names an encoding
    /// known to be another one (the parser converts those bytes itself, and hands on valid
    /// UTF-8). Any other declared encoding is checked as UTF-8, which is the safe side.
    static func isReadAsUTF8(_ data: Data) -> Bool {
        if wideStarts.contains(where: { data.starts(with: $0) }) { return false }
        guard let encoding = declaredEncoding(data)?.lowercased() else { return true }
        return !otherEncodings.contains { encoding.hasPrefix($0) }
    }

    private static let wideStarts: [[UInt8]] = [[0x00, 0x00, 0xFE, 0xFF], [0xFF, 0xFE, 0x00, 0x00], [0xFE, 0xFF], [0xFF, 0xFE],
                                                [0x00, 0x00, 0x00, 0x3C], [0x3C, 0x00, 0x00, 0x00], [0x00, 0x3C, 0x00, 0x3F], [0x3C, 0x00, 0x3F, 0x00]]
    private static let otherEncodings = ["iso-8859-", "iso8859", "latin", "windows-", "cp", "utf-16", "utf16",
                                         "ucs-", "utf-32", "shift_jis", "euc-", "iso-2022-", "gb", "big5", "koi8-", "macintosh"]

    /// The `encoding` of the document's XML declaration (after a UTF-8 byte-order mark, if any).
    /// Read over the bytes: a declaration is ASCII, and this runs for every model file loaded.
    private static func declaredEncoding(_ data: Data) -> String? {
        let body = data.starts(with: [0xEF, 0xBB, 0xBF]) ? data.dropFirst(3) : data[...]
        guard body.starts(with: "<?xml".utf8) else { return nil }
        let declaration = Array(body.prefix(while: { $0 != UInt8(ascii: ">") }))
        let keyword = Array("encoding".utf8)
        guard let start = declaration.indices.first(where: { declaration[$0...].starts(with: keyword) }) else { return nil }
        // `encoding = "UTF-8"`, with any XML white space around the `=`.
        let isSpace: (UInt8) -> Bool = { [0x20, 0x09, 0x0A, 0x0D].contains($0) }
        let rest = declaration[(start + keyword.count)...].drop(while: isSpace)
        guard rest.first == UInt8(ascii: "=") else { return nil }
        let quoted = rest.dropFirst().drop(while: isSpace)
        guard let quote = quoted.first, quote == UInt8(ascii: "\"") || quote == UInt8(ascii: "'") else { return nil }
        return String(decoding: quoted.dropFirst().prefix { $0 != quote }, as: UTF8.self)
    }

    /// The offset of the first byte of `data` that is not part of a valid UTF-8 sequence.
    static func firstInvalidUTF8Offset(in data: Data) -> Int? {
        // The standard library's validation is fast; the offset is looked for only when it fails.
        if data.withUnsafeBytes({ String(validating: $0, as: UTF8.self) }) != nil { return nil }
        var iterator = data.makeIterator()
        var parser = Unicode.UTF8.ForwardParser()
        var offset = 0
        while true {
            switch parser.parseScalar(from: &iterator) {
            case .valid(let encoded): offset += encoded.count
            case .emptyInput: return nil
            case .error: return offset
            }
        }
    }

    /// The line (from 1) of the byte at `offset`.
    private static func lineNumber(ofOffset offset: Int, in data: Data) -> Int {
        data.prefix(offset).reduce(1) { $1 == UInt8(ascii: "\n") ? $0 + 1 : $0 }
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
