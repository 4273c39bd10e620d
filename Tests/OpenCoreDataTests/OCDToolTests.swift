import Foundation
import Testing

/// The `ocd` tool's inspection commands, run as a user runs them: exit codes, messages, and the
/// documented `--json` output (Docs/ocd-json.md).
@Suite struct OCDToolTests {
    static let sampleModel = Corpus.root.appendingPathComponent("models/alemar11__CoreDataPlus/Tests__Resources__SampleModel__SampleModel.xcdatamodeld")
    static let bookmarksV4Model = Corpus.root.appendingPathComponent(
        "models/duckduckgo__BrowserServicesKit/Sources__Bookmarks__BookmarksModel.xcdatamodeld/BookmarksModel 4.xcdatamodel")
    static let bookmarksV4Store = Corpus.root.appendingPathComponent(
        "stores/duckduckgo__BrowserServicesKit/Tests__BookmarksTests__Resources__Bookmarks_V4.sqlite")

    @Test func modelShowPrintsTheModelAsJSON() throws {
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
    }

    @Test func badPathsAndArgumentsFailClearly() throws {
        let missing = try OCD.run(["model", "show", "/no/such/Model.xcdatamodeld"])
        #expect(missing.status == 1)
        #expect(missing.error == "ocd: /no/such/Model.xcdatamodeld: no such file or folder\n")
        let notAModel = try OCD.run(["model", "show", Self.bookmarksV4Store.path])
        #expect(notAModel.status == 1)
        #expect(notAModel.error.contains("not a model"))
        #expect(try OCD.run(["model", "show"]).status == 2)
        #expect(try OCD.run(["store", "dump", Self.bookmarksV4Store.path, "--model"]).status == 2)
        #expect(try OCD.run(["store", "explode"]).status == 2)
    }

    @Test func storeDumpPrintsEveryObjectAndLeavesTheStoreAsItWas() throws {
        let directory = TemporaryDirectory()
        let store = try Corpus.copyStore(at: Self.bookmarksV4Store, to: directory)
        let before = try Self.contents(of: store)
        let result = try OCD.run(["store", "dump", store.path, "--model", Self.bookmarksV4Model.path, "--json"])
        #expect(result.status == 0, "\(result.error)")
        #expect(try Self.contents(of: store) == before)
        let json = try #require(try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any])
        let objects = try #require(json["objects"] as? [[String: Any]])
        #expect(objects.count == 10)
        let favoritesRoot = try #require(objects.first { ($0["attributes"] as? [String: Any])?["uuid"] as? String == "favorites_root" })
        let favorites = (favoritesRoot["relationships"] as? [String: Any])?["favorites"] as? [String]
        #expect(favorites?.map { String($0.split(separator: "/").last!) } == ["p8", "p1", "p10", "p7", "p9"])
        #expect((favoritesRoot["attributes"] as? [String: Any])?["isFolder"] as? Bool == true)
    }

    @Test func storeDumpWithTheWrongModelNamesWhatDiffers() throws {
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

    static var executable: URL {
        let runner = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        for folder in [runner, runner.deletingLastPathComponent(), Bundle.main.bundleURL] {
            let candidate = folder.appendingPathComponent("ocd")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
        }
        return runner.appendingPathComponent("ocd")
    }

    static func run(_ arguments: [String]) throws -> Result {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
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
