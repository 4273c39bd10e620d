import Foundation
import Testing
import OCDSQLite
import OpenCoreData

/// The `ocd` tool's inspection commands, run as a user runs them: exit codes, messages, and the
/// documented `--json` output (Docs/ocd-json.md).
@Suite struct OCDToolTests {
    static let sampleModel = Corpus.url("models/alemar11__CoreDataPlus/Tests__Resources__SampleModel__SampleModel.xcdatamodeld")
    static let bookmarksV4Model = Corpus.url(
        "models/duckduckgo__BrowserServicesKit/Sources__Bookmarks__BookmarksModel.xcdatamodeld/BookmarksModel 4.xcdatamodel")
    static let bookmarksV4Store = Corpus.url(
        "stores/duckduckgo__BrowserServicesKit/Tests__BookmarksTests__Resources__Bookmarks_V4.sqlite")

    @Test(.needsCorpus) func modelShowPrintsTheModelAsJSON() throws {
        let result = try OCD.run(["model", "show", Self.sampleModel.path, "--json"])
        #expect(result.status == 0)
        let json = try #require(try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any])
        #expect(json["versions"] as? [String] == ["SampleModel", "SampleModel2", "SampleModel3"])
        #expect(json["currentVersion"] as? String == "SampleModel")
        let entities = try #require(json["entities"] as? [[String: Any]])
        #expect(entities.compactMap { $0["name"] as? String } == ["Car", "ExpensiveSportCar", "Person", "SportCar"])
        let car = try #require(entities.first { $0["name"] as? String == "Car" })
        let owner = try #require((car["relationships"] as? [[String: Any]])?.first)
        #expect(owner["name"] as? String == "owner")
        #expect(owner["destination"] as? String == "Person")
        #expect(owner["inverse"] as? String == "cars")
        #expect(owner["toMany"] as? Bool == false)
        #expect(car["uniquenessConstraints"] as? [[String]] == [["numberPlate"]])
        // momc's hash of Car in this version (VersionInfo.plist of the compiled corpus model).
        let info = try PropertyListSerialization.propertyList(from: Data(contentsOf: OCDStoreInfoTests.momd.appendingPathComponent("VersionInfo.plist")), format: nil)
        let momcHash = (((info as? [String: Any])?["NSManagedObjectModel_VersionHashes"] as? [String: Any])?["SampleModel"] as? [String: Data])?["Car"]
        #expect(car["versionHash"] as? String == momcHash?.base64EncodedString())
    }

    @Test func badPathsAndArgumentsFailClearly() throws {
        let missing = try OCD.run(["model", "show", "/no/such/Model.xcdatamodeld"])
        #expect(missing.status == 1)
        #expect(missing.error == "ocd: /no/such/Model.xcdatamodeld: no such file or folder\n")
        let directory = TemporaryDirectory()
        let notes = directory.file("notes.txt")
        try "not a model".write(to: notes, atomically: true, encoding: .utf8)
        let notAModel = try OCD.run(["model", "show", notes.path])
        #expect(notAModel.status == 1)
        #expect(notAModel.error.contains("not a model"))
        #expect(try OCD.run(["model", "show"]).status == 2)
        #expect(try OCD.run(["store", "dump", Self.bookmarksV4Store.path, "--model"]).status == 2)
        #expect(try OCD.run(["store", "explode"]).status == 2)
    }

    @Test(.needsCorpus) func storeDumpPrintsEveryObjectAndLeavesTheStoreAsItWas() throws {
        let directory = TemporaryDirectory()
        let store = try Corpus.copyStore(at: Self.bookmarksV4Store, to: directory)
        let before = try Self.contents(of: store)
        let result = try OCD.run(["store", "dump", store.path, "--model", Self.bookmarksV4Model.path, "--json"])
        #expect(result.status == 0, "\(result.error)")
        #expect(try Self.contents(of: store) == before)
        let json = try #require(try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any])
        let objects = try #require(json["objects"] as? [[String: Any]])
        #expect(objects.count == 10)
        #expect(json["model"] as? String == Self.bookmarksV4Model.path)
        let favoritesRoot = try #require(objects.first { ($0["attributes"] as? [String: Any])?["uuid"] as? String == "favorites_root" })
        let favorites = (favoritesRoot["relationships"] as? [String: Any])?["favorites"] as? [String]
        #expect(favorites?.map { String($0.split(separator: "/").last!) } == ["p8", "p1", "p10", "p7", "p9"])
        #expect((favoritesRoot["attributes"] as? [String: Any])?["isFolder"] as? Bool == true)
    }

    @Test(.needsCorpus) func storeDumpWithTheWrongModelNamesWhatDiffers() throws {
        let directory = TemporaryDirectory()
        let store = try Corpus.copyStore(at: Self.bookmarksV4Store, to: directory)
        let olderModel = Self.bookmarksV4Model.deletingLastPathComponent().appendingPathComponent("BookmarksModel 3.xcdatamodel")
        let result = try OCD.run(["store", "dump", store.path, "--model", olderModel.path])
        #expect(result.status == 1)
        #expect(result.error.contains("entity 'BookmarkEntity'"))
    }

    /// The bytes of a store and its companions.
    static func contents(of store: URL) throws -> [Data?] {
        ["", "-wal"].map { FileManager.default.contents(atPath: store.path + $0) }
    }
}

/// Runs the `ocd` executable built next to the test runner.
enum OCD {
    struct Result {
        let status: Int32
        let output: String
        let error: String
    }

    static var executable: URL { product("ocd") }

    /// An executable product built next to the test runner.
    static func product(_ name: String) -> URL {
        let runner = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        for folder in [runner, runner.deletingLastPathComponent(), Bundle.main.bundleURL] {
            let candidate = folder.appendingPathComponent(name)
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
        }
        return runner.appendingPathComponent(name)
    }

    /// Runs `ocd` as the user `nobody` when the tests run as root (which reads any file), so
    /// that permissions apply; as the current user otherwise.
    static func runAsUnprivilegedUser(_ arguments: [String]) throws -> Result {
        guard getuid() == 0 else { return try run(arguments) }
        return try run(["--reuid=65534", "--regid=65534", "--clear-groups", executable.path] + arguments,
                       executable: URL(fileURLWithPath: "/usr/bin/setpriv"))
    }

    static func run(_ arguments: [String], executable: URL = executable, environment: [String: String]? = nil) throws -> Result {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        if let environment { process.environment = environment }
        let output = Pipe(), error = Pipe()
        process.standardOutput = output
        process.standardError = error
        try process.run()
        let outputData = output.fileHandleForReading.readDataToEndOfFile()
        let errorData = error.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Result(status: process.terminationStatus, output: String(decoding: outputData, as: UTF8.self),
                      error: String(decoding: errorData, as: UTF8.self))
    }
}

/// `ocd store info` and the commands that read a store's own model.
@Suite struct OCDStoreInfoTests {
    static let sampleModel2Store = Corpus.url("stores/alemar11__CoreDataPlus/Tests__Resources__SampleModel2__Fixtures__SampleModel2_V1.sqlite")
    static let sampleModelV2Store = Corpus.url("stores/alemar11__CoreDataPlus/Tests__Resources__SampleModel__Fixtures__SampleModel_V2.sqlite")
    static let momd = Corpus.url("compiled/alemar11__CoreDataPlus/Tests__Resources__SampleModel__Fixtures__SampleModel.momd")

    @Test(.needsCorpus) func storeInfoCountsTheObjectsOfEveryEntityWithTheStoresOwnModel() throws {
        let directory = TemporaryDirectory()
        let store = try Corpus.copyStore(at: Self.sampleModel2Store, to: directory)
        let result = try OCD.run(["store", "info", store.path, "--json"])
        #expect(result.status == 0, "\(result.error)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any])
        #expect(json["storeType"] as? String == "SQLite")
        #expect(json["frameworkVersion"] as? Int == 1344)
        #expect(json["storedModel"] as? String == "modelCache")
        let counts = Dictionary(uniqueKeysWithValues: (json["entities"] as? [[String: Any]] ?? []).map {
            ($0["name"] as? String ?? "", $0["count"] as? Int ?? -1)
        })
        // Counted independently with SQL on the copy.
        let raw = try SQLiteConnection(path: store.path)
        #expect(counts["Page"] == Int(try raw.scalar("SELECT COUNT(*) FROM ZPAGE").int64Value ?? -1))
        #expect(counts["Book"] == Int(try raw.scalar("SELECT COUNT(*) FROM ZBOOK WHERE Z_ENT = 1").int64Value ?? -1))
        #expect(counts["GraphicNovel"] == Int(try raw.scalar("SELECT COUNT(*) FROM ZBOOK WHERE Z_ENT = 2").int64Value ?? -1))
        let metadata = try #require(json["metadata"] as? [String: Any])
        #expect((metadata["NSStoreModelVersionHashes"] as? [String: String])?.count == 6)
    }

    @Test(.needsCorpus) func storeInfoSaysWhetherAModelFits() throws {
        let directory = TemporaryDirectory()
        let store = try Corpus.copyStore(at: Self.sampleModelV2Store, to: directory)
        // The .momd's current version is SampleModel (version 1); the store was written with version 2.
        let result = try OCD.run(["store", "info", store.path, "--model", Self.momd.path, "--json"])
        #expect(result.status == 0, "\(result.error)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any])
        let compatibility = try #require(json["compatibility"] as? [String: Any])
        #expect(compatibility["compatible"] as? Bool == false)
        #expect(compatibility["versionHashesMatch"] as? Bool == false)
        #expect((compatibility["reason"] as? String)?.contains("entity 'Car'") == true)
        let fitting = Corpus.url("models/alemar11__CoreDataPlus/Tests__Resources__SampleModel__SampleModel.xcdatamodeld/SampleModel2.xcdatamodel")
        let good = try OCD.run(["store", "info", store.path, "--model", fitting.path, "--json"])
        let goodJSON = try #require(try JSONSerialization.jsonObject(with: Data(good.output.utf8)) as? [String: Any])
        let goodCompatibility = try #require(goodJSON["compatibility"] as? [String: Any])
        #expect(goodCompatibility["compatible"] as? Bool == true)
        #expect(goodCompatibility["versionHashesMatch"] as? Bool == true)
        #expect(goodCompatibility["differingEntities"] as? [String] == [])
    }

    @Test(.needsCorpus) func aStoresOwnModelIsShownAndUsedForDumping() throws {
        let directory = TemporaryDirectory()
        let store = try Corpus.copyStore(at: Self.sampleModel2Store, to: directory)
        let shown = try OCD.run(["model", "show", store.path, "--json"])
        #expect(shown.status == 0, "\(shown.error)")
        let model = try #require(try JSONSerialization.jsonObject(with: Data(shown.output.utf8)) as? [String: Any])
        #expect(model["storedModel"] as? String == "modelCache")
        #expect((model["entities"] as? [[String: Any]])?.compactMap { $0["name"] as? String }
                == ["Author", "Book", "Feedback", "GraphicNovel", "Page", "Writer"])
        let dumped = try OCD.run(["store", "dump", store.path])
        #expect(dumped.status == 0, "\(dumped.error)")
        #expect(dumped.output.components(separatedBy: "\nPage x-coredata://").count - 1 == 4970)
        #expect(dumped.output.hasPrefix("Model: the store's model cache\n"))
    }

    @Test(.needsCorpus) func aCompiledModelsVersionsAndMomcsHashes() throws {
        let versions = try ModelFileVersions(at: Self.momd)
        #expect(versions.names == ["SampleModel", "SampleModel2", "SampleModel3"])
        #expect(versions.current == "SampleModel")
        // momc's hashes are the hashes of the versions as loaded.
        for name in versions.names {
            let model = try NSManagedObjectModel(validatingContentsOf: Self.momd.appendingPathComponent("\(name).mom"))
            #expect(versions.entityVersionHashes[name] == model.entityVersionHashesByName, "\(name)")
        }
    }

    @Test func aStoreWithoutAModelCacheIsReadWithAnInferredModelAndSaysSo() throws {
        let directory = TemporaryDirectory()
        let url = try StoreSchemaInferenceTests.makeOldStyleStore(in: directory)
        let info = try OCD.run(["store", "info", url.path, "--json"])
        #expect(info.status == 0, "\(info.error)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(info.output.utf8)) as? [String: Any])
        #expect(json["storedModel"] as? String == "inferredFromTables")
        let counts = (json["entities"] as? [[String: Any]] ?? []).reduce(into: [String: Int]()) { $0[$1["name"] as? String ?? ""] = $1["count"] as? Int }
        #expect(counts["Person"] == 4)
        let dump = try OCD.run(["store", "dump", url.path])
        #expect(dump.status == 0, "\(dump.error)")
        #expect(dump.output.hasPrefix("Model: inferred from the store's tables\n"))
        #expect(dump.output.contains("  name = \"Ada\""))
    }

    @Test(.needsCorpus) func notAStoreIsAClearError() throws {
        let directory = TemporaryDirectory()
        let text = directory.file("notes.sqlite")
        try "hello".write(to: text, atomically: true, encoding: .utf8)
        let result = try OCD.run(["store", "info", text.path])
        #expect(result.status == 1)
        #expect(result.error.contains(text.path))
        let truncated = directory.file("truncated.sqlite")
        let original = try Data(contentsOf: OCDToolTests.bookmarksV4Store)
        try original.prefix(1000).write(to: truncated)
        let cut = try OCD.run(["store", "dump", truncated.path])
        #expect(cut.status == 1)
        #expect(cut.error.contains(truncated.path))
        #expect(try Data(contentsOf: truncated) == original.prefix(1000))
    }
}

/// `ocd predicate`: parse, print back, and show the SQL.
@Suite struct OCDPredicateTests {
    static let sampleModel = Corpus.url("models/alemar11__CoreDataPlus/Tests__Resources__SampleModel__SampleModel.xcdatamodeld")

    @Test func aFormatIsPrintedBackWithItsArguments() throws {
        let result = try OCD.run(["predicate", "name BEGINSWITH[cd] %@ AND age > %d AND id IN %@", "\"ad\"", "30", "[1, 2]"])
        #expect(result.status == 0)
        #expect(result.output == "name BEGINSWITH[cd] \"ad\" AND age > 30 AND id IN {1, 2}\n")
    }

    @Test func aMalformedFormatNamesThePosition() throws {
        let result = try OCD.run(["predicate", "age > "])
        #expect(result.status == 1)
        #expect(result.error == "ocd: Unable to parse the format string \"age > \": expected an expression, found the end of the format at character 6\n")
        let notJSON = try OCD.run(["predicate", "name == %@", "tea"])
        #expect(notJSON.status == 2)
        #expect(notJSON.error.contains("argument 1 is not a JSON value"))
    }

    @Test(.needsCorpus) func withAnEntityAndAModelTheSQLIsShown() throws {
        let result = try OCD.run(["predicate", "ANY cars.model == %@", "\"Panda\"", "--entity", "Person",
                                  "--model", Self.sampleModel.path, "--json"])
        #expect(result.status == 0, "\(result.error)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any])
        #expect(json["predicateFormat"] as? String == "ANY cars.model == \"Panda\"")
        #expect((json["sql"] as? String)?.contains("EXISTS (SELECT 1 FROM ZCAR") == true)
        #expect(json["arguments"] as? [String] == ["Panda"])
        let unknown = try OCD.run(["predicate", "nope == 1", "--entity", "Car", "--model", Self.sampleModel.path])
        #expect(unknown.status == 1)
        #expect(unknown.error.contains("keypath nope not found in entity Car"))
    }
}
