import Foundation

/// Reads a plain XML document — the subset Xcode writes its model and mapping model files in —
/// into `XMLElementNode`s without FoundationXML's parser, which on Linux costs more than the
/// rest of loading a small model (it looks its delegate up in the thread's dictionary for every
/// event). Migration loads a store's model version on the way to opening it, and an app loads its
/// model at launch.
///
/// Plain means: UTF-8 (declared or not), elements and attributes with ASCII names and no
/// namespace prefix or declaration, text with the five predefined entities and character references, comments
/// and processing instructions (skipped, as `XMLElementTree`'s parser delegate skips them), and
/// LF line ends. Anything else — a DOCTYPE, CDATA, a carriage return, a name outside ASCII, and
/// every document that is not well formed — gives nil, and `XMLElementTree` hands the document
/// to FoundationXML's parser, whose tree (or error) is then the answer. For a document read here
/// the tree is the one that parser gives: the same elements, attributes (white space in them
/// normalized to spaces), text and lines (the line an element's start tag ends on).
///
/// ```swift
/// let root = PlainXMLReader.read(Data("<model><entity name=\"Item\"/></model>".utf8))
/// root?.children.first?["name"]   // "Item"
/// ```
enum PlainXMLReader {
    /// The document's root element; nil when the document is not plain, or not well formed.
    static func read(_ data: Data) -> XMLElementNode? {
        // libxml2 refuses larger documents ("Huge input lookup").
        guard data.count <= maximumSize else { return nil }
        return data.withUnsafeBytes { raw in
            var reader = Reader(bytes: raw.bindMemory(to: UInt8.self))
            return reader.document()
        }
    }

    /// Deeper documents are left to FoundationXML's parser (this reader recurses).
    private static let maximumDepth = 256
    /// libxml2's limits on a document pushed to it whole, and on a name ("Name too long").
    private static let maximumSize = 10_000_000
    private static let maximumNameLength = 50_000

    /// The byte sequences the reader looks for, made once.
    private enum Token {
        static let byteOrderMark: [UInt8] = [0xEF, 0xBB, 0xBF]
        static let xmlDeclaration = Array("<?xml".utf8)
        static let piEnd = Array("?>".utf8)
        static let commentStart = Array("<!--".utf8)
        static let piStart = Array("<?".utf8)
        static let emptyEnd = Array("/>".utf8)
        static let endTagStart = Array("</".utf8)
        static let markupDeclaration = Array("<!".utf8)
        static let cdataEnd = Array("]]>".utf8)
        static let doubleHyphen = Array("--".utf8)
        static let commentEnd = Array("-->".utf8)
    }

    private struct Reader {
        let bytes: UnsafeBufferPointer<UInt8>
        var index = 0
        var line = 1

        init(bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

        // MARK: Document

        mutating func document() -> XMLElementNode? {
            if starts(with: Token.byteOrderMark) { index += 3 }
            if starts(with: Token.xmlDeclaration), index + 5 < bytes.count, isSpace(bytes[index + 5]) {
                guard declaration() else { return nil }
            }
            guard miscellany(), peek == UInt8(ascii: "<"), let root = element(depth: 0), miscellany(), index == bytes.count else { return nil }
            return root
        }

        /// `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>`: version 1.0, an encoding
        /// that is UTF-8 if any, the three in that order.
        mutating func declaration() -> Bool {
            index += 5
            var names: [String] = []
            while true {
                let spaced = skipSpaces()
                if starts(with: Token.piEnd) { index += 2; break }
                guard spaced, let name = name(), equalsSign(), let text = literal() else { return false }
                switch name {
                case "version" where names.isEmpty && text == "1.0": break
                case "encoding" where names == ["version"] && text.lowercased() == "utf-8": break
                case "standalone" where names.first == "version" && !names.contains("standalone") && ["yes", "no"].contains(text): break
                default: return false
                }
                names.append(name)
            }
            return names.first == "version"
        }

        /// White space, comments and processing instructions, outside the root element.
        mutating func miscellany() -> Bool {
            while true {
                _ = skipSpaces()
                if starts(with: Token.commentStart) {
                    guard comment() else { return false }
                } else if starts(with: Token.piStart) {
                    guard processingInstruction() else { return false }
                } else {
                    return true
                }
            }
        }

        // MARK: Elements

        mutating func element(depth: Int) -> XMLElementNode? {
            guard depth < PlainXMLReader.maximumDepth, take(UInt8(ascii: "<")), let name = name() else { return nil }
            var attributes: [String: String] = [:]
            var isEmpty = false
            while true {
                let spaced = skipSpaces()
                if take(UInt8(ascii: ">")) { break }
                if starts(with: Token.emptyEnd) { index += 2; isEmpty = true; break }
                // A namespace declaration (`xmlns`) is left to the full parser, which checks it.
                guard spaced, let attribute = self.name(), !attribute.hasPrefix("xmlns"), equalsSign(), let value = quoted(),
                      attributes.updateValue(String(decoding: value, as: UTF8.self), forKey: attribute) == nil else { return nil }
            }
            // The line the start tag ends on, as FoundationXML's parser reports it.
            let node = XMLElementNode(name: name, attributes: attributes, line: line)
            if isEmpty { return node }
            var text: [UInt8] = []
            while index < bytes.count {
                switch bytes[index] {
                case UInt8(ascii: "<"):
                    if starts(with: Token.endTagStart) {
                        index += 2
                        guard self.name() == name else { return nil }
                        _ = skipSpaces()
                        guard take(UInt8(ascii: ">")) else { return nil }
                        if !text.isEmpty { node.text = String(decoding: text, as: UTF8.self) }
                        return node
                    } else if starts(with: Token.commentStart) {
                        guard comment() else { return nil }
                    } else if starts(with: Token.piStart) {
                        guard processingInstruction() else { return nil }
                    } else if starts(with: Token.markupDeclaration) {
                        return nil   // CDATA, or a declaration where none may be
                    } else {
                        guard let child = element(depth: depth + 1) else { return nil }
                        node.append(child)
                    }
                case UInt8(ascii: "&"):
                    guard reference(into: &text) else { return nil }
                case UInt8(ascii: "]") where starts(with: Token.cdataEnd):
                    return nil
                case let byte:
                    guard character(byte) else { return nil }
                    text.append(byte)
                    index += 1
                }
            }
            return nil
        }

        /// A quoted value of the XML declaration: letters, digits, `.`, `_` and `-` only (no
        /// references), as its version, encoding and standalone values are written.
        mutating func literal() -> String? {
            guard let quote = peek, quote == UInt8(ascii: "\"") || quote == UInt8(ascii: "'") else { return nil }
            index += 1
            let start = index
            while let byte = peek, isLetter(byte) || (0x30...0x39).contains(byte) || byte == UInt8(ascii: ".")
                    || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "-") {
                index += 1
            }
            guard take(quote) else { return nil }
            return String(decoding: bytes[start..<(index - 1)], as: UTF8.self)
        }

        /// A quoted attribute value, its references resolved, tabs and line feeds written in it
        /// made spaces, as XML's attribute-value normalization has them.
        mutating func quoted() -> [UInt8]? {
            guard let quote = peek, quote == UInt8(ascii: "\"") || quote == UInt8(ascii: "'") else { return nil }
            index += 1
            var value: [UInt8] = []
            while let byte = peek {
                switch byte {
                case quote:
                    index += 1
                    return value
                case UInt8(ascii: "<"):
                    return nil
                case UInt8(ascii: "&"):
                    guard reference(into: &value) else { return nil }
                case UInt8(ascii: "\t"), UInt8(ascii: "\n"):
                    guard character(byte) else { return nil }
                    value.append(UInt8(ascii: " "))
                    index += 1
                default:
                    guard character(byte) else { return nil }
                    value.append(byte)
                    index += 1
                }
            }
            return nil
        }

        /// `&lt;`, `&gt;`, `&amp;`, `&quot;`, `&apos;`, `&#…;` or `&#x…;`, appended as UTF-8.
        mutating func reference(into out: inout [UInt8]) -> Bool {
            index += 1
            guard let end = (index..<min(bytes.count, index + 12)).first(where: { bytes[$0] == UInt8(ascii: ";") }), end > index else { return false }
            let body = String(decoding: bytes[index..<end], as: UTF8.self)
            index = end + 1
            let scalar: UInt32?
            switch body {
            case "lt": scalar = 0x3C
            case "gt": scalar = 0x3E
            case "amp": scalar = 0x26
            case "quot": scalar = 0x22
            case "apos": scalar = 0x27
            default:
                guard body.hasPrefix("#") else { return false }
                let digits = body.dropFirst()
                scalar = digits.hasPrefix("x") ? UInt32(digits.dropFirst(), radix: 16) : UInt32(digits, radix: 10)
                guard !digits.isEmpty, digits.allSatisfy({ $0.isASCII && ($0.isHexDigit || $0 == "x") }) else { return false }
            }
            guard let scalar, Self.isCharacter(scalar), let unicode = Unicode.Scalar(scalar) else { return false }
            out.append(contentsOf: Array(String(Character(unicode)).utf8))
            return true
        }

        // MARK: Comments and processing instructions

        /// `<!-- … -->`, without `--` inside.
        mutating func comment() -> Bool {
            index += 4
            while index < bytes.count {
                if starts(with: Token.doubleHyphen) {
                    guard starts(with: Token.commentEnd) else { return false }
                    index += 3
                    return true
                }
                guard character(bytes[index]) else { return false }
                index += 1
            }
            return false
        }

        /// `<?target … ?>`, whose target does not begin with `xml` in any case (libxml2 warns of
        /// such a name, which the parser reports as an error) unless it is one of the two it knows.
        mutating func processingInstruction() -> Bool {
            index += 2
            guard let target = name(),
                  !target.lowercased().hasPrefix("xml") || target == "xml-stylesheet" || target == "xml-model" else { return false }
            guard skipSpaces() || starts(with: Token.piEnd) else { return false }
            while index < bytes.count {
                if starts(with: Token.piEnd) {
                    index += 2
                    return true
                }
                guard character(bytes[index]) else { return false }
                index += 1
            }
            return false
        }

        // MARK: Pieces

        /// An ASCII name without a namespace prefix.
        mutating func name() -> String? {
            let start = index
            guard let first = peek, isLetter(first) || first == UInt8(ascii: "_") else { return nil }
            index += 1
            while let byte = peek, isLetter(byte) || (0x30...0x39).contains(byte) || byte == UInt8(ascii: "_")
                    || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".") {
                index += 1
            }
            if let byte = peek, byte == UInt8(ascii: ":") || byte >= 0x80 { return nil }
            guard index - start <= PlainXMLReader.maximumNameLength else { return nil }
            return String(decoding: bytes[start..<index], as: UTF8.self)
        }

        /// Whether `byte`, the next one, may appear in the document: not a control character
        /// other than tab and line feed (a carriage return is left to the full parser, which
        /// normalizes line ends), not the start of U+FFFE or U+FFFF. Counts lines.
        mutating func character(_ byte: UInt8) -> Bool {
            if byte < 0x20 {
                guard byte == UInt8(ascii: "\t") || byte == UInt8(ascii: "\n") else { return false }
                if byte == UInt8(ascii: "\n") { line += 1 }
            } else if byte == 0xEF, index + 2 < bytes.count, bytes[index + 1] == 0xBF, bytes[index + 2] >= 0xBE {
                return false
            }
            return true
        }

        /// Skips XML white space (not carriage returns); whether there was any.
        mutating func skipSpaces() -> Bool {
            let start = index
            while let byte = peek, byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") || byte == UInt8(ascii: "\n") {
                if byte == UInt8(ascii: "\n") { line += 1 }
                index += 1
            }
            return index > start
        }

        /// `=` with optional white space around it, as between a name and its value.
        mutating func equalsSign() -> Bool {
            _ = skipSpaces()
            guard take(UInt8(ascii: "=")) else { return false }
            _ = skipSpaces()
            return true
        }

        mutating func take(_ byte: UInt8) -> Bool {
            guard peek == byte else { return false }
            index += 1
            return true
        }

        var peek: UInt8? { index < bytes.count ? bytes[index] : nil }

        func starts(with prefix: [UInt8]) -> Bool {
            guard index + prefix.count <= bytes.count else { return false }
            for (offset, byte) in prefix.enumerated() where bytes[index + offset] != byte { return false }
            return true
        }

        func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 || byte == 0x0A }

        func isLetter(_ byte: UInt8) -> Bool { (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte) }

        /// XML 1.0's `Char`.
        static func isCharacter(_ scalar: UInt32) -> Bool {
            scalar == 0x9 || scalar == 0xA || scalar == 0xD || (0x20...0xD7FF).contains(scalar)
                || (0xE000...0xFFFD).contains(scalar) || (0x10000...0x10FFFF).contains(scalar)
        }
    }
}
