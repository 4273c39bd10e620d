import Foundation
import Testing
import OpenCoreData
@testable import OpenCoreDataCore
@testable import OpenCoreDataSQLite

/// Model files whose bytes are not the UTF-8 they claim to be: refused with the file and the
/// line, never a crash (Foundation's XML parser stops the program on some such bytes), through
/// the library and through `ocd`.
@Suite struct ModelFileEncodingTests {
    static func writeModel(_ bytes: [UInt8], in directory: TemporaryDirectory) throws -> URL {
        let version = directory.file("X.xcdatamodel")
        try FileManager.default.createDirectory(at: version, withIntermediateDirectories: true)
        try Data(bytes).write(to: version.appendingPathComponent("contents"))
        return version
    }

    /// The fault probe that stopped `ocd model show` with SIGILL: a processing instruction with a 0xFF byte.
    @Test func aProcessingInstructionThatIsNotUTF8IsRefusedWithItsLine() throws {
        let directory = TemporaryDirectory()
        let version = try Self.writeModel(Array("<?x".utf8) + [0xFF] + Array(" y?>\n<model/>\n".utf8), in: directory)
        let error = try #require(throws: ModelFileError.self) { try NSManagedObjectModel(validatingContentsOf: version) }
        #expect(error.file.lastPathComponent == "contents")
        #expect(error.line == 1)
        #expect(error.reason == "the file is not valid UTF-8 (byte 0xFF at offset 3)")
        let shown = try OCD.run(["model", "show", version.path])
        #expect(shown.status == 1)
        #expect(shown.error == "ocd: \(version.path)/contents, line 1: the file is not valid UTF-8 (byte 0xFF at offset 3)\n")
    }

    @Test func theLineOfTheFirstBadByteIsNamed() throws {
        let directory = TemporaryDirectory()
        let text = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<model>\n<entity name=\"A\"/>\n<!-- caf"
        let version = try Self.writeModel(Array(text.utf8) + [0xC3, 0x28] + Array(" -->\n</model>\n".utf8), in: directory)
        let error = try #require(throws: ModelFileError.self) { try NSManagedObjectModel(validatingContentsOf: version) }
        #expect(error.line == 4)
    }

    /// White space around the declaration's `=` still declares UTF-8, and the bytes are checked.
    @Test func aDeclarationWithWhiteSpaceIsStillChecked() throws {
        let directory = TemporaryDirectory()
        let text = "<?xml version=\"1.0\" encoding\t=\n 'UTF-8'?>\n<?x"
        let version = try Self.writeModel(Array(text.utf8) + [0xFF] + Array(" y?>\n<model/>\n".utf8), in: directory)
        let error = try #require(throws: ModelFileError.self) { try NSManagedObjectModel(validatingContentsOf: version) }
        #expect(error.line == 3)
    }

    /// UTF-16 with a byte-order mark is the parser's to read, and loads.
    @Test func aUTF16DocumentWithAByteOrderMarkLoads() throws {
        let directory = TemporaryDirectory()
        let text = "<?xml version=\"1.0\" encoding=\"UTF-16\"?><model><!-- café --><entity name=\"A\">"
            + "<attribute name=\"a\" optional=\"YES\" attributeType=\"String\"/></entity></model>"
        var bytes: [UInt8] = [0xFF, 0xFE]
        for unit in text.utf16 { bytes += [UInt8(unit & 0xFF), UInt8(unit >> 8)] }
        let version = try Self.writeModel(bytes, in: directory)
        #expect(try NSManagedObjectModel(validatingContentsOf: version).entities.map(\.name) == ["A"])
    }

    @Test func aFileNamedLikeAVersionFolderIsNamedAsAFile() throws {
        let directory = TemporaryDirectory()
        let file = directory.file("X.xcdatamodel")
        try Data(XcodeModelTests.minimalModel(entity: "A").utf8).write(to: file)
        let error = try #require(throws: ModelFileError.self) { try NSManagedObjectModel(validatingContentsOf: file) }
        #expect(error.reason == "this is a file, not an .xcdatamodel folder")
    }

    /// A document that declares another encoding is converted by the parser itself, and loads.
    @Test func aDeclaredLatin1DocumentLoads() throws {
        let directory = TemporaryDirectory()
        let text = "<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?>\n<model><!-- caf"
        let rest = " --><entity name=\"A\"><attribute name=\"a\" optional=\"YES\" attributeType=\"String\"/></entity></model>"
        let version = try Self.writeModel(Array(text.utf8) + [0xE9] + Array(rest.utf8), in: directory)
        #expect(try NSManagedObjectModel(validatingContentsOf: version).entities.map(\.name) == ["A"])
    }

    /// Bytes that are not UTF-8 (stray continuation bytes, truncated and overlong sequences,
    /// surrogates, 0xFE/0xFF) put at every position of a small model: each load gives a model or a
    /// `ModelFileError`, and the process survives.
    @Test func invalidBytesAnywhereNeverCrash() async {
        await #expect(processExitsWith: .success) {
            let model = Array(("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<?xcode x?><model><!-- é -->"
                + "<entity name=\"A\"><attribute name=\"a\" optional=\"YES\" attributeType=\"String\"/>"
                + "<userInfo><entry key=\"k\" value=\"v\"/></userInfo></entity></model>\n").utf8)
            let bad: [[UInt8]] = [[0x80], [0xBF], [0xC3], [0xE2, 0x82], [0xF0, 0x9F, 0x98], [0xC0, 0x80], [0xED, 0xA0, 0x80],
                                  [0xF4, 0x90, 0x80, 0x80], [0xFE], [0xFF]]
            let directory = TemporaryDirectory()
            for position in 0...model.count {
                for bytes in bad {
                    var damaged = model
                    damaged.insert(contentsOf: bytes, at: position)
                    do {
                        _ = try NSManagedObjectModel(validatingContentsOf: try Self.writeModel(damaged, in: directory))
                        exit(2)   // no byte sequence above is valid UTF-8
                    } catch is ModelFileError {
                    } catch {
                        exit(3)
                    }
                }
            }
        }
    }

    /// In process, as a user who may not read the model (the exit test becomes `nobody` when root).
    @Test func anUnreadableModelIsPermissionDeniedInProcess() async {
        await #expect(processExitsWith: .success) {
            let directory = TemporaryDirectory()
            let version = try! ModelFileEncodingTests.writeModel(Array(XcodeModelTests.minimalModel(entity: "A").utf8), in: directory)
            try! FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: directory.url.path)
            try! FileManager.default.setAttributes([.posixPermissions: 0o000], ofItemAtPath: version.appendingPathComponent("contents").path)
            let bundle = directory.file("Locked.xcdatamodeld")
            try! FileManager.default.createDirectory(at: bundle.appendingPathComponent("Locked.xcdatamodel"), withIntermediateDirectories: true)
            try! FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: bundle.appendingPathComponent("Locked.xcdatamodel").path)
            if getuid() == 0 { guard setgid(65534) == 0, setuid(65534) == 0 else { exit(10) } }
            let expected = [(version, "the file cannot be read: permission denied"),
                            (bundle, "the model folder cannot be read: permission denied")]
            for (url, reason) in expected {
                do {
                    _ = try NSManagedObjectModel(validatingContentsOf: url)
                    exit(11)
                } catch let error as ModelFileError {
                    guard error.reason == reason else { exit(12) }
                } catch {
                    exit(13)
                }
            }
        }
    }

    /// A model nobody may read says so (run as another user through `ocd`: root reads any file).
    @Test func anUnreadableModelSaysPermissionDenied() throws {
        let directory = TemporaryDirectory()
        let version = try Self.writeModel(Array(XcodeModelTests.minimalModel(entity: "A").utf8), in: directory)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: directory.url.path)
        try FileManager.default.setAttributes([.posixPermissions: 0o000], ofItemAtPath: version.appendingPathComponent("contents").path)
        let file = try OCD.runAsUnprivilegedUser(["model", "show", version.path])
        #expect(file.status == 1)
        #expect(file.error == "ocd: \(version.path)/contents: the file cannot be read: permission denied\n")
        try FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: version.path)
        let folder = try OCD.runAsUnprivilegedUser(["model", "show", version.path])
        #expect(folder.status == 1)
        #expect(folder.error == "ocd: \(version.path): cannot be read: permission denied\n")
    }
}
