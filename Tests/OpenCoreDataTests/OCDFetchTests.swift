import Foundation
import Testing
import OpenCoreData
@testable import OpenCoreDataCore
@testable import OpenCoreDataSQLite

/// A model file written by the tests: keepers with animals (an abstract parent with a
/// sub-entity), a to-one with its to-many inverse, a cascade rule.
enum KeeperModel {
    static let contents = """
        <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
        <model>
            <entity name="Animal" isAbstract="YES">
                <attribute name="name" attributeType="String"/>
                <attribute name="legs" optional="YES" attributeType="Integer 16" defaultValueString="4" usesScalarValueType="YES"/>
                <relationship name="owner" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Keeper" inverseName="animals" inverseEntity="Keeper"/>
            </entity>
            <entity name="Dog" parentEntity="Animal">
                <attribute name="breed" optional="YES" attributeType="String"/>
            </entity>
            <entity name="Cat" parentEntity="Animal"/>
            <entity name="Keeper">
                <attribute name="name" attributeType="String"/>
                <attribute name="born" optional="YES" attributeType="Date"/>
                <relationship name="animals" optional="YES" toMany="YES" deletionRule="Cascade" destinationEntity="Animal" inverseName="owner" inverseEntity="Animal"/>
            </entity>
        </model>
        """

    /// Writes the model as `Keepers.xcdatamodel` in `directory`.
    static func write(in directory: TemporaryDirectory) throws -> URL {
        let version = directory.file("Keepers.xcdatamodel")
        try FileManager.default.createDirectory(at: version, withIntermediateDirectories: true)
        try contents.write(to: version.appendingPathComponent("contents"), atomically: true, encoding: .utf8)
        return version
    }

    /// A closed store of the model: Ada keeps Rex (a dog, breed "collie, rough"), Tom (a dog) and
    /// Kit (a cat); Bob keeps nobody; Zed (a dog whose breed has a CR LF line break) has no keeper.
    /// Returns the store and the model file.
    static func writeStore(in directory: TemporaryDirectory) throws -> (store: URL, model: URL) {
        let modelURL = try write(in: directory)
        let model = try NSManagedObjectModel(validatingContentsOf: modelURL)
        let store = directory.file("Keepers.sqlite")
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: store)
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        try context.performAndWait {
            let ada = NSEntityDescription.insertNewObject(forEntityName: "Keeper", into: context)
            ada.setValue("Ada", forKey: "name")
            ada.setValue(Date(timeIntervalSince1970: 1_700_000_000), forKey: "born")
            let bob = NSEntityDescription.insertNewObject(forEntityName: "Keeper", into: context)
            bob.setValue("Bob", forKey: "name")
            try context.save()
            for (entity, name, breed) in [("Dog", "Rex", "collie, rough"), ("Dog", "Tom", nil), ("Cat", "Kit", nil)] {
                let animal = NSEntityDescription.insertNewObject(forEntityName: entity, into: context)
                animal.setValue(name, forKey: "name")
                if let breed { animal.setValue(breed, forKey: "breed") }
                animal.setValue(ada, forKey: "owner")
            }
            let zed = NSEntityDescription.insertNewObject(forEntityName: "Dog", into: context)
            zed.setValue("Zed", forKey: "name")
            zed.setValue("mixed\r\nunknown", forKey: "breed")
            try context.save()
        }
        for opened in coordinator.persistentStores { try coordinator.remove(opened) }
        return (store, modelURL)
    }
}

/// `ocd fetch`, through the binary, on stores the tests write (and a corpus store when there is one).
@Suite struct OCDFetchTests {
    @Test func aTableListsAttributesToOnesAsURIsAndToManysAsCounts() throws {
        let directory = TemporaryDirectory()
        let (store, model) = try KeeperModel.writeStore(in: directory)
        let animals = try OCD.run(["fetch", store.path, "--entity", "Animal", "--model", model.path, "--sort", "name"])
        #expect(animals.status == 0, "\(animals.error)")
        let lines = animals.output.split(separator: "\n").map(String.init)
        #expect(lines.first?.split(separator: " ", omittingEmptySubsequences: true) == ["entity", "uri", "name", "legs", "owner"])
        #expect(lines.count == 7)
        let kit = lines[2].split(separator: " ", omittingEmptySubsequences: true).map(String.init)
        #expect(kit[0] == "Cat")
        #expect(kit[1].hasSuffix("/Cat/p3"))   // one key sequence for the whole Animal tree
        #expect(kit[2...3] == ["Kit", "4"])
        #expect(kit[4].hasPrefix("x-coredata://") && kit[4].hasSuffix("/Keeper/p1"))
        #expect(lines[5].hasPrefix("Dog ") && lines[5].hasSuffix(" Zed   4     nil"), "\(lines[5])")
        #expect(lines.last == "(4 objects)")

        let keepers = try OCD.run(["fetch", store.path, "--entity", "Keeper", "--model", model.path, "--sort", "name:desc"])
        let rows = keepers.output.split(separator: "\n").dropFirst(2).map { $0.split(separator: " ", omittingEmptySubsequences: true) }
        #expect(rows[0].first == "Keeper" && rows[0][2] == "Bob" && rows[0][3] == "nil" && rows[0].last == "0")
        #expect(rows[1][2] == "Ada" && rows[1][3] == "2023-11-14T22:13:20.000Z" && rows[1].last == "3")
    }

    @Test func jsonCarriesTheRequestAndEveryObject() throws {
        let directory = TemporaryDirectory()
        let (store, model) = try KeeperModel.writeStore(in: directory)
        let result = try OCD.run(["fetch", store.path, "--entity", "Dog", "--model", model.path,
                                  "--where", "name BEGINSWITH %@ AND legs == %d", "\"R\"", "4", "--json"])
        #expect(result.status == 0, "\(result.error)")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any])
        #expect(report["entity"] as? String == "Dog")
        #expect(report["model"] as? String == model.path)
        #expect(report["store"] as? String == store.path)
        #expect(report["predicate"] as? String == "name BEGINSWITH \"R\" AND legs == 4")
        let objects = try #require(report["objects"] as? [[String: Any]])
        #expect(objects.count == 1)
        #expect(objects.first?["entity"] as? String == "Dog")
        #expect((objects.first?["attributes"] as? [String: Any])?["breed"] as? String == "collie, rough")
        #expect(((objects.first?["relationships"] as? [String: Any])?["owner"] as? String)?.hasSuffix("/Keeper/p1") == true)

        let keeper = try OCD.run(["fetch", store.path, "--entity", "Keeper", "--model", model.path, "--where", "name == 'Ada'", "--json"])
        let ada = try #require((try JSONSerialization.jsonObject(with: Data(keeper.output.utf8)) as? [String: Any])?["objects"] as? [[String: Any]])
        #expect((ada.first?["relationships"] as? [String: Any])?["animals"] as? Int == 3)
    }

    @Test func csvQuotesWhatItMustAndLeavesNoValueEmpty() throws {
        let directory = TemporaryDirectory()
        let (store, model) = try KeeperModel.writeStore(in: directory)
        let result = try OCD.run(["fetch", store.path, "--entity", "Dog", "--model", model.path, "--sort", "name", "--csv"])
        #expect(result.status == 0, "\(result.error)")
        let rows = result.output.components(separatedBy: "\r\n")
        // Attributes (inherited first), then relationships.
        #expect(rows[0] == "entity,uri,name,legs,breed,owner")
        let owner = try #require(rows[1].split(separator: ",").last)
        #expect(owner.hasPrefix("x-coredata://") && owner.hasSuffix("/Keeper/p1"))
        #expect(rows[1].hasPrefix("Dog,x-coredata://") && rows[1].hasSuffix(",Rex,4,\"collie, rough\",\(owner)"))
        #expect(rows[2].hasSuffix(",Tom,4,,\(owner)"))
        // A CR LF inside a value is quoted; an empty to-one is an empty field.
        #expect(result.output.contains(",Zed,4,\"mixed\r\nunknown\",\r\n"))
        #expect(result.output.hasSuffix("\r\n"))
    }

    @Test func limitAndOffsetPageThroughTheSortedObjects() throws {
        let directory = TemporaryDirectory()
        let (store, model) = try KeeperModel.writeStore(in: directory)
        let page = try OCD.run(["fetch", store.path, "--entity", "Animal", "--model", model.path, "--sort", "name", "--limit", "1",
                                "--offset", "1", "--csv"])
        #expect(page.output.components(separatedBy: "\r\n").dropFirst().first?.split(separator: ",")[2] == "Rex")
    }

    /// Without `--model` the store's own model is used (here inferred from its tables).
    @Test func theStoresOwnModelIsUsedWithoutOne() throws {
        let directory = TemporaryDirectory()
        let (store, _) = try KeeperModel.writeStore(in: directory)
        let result = try OCD.run(["fetch", store.path, "--entity", "Keeper", "--json"])
        #expect(result.status == 0, "\(result.error)")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any])
        #expect((report["objects"] as? [Any])?.count == 2)
    }

    @Test func theStoreIsLeftAsItWas() throws {
        let directory = TemporaryDirectory()
        let (store, model) = try KeeperModel.writeStore(in: directory)
        let before = try FileManager.default.contentsOfDirectory(atPath: directory.url.path).sorted()
        let bytes = try Data(contentsOf: store)
        let result = try OCD.run(["fetch", store.path, "--entity", "Animal", "--model", model.path])
        #expect(result.status == 0, "\(result.error)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.url.path).sorted() == before)
        #expect(try Data(contentsOf: store) == bytes)
    }

    @Test func badInputNamesThePositionTheEntityOrTheFile() throws {
        let directory = TemporaryDirectory()
        let (store, model) = try KeeperModel.writeStore(in: directory)
        let base = ["fetch", store.path, "--model", model.path, "--entity"]

        let malformed = try OCD.run(base + ["Keeper", "--where", "name == == 'x'"])
        #expect(malformed.status == 1)
        #expect(malformed.error.contains("at character 8"), "\(malformed.error)")
        let unknownKey = try OCD.run(base + ["Keeper", "--where", "nmae == 'x'"])
        #expect(unknownKey.status == 1)
        #expect(unknownKey.error.contains("nmae") && unknownKey.error.contains("Keeper"), "\(unknownKey.error)")
        let unknownSort = try OCD.run(base + ["Animal", "--sort", "owner.nmae"])
        #expect(unknownSort.status == 1)
        #expect(unknownSort.error == "ocd: Invalid fetch request: keypath owner.nmae not found in entity Keeper\n")
        let throughToMany = try OCD.run(base + ["Keeper", "--sort", "animals.name"])
        #expect(throughToMany.status == 1)
        #expect(throughToMany.error.contains("animals.name (a sort key cannot go through a to-many relationship)"), "\(throughToMany.error)")
        let unknownEntity = try OCD.run(base + ["Horse"])
        #expect(unknownEntity.status == 1)
        #expect(unknownEntity.error == "ocd: \(store.path): the model (\(model.path)) has no entity 'Horse'; it has Animal, Cat, Dog, Keeper\n")

        let notAStore = directory.file("notes.sqlite")
        try Data("notes".utf8).write(to: notAStore)
        let foreign = try OCD.run(["fetch", notAStore.path, "--entity", "Keeper"])
        #expect(foreign.status == 1)
        #expect(foreign.error.contains(notAStore.path))

        for usage in [["fetch", store.path], ["fetch", "--entity", "Keeper"], base + ["Keeper", "--limit", "-1"],
                      base + ["Keeper", "--json", "--csv"], base + ["Keeper", "--sort", "name:sideways"],
                      base + ["Keeper", "--where", "name == %@", "Ada"], base + ["Keeper", "--bogus"]] {
            let result = try OCD.run(usage)
            #expect(result.status == 2, "\(usage): \(result.error)")
            #expect(result.output.isEmpty)
        }
    }

    @Test(.needsCorpus) func aCorpusStoreIsReadWithItsOwnModel() throws {
        let directory = TemporaryDirectory()
        let store = try Corpus.copyStore(at: OCDToolTests.bookmarksV4Store, to: directory)
        let result = try OCD.run(["fetch", store.path, "--entity", "BookmarkEntity", "--where", "isFolder == YES", "--sort", "title", "--json"])
        #expect(result.status == 0, "\(result.error)")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any])
        #expect(report["model"] as? String == "the store's model cache")
        let objects = try #require(report["objects"] as? [[String: Any]])
        #expect(!objects.isEmpty)
        #expect(objects.allSatisfy { ($0["attributes"] as? [String: Any])?["isFolder"] as? Bool == true })
    }
}

/// `ocd model diagram`, through the binary: the DOT text, and SVG through Graphviz when it is installed.
@Suite struct OCDModelDiagramTests {
    @Test func theDOTTextHasEntitiesRelationshipsAndInheritance() throws {
        let directory = TemporaryDirectory()
        let model = try KeeperModel.write(in: directory)
        let result = try OCD.run(["model", "diagram", model.path])
        #expect(result.status == 0, "\(result.error)")
        let dot = result.output
        #expect(dot.hasPrefix("digraph \"Keepers\" {\n"))
        #expect(dot.hasSuffix("}\n"))
        #expect(dot.contains("\"Animal\" [label=<<TABLE BORDER=\"0\" CELLBORDER=\"1\" CELLSPACING=\"0\" CELLPADDING=\"4\"><TR><TD BGCOLOR=\"#DDE6F0\"><B><I>Animal</I></B></TD></TR>"
                             + "<TR><TD ALIGN=\"LEFT\">name: String</TD></TR><TR><TD ALIGN=\"LEFT\">legs: Integer 16?</TD></TR></TABLE>>];"))
        #expect(dot.contains("<B>Dog</B></TD></TR><TR><TD ALIGN=\"LEFT\">breed: String?</TD></TR></TABLE>"))
        #expect(dot.contains("\"Dog\" -> \"Animal\" [style=dashed, arrowhead=empty, label=\"inherits\"];"))
        #expect(dot.contains("\"Cat\" -> \"Animal\" [style=dashed, arrowhead=empty, label=\"inherits\"];"))
        // The inverse pair is one edge, with both ends' cardinality and delete rule.
        #expect(dot.contains("\"Animal\" -> \"Keeper\" [label=\"Animal.owner: to-one, nullify\\nKeeper.animals: to-many, cascade\", "
                             + "arrowhead=tee, dir=both, arrowtail=crow];"))
        #expect(!dot.contains("\"Keeper\" -> \"Animal\""))
        #expect(!dot.contains("\"Dog\" -> \"Keeper\""), "inherited relationships are drawn once, from the parent")
    }

    @Test func aStoreIsDrawnWithItsOwnModel() throws {
        let directory = TemporaryDirectory()
        let (store, _) = try KeeperModel.writeStore(in: directory)
        let result = try OCD.run(["model", "diagram", store.path])
        #expect(result.status == 0, "\(result.error)")
        #expect(result.output.contains("\"Keeper\" [label=<"))
    }

    @Test func withoutGraphvizSVGIsAClearError() throws {
        let directory = TemporaryDirectory()
        let model = try KeeperModel.write(in: directory)
        let result = try OCD.run(["model", "diagram", model.path, "--format", "svg"], environment: ["PATH": directory.url.path])
        #expect(result.status == 1)
        #expect(result.error.contains("Graphviz's dot program, which is not installed (Debian/Ubuntu: apt-get install graphviz)"))
        #expect(result.output.isEmpty)
    }

    static let hasGraphviz = (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":")
        .contains { FileManager.default.isExecutableFile(atPath: "\($0)/dot") }

    @Test(.enabled(if: hasGraphviz, "needs Graphviz's dot (apt-get install graphviz)"))
    func svgIsDrawnByGraphviz() throws {
        let directory = TemporaryDirectory()
        let model = try KeeperModel.write(in: directory)
        let result = try OCD.run(["model", "diagram", model.path, "--format", "svg"])
        #expect(result.status == 0, "\(result.error)")
        #expect(result.output.hasPrefix("<?xml"))
        #expect(result.output.contains("<svg"))
        #expect(result.output.contains(">Keeper</text>"))
    }

    @Test(.needsCorpus, .enabled(if: hasGraphviz, "needs Graphviz's dot (apt-get install graphviz)"))
    func aCorpusModelRendersAsSVG() throws {
        let model = Corpus.url("models/objcio__core-data/Moody__MoodyModel__Moody.xcdatamodeld")
        let result = try OCD.run(["model", "diagram", model.path, "--format", "svg"])
        #expect(result.status == 0, "\(result.error)")
        for entity in ["Mood", "Country", "Continent", "Region"] { #expect(result.output.contains(">\(entity)</text>")) }
    }

    @Test func usageMistakesExitTwo() throws {
        for arguments in [["model", "diagram"], ["model", "diagram", "x", "--format", "png"], ["model", "diagram", "--format"]] {
            #expect(try OCD.run(arguments).status == 2)
        }
    }
}
