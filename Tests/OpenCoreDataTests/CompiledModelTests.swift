import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import OCDSQLite
import Testing
import OpenCoreData
@testable import OpenCoreDataCore
@testable import OpenCoreDataSQLite

/// The corpus files these tests read.
extension Corpus {
    static let momd = url("compiled/alemar11__CoreDataPlus/Tests__Resources__SampleModel__Fixtures__SampleModel.momd")
    static let sampleModelXML = url("models/alemar11__CoreDataPlus/Tests__Resources__SampleModel__SampleModel.xcdatamodeld")

    /// Every store of the corpus (its `.sqlite` file), relative to the corpus.
    static var storePaths: [String] {
        files(under: "stores", suffix: ".sqlite").map { String($0.path.dropFirst(base.path.count + 1)) }
    }

    /// The corpus path of the store whose file name ends with `__<name>` (`SampleModel_V1.sqlite`).
    static func storePath(_ name: String) -> String {
        storePaths.first { $0.hasSuffix("__" + name) } ?? "stores/" + name
    }
}

/// A small, independent reading of an Xcode model's `contents` XML: what a compiled model of
/// the same version must decode to. (Not the product's XML loader.)
struct XMLModelContents {
    struct Attribute {
        var name: String
        var type: String
        var isOptional: Bool
        var isTransient: Bool
        var defaultValue: String?
        var transformerName: String?
        var preservesValueInHistory: Bool
    }

    struct Relationship {
        var name: String
        var destination: String
        var inverse: String?
        var isOptional: Bool
        var isToMany: Bool
        var isOrdered: Bool
        var deleteRule: String
    }

    struct Entity {
        var name: String
        var parent: String?
        var isAbstract: Bool
        var className: String?
        var elementID: String?
        var attributes: [Attribute] = []
        var relationships: [Relationship] = []
        var uniquenessConstraints: [[String]] = []
        var fetchIndexes: [String: [String]] = [:]
    }

    var entities: [Entity] = []
    var versionIdentifier: String?

    init(contentsOf url: URL) throws {
        let document = try XMLDocument(contentsOf: url, options: [])
        let model = try #require(document.rootElement())
        versionIdentifier = model.attribute(forName: "userDefinedModelVersionIdentifier")?.stringValue
        for element in model.elements(forName: "entity") {
            func value(_ element: XMLElement, _ name: String) -> String? { element.attribute(forName: name)?.stringValue }
            func flag(_ element: XMLElement, _ name: String) -> Bool { value(element, name) == "YES" }
            var entity = Entity(name: value(element, "name") ?? "", parent: value(element, "parentEntity"),
                                isAbstract: flag(element, "isAbstract"), className: value(element, "representedClassName"),
                                elementID: value(element, "elementID"))
            for attribute in element.elements(forName: "attribute") {
                entity.attributes.append(Attribute(
                    name: value(attribute, "name") ?? "", type: value(attribute, "attributeType") ?? "",
                    isOptional: flag(attribute, "optional"), isTransient: flag(attribute, "transient"),
                    defaultValue: value(attribute, "defaultValueString"), transformerName: value(attribute, "valueTransformerName"),
                    preservesValueInHistory: flag(attribute, "preserveAfterDeletion")))
            }
            for relationship in element.elements(forName: "relationship") {
                entity.relationships.append(Relationship(
                    name: value(relationship, "name") ?? "", destination: value(relationship, "destinationEntity") ?? "",
                    inverse: value(relationship, "inverseName"), isOptional: flag(relationship, "optional"),
                    isToMany: flag(relationship, "toMany"), isOrdered: flag(relationship, "ordered"),
                    deleteRule: value(relationship, "deletionRule") ?? "Nullify"))
            }
            for constraints in element.elements(forName: "uniquenessConstraints") {
                for constraint in constraints.elements(forName: "uniquenessConstraint") {
                    entity.uniquenessConstraints.append(constraint.elements(forName: "constraint").compactMap { value($0, "value") })
                }
            }
            for index in element.elements(forName: "fetchIndex") {
                entity.fetchIndexes[value(index, "name") ?? ""] = index.elements(forName: "fetchIndexElement").compactMap { value($0, "property") }
            }
            entities.append(entity)
        }
    }

    static let deleteRules: [String: NSDeleteRule] = [
        "Nullify": .nullifyDeleteRule, "Cascade": .cascadeDeleteRule, "Deny": .denyDeleteRule, "No Action": .noActionDeleteRule,
    ]

    /// Checks that `model` says what this XML says, one expectation per fact.
    func expectMatches(_ model: NSManagedObjectModel, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(model.entities.compactMap(\.name).sorted() == entities.map(\.name).sorted(), sourceLocation: sourceLocation)
        if let versionIdentifier {
            #expect(model.versionIdentifiers == [versionIdentifier], sourceLocation: sourceLocation)
        }
        for expected in entities {
            guard let entity = model.entitiesByName[expected.name] else { continue }
            let place = "entity \(expected.name)"
            #expect(entity.superentity?.name == expected.parent, "\(place): superentity", sourceLocation: sourceLocation)
            #expect(entity.isAbstract == expected.isAbstract, "\(place): abstract", sourceLocation: sourceLocation)
            #expect(entity.managedObjectClassName == expected.className ?? "NSManagedObject", "\(place): class", sourceLocation: sourceLocation)
            #expect(entity.renamingIdentifier == expected.elementID, "\(place): renaming identifier", sourceLocation: sourceLocation)
            let ownNames = entity.properties.map(\.name).sorted()
            #expect(ownNames == (expected.attributes.map(\.name) + expected.relationships.map(\.name)).sorted(),
                    "\(place): own properties", sourceLocation: sourceLocation)
            for attribute in expected.attributes {
                guard let decoded = entity.properties.first(where: { $0.name == attribute.name }) as? NSAttributeDescription else {
                    Issue.record("\(place): no attribute \(attribute.name)", sourceLocation: sourceLocation)
                    continue
                }
                let at = "\(expected.name).\(attribute.name)"
                #expect(decoded.attributeType.modelName == attribute.type, "\(at): type", sourceLocation: sourceLocation)
                #expect(decoded.isOptional == attribute.isOptional, "\(at): optional", sourceLocation: sourceLocation)
                #expect(decoded.isTransient == attribute.isTransient, "\(at): transient", sourceLocation: sourceLocation)
                #expect(decoded.valueTransformerName == attribute.transformerName, "\(at): transformer", sourceLocation: sourceLocation)
                #expect(decoded.preservesValueInHistoryOnDeletion == attribute.preservesValueInHistory,
                        "\(at): preserve after deletion", sourceLocation: sourceLocation)
                switch (attribute.type, attribute.defaultValue) {
                case ("Boolean", let text?):
                    #expect(decoded.defaultValue as? Bool == (text == "YES"), "\(at): default", sourceLocation: sourceLocation)
                case ("Integer 16", let text?), ("Integer 32", let text?), ("Integer 64", let text?):
                    #expect(decoded.defaultValue as? Int == Int(text), "\(at): default", sourceLocation: sourceLocation)
                case (_, nil):
                    #expect(decoded.defaultValue == nil, "\(at): default", sourceLocation: sourceLocation)
                default:
                    break
                }
            }
            for relationship in expected.relationships {
                guard let decoded = entity.properties.first(where: { $0.name == relationship.name }) as? NSRelationshipDescription else {
                    Issue.record("\(place): no relationship \(relationship.name)", sourceLocation: sourceLocation)
                    continue
                }
                let at = "\(expected.name).\(relationship.name)"
                #expect(decoded.destinationEntity?.name == relationship.destination, "\(at): destination", sourceLocation: sourceLocation)
                #expect(decoded.inverseRelationship?.name == relationship.inverse, "\(at): inverse", sourceLocation: sourceLocation)
                #expect(decoded.inverseRelationship?.entity?.name == (relationship.inverse == nil ? nil : relationship.destination),
                        "\(at): inverse's entity", sourceLocation: sourceLocation)
                #expect(decoded.isOptional == relationship.isOptional, "\(at): optional", sourceLocation: sourceLocation)
                #expect(decoded.isToMany == relationship.isToMany, "\(at): to-many", sourceLocation: sourceLocation)
                #expect(decoded.isOrdered == relationship.isOrdered, "\(at): ordered", sourceLocation: sourceLocation)
                #expect(decoded.deleteRule == Self.deleteRules[relationship.deleteRule], "\(at): delete rule", sourceLocation: sourceLocation)
            }
            let constraints = entity.uniquenessConstraints.map { $0.map { "\($0)" } }
            #expect(constraints == expected.uniquenessConstraints, "\(place): uniqueness constraints", sourceLocation: sourceLocation)
            for (name, properties) in expected.fetchIndexes {
                let index = entity.indexes.first { $0.name == name }
                #expect(index?.elements.compactMap(\.propertyName) == properties, "\(place): fetch index \(name)", sourceLocation: sourceLocation)
            }
        }
    }
}

/// Compiled models (`.mom`, `.momd`) and the model cache of Core Data's stores, decoded from
/// their keyed archives and checked against the Xcode models they were compiled from.
@Suite struct CompiledModelTests {
    static let versions = ["SampleModel", "SampleModel2", "SampleModel3"]

    /// The argument lists below come from the corpus; an empty list would pass vacuously.
    @Test(.needsCorpus) func corpusIsThere() {
        #expect(FileManager.default.fileExists(atPath: Corpus.momd.appendingPathComponent("VersionInfo.plist").path))
        #expect(Corpus.storePaths.count == 10)
    }

    @Test(.needsCorpus, arguments: versions)
    func momDecodesToWhatItsXMLSays(version: String) throws {
        let model = try CompiledModel.load(at: Corpus.momd.appendingPathComponent("\(version).mom"))
        let xml = try XMLModelContents(contentsOf: Corpus.sampleModelXML.appendingPathComponent("\(version).xcdatamodel/contents"))
        xml.expectMatches(model)
        // momc lists SampleModel2's fetch index of two properties again as a compound index.
        #expect(model.entities.allSatisfy { $0.compoundIndexes.isEmpty })
        try model.validate()
    }

    @Test(.needsCorpus) func momdLoadsItsCurrentVersion() throws {
        let model = NSManagedObjectModel()
        try CompiledModel.load(at: Corpus.momd, into: model)
        // VersionInfo.plist names SampleModel, the oldest version, as current (as .xccurrentversion does).
        #expect(model.entities.compactMap(\.name) == ["Car", "ExpensiveSportCar", "Person", "SportCar"])
        #expect(model.versionIdentifiers == ["1"])
    }

    @Test(.needsCorpus) func versionInfoGivesTheCurrentVersionAndEveryVersionsHashes() throws {
        let info = try CompiledModel.versionInfo(at: Corpus.momd)
        #expect(info.currentVersionName == "SampleModel")
        #expect(info.versionHashes.keys.sorted() == Self.versions)
        #expect(info.versionHashes["SampleModel"]?.keys.sorted() == ["Car", "ExpensiveSportCar", "Person", "SportCar"])
        #expect(info.versionHashes["SampleModel3"]?.keys.sorted() == ["Car", "LuxuryCar", "Maker", "Person", "SportCar"])
        #expect(info.versionHashes.values.allSatisfy { $0.values.allSatisfy { $0.count == 32 } })
        #expect(info.versionChecksums.isEmpty)  // written by newer Xcode versions only
        // For each version, the entity names of the hashes are the entities of its .mom.
        for version in Self.versions {
            let model = try CompiledModel.load(at: Corpus.momd.appendingPathComponent("\(version).mom"))
            #expect(info.versionHashes[version]?.keys.sorted() == model.entities.compactMap(\.name))
        }
    }

    /// The version hashes computed from each decoded .mom are momc's own (VersionInfo.plist):
    /// every fact that enters a hash (names, types, optionality, transience, the history flag,
    /// inheritance, relationships, uniqueness constraints) was decoded as momc archived it.
    @Test(.needsCorpus, arguments: versions)
    func decodedMOMHashesAsMomcDid(version: String) throws {
        let model = try CompiledModel.load(at: Corpus.momd.appendingPathComponent("\(version).mom"))
        #expect(model.entityVersionHashesByName == (try CompiledModel.versionInfo(at: Corpus.momd).versionHashes[version]))
    }

    /// The same for every store's model cache against the hashes in the store's metadata,
    /// except SampleModel2's: their models have a derived attribute, whose hash is not known.
    @Test(.needsCorpus, arguments: Corpus.storePaths)
    func modelCacheHashesAsTheStoreRecorded(store: String) throws {
        let directory = TemporaryDirectory()
        let copy = try Corpus.copyStore(store, to: directory)
        let model = try #require(try StoreModelCache.model(ofStoreAt: copy))
        let recorded = try #require(try Corpus.rawMetadata(ofStoreAt: copy).plist["NSStoreModelVersionHashes"] as? [String: Data])
        let hasDerivedAttributes = model.entities.contains { $0.properties.contains { $0 is NSDerivedAttributeDescription } }
        #expect(hasDerivedAttributes == store.contains("SampleModel2_"))
        if !hasDerivedAttributes {
            #expect(model.entityVersionHashesByName == recorded)
        }
    }

    /// The store SampleModel_V1 was written with version SampleModel: its metadata holds the
    /// same entity hashes as VersionInfo.plist (COREDATA-FORMAT.md §5).
    @Test(.needsCorpus) func versionInfoHashesAreTheOnesTheStoreRecorded() throws {
        let directory = TemporaryDirectory()
        let store = try Corpus.copyStore(Corpus.storePath("SampleModel_V1.sqlite"), to: directory)
        let recorded = try #require(try Corpus.rawMetadata(ofStoreAt: store).plist["NSStoreModelVersionHashes"] as? [String: Data])
        #expect(try CompiledModel.versionInfo(at: Corpus.momd).versionHashes["SampleModel"] == recorded)
    }

    @Test(.needsCorpus) func momdWithoutVersionInfoTakesItsOnlyMOM() throws {
        let directory = TemporaryDirectory()
        let momd = directory.file("Single.momd")
        try FileManager.default.createDirectory(at: momd, withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: Corpus.momd.appendingPathComponent("SampleModel3.mom"),
                                         to: momd.appendingPathComponent("SampleModel3.mom"))
        #expect(try CompiledModel.load(at: momd).entitiesByName["Maker"] != nil)

        try FileManager.default.copyItem(at: Corpus.momd.appendingPathComponent("SampleModel2.mom"),
                                         to: momd.appendingPathComponent("SampleModel2.mom"))
        let error = #expect(throws: ModelFileError.self) { try CompiledModel.load(at: momd) }
        #expect(error?.file == momd)
        #expect(error?.reason.contains("no VersionInfo.plist") == true)
    }

    // MARK: Model caches

    /// Every corpus store has a model cache (all were written by Core Data 1044 or later);
    /// its entities are the store's entities: Z_PRIMARYKEY's names, leaving out Apple's
    /// persistent history entities (16001…).
    ///
    /// One exception, explained: `SampleModel_V2.sqlite` was migrated in place from version 1,
    /// which renamed ExpensiveSportCar to LuxuryCar (`elementID`). Core Data updated the model
    /// cache and the metadata hashes but left Z_PRIMARYKEY's Z_NAME as it was, so there the
    /// cache's LuxuryCar carries the renaming identifier ExpensiveSportCar.
    @Test(.needsCorpus, arguments: Corpus.storePaths)
    func modelCacheHoldsTheStoresEntities(store: String) throws {
        let directory = TemporaryDirectory()
        let copy = try Corpus.copyStore(store, to: directory)
        let model = try #require(try StoreModelCache.model(ofStoreAt: copy))

        var configuration = SQLiteConnection.Configuration()
        configuration.readOnly = true
        configuration.walMode = false
        let connection = try SQLiteConnection(path: copy.path, configuration: configuration)
        let rows = try connection.rows("SELECT Z_ENT, Z_NAME, Z_SUPER FROM Z_PRIMARYKEY WHERE Z_ENT < 16001 ORDER BY Z_ENT")
        var names: [Int64: String] = [:]
        for row in rows { names[row[0].int64Value ?? 0] = row[1].stringValue }

        var renamed: [String] = []
        for row in rows {
            let name = try #require(row[1].stringValue)
            let entity = model.entitiesByName[name] ?? model.entities.first { $0.renamingIdentifier == name }
            guard let entity else {
                Issue.record("\(copy.lastPathComponent): the model cache has no entity \(name)")
                continue
            }
            if entity.name != name { renamed.append("\(name) → \(entity.name ?? "?")") }
            let parent = row[2].int64Value.flatMap { names[$0] }
            let decodedParent = entity.superentity
            #expect(decodedParent?.name == parent || (parent != nil && decodedParent?.renamingIdentifier == parent),
                    "\(name): superentity")
        }
        #expect(model.entities.count == rows.count)
        let expectedRenames = copy.lastPathComponent.hasSuffix("SampleModel_V2.sqlite") ? ["ExpensiveSportCar → LuxuryCar"] : []
        #expect(renamed == expectedRenames)
        try model.validate()
    }

    /// The cache of the store written with version SampleModel says what that version's XML
    /// says: the inherited properties a cache repeats in each sub-entity are folded back.
    @Test(.needsCorpus) func modelCacheOfSampleModelV1MatchesItsXML() throws {
        let directory = TemporaryDirectory()
        let copy = try Corpus.copyStore(Corpus.storePath("SampleModel_V1.sqlite"), to: directory)
        let model = try #require(try StoreModelCache.model(ofStoreAt: copy))
        let xml = try XMLModelContents(contentsOf: Corpus.sampleModelXML.appendingPathComponent("SampleModel.xcdatamodel/contents"))
        xml.expectMatches(model)
    }

    /// SampleModel2's stores come from a model built in code (CoreDataPlus'
    /// `SampleModel2.V1.makeManagedObjectModel()`): fetched properties, a derived attribute,
    /// validation predicates, a configuration, an abstract entity.
    @Test(.needsCorpus) func modelCacheOfACodeBuiltModel() throws {
        let directory = TemporaryDirectory()
        let copy = try Corpus.copyStore(Corpus.storePath("SampleModel2_V1.sqlite"), to: directory)
        let model = try #require(try StoreModelCache.model(ofStoreAt: copy))
        let entities = model.entitiesByName
        let writer = try #require(entities["Writer"])
        let author = try #require(entities["Author"])
        #expect(writer.isAbstract)
        #expect(author.superentity === writer)
        #expect(author.properties.map(\.name) == ["alias", "books", "favFeedbacks", "feedbacks", "siteURL"])
        #expect(author.attributesByName["age"]?.entity === writer)

        let books = try #require(author.relationshipsByName["books"])
        #expect(books.maxCount == Int.max)  // set to Int.max in code, archived as -1
        #expect(books.deleteRule == .cascadeDeleteRule)
        let pages = try #require(entities["Book"]?.relationshipsByName["pages"])
        #expect(pages.minCount == 1 && pages.maxCount == 10_000)

        let feedbacks = try #require(author.properties.first { $0.name == "feedbacks" } as? NSFetchedPropertyDescription)
        let request = try #require(feedbacks.fetchRequest)
        #expect(request.entityName == "Feedback")
        #expect(request.predicate?.predicateFormat == "authorAlias == $FETCH_SOURCE.alias")
        #expect(request.sortDescriptors?.map(\.key) == ["rating"])
        let favourites = try #require(author.properties.first { $0.name == "favFeedbacks" } as? NSFetchedPropertyDescription)
        #expect(favourites.fetchRequest?.predicate?.predicateFormat
            == "authorAlias == $FETCH_SOURCE.alias AND comment CONTAINS[c] $FETCHED_PROPERTY.userInfo.search")
        #expect(favourites.userInfo?["search"] as? String == "great")

        let pagesCount = try #require(entities["Book"]?.attributesByName["pagesCount"] as? NSDerivedAttributeDescription)
        #expect(pagesCount.attributeType == .integer64AttributeType)
        #expect(pagesCount.derivationExpression?.keyPath == "pages.@count")

        // CoreDataPlus sets both rules in code with `setValidationPredicates`, each with its own
        // warning: they come back as they were set, not as a minimum and maximum length.
        let title = try #require(entities["Book"]?.attributesByName["title"])
        #expect(title.minValue == nil && title.maxValue == nil && title.regularExpression == nil)
        #expect(title.validationPredicates.map(\.predicateFormat) == ["length >= 3 AND length <= 50", "SELF CONTAINS \"title\""])
        #expect(title.validationWarnings.compactMap { $0 as? String }
            == ["Title must have a length between 3 and 50 chars.", "Title must contain 'title'."])

        #expect(entities["Page"]?.attributesByName["isBookmarked"]?.defaultValue as? Bool == false)
        #expect(entities["Book"]?.attributesByName["price"]?.attributeType == .decimalAttributeType)
        #expect(entities["Book"]?.attributesByName["cover"]?.valueTransformerName == "CoverTransformer")
        // The default cover is an archived CoreDataPlus_Tests.Cover: an application class.
        #expect(entities["Book"]?.attributesByName["cover"]?.defaultValue == nil)

        #expect(model.configurations == ["SampleConfigurationV1"])
        #expect(model.entities(forConfigurationName: "SampleConfigurationV1")?.compactMap(\.name)
            == ["Author", "Book", "Feedback", "GraphicNovel", "Page", "Writer"])
        #expect(model.versionIdentifiers.isEmpty)
        #expect(entities["Book"]?.uniquenessConstraints.map { $0.map { "\($0)" } } == [["uniqueID"]])
    }

    /// Bookmarks_V4: an ordered many-to-many, version hash modifiers, indexed attributes and
    /// their fetch indexes.
    @Test(.needsCorpus) func modelCacheWithOrderedRelationshipsAndIndexes() throws {
        let directory = TemporaryDirectory()
        let copy = try Corpus.copyStore(Corpus.storePath("Bookmarks_V4.sqlite"), to: directory)
        let model = try #require(try StoreModelCache.model(ofStoreAt: copy))
        let bookmark = try #require(model.entitiesByName["BookmarkEntity"])
        let favorites = try #require(bookmark.relationshipsByName["favorites"])
        #expect(favorites.isOrdered && favorites.isToMany)
        #expect(favorites.inverseRelationship?.name == "favoriteFolders")
        #expect(bookmark.relationshipsByName["children"]?.deleteRule == .cascadeDeleteRule)
        #expect(bookmark.attributesByName["uuid"]?.versionHashModifier == "3")
        #expect(bookmark.attributesByName["isPendingDeletion"]?.isIndexed == true)
        #expect(bookmark.indexes.map(\.name) == ["isPendingDeletion", "byUUID", "byURL", "byIsPendingDeletion"])
        #expect(bookmark.indexes[1].elements.compactMap(\.propertyName) == ["uuid", "isPendingDeletion"])
        #expect(model.versionIdentifiers == [""])
    }

    /// Reading leaves the database and its write-ahead log as they were (a read-only
    /// connection never checkpoints). The `-shm` is SQLite's shared-memory index of the WAL,
    /// which every reader writes its read marks into, so it is not compared.
    @Test(.needsCorpus) func readingTheModelCacheChangesNeitherTheDatabaseNorItsLog() throws {
        let directory = TemporaryDirectory()
        let copy = try Corpus.copyStore(Corpus.storePath("Bookmarks_V1.sqlite"), to: directory)
        // The log is compared when the corpus store comes with one (a store checkpointed
        // before it was committed has none).
        let files = ["", "-wal"].map { URL(fileURLWithPath: copy.path + $0) }
            .filter { FileManager.default.fileExists(atPath: $0.path) }
        let before = try files.map { try Data(contentsOf: $0) }
        #expect(try StoreModelCache.content(ofStoreAt: copy) != nil)
        #expect(try files.map { try Data(contentsOf: $0) } == before)
    }

    /// A model cache that is only in the `-wal` (not yet checkpointed into the database file)
    /// is read. (In the corpus stores the cache is in the database file; only rows sit in the
    /// logs.) Here SampleModel_V1's store gets SyncMetadata's cache through a write that stays
    /// in its log while the writer is open.
    @Test(.needsCorpus) func modelCacheInTheWriteAheadLogIsRead() throws {
        let directory = TemporaryDirectory()
        let source = try Corpus.copyStore(Corpus.storePath("SyncMetadata_V3.sqlite"), to: directory)
        let target = try Corpus.copyStore(Corpus.storePath("SampleModel_V1.sqlite"), to: directory)
        let content = try #require(try StoreModelCache.content(ofStoreAt: source))

        let writer = try SQLiteConnection(path: target.path)
        try writer.execute("PRAGMA wal_autocheckpoint=0")
        try writer.run("UPDATE Z_MODELCACHE SET Z_CONTENT = ?", [.blob(content)])
        let databaseFile = try Data(contentsOf: target)

        let model = try #require(try StoreModelCache.model(ofStoreAt: target))
        #expect(model.entities.compactMap(\.name) == ["SyncFeatureEntity", "SyncableSettingsMetadata"])
        #expect(try Data(contentsOf: target) == databaseFile)  // the cache really was in the log only
        withExtendedLifetime(writer) {}
    }

    @Test func storeWithoutModelCache() throws {
        let directory = TemporaryDirectory()
        let url = directory.file("Plain.sqlite")
        let connection = try SQLiteConnection(path: url.path)
        try connection.execute("CREATE TABLE Z_PRIMARYKEY (Z_ENT INTEGER PRIMARY KEY, Z_NAME VARCHAR, Z_SUPER INTEGER, Z_MAX INTEGER)")
        #expect(try StoreModelCache.content(ofStoreAt: url) == nil)
        #expect(try StoreModelCache.model(ofStoreAt: url) == nil)
    }

    // MARK: Bad input

    @Test(.needsCorpus) func truncatedMOM() throws {
        let directory = TemporaryDirectory()
        let data = try Data(contentsOf: Corpus.momd.appendingPathComponent("SampleModel.mom"))
        let url = directory.file("Truncated.mom")
        try data.prefix(data.count / 2).write(to: url)
        let error = #expect(throws: ModelFileError.self) { try CompiledModel.load(at: url) }
        #expect(error?.file == url)
        #expect(error?.reason.contains("truncated") == true)
    }

    @Test func textFileNamedMOM() throws {
        let directory = TemporaryDirectory()
        let url = directory.file("Text.mom")
        try Data("This is not a model.\n".utf8).write(to: url)
        let error = #expect(throws: ModelFileError.self) { try CompiledModel.load(at: url) }
        #expect(error?.file == url)
        #expect(error?.reason.contains("not a keyed archive") == true)
    }

    @Test func modelCacheThatIsNotDeflate() throws {
        let store = URL(fileURLWithPath: "/stores/Broken.sqlite")
        let error = #expect(throws: ModelFileError.self) {
            try CompiledModel.model(fromModelCache: Data(repeating: 0xFF, count: 64), source: store)
        }
        #expect(error?.file == store)
        #expect(error?.element == "Z_MODELCACHE")
        #expect(error?.reason.contains("not valid raw DEFLATE") == true)
    }

    @Test(.needsCorpus) func truncatedModelCache() throws {
        let directory = TemporaryDirectory()
        let copy = try Corpus.copyStore(Corpus.storePath("SampleModel_V1.sqlite"), to: directory)
        let content = try #require(try StoreModelCache.content(ofStoreAt: copy))
        let error = #expect(throws: ModelFileError.self) {
            try CompiledModel.model(fromModelCache: content.prefix(content.count / 2), source: copy)
        }
        #expect(error?.file == copy)
        #expect(error?.reason.contains("truncated") == true)
    }

    @Test func keyedArchiveWithADanglingUID() throws {
        // The root model's NSEntities refers to object 99 of a five-object archive.
        let archive = TestPropertyList.keyedArchive(objects: [
            .string("$null"),
            .dictionary(["$class": .uid(2), "NSEntities": .uid(99)]),
            .dictionary(["$classname": .string("NSManagedObjectModel"), "$classes": .array([.string("NSManagedObjectModel"), .string("NSObject")])]),
        ])
        let url = URL(fileURLWithPath: "/models/Dangling.mom")
        let error = #expect(throws: ModelFileError.self) { try CompiledModel.model(fromArchive: archive, source: url) }
        #expect(error?.file == url)
        #expect(error?.reason.contains("dangling UID") == true)
    }

    @Test func keyedArchiveWithoutTop() throws {
        let data = TestPropertyList.binary(.dictionary([
            "$archiver": .string("NSKeyedArchiver"), "$version": .integer(100000), "$objects": .array([.string("$null")]),
        ]))
        let url = URL(fileURLWithPath: "/models/NoTop.mom")
        let error = #expect(throws: ModelFileError.self) { try CompiledModel.model(fromArchive: data, source: url) }
        #expect(error?.file == url)
        #expect(error?.reason.contains("$top") == true)
    }

    @Test func keyedArchiveOfSomethingElse() throws {
        let archive = TestPropertyList.keyedArchive(objects: [
            .string("$null"),
            .dictionary(["$class": .uid(2), "NS.objects": .array([])]),
            .dictionary(["$classname": .string("NSArray"), "$classes": .array([.string("NSArray"), .string("NSObject")])]),
        ])
        let url = URL(fileURLWithPath: "/models/Array.mom")
        let error = #expect(throws: ModelFileError.self) { try CompiledModel.model(fromArchive: archive, source: url) }
        #expect(error?.reason.contains("not an NSManagedObjectModel") == true)
    }

    @Test func entityWhoseNameIsANumber() throws {
        // NSEntities maps "E" to an entity whose NSEntityName is the integer 7.
        let archive = TestPropertyList.keyedArchive(objects: [
            .string("$null"),
            .dictionary(["$class": .uid(2), "NSEntities": .uid(3)]),
            .dictionary(["$classname": .string("NSManagedObjectModel")]),
            .dictionary(["$class": .uid(4), "NS.keys": .array([.uid(5)]), "NS.objects": .array([.uid(6)])]),
            .dictionary(["$classname": .string("NSDictionary")]),
            .string("E"),
            .dictionary(["$class": .uid(7), "NSEntityName": .integer(7)]),
            .dictionary(["$classname": .string("NSEntityDescription")]),
        ])
        let url = URL(fileURLWithPath: "/models/Odd.mom")
        let error = #expect(throws: ModelFileError.self) { try CompiledModel.model(fromArchive: archive, source: url) }
        #expect(error?.element == "entity E")
        #expect(error?.reason.contains("NSEntityName: expected a string, found an integer") == true)
    }

    @Test(.needsCorpus) func omoIsRefusedByName() throws {
        let url = Corpus.momd.appendingPathComponent("SampleModel.omo")
        let error = #expect(throws: ModelFileError.self) { try CompiledModel.load(at: url) }
        #expect(error?.reason.contains(".omo") == true)
    }

    /// Swift-corelibs-foundation's PropertyListSerialization segfaults on this one; our reader
    /// must say what is wrong instead.
    @Test(.needsCorpus) func corruptByteThatCrashesFoundation() throws {
        var data = try Data(contentsOf: Corpus.momd.appendingPathComponent("SampleModel.mom"))
        data[3037] = 0xC1
        let url = URL(fileURLWithPath: "/models/Corrupt.mom")
        #expect(throws: ModelFileError.self) { try CompiledModel.model(fromArchive: data, source: url) }
    }

    /// Every truncation and many single-byte corruptions of a real .mom give a model or a
    /// ModelFileError: never a crash, a hang or another error.
    @Test(.needsCorpus) func corruptedMOMsNeverCrash() throws {
        let original = try Data(contentsOf: Corpus.momd.appendingPathComponent("SampleModel2.mom"))
        let url = URL(fileURLWithPath: "/models/Fuzzed.mom")
        func attempt(_ data: Data) {
            do {
                _ = try CompiledModel.model(fromArchive: data, source: url)
            } catch let error as ModelFileError {
                #expect(error.file == url)
            } catch {
                Issue.record("not a ModelFileError: \(error)")
            }
        }
        for length in stride(from: 0, to: original.count, by: 7) { attempt(original.prefix(length)) }
        var random = SplitMix(seed: 0x0CD)
        for _ in 0..<3000 {
            var data = original
            for _ in 0..<(1 + Int(random.next() % 3)) {
                data[Int(random.next() % UInt64(data.count))] = UInt8(truncatingIfNeeded: random.next())
            }
            attempt(data)
        }
    }
}

/// Writes small binary property lists for tests (objects in order, 2-byte references and
/// offsets; no sharing, so each value is written where it appears).
enum TestPropertyList {
    static func keyedArchive(objects: [PropertyListValue], top: Int = 1) -> Data {
        binary(.dictionary([
            "$archiver": .string("NSKeyedArchiver"), "$version": .integer(100000),
            "$top": .dictionary(["root": .uid(top)]), "$objects": .array(objects),
        ]))
    }

    static func binary(_ value: PropertyListValue) -> Data {
        var objects: [[UInt8]] = []
        @discardableResult
        func add(_ value: PropertyListValue) -> Int {
            let index = objects.count
            objects.append([])
            var bytes: [UInt8] = []
            func marker(_ type: UInt8, _ count: Int) {
                if count < 15 { bytes.append(type << 4 | UInt8(count)) } else { bytes += [type << 4 | 0x0F, 0x11, UInt8(count >> 8), UInt8(count & 0xFF)] }
            }
            func references(_ indices: [Int]) { for reference in indices { bytes += [UInt8(reference >> 8), UInt8(reference & 0xFF)] } }
            switch value {
            case .null: bytes = [0x00]
            case .bool(let flag): bytes = [flag ? 0x09 : 0x08]
            case .integer(let number): bytes = [0x13] + withUnsafeBytes(of: number.bigEndian, Array.init)
            case .real(let number): bytes = [0x23] + withUnsafeBytes(of: number.bitPattern.bigEndian, Array.init)
            case .date(let date): bytes = [0x33] + withUnsafeBytes(of: date.timeIntervalSinceReferenceDate.bitPattern.bigEndian, Array.init)
            case .data(let data): marker(0x4, data.count); bytes += data
            case .string(let text): marker(0x5, text.utf8.count); bytes += Array(text.utf8)
            case .uid(let uid): bytes = [0x81, UInt8(uid >> 8), UInt8(uid & 0xFF)]
            case .array(let elements), .set(let elements):
                let children = elements.map { add($0) }
                marker(value.kindName == "a set" ? 0xC : 0xA, children.count)
                references(children)
            case .dictionary(let dictionary):
                let entries = dictionary.sorted { $0.key < $1.key }
                let keys = entries.map { add(.string($0.key)) }
                let values = entries.map { add($0.value) }
                marker(0xD, entries.count)
                references(keys)
                references(values)
            }
            objects[index] = bytes
            return index
        }
        add(value)
        var data = Array("bplist00".utf8)
        var offsets: [Int] = []
        for object in objects {
            offsets.append(data.count)
            data += object
        }
        let tableOffset = data.count
        for offset in offsets { data += [UInt8(offset >> 24), UInt8(offset >> 16 & 0xFF), UInt8(offset >> 8 & 0xFF), UInt8(offset & 0xFF)] }
        data += [0, 0, 0, 0, 0, 0, 4, 2]
        data += withUnsafeBytes(of: UInt64(objects.count).bigEndian, Array.init)
        data += withUnsafeBytes(of: UInt64(0).bigEndian, Array.init)
        data += withUnsafeBytes(of: UInt64(tableOffset).bigEndian, Array.init)
        return Data(data)
    }
}

/// Builds keyed archives object by object, in Apple's layout, for cases the corpus lacks.
final class KeyedArchiveBuilder {
    private(set) var objects: [PropertyListValue] = [.string("$null")]
    private var classes: [String: Int] = [:]

    /// Reserves a slot for an object that others refer to before it is built.
    func reserve() -> Int {
        objects.append(.string("$null"))
        return objects.count - 1
    }

    @discardableResult
    func add(_ value: PropertyListValue, at slot: Int? = nil) -> PropertyListValue {
        if let slot {
            objects[slot] = value
            return .uid(slot)
        }
        objects.append(value)
        return .uid(objects.count - 1)
    }

    func string(_ text: String) -> PropertyListValue { add(.string(text)) }

    @discardableResult
    func object(_ classes: [String], _ fields: [String: PropertyListValue], at slot: Int? = nil) -> PropertyListValue {
        let classUID: Int
        if let known = self.classes[classes[0]] {
            classUID = known
        } else {
            objects.append(.dictionary(["$classname": .string(classes[0]), "$classes": .array((classes + ["NSObject"]).map { .string($0) })]))
            classUID = objects.count - 1
            self.classes[classes[0]] = classUID
        }
        return add(.dictionary(fields.merging(["$class": .uid(classUID)]) { $1 }), at: slot)
    }

    func array(_ elements: [PropertyListValue]) -> PropertyListValue { object(["NSArray"], ["NS.objects": .array(elements)]) }
    func set(_ elements: [PropertyListValue]) -> PropertyListValue { object(["NSSet"], ["NS.objects": .array(elements)]) }
    func dictionary(_ entries: [(String, PropertyListValue)]) -> PropertyListValue {
        object(["NSMutableDictionary", "NSDictionary"], ["NS.keys": .array(entries.map { string($0.0) }), "NS.objects": .array(entries.map(\.1))])
    }

    // Predicates as Foundation archives them.
    func keyPath(_ path: String) -> PropertyListValue {
        object(["NSKeyPathExpression", "NSFunctionExpression", "NSExpression"], [
            "NSOperand": object(["NSSelfExpression", "NSExpression"], ["NSExpressionType": .integer(1)]),
            "NSSelectorName": string("valueForKey:"), "NSExpressionType": .integer(3),
            "NSArguments": array([object(["NSKeyPathSpecifierExpression", "NSExpression"], ["NSKeyPath": string(path), "NSExpressionType": .integer(10)])]),
        ])
    }
    func variable(_ name: String) -> PropertyListValue {
        object(["NSVariableExpression", "NSExpression"], ["NSVariable": string(name), "NSExpressionType": .integer(2)])
    }
    func constant(_ value: PropertyListValue) -> PropertyListValue {
        object(["NSConstantValueExpression", "NSExpression"], ["NSConstantValue": value, "NSExpressionType": .integer(0)])
    }
    func selfExpression() -> PropertyListValue { object(["NSSelfExpression", "NSExpression"], ["NSExpressionType": .integer(1)]) }
    func comparison(_ left: PropertyListValue, _ type: Int, _ right: PropertyListValue, modifier: Int = 0, options: Int = 0) -> PropertyListValue {
        object(["NSComparisonPredicate", "NSPredicate"], [
            "NSLeftExpression": left, "NSRightExpression": right,
            "NSPredicateOperator": object(["NSComparisonPredicateOperator", "NSPredicateOperator"], [
                "NSOperatorType": .integer(Int64(type)), "NSModifier": .integer(Int64(modifier)), "NSOptions": .integer(Int64(options)),
                "NSVariant": .integer(Int64(type)),
            ]),
        ])
    }
    func and(_ subpredicates: [PropertyListValue]) -> PropertyListValue {
        object(["NSCompoundPredicate", "NSPredicate"], ["NSCompoundPredicateType": .integer(1), "NSSubpredicates": array(subpredicates)])
    }

    func archive(root: Int) -> Data { TestPropertyList.keyedArchive(objects: objects, top: root) }
}

/// What the corpus has no example of: fetch request templates, validation rules Xcode writes
/// for minimums, maximums and patterns, configurations, and predicate classes that cannot be
/// decoded.
@Suite struct CompiledModelCraftedArchiveTests {
    /// A model with one entity Person (age, email, name), a configuration and the fetch
    /// request template `PeopleOlderThan` (`age > $AGE AND ANY tags.name BETWEEN {1, 9}`,
    /// sorted by name), plus whatever `extraTemplate` adds.
    private func personModel(extraTemplate: ((KeyedArchiveBuilder, PropertyListValue) -> PropertyListValue)? = nil) -> Data {
        let b = KeyedArchiveBuilder()
        let model = b.reserve()
        let person = b.reserve()
        let attribute = ["NSAttributeDescription", "NSPropertyDescription"]
        let age = b.object(attribute, [
            "NSPropertyName": b.string("age"), "NSAttributeType": .integer(300), "NSIsOptional": .bool(true),
            "NSEntity": .uid(person), "NSDefaultValue": .integer(18), "NSFlagsKey": .integer(0),
            "NSValidationPredicates": b.array([b.comparison(b.selfExpression(), 3, b.constant(.integer(0))),
                                               b.comparison(b.selfExpression(), 1, b.constant(.integer(150)))]),
            "NSValidationWarnings": b.array([.integer(1620), .integer(1610)]),
        ])
        let email = b.object(attribute, [
            "NSPropertyName": b.string("email"), "NSAttributeType": .integer(700), "NSIsOptional": .bool(true), "NSEntity": .uid(person),
            "NSValidationPredicates": b.array([b.object(["NSComparisonPredicate", "NSPredicate"], [
                "NSLeftExpression": b.selfExpression(), "NSRightExpression": b.constant(b.string("[^@]+@[^@]+")),
                "NSPredicateOperator": b.object(["NSMatchingPredicateOperator", "NSPredicateOperator"], ["NSOperatorType": .integer(6), "NSModifier": .integer(0), "NSOptions": .integer(0)]),
            ])]),
        ])
        let name = b.object(attribute, [
            "NSPropertyName": b.string("name"), "NSAttributeType": .integer(700), "NSEntity": .uid(person), "NSFlagsKey": .integer(0x14),
            "NSDefaultValue": b.string("nobody"), "NSVersionHashModifier": b.string("2"), "NSRenamingIdentifier": b.string("fullName"),
            "NSUserInfo": b.dictionary([("key", b.string("value"))]),
            "NSValidationPredicates": b.array([b.and([b.comparison(b.keyPath("length"), 3, b.constant(.integer(1))),
                                                      b.comparison(b.keyPath("length"), 1, b.constant(.integer(40)))])]),
        ])
        b.object(["NSEntityDescription"], [
            "NSEntityName": b.string("Person"), "NSClassNameForEntity": b.string("Person"), "NSManagedObjectModel": .uid(model),
            "NSProperties": b.dictionary([("age", age), ("email", email), ("name", name)]),
            "NSUniqueTuples": b.array([b.array([b.string("email")])]),
            "NSFetchIndexDescriptions": b.array([b.object(["NSFetchIndexDescription"], [
                "NSIndexName": b.string("byAgeAndName"), "NSEntity": .uid(person),
                "NSIndexElements": b.array([
                    b.object(["NSFetchIndexElementDescription"], ["NSPropertyName": b.string("age"), "NSFetchIndexElementType": .integer(0), "NSAscending": .bool(false)]),
                    b.object(["NSFetchIndexElementDescription"], ["NSPropertyName": b.string("name"), "NSFetchIndexElementType": .integer(0), "NSAscending": .bool(true)]),
                ]),
            ])]),
            // The first repeats the fetch index, as Core Data writes it; the second is one of its own.
            "NSCompoundIndexes": b.array([b.array([b.string("age"), b.string("name")]), b.array([b.string("email"), b.string("age")])]),
        ], at: person)
        let template = b.object(["NSFetchRequest", "NSPersistentStoreRequest"], [
            "NSEntity": .uid(person),
            "NSPredicate": b.and([
                b.comparison(b.keyPath("age"), 2, b.variable("AGE")),
                b.comparison(b.keyPath("tags.name"), 100, b.object(["NSAggregateExpression", "NSExpression"], [
                    "NSCollection": b.array([b.constant(.integer(1)), b.constant(.integer(9))]), "NSExpressionType": .integer(14),
                ]), modifier: 2),
            ]),
            "NSSortDescriptors": b.array([b.object(["NSSortDescriptor"], [
                "NSKey": b.string("name"), "NSAscending": .bool(false), "NSSelector": b.string("caseInsensitiveCompare:"),
            ])]),
            "NSFetchLimit": .integer(10), "NSResultType": .integer(1),
        ])
        var templates = [("PeopleOlderThan", template)]
        if let extraTemplate { templates.append(("Extra", extraTemplate(b, .uid(person)))) }
        b.object(["NSManagedObjectModel"], [
            "NSEntities": b.dictionary([("Person", .uid(person))]),
            "NSVersionIdentifiers": b.set([b.string("7")]),
            "NSConfigurations": b.dictionary([("Everything", b.set([.uid(person)]))]),
            "NSFetchRequestTemplates": b.dictionary(templates),
        ], at: model)
        return b.archive(root: model)
    }

    private let source = URL(fileURLWithPath: "/models/Crafted.mom")

    @Test func fetchRequestTemplatesConfigurationsAndAttributeRules() throws {
        let model = try CompiledModel.model(fromArchive: personModel(), source: source)
        try model.validate()
        #expect(model.versionIdentifiers == ["7"])
        #expect(model.entities(forConfigurationName: "Everything")?.compactMap(\.name) == ["Person"])

        let person = try #require(model.entitiesByName["Person"])
        let age = try #require(person.attributesByName["age"])
        #expect(age.attributeType == .integer64AttributeType && age.defaultValue as? Int == 18)
        #expect(age.minValue as? Int == 0 && age.maxValue as? Int == 150)
        #expect(person.attributesByName["email"]?.regularExpression == "[^@]+@[^@]+")
        let name = try #require(person.attributesByName["name"])
        #expect(!name.isOptional)
        #expect(name.minValue as? Int == 1 && name.maxValue as? Int == 40)
        #expect(name.defaultValue as? String == "nobody")
        #expect(name.versionHashModifier == "2" && name.renamingIdentifier == "fullName")
        #expect(name.userInfo?["key"] as? String == "value")
        #expect(name.allowsExternalBinaryDataStorage && name.preservesValueInHistoryOnDeletion)  // NSFlagsKey 0x14
        #expect(person.uniquenessConstraints.map { $0.map { "\($0)" } } == [["email"]])
        #expect(person.indexes.map(\.name) == ["byAgeAndName"])
        #expect(person.indexes.first?.elements.map(\.isAscending) == [false, true])
        #expect(person.compoundIndexes.map { $0.map { "\($0)" } } == [["email", "age"]])

        let template = try #require(model.fetchRequestTemplate(forName: "PeopleOlderThan"))
        #expect(template.entity === person && template.entityName == "Person")
        #expect(template.predicate?.predicateFormat == "age > $AGE AND ANY tags.name BETWEEN {1, 9}")
        #expect(template.sortDescriptors?.first?.key == "name")
        #expect(template.sortDescriptors?.first?.ascending == false)
        #expect(template.sortDescriptors?.first?.selectorName == "caseInsensitiveCompare:")
        #expect(template.fetchLimit == 10 && template.resultType == .managedObjectIDResultType)
        let request = try #require(model.fetchRequestFromTemplate(withName: "PeopleOlderThan", substitutionVariables: ["AGE": 30]))
        #expect(request.predicate?.predicateFormat == "age > 30 AND ANY tags.name BETWEEN {1, 9}")
    }

    @Test func predicateClassesThatCannotBeDecodedAreErrors() throws {
        let archive = personModel { b, person in
            b.object(["NSFetchRequest", "NSPersistentStoreRequest"], [
                "NSEntity": person,
                "NSPredicate": b.comparison(b.object(["NSSubqueryExpression", "NSExpression"], ["NSExpressionType": .integer(13)]), 4, b.constant(.integer(0))),
            ])
        }
        let error = #expect(throws: ModelFileError.self) { try CompiledModel.model(fromArchive: archive, source: source) }
        #expect(error?.file == source)
        #expect(error?.element == "fetch request template Extra")
        #expect(error?.reason.contains("the expression class NSSubqueryExpression cannot be decoded yet") == true)

        let blocks = personModel { b, person in
            b.object(["NSFetchRequest", "NSPersistentStoreRequest"], ["NSEntity": person, "NSPredicate": b.object(["NSBlockPredicate", "NSPredicate"], [:])])
        }
        let blockError = #expect(throws: ModelFileError.self) { try CompiledModel.model(fromArchive: blocks, source: source) }
        #expect(blockError?.reason.contains("the predicate class NSBlockPredicate cannot be decoded yet") == true)
    }
}
