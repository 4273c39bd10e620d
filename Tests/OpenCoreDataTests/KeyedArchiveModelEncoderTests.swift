import Foundation
import Testing
import OpenCoreData
@testable import OpenCoreDataCore
@testable import OpenCoreDataSQLite

/// Writing a model as Core Data keeps it in a store's model cache (`Z_MODELCACHE`), checked
/// against the caches Apple's Core Data wrote into the corpus stores and by reading every
/// archive back.
@Suite struct KeyedArchiveModelEncoderTests {
    // MARK: Apple's archives

    /// Every model cache of the corpus: Apple's archive, the model decoded from it, and that
    /// model archived again.
    static func appleCaches() throws -> [(name: String, apple: Data, model: NSManagedObjectModel)] {
        let directory = TemporaryDirectory()
        return try Corpus.storePaths.compactMap { path -> (String, Data, NSManagedObjectModel)? in
            let copy = try Corpus.copyStore(path, to: directory)
            guard let content = try StoreModelCache.content(ofStoreAt: copy) else { return nil }
            let model = try CompiledModel.model(fromModelCache: content, source: copy)
            return (copy.lastPathComponent, try RawDeflate.inflate(content), model)
        }
    }

    @Test(.needsCorpus) func rewritesEveryAppleModelCacheInApplesLayout() throws {
        let caches = try Self.appleCaches()
        #expect(caches.count >= 8)
        for (name, apple, model) in caches {
            let (missing, extra) = try Self.differences(of: KeyedArchiveModelEncoder.archive(model), fromApples: apple)
            #expect(missing.isEmpty && extra.isEmpty,
                    "\(name): \(missing.count) lines of Apple's archive missing, \(extra.count) extra:\n- \(missing.prefix(30).joined(separator: "\n- "))\n+ \(extra.prefix(30).joined(separator: "\n+ "))")
        }
    }

    /// The lines of Apple's archive ours lacks and those ours adds, overlooking what is known
    /// to differ: the model's losses (`isKnownLoss`), the index keys older frameworks
    /// (SampleModel_V1's) did not write, and index elements Apple once kept in an
    /// `NSMutableArray` rather than an `NSArray`.
    static func differences(of ours: Data, fromApples apple: Data) throws -> (missing: [String], extra: [String]) {
        let appleShape = try ArchiveShape(apple)
        let appleHasIndexKeys = appleShape.lines.contains { $0.contains(".NSFetchIndexDescriptions") }
        let indexElementArrays = { (line: String) in line.replacingOccurrences(of: ".NSIndexElements: NSMutableArray", with: ".NSIndexElements: NSArray") }
        var (missing, extra) = try ArchiveShape(ours).mappingLines(indexElementArrays).differences(from: appleShape.mappingLines(indexElementArrays))
        missing.removeAll(where: isKnownLoss)
        extra.removeAll { isKnownLoss($0) || (!appleHasIndexKeys && isIndexKey($0)) }
        return (missing, extra)
    }

    /// What the model cannot hold, so its archive cannot carry: a transformable attribute's
    /// default value of an application class (SampleModel2's `Cover`).
    static func isKnownLoss(_ line: String) -> Bool {
        line.contains(".NSProperties[str cover].NSDefaultValue") || line.contains(".NSProperties[str frontCover].NSDefaultValue")
    }

    static func isIndexKey(_ line: String) -> Bool {
        line.contains(".NSFetchIndexDescriptions") || line.contains(".NSCompoundIndexes")
    }

    /// The models loaded from Xcode's files (whose values are NSNumbers, not Swift numbers)
    /// archive their properties' values and flags as Apple archived the same version into its
    /// stores. (Not the whole archive: Core Data's running model differs from the file in ways
    /// the cache shows and OpenCoreData does not copy yet — an entity's class name when no class
    /// is found, a transformable's value class, and a fetch index of one property doubled by
    /// `NSIsIndexed` and an index named after the property; see Docs/Differences.md.)
    @Test(.needsCorpus) func xcodeModelsArchiveTheirValuesAsAppleArchivedThem() throws {
        let versions = try Corpus.files(under: "models", suffix: ".xcdatamodel").map { try NSManagedObjectModel(validatingContentsOf: $0) }
        var compared = 0
        for (name, apple, cached) in try Self.appleCaches() {
            guard let model = versions.first(where: { $0.entityVersionHashesByName == cached.entityVersionHashesByName }) else { continue }
            compared += 1
            var (missing, extra) = try Self.differences(of: KeyedArchiveModelEncoder.archive(model), fromApples: apple)
            let compares = { (line: String) in
                ["NSDefaultValue", "._P =", ".NSFlagsKey =", ".NSIsOptional =", ".NSIsTransient =", ".NSAttributeType =", ".NSDeleteRule =", ".NSMaxCount =", ".NSMinCount ="]
                    .contains { line.contains($0) }
            }
            missing.removeAll { !compares($0) }
            extra.removeAll { !compares($0) }
            #expect(missing.isEmpty && extra.isEmpty,
                    "\(name): \(missing.count) lines of Apple's archive missing, \(extra.count) extra:\n- \(missing.prefix(30).joined(separator: "\n- "))\n+ \(extra.prefix(30).joined(separator: "\n+ "))")
        }
        #expect(compared >= 5)
    }

    @Test(.needsCorpus) func everyAppleModelCacheReadsBackAsTheSameModel() throws {
        for (name, _, model) in try Self.appleCaches() {
            let again = try CompiledModel.model(fromModelCache: CompiledModel.modelCache(of: model), source: URL(fileURLWithPath: name))
            #expect(again.entityVersionHashesByName == model.entityVersionHashesByName, "\(name)")
            #expect(ModelDescription(again) == ModelDescription(model), "\(name)\n\(ModelDescription(again).differences(from: ModelDescription(model)))")
        }
    }

    /// Every version of every Xcode model of the corpus, archived and read back.
    @Test(.needsCorpus) func everyCorpusModelVersionReadsBackAsTheSameModel() throws {
        let versions = Corpus.files(under: "models", suffix: ".xcdatamodel")
        #expect(versions.count > 20)
        for version in versions {
            let model = try NSManagedObjectModel(validatingContentsOf: version)
            let again = try CompiledModel.model(fromModelCache: CompiledModel.modelCache(of: model), source: version)
            #expect(again.entityVersionHashesByName == model.entityVersionHashesByName, "\(version.path)")
            #expect(ModelDescription(again) == ModelDescription(model), "\(version.path)\n\(ModelDescription(again).differences(from: ModelDescription(model)))")
        }
    }

    // MARK: Models built in code

    @Test func everyFeatureOfAModelBuiltInCodeReadsBack() throws {
        let model = Self.richModel()
        let again = try CompiledModel.model(fromModelCache: CompiledModel.modelCache(of: model), source: URL(fileURLWithPath: "/rich"))
        #expect(again.entityVersionHashesByName == model.entityVersionHashesByName)
        #expect(ModelDescription(again) == ModelDescription(model), "\(ModelDescription(again).differences(from: ModelDescription(model)))")

        let item = try #require(again.entitiesByName["Item"])
        let attributes = item.attributesByName
        #expect(attributes["price"]?.defaultValue as? Decimal == Decimal(string: "12.50"))
        #expect(attributes["created"]?.defaultValue as? Date == Date(timeIntervalSinceReferenceDate: 1_000_000.5))
        #expect(attributes["token"]?.defaultValue as? UUID == UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F"))
        #expect(attributes["home"]?.defaultValue as? URL == URL(string: "https://example.com/a?b=1"))
        #expect(attributes["blob"]?.defaultValue as? Data == Data([0, 1, 2, 255]))
        #expect(attributes["blob"]?.allowsExternalBinaryDataStorage == true)
        #expect(attributes["name"]?.minValue as? Int == 3)
        #expect(attributes["name"]?.maxValue as? Int == 50)
        #expect(attributes["name"]?.regularExpression == "[a-zé]+")
        #expect(attributes["name"]?.preservesValueInHistoryOnDeletion == true)
        #expect(attributes["count"]?.minValue as? Int == -5)
        #expect(item.userInfo?["kind"] as? String == "täst")
        #expect(attributes["count"]?.userInfo?["answer"] as? Int == 42)
        #expect(item.indexes.first?.partialIndexPredicate?.predicateFormat == "count > 0")
        #expect(again.fetchRequestTemplate(forName: "cheap")?.predicate?.predicateFormat == "price < 10 AND name BEGINSWITH[cd] \"a\"")
        #expect(again.entities(forConfigurationName: "Main")?.compactMap(\.name) == ["Item", "Special"])
        let fetched = try #require(item.propertiesByName["similar"] as? NSFetchedPropertyDescription)
        #expect(fetched.fetchRequest?.predicate?.predicateFormat == "name == $FETCH_SOURCE.name")
        #expect(fetched.fetchRequest?.sortDescriptors?.first?.key == "name")
        let derived = try #require(item.propertiesByName["tagCount"] as? NSDerivedAttributeDescription)
        #expect(derived.derivationExpression?.description == "tags.@count")
    }

    static func richModel() -> NSManagedObjectModel {
        let item = NSEntityDescription(name: "Item")
        let special = NSEntityDescription(name: "Special")
        let tag = NSEntityDescription(name: "Tag")
        item.userInfo = ["kind": "täst"]
        item.renamingIdentifier = "OldItem"
        item.versionHashModifier = "2"
        item.isAbstract = false

        let name = NSAttributeDescription(name: "name", type: .stringAttributeType, optional: false, defaultValue: "unnamed")
        name.minValue = 3
        name.maxValue = 50
        name.regularExpression = "[a-zé]+"
        name.preservesValueInHistoryOnDeletion = true
        name.renamingIdentifier = "title"
        let count = NSAttributeDescription(name: "count", type: .integer32AttributeType, defaultValue: 7)
        count.minValue = -5
        count.userInfo = ["answer": 42]
        count.isIndexed = true
        let price = NSAttributeDescription(name: "price", type: .decimalAttributeType, defaultValue: Decimal(string: "12.50"))
        let ratio = NSAttributeDescription(name: "ratio", type: .doubleAttributeType, defaultValue: 0.25)
        let flag = NSAttributeDescription(name: "flag", type: .booleanAttributeType, defaultValue: true)
        let created = NSAttributeDescription(name: "created", type: .dateAttributeType, defaultValue: Date(timeIntervalSinceReferenceDate: 1_000_000.5))
        let token = NSAttributeDescription(name: "token", type: .UUIDAttributeType, defaultValue: UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F"))
        let home = NSAttributeDescription(name: "home", type: .URIAttributeType, defaultValue: URL(string: "https://example.com/a?b=1"))
        let blob = NSAttributeDescription(name: "blob", type: .binaryDataAttributeType, defaultValue: Data([0, 1, 2, 255]))
        blob.allowsExternalBinaryDataStorage = true
        let scratch = NSAttributeDescription(name: "scratch", type: .stringAttributeType)
        scratch.isTransient = true
        scratch.versionHashModifier = "v"
        let tags = NSRelationshipDescription(name: "tags", destination: tag, toMany: true, deleteRule: .cascadeDeleteRule, ordered: true)
        tags.minCount = 1
        tags.maxCount = 9
        let items = NSRelationshipDescription(name: "items", destination: item, toMany: true, deleteRule: .denyDeleteRule)
        items.maxCount = Int.max
        tags.inverseRelationship = items
        items.inverseRelationship = tags
        let similar = NSFetchedPropertyDescription(name: "similar")
        let similarRequest = NSFetchRequest<NSFetchRequestResult>(entityName: "Item")
        similarRequest.predicate = NSPredicate(format: "name == $FETCH_SOURCE.name")
        similarRequest.sortDescriptors = [NSSortDescriptor(key: "name", ascending: false)]
        similar.fetchRequest = similarRequest
        let tagCount = NSDerivedAttributeDescription(name: "tagCount", type: .integer64AttributeType)
        tagCount.derivationExpression = NSExpression(format: "tags.@count")
        item.properties = [name, count, price, ratio, flag, created, token, home, blob, scratch, tags, similar, tagCount]
        item.uniquenessConstraints = [["name", "token"]]
        let byCount = NSFetchIndexDescription(name: "byCount", elements: [NSFetchIndexElementDescription(property: count, collationType: .binary)])
        byCount.partialIndexPredicate = NSPredicate(format: "count > 0")
        let byNameAndPrice = NSFetchIndexDescription(name: "byNameAndPrice", elements: [
            NSFetchIndexElementDescription(property: name, collationType: .binary), NSFetchIndexElementDescription(property: price, collationType: .binary),
        ])
        byNameAndPrice.elements[1].isAscending = false
        item.indexes = [byCount, byNameAndPrice]
        item.compoundIndexes = [["ratio", "flag"]]

        let extra = NSAttributeDescription(name: "extra", type: .floatAttributeType, optional: false, defaultValue: 1.5)
        special.properties = [extra]
        item.subentities = [special]
        tag.properties = [NSAttributeDescription(name: "label", type: .stringAttributeType), items]

        let model = NSManagedObjectModel()
        model.entities = [item, special, tag]
        model.versionIdentifiers = ["3.1"]
        model.setEntities([item, special], forConfigurationName: "Main")
        let cheap = NSFetchRequest<NSFetchRequestResult>(entityName: "Item")
        cheap.predicate = NSPredicate(format: "price < 10 AND name BEGINSWITH[cd] 'a'")
        model.setFetchRequestTemplate(cheap, forName: "cheap")
        return model
    }
}
