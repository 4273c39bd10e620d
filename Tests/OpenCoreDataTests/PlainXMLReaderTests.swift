import Foundation
import Testing
@testable import OpenCoreDataCore

/// `PlainXMLReader`: the model file reader that stands in for FoundationXML's parser. For every
/// document it reads, its tree must be the parser's — elements, attributes, text and lines —
/// and every document outside its subset must be left to the parser.
@Suite struct PlainXMLReaderTests {
    private static let file = URL(fileURLWithPath: "/tmp/contents")

    /// Documents of the plain subset, each with something the reader must do as the parser does.
    static let plainDocuments = [
        "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"yes\"?>\n<model type=\"x\"><entity name=\"Item\" representedClassName=\"Item\" syncable=\"YES\"/></model>\n",
        "<?xml version=\"1.0\"?>\n<a x=\"1\"\n   y=\"2\">\n  <b/>\n  text &amp; more &#65;&#x42; &lt;&gt;&quot;&apos;\n<c\nz='q'\n/></a>\n",
        "<a>\n\n<b\n\n></b>tail</a>",
        "<a x=\"a\tb\nc\" y=\"&#10;&#9;\" z='say \"hi\"'/>",
        "<!-- before --><a><!-- in\n -->x<?pi y?>z<?other   ?></a>\n<!-- after -->\n<?after ?>",
        "\u{FEFF}<a/>",
        "<a>ünïcödé ✓ 𝄞 &#x1D11E; &#233;</a>",
        "<a><b><c><d>deep</d></c>mid</b>\n\t<e f=\"g\"></e ></a>",
        "<a b = \"c\" d\n=\n'e'></a >",
        "<a>]] > ]</a>",
        "<a xml-stylesheet=\"1\" _u=\"2\" a.b-c=\"3\"/>",
        "<?xml-stylesheet href=\"s\"?><a><?xml-model m?></a>",
    ]

    @Test(arguments: plainDocuments)
    func readsAPlainDocumentAsTheParserDoes(_ document: String) throws {
        let data = Data(document.utf8)
        let plain = try #require(PlainXMLReader.read(data))
        try expectSame(plain, try XMLElementTree.parsedByFoundation(data, file: Self.file))
    }

    /// Documents and names beyond libxml2's limits are left to it (it refuses them).
    @Test func aDocumentOrNameBeyondLibxml2sLimitsIsLeftToTheParser() {
        #expect(PlainXMLReader.read(Data(("<a>" + String(repeating: " ", count: 10_000_000) + "</a>").utf8)) == nil)
        #expect(PlainXMLReader.read(Data(("<" + String(repeating: "n", count: 50_001) + "/>").utf8)) == nil)
        #expect(PlainXMLReader.read(Data(("<" + String(repeating: "n", count: 50_000) + "/>").utf8)) != nil)
    }

    /// FoundationXML's parser on Linux stops the program on a processing instruction without
    /// data (`<?target?>`); the reader skips it, as the parser's delegate would.
    @Test func aProcessingInstructionWithoutDataIsSkipped() throws {
        let root = try XMLElementTree.parse(Data("<model><?target?><entity name=\"Item\"/></model>".utf8), file: Self.file)
        #expect(root.name == "model")
        #expect(root.children.map { $0["name"] } == ["Item"])
    }

    /// Each of these is either outside the subset or not well formed: the reader declines it, and
    /// `XMLElementTree` answers as the parser does (here: an error, or the parser's own tree).
    static let otherDocuments = [
        "<!DOCTYPE a [<!ENTITY e \"x\">]><a>&e;</a>", "<a><![CDATA[x]]></a>", "<a>\r\n</a>", "<a xmlns=\"u\"/>", "<a xmlnsx=\"u\"/>",
        "<p:a/>", "<a p:b=\"1\"/>", "<é/>", "<a>&unknown;</a>", "<a>&#0;</a>", "<a>&#xD800;</a>", "<a>& b</a>",
        "<a></b>", "<a>", "<a x=\"1\" x=\"2\"/>", "<a x=\"<\"/>", "<a x=1/>", "<a x/>", "<a x=\"1\"y=\"2\"/>",
        "<a>]]></a>", "<a/><b/>", "text<a/>", "<a/>text", "", "<!-- a -- b --><a/>", "<?xml version=\"1.0\"?><?xml x?><a/>",
        " <?xml version=\"1.0\"?><a/>", "<?xml version=\"1.1\"?><a/>", "<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?><a/>",
        "<?xml encoding=\"UTF-8\"?><a/>",
        "<?xml version=\"1.&#48;\"?><a/>", "<?xml version=\"1.0\" encoding=\"utf&#x2D;8\"?><a/>", "<?xml version=\"1.0\" standalone=\"&#121;es\"?><a/>",
        "<a><?xmlfoo x?></a>", "<?XML-stylesheet x?><a/>", "<a x=\"1\"/ >", "<a>\u{01}</a>", "<a>\u{FFFE}</a>", "<1a/>", "<a></a",
    ]

    @Test(arguments: otherDocuments)
    func leavesEveryOtherDocumentToTheParser(_ document: String) throws {
        let data = Data(document.utf8)
        #expect(PlainXMLReader.read(data) == nil)
        let parsed = Result { try XMLElementTree.parse(data, file: Self.file) }
        let byParser = Result { try XMLElementTree.parsedByFoundation(data, file: Self.file) }
        switch (parsed, byParser) {
        case (.success(let mine), .success(let theirs)): try expectSame(mine, theirs)
        case (.failure(let mine), .failure(let theirs)): #expect("\(mine)" == "\(theirs)")
        default: Issue.record("parse and the parser disagree on \(document.debugDescription): \(parsed) against \(byParser)")
        }
    }

    /// Every model and mapping model file of the corpus is plain, and read as the parser reads it.
    @Test(.needsCorpus, arguments: Corpus.files(under: "models", suffix: ".xcdatamodel"))
    func readsEveryCorpusModelAsTheParserDoes(_ folder: URL) throws {
        let data = try Data(contentsOf: folder.appendingPathComponent("contents"))
        let plain = try #require(PlainXMLReader.read(data))
        try expectSame(plain, try XMLElementTree.parsedByFoundation(data, file: folder))
    }

    private func expectSame(_ plain: XMLElementNode, _ parsed: XMLElementNode, path: String = "") throws {
        let here = path + "/" + parsed.name
        #expect(plain.name == parsed.name, "\(here)")
        #expect(plain.attributes == parsed.attributes, "\(here)")
        #expect(plain.line == parsed.line, "\(here)")
        #expect(plain.text == parsed.text, "\(here)")
        try #require(plain.children.count == parsed.children.count, "\(here)")
        for (mine, theirs) in zip(plain.children, parsed.children) { try expectSame(mine, theirs, path: here) }
    }
}
