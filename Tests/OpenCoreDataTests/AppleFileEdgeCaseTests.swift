import Foundation
import Testing
import OCDSQLite
import OpenCoreData
@testable import OpenCoreDataCore
@testable import OpenCoreDataSQLite

/// Edge cases of reading Apple's files (Xcode models, compiled models, keyed archives,
/// Apple-written stores, `ocd`): versions without a current one, cycles and self-references,
/// corrupt archives and metadata. Each is an answer or a clear error, never a hang or a crash.
@Suite struct AppleFileEdgeCaseTests {
    // MARK: Helpers

    static func writeVersion(_ name: String, entity: String, in bundle: URL) throws {
        let version = bundle.appendingPathComponent("\(name).xcdatamodel")
        try FileManager.default.createDirectory(at: version, withIntermediateDirectories: true)
        try XcodeModelTests.minimalModel(entity: entity)
            .write(to: version.appendingPathComponent("contents"), atomically: true, encoding: .utf8)
    }

    /// Runs `body` on a thread; exits the (exit-test) process with status 1 if it has not
    /// finished after `seconds`.
    static func finishes(within seconds: Double, _ body: @escaping @Sendable () -> Void) {
        let done = DispatchSemaphore(value: 0)
        let thread = Thread {
            body()
            done.signal()
        }
        thread.stackSize = 8 << 20
        thread.start()
        if done.wait(timeout: .now() + seconds) == .timedOut { exit(1) }
    }

    // MARK: 1. Version order of a .xcdatamodeld

    /// "Journal 2" is newer than "Journal"; without `.xccurrentversion` it must load, and
    /// `ModelFileVersions` must list it last (its own documentation says so).
    @Test func withoutACurrentVersionJournal2IsNewerThanJournal() throws {
        let directory = TemporaryDirectory()
        let bundle = directory.file("Journal.xcdatamodeld")
        try Self.writeVersion("Journal", entity: "One", in: bundle)
        try Self.writeVersion("Journal 2", entity: "Two", in: bundle)
        #expect(try NSManagedObjectModel(validatingContentsOf: bundle).entities.map(\.name) == ["Two"])
        let versions = try ModelFileVersions(at: bundle)
        #expect(versions.names == ["Journal", "Journal 2"])
        #expect(versions.current == "Journal 2")
    }

    /// XcodeModel's documentation: "Model.V2" after "Model" (CoreStore's EvolutionDemo layout).
    @Test func withoutACurrentVersionModelV2IsNewerThanModel() throws {
        let directory = TemporaryDirectory()
        let bundle = directory.file("Model.xcdatamodeld")
        try Self.writeVersion("Model", entity: "One", in: bundle)
        try Self.writeVersion("Model.V2", entity: "Two", in: bundle)
        #expect(try NSManagedObjectModel(validatingContentsOf: bundle).entities.map(\.name) == ["Two"])
        #expect(try ModelFileVersions(at: bundle).names == ["Model", "Model.V2"])
    }

    /// The corpus's DuckDuckGo bundle: versions "BookmarksModel", "BookmarksModel 2" … "6".
    @Test(.needsCorpus) func theOldestBookmarksModelVersionIsListedFirst() throws {
        let bundle = Corpus.url("models/duckduckgo__BrowserServicesKit/Sources__Bookmarks__BookmarksModel.xcdatamodeld")
        let versions = try ModelFileVersions(at: bundle)
        #expect(versions.names.first == "BookmarksModel")
        #expect(versions.names.last == "BookmarksModel 6")
    }

    // MARK: 2. Inheritance cycles in an Xcode model

    /// A -> B -> C -> B: the cycle does not pass through A, and resolving A's parents never ends.
    @Test func aParentCycleNotThroughTheFirstEntityIsAnErrorNotAHang() async {
        await #expect(processExitsWith: .success) {
            AppleFileEdgeCaseTests.finishes(within: 20) {
                let xml = """
                <?xml version="1.0"?><model>
                <entity name="A" parentEntity="B"/>
                <entity name="B" parentEntity="C"/>
                <entity name="C" parentEntity="B"/>
                </model>
                """
                do {
                    _ = try XcodeModelTests.load(xml)
                    exit(2)
                } catch is ModelFileError {
                } catch {
                    exit(3)
                }
            }
        }
    }

    // MARK: 3. Keyed archives: NSURL whose NS.base is itself

    /// `FoundationValueDecoder` decodes `NS.base` with `decodeObject` directly, bypassing the
    /// cycle check of `decode`: an NSURL whose base is itself recurses until the stack overflows.
    @Test func anArchivedURLThatIsItsOwnBaseIsAnErrorNotACrash() async {
        await #expect(processExitsWith: .success) {
            AppleFileEdgeCaseTests.finishes(within: 20) {
                let b = KeyedArchiveBuilder()
                let model = b.reserve()
                let entity = b.reserve()
                let url = b.reserve()
                b.object(["NSURL"], ["NS.relative": b.string("page"), "NS.base": .uid(url)], at: url)
                let site = b.object(["NSAttributeDescription", "NSPropertyDescription"], [
                    "NSPropertyName": b.string("site"), "NSAttributeType": .integer(1200), "NSIsOptional": .bool(true),
                    "NSEntity": .uid(entity), "NSDefaultValue": .uid(url),
                ])
                b.object(["NSEntityDescription"], [
                    "NSEntityName": b.string("Page"), "NSManagedObjectModel": .uid(model),
                    "NSProperties": b.dictionary([("site", site)]),
                ], at: entity)
                b.object(["NSManagedObjectModel"], ["NSEntities": b.dictionary([("Page", .uid(entity))])], at: model)
                do {
                    _ = try CompiledModel.model(fromArchive: b.archive(root: model), source: URL(fileURLWithPath: "/m/Crafted.mom"))
                    exit(2)
                } catch is ModelFileError {
                } catch {
                    exit(3)
                }
            }
        }
    }

    /// `ArchivedValue.stringValue()` follows an NSString's `NS.string` without a cycle check:
    /// an entity name that is an NSString whose `NS.string` is itself recurses until the
    /// stack overflows.
    @Test func anArchivedStringThatContainsItselfIsAnErrorNotACrash() async {
        await #expect(processExitsWith: .success) {
            AppleFileEdgeCaseTests.finishes(within: 20) {
                let b = KeyedArchiveBuilder()
                let model = b.reserve()
                let entity = b.reserve()
                let name = b.reserve()
                b.object(["NSMutableString", "NSString"], ["NS.string": .uid(name)], at: name)
                b.object(["NSEntityDescription"], ["NSEntityName": .uid(name), "NSManagedObjectModel": .uid(model)], at: entity)
                b.object(["NSManagedObjectModel"], ["NSEntities": b.dictionary([("Page", .uid(entity))])], at: model)
                do {
                    _ = try CompiledModel.model(fromArchive: b.archive(root: model), source: URL(fileURLWithPath: "/m/Crafted.mom"))
                    exit(2)
                } catch is ModelFileError {
                } catch {
                    exit(3)
                }
            }
        }
    }

    // MARK: 4. Stores without a model cache: a malformed Z_PRIMARYKEY

    /// Two Z_PRIMARYKEY rows with one name: `Dictionary(uniqueKeysWithValues:)` in
    /// `StoreSchemaInference.inferModel` traps.
    @Test func aDuplicateEntityNameInZPrimaryKeyIsAnErrorNotACrash() async {
        await #expect(processExitsWith: .success) {
            let directory = TemporaryDirectory()
            let url = try StoreSchemaInferenceTests.makeOldStyleStore(in: directory)
            try SQLiteConnection(path: url.path).execute("INSERT INTO Z_PRIMARYKEY (Z_ENT, Z_NAME, Z_SUPER, Z_MAX) VALUES (99, 'Pet', 0, 0)")
            do {
                _ = try NSPersistentStoreCoordinator.storedModelForPersistentStore(ofType: NSSQLiteStoreType, at: url)
                exit(2)
            } catch is ModelFileError {
            }
        }
    }

    /// An entity that is its own parent (Z_SUPER = Z_ENT) in an old store: the inferred model
    /// makes the entity its own superentity, and opening the store with it recurses without end
    /// (`freezeLayout` → `superentity.freezeLayout()`). The inference must refuse the cycle, as
    /// `KeyedArchiveModelDecoder.linkInheritance` does for model caches.
    @Test func anEntityThatIsItsOwnParentInZPrimaryKeyIsAnErrorNotACrash() async {
        await #expect(processExitsWith: .success) {
            AppleFileEdgeCaseTests.finishes(within: 20) {
                do {
                    let directory = TemporaryDirectory()
                    let url = try StoreSchemaInferenceTests.makeOldStyleStore(in: directory)
                    try SQLiteConnection(path: url.path).execute("UPDATE Z_PRIMARYKEY SET Z_SUPER = Z_ENT WHERE Z_NAME = 'Dog'")
                    let stored = try NSPersistentStoreCoordinator.storedModelForPersistentStore(ofType: NSSQLiteStoreType, at: url)
                    let coordinator = NSPersistentStoreCoordinator(managedObjectModel: stored.model)
                    _ = try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url,
                                                           options: [NSReadOnlyPersistentStoreOption: true])
                    exit(2)
                } catch {
                    // Any error naming the broken Z_PRIMARYKEY will do.
                }
            }
        }
    }

    // MARK: 5. Entity numbers from a store

    /// A negative Z_ENT in an Apple store's Z_PRIMARYKEY: `SQLiteSchema.init` writes
    /// `mappingsByNumber[-1]` and traps (index out of range) when the store is opened with its
    /// own model, as `ocd store dump` does.
    @Test(.needsCorpus) func aNegativeEntityNumberIsAnErrorNotACrash() async {
        await #expect(processExitsWith: .success) {
            let directory = TemporaryDirectory()
            let url = try Corpus.copyStore("stores/alemar11__CoreDataPlus/Tests__Resources__SampleModel2__Fixtures__SampleModel2_V1.sqlite", to: directory)
            try SQLiteConnection(path: url.path).execute("UPDATE Z_PRIMARYKEY SET Z_ENT = -3 WHERE Z_NAME = 'Feedback'")
            do {
                let stored = try NSPersistentStoreCoordinator.storedModelForPersistentStore(ofType: NSSQLiteStoreType, at: url)
                let coordinator = NSPersistentStoreCoordinator(managedObjectModel: stored.model)
                _ = try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url,
                                                       options: [NSReadOnlyPersistentStoreOption: true])
                exit(2)
            } catch is CocoaError {
            } catch is ModelFileError {
            }
        }
    }

    // MARK: 6. Property lists still read with Foundation

    /// `SQLiteMetadataTable.read` parses Z_PLIST with `PropertyListSerialization`, which (as
    /// BinaryPropertyList's documentation notes) segfaults on some corrupt binary plists on
    /// Linux: here the corpus's SampleModel.mom with byte 3037 set to 0xC1. Reading metadata
    /// must not crash: it reads what it can (our own reader takes these bytes) or throws 134000.
    @Test(.needsCorpus) func corruptStoreMetadataNeverCrashes() async {
        await #expect(processExitsWith: .success) {
            let directory = TemporaryDirectory()
            let url = try Corpus.copyStore("stores/alemar11__CoreDataPlus/Tests__Resources__SampleModel2__Fixtures__SampleModel2_V1.sqlite", to: directory)
            var plist = try Data(contentsOf: Corpus.momd.appendingPathComponent("SampleModel.mom"))
            plist[3037] = 0xC1
            try SQLiteConnection(path: url.path).run("UPDATE Z_METADATA SET Z_PLIST = ?", [.blob(plist)])
            do {
                _ = try NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: NSSQLiteStoreType, at: url)
            } catch let error as CocoaError where error.code.rawValue == 134000 {
            }
        }
    }

    /// The same bytes as a bundle's `.xccurrentversion` (read with `PropertyListSerialization`):
    /// loading the bundle must not crash, whether it then loads or throws.
    @Test(.needsCorpus) func aCorruptBinaryCurrentVersionFileNeverCrashes() async {
        await #expect(processExitsWith: .success) {
            let directory = TemporaryDirectory()
            let bundle = directory.file("Journal.xcdatamodeld")
            try AppleFileEdgeCaseTests.writeVersion("Journal", entity: "One", in: bundle)
            var plist = try Data(contentsOf: Corpus.momd.appendingPathComponent("SampleModel.mom"))
            plist[3037] = 0xC1
            try plist.write(to: bundle.appendingPathComponent(".xccurrentversion"))
            _ = try? NSManagedObjectModel(validatingContentsOf: bundle)
        }
    }

    // MARK: 7. ocd: commands that must only read

    static func fileNames(in directory: TemporaryDirectory) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: directory.url.path).sorted()
    }

    /// Docs/ocd-json.md: "The inspection commands never change a file". A closed WAL store
    /// (no `-wal` beside it, as CoreDataPlus's SampleModel2_V1.sqlite) gets a new empty `-wal`
    /// and a `-shm` from `ocd store info` and `ocd store dump`, left behind: `SQLiteStore.load`
    /// opens read-only stores without the `immutable` treatment `SQLiteStoreFile.open` gives them.
    @Test(.needsCorpus, arguments: ["info", "dump"])
    func ocdStoreCommandsCreateNoFilesBesideAClosedStore(_ subcommand: String) throws {
        let directory = TemporaryDirectory()
        let store = try Corpus.copyStore(at: OCDStoreInfoTests.sampleModel2Store, to: directory)
        let before = try Self.fileNames(in: directory)
        #expect(before == ["Tests__Resources__SampleModel2__Fixtures__SampleModel2_V1.sqlite"])
        let result = try OCD.run(["store", subcommand, store.path, "--json"])
        #expect(result.status == 0, "\(result.error)")
        #expect(try Self.fileNames(in: directory) == before)
    }

    // MARK: 8. ocd --json: metadata values

    /// `PropertyListJSON.init` tries `as Bool` before `NSNumber`, and on Linux an NSNumber 0 or
    /// 1 casts to Bool: OpenCoreData's own `NSPersistenceFrameworkVersion` (1) is printed as
    /// `true`, and any metadata integer 0 or 1 as a Boolean.
    @Test func metadataIntegersOneAndZeroStayNumbers() throws {
        let directory = TemporaryDirectory()
        let url = directory.file("Numbers.sqlite")
        do {
            let coordinator = NSPersistentStoreCoordinator(managedObjectModel: TestModel.make())
            let store = try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url, options: nil)
            var metadata = coordinator.metadata(for: store)
            metadata["zero"] = 0
            metadata["flag"] = true
            coordinator.setMetadata(metadata, for: store)
            let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
            context.persistentStoreCoordinator = coordinator
            try context.performAndWait {
                NSEntityDescription.insertNewObject(forEntityName: "Club", into: context).setValue("c", forKey: "name")
                try context.save()
            }
        }
        let result = try OCD.run(["store", "info", url.path, "--json"])
        #expect(result.status == 0, "\(result.error)")
        #expect(result.output.contains("\"NSPersistenceFrameworkVersion\" : 1"), "\(result.output)")
        #expect(result.output.contains("\"zero\" : 0"))
        #expect(result.output.contains("\"flag\" : true"))
    }

    // MARK: 9. A store missing a many-to-many join table

    /// `StoreCompatibility.compareStructure` compares entity tables and their columns, not the join
    /// tables of many-to-many relationships (nor `Z_FOK_` order columns). Bookmarks_V4 without
    /// `Z_1FAVORITES` opens, and `ocd store dump` exits 0 printing every `favorites` list as
    /// `[]`: the load error is only recorded in the object's rejected values. The dump must
    /// fail (exit 1, nothing on standard output, as Docs/ocd-json.md promises on failure).
    @Test(.needsCorpus) func aStoreWithoutItsJoinTableIsNotDumpedAsEmptyRelationships() throws {
        let directory = TemporaryDirectory()
        let store = try Corpus.copyStore(at: OCDToolTests.bookmarksV4Store, to: directory)
        try SQLiteConnection(path: store.path).execute("DROP TABLE Z_1FAVORITES")
        let result = try OCD.run(["store", "dump", store.path, "--model", OCDToolTests.bookmarksV4Model.path, "--json"])
        #expect(result.status == 1)
        #expect(result.output.isEmpty)
    }

    // MARK: 10. ocd model show: the JSON contract

    /// Docs/ocd-json.md: "`maxCount` 0 means no maximum". A model cache of a code-built model
    /// (CoreDataPlus's SampleModel2: `Author.books`, archived NSMaxCount -1) comes back with
    /// `maxCount` Int.max, which `model show --json` prints as 9223372036854775807.
    @Test(.needsCorpus) func anUnboundedToManyHasMaxCountZeroInModelShow() throws {
        let directory = TemporaryDirectory()
        let store = try Corpus.copyStore(at: OCDStoreInfoTests.sampleModel2Store, to: directory)
        let result = try OCD.run(["model", "show", store.path, "--json"])
        #expect(result.status == 0, "\(result.error)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any])
        let author = try #require((json["entities"] as? [[String: Any]])?.first { $0["name"] as? String == "Author" })
        let books = try #require((author["relationships"] as? [[String: Any]])?.first { $0["name"] as? String == "books" })
        #expect(books["toMany"] as? Bool == true)
        #expect(books["maxCount"] as? Int == 0)
    }

    /// `ocd model show` prints a CocoaError as its raw `NSError` description
    /// (`Error Domain=NSCocoaErrorDomain Code=134000 "(null)"UserInfo={…}`) where `ocd store`
    /// prints the message (`StoreCommand.describe`).
    @Test func modelShowOfASQLiteFileThatIsNoStorePrintsTheMessage() throws {
        let directory = TemporaryDirectory()
        let file = directory.file("Other.sqlite")
        try SQLiteConnection(path: file.path).execute("CREATE TABLE t (a INTEGER)")
        let result = try OCD.run(["model", "show", file.path])
        #expect(result.status == 1)
        #expect(result.error.hasPrefix("ocd: The file \(file.path) is a SQLite database but not a Core Data store"), "\(result.error)")
    }
}
