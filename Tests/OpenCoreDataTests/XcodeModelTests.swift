import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import Testing
import OpenCoreData
@testable import OpenCoreDataCore
@testable import OpenCoreDataSQLite

/// Loading Xcode's `.xcdatamodeld` / `.xcdatamodel` files, checked against every model of the
/// corpus: what the loader builds must be what the XML says, read here independently.
@Suite struct XcodeModelTests {
    /// Every `.xcdatamodel` version folder of the corpus.
    static let versionFolders = Corpus.files(under: "models", suffix: ".xcdatamodel")

    @Test(.needsCorpus) func theCorpusHasModels() {
        #expect(Self.versionFolders.count >= 60)
    }

    @Test(.needsCorpus, arguments: versionFolders)
    func everyCorpusModelLoadsAsItsXMLSays(_ folder: URL) throws {
        let model = try NSManagedObjectModel(validatingContentsOf: folder)
        // Every corpus model is usable with a store: no model error (warnings are allowed).
        #expect(model.validationIssues().filter { $0.severity == .error }.map(\.description) == [])
        let document = try XMLDocument(contentsOf: folder.appendingPathComponent("contents"), options: [])
        let entityNodes = try document.nodes(forXPath: "/model/entity").compactMap { $0 as? XMLElement }
        #expect(Set(model.entitiesByName.keys) == Set(entityNodes.map { $0.attributeValue("name") }))
        #expect(model.entities.count == entityNodes.count)
        for node in entityNodes {
            let entity = try #require(model.entitiesByName[node.attributeValue("name")])
            try checkEntity(entity, against: node, in: model)
        }
        if let identifier = document.rootElement()?.attribute(forName: "userDefinedModelVersionIdentifier")?.stringValue {
            #expect(model.versionIdentifiers == [identifier])
        }
        let configurations = try document.nodes(forXPath: "/model/configuration").compactMap { $0 as? XMLElement }
        for configuration in configurations {
            let members = try configuration.nodes(forXPath: "memberEntity").compactMap { ($0 as? XMLElement)?.attributeValue("name") }
            #expect(model.entities(forConfigurationName: configuration.attributeValue("name"))?.compactMap(\.name) == members)
        }
        let templates = try document.nodes(forXPath: "/model/fetchRequest").compactMap { $0 as? XMLElement }
        for template in templates {
            let request = try #require(model.fetchRequestTemplate(forName: template.attributeValue("name")))
            #expect(request.entityName == template.attributeValue("entity"))
            #expect((request.predicate == nil) == (template.attribute(forName: "predicateString") == nil))
        }
    }

    private func checkEntity(_ entity: NSEntityDescription, against node: XMLElement, in model: NSManagedObjectModel) throws {
        let name = node.attributeValue("name")
        #expect(entity.superentity?.name == node.attribute(forName: "parentEntity")?.stringValue, "\(name)")
        #expect(entity.isAbstract == (node.attributeValue("isAbstract") == "YES"), "\(name)")
        #expect(entity.managedObjectClassName == node.attribute(forName: "representedClassName")?.stringValue ?? "NSManagedObject")
        let propertyNodes = (node.children ?? []).compactMap { $0 as? XMLElement }
            .filter { ["attribute", "relationship", "fetchedProperty"].contains($0.name) }
        #expect(entity.properties.map(\.name) == propertyNodes.map { $0.attributeValue("name") }, "\(name)")
        for property in propertyNodes {
            let described = try #require(entity.propertiesByName[property.attributeValue("name")])
            let label = "\(name).\(described.name)"
            #expect(described.isOptional == (property.attributeValue("optional") == "YES"), "\(label)")
            #expect(described.isTransient == (property.attributeValue("transient") == "YES"), "\(label)")
            switch property.name {
            case "attribute":
                let attribute = try #require(described as? NSAttributeDescription, "\(label)")
                #expect(attribute.attributeType.modelName == property.attributeValue("attributeType"), "\(label)")
                #expect(attribute.valueTransformerName == property.attribute(forName: "valueTransformerName")?.stringValue)
            case "relationship":
                let relationship = try #require(described as? NSRelationshipDescription, "\(label)")
                #expect(relationship.destinationEntity?.name == property.attributeValue("destinationEntity"), "\(label)")
                #expect(relationship.inverseRelationship?.name == property.attribute(forName: "inverseName")?.stringValue, "\(label)")
                #expect(relationship.inverseRelationship?.entity?.name == property.attribute(forName: "inverseEntity")?.stringValue,
                        "\(label)")
                #expect(relationship.isToMany == (property.attributeValue("toMany") == "YES"), "\(label)")
                #expect(relationship.isOrdered == (property.attributeValue("ordered") == "YES"), "\(label)")
                let rules = ["Nullify": NSDeleteRule.nullifyDeleteRule, "Cascade": .cascadeDeleteRule,
                             "Deny": .denyDeleteRule, "No Action": .noActionDeleteRule]
                #expect(relationship.deleteRule == rules[property.attributeValue("deletionRule")], "\(label)")
            default:
                let fetched = try #require(described as? NSFetchedPropertyDescription, "\(label)")
                #expect(fetched.fetchRequest?.entityName != nil, "\(label)")
            }
        }
        let constraints = try node.nodes(forXPath: "uniquenessConstraints/uniquenessConstraint").map { constraint in
            try constraint.nodes(forXPath: "constraint").compactMap { ($0 as? XMLElement)?.attributeValue("value") }
        }
        #expect(entity.uniquenessConstraints.map { $0.compactMap { $0 as? String } } == constraints, "\(name)")
        let indexes = try node.nodes(forXPath: "fetchIndex").compactMap { ($0 as? XMLElement)?.attributeValue("name") }
        #expect(entity.indexes.map(\.name) == indexes, "\(name)")
    }

    // MARK: Bundles and versions

    @Test(.needsCorpus) func aBundleLoadsTheVersionItsCurrentVersionFileNames() throws {
        // CoreDataPlus names its oldest version current (COREDATA-FORMAT.md §7).
        let bundle = Corpus.url("models/alemar11__CoreDataPlus/Tests__Resources__SampleModel__SampleModel.xcdatamodeld")
        #expect(try XcodeModel.currentVersion(in: bundle).lastPathComponent == "SampleModel.xcdatamodel")
        let model = try NSManagedObjectModel(validatingContentsOf: bundle)
        let version = try NSManagedObjectModel(validatingContentsOf: bundle.appendingPathComponent("SampleModel.xcdatamodel"))
        #expect(Set(model.entitiesByName.keys) == Set(version.entitiesByName.keys))
    }

    @Test func withoutACurrentVersionTheNewestByNumberIsLoaded() throws {
        let directory = TemporaryDirectory()
        let bundle = directory.file("Journal.xcdatamodeld")
        for (index, entity) in ["One", "Two", "Ten"].enumerated() {
            let number = [1, 9, 10][index]
            let version = bundle.appendingPathComponent("Journal \(number).xcdatamodel")
            try FileManager.default.createDirectory(at: version, withIntermediateDirectories: true)
            try Self.minimalModel(entity: entity).write(to: version.appendingPathComponent("contents"), atomically: true, encoding: .utf8)
        }
        #expect(try NSManagedObjectModel(validatingContentsOf: bundle).entities.map(\.name) == ["Ten"])
        // An empty .xccurrentversion (CoreStore's EvolutionDemo has one) counts as missing.
        try "<?xml version=\"1.0\"?><plist version=\"1.0\"><dict/></plist>"
            .write(to: bundle.appendingPathComponent(".xccurrentversion"), atomically: true, encoding: .utf8)
        #expect(try NSManagedObjectModel(validatingContentsOf: bundle).entities.map(\.name) == ["Ten"])
    }

    @Test(.needsCorpus) func everyBundleOfTheCorpusLoads() throws {
        let bundles = Corpus.files(under: "models", suffix: ".xcdatamodeld")
        #expect(!bundles.isEmpty)
        for bundle in bundles {
            let model = try NSManagedObjectModel(validatingContentsOf: bundle)
            #expect(!model.entities.isEmpty, "\(bundle.lastPathComponent)")
        }
    }

    @Test(.needsCorpus) func aCorpusModelWorksThroughAStore() throws {
        // objc.io's Moody: an abstract parent entity, a transformable, a required to-many.
        let folder = Corpus.url("models/objcio__core-data/Moody__MoodyModel__Moody.xcdatamodeld")
        let model = try NSManagedObjectModel(validatingContentsOf: folder)
        try model.validate()
        let directory = TemporaryDirectory()
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        _ = try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil,
                                               at: directory.file("Moody.sqlite"), options: nil)
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        try context.performAndWait {
            let country = NSEntityDescription.insertNewObject(forEntityName: "Country", into: context)
            country.setValue(Int16(276), forKey: "numericISO3166Code")
            country.setValue(Date(), forKey: "updatedAt")
            let mood = NSEntityDescription.insertNewObject(forEntityName: "Mood", into: context)
            mood.setValue(Date(timeIntervalSinceReferenceDate: 1000), forKey: "date")
            mood.setValue(country, forKey: "country")
            try context.save()
        }
        let reopened = NSPersistentStoreCoordinator(managedObjectModel: try NSManagedObjectModel(validatingContentsOf: folder))
        _ = try reopened.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil,
                                            at: directory.file("Moody.sqlite"), options: nil)
        let readContext = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        readContext.persistentStoreCoordinator = reopened
        let (codes, moodDates) = try readContext.performAndWait {
            let countries = try readContext.fetch(NSFetchRequest<NSManagedObject>(entityName: "Region"))
            return (countries.map { $0.value(forKey: "numericISO3166Code") as? NSNumber },
                    countries.flatMap { ($0.value(forKey: "moods") as? Set<NSManagedObject> ?? []).map { $0.value(forKey: "date") as? Date } })
        }
        #expect(codes == [276])
        #expect(moodDates == [Date(timeIntervalSinceReferenceDate: 1000)])
    }

    // MARK: Values

    /// The settings of Apple's platform services are read and kept, and copied, though nothing
    /// on Linux acts on them; they leave the version hash as it is.
    @Test func spotlightAndCloudSettingsAreReadAndKept() throws {
        func model(flags: String) throws -> NSManagedObjectModel {
            try Self.load("""
            <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
            <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0">
                <entity name="Note">
                    <attribute name="title" optional="YES" attributeType="String" \(flags)/>
                </entity>
            </model>
            """)
        }
        let flagged = try model(flags: #"spotlightIndexingEnabled="YES" allowsCloudEncryption="YES" storedInTruthFile="YES""#)
        let title = try #require(flagged.entitiesByName["Note"]?.attributesByName["title"])
        #expect(title.isIndexedBySpotlight && title.allowsCloudEncryption && title.storedInExternalRecord)
        let copy = try #require(title.copy() as? NSAttributeDescription)
        #expect(copy.isIndexedBySpotlight && copy.allowsCloudEncryption && copy.storedInExternalRecord)
        let plain = try #require(try model(flags: "").entitiesByName["Note"]?.attributesByName["title"])
        #expect(!plain.isIndexedBySpotlight && !plain.allowsCloudEncryption && !plain.storedInExternalRecord)
        #expect(flagged.entityVersionHashesByName == (try model(flags: "")).entityVersionHashesByName)
    }

    @Test func defaultsBoundsAndFlagsAreRead() throws {
        let xml = """
        <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
        <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0" userDefinedModelVersionIdentifier="">
            <entity name="Item" representedClassName="Item" versionHashModifier="v2" elementID="OldItem">
                <attribute name="count" attributeType="Integer 16" minValueString="1" maxValueString="9" defaultValueString="3"/>
                <attribute name="price" optional="YES" attributeType="Decimal" defaultValueString="1.25"/>
                <attribute name="done" attributeType="Boolean" defaultValueString="YES" usesScalarValueType="YES"/>
                <attribute name="due" attributeType="Date" defaultDateTimeInterval="600000000"/>
                <attribute name="code" attributeType="String" minValueString="2" regularExpressionString="[A-Z]+"/>
                <attribute name="blob" optional="YES" attributeType="Binary" allowsExternalBinaryDataStorage="YES"/>
                <attribute name="colors" optional="YES" attributeType="Transformable" valueTransformerName="ColorTransformer" customClassName="[String]"/>
                <attribute name="scratch" optional="YES" transient="YES" attributeType="String" indexed="YES"/>
                <attribute name="total" optional="YES" attributeType="Integer 64" derived="YES" derivationExpression="parts.@count"/>
                <relationship name="parts" toMany="YES" minCount="1" maxCount="5" deletionRule="Cascade" destinationEntity="Part" inverseName="item" inverseEntity="Part"/>
                <fetchedProperty name="bigParts" optional="YES">
                    <fetchRequest name="fetchedPropertyFetchRequest" entity="Part" predicateString="size &gt; 10"/>
                </fetchedProperty>
                <userInfo><entry key="owner" value="me"/></userInfo>
            </entity>
            <entity name="Part">
                <relationship name="item" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Item" inverseName="parts" inverseEntity="Item"/>
                <attribute name="size" attributeType="Integer 32" defaultValueString="0"/>
            </entity>
            <fetchRequest name="ItemsDueBefore" entity="Item" predicateString="due &lt; $DATE" fetchLimit="10"/>
        </model>
        """
        let model = try Self.load(xml)
        #expect(model.versionIdentifiers == [""])
        let item = try #require(model.entitiesByName["Item"])
        #expect(item.versionHashModifier == "v2")
        #expect(item.renamingIdentifier == "OldItem")
        #expect(item.userInfo?["owner"] as? String == "me")
        let attributes = item.attributesByName
        #expect(attributes["count"]?.defaultValue as? NSNumber == 3)
        #expect(attributes["count"]?.minValue as? NSNumber == 1)
        #expect(attributes["count"]?.maxValue as? NSNumber == 9)
        #expect(attributes["count"]?.isOptional == false)
        #expect(attributes["price"]?.defaultValue as? Decimal == Decimal(string: "1.25"))
        #expect(attributes["done"]?.defaultValue as? NSNumber == true)
        #expect(attributes["due"]?.defaultValue as? Date == Date(timeIntervalSinceReferenceDate: 600_000_000))
        #expect(attributes["code"]?.minValue as? NSNumber == 2)
        #expect(attributes["code"]?.regularExpression == "[A-Z]+")
        #expect(attributes["blob"]?.allowsExternalBinaryDataStorage == true)
        #expect(attributes["colors"]?.valueTransformerName == "ColorTransformer")
        #expect(attributes["colors"]?.attributeValueClassName == "[String]")
        #expect(attributes["scratch"]?.isTransient == true)
        #expect(attributes["scratch"]?.isIndexed == true)
        let total = try #require(attributes["total"] as? NSDerivedAttributeDescription)
        #expect(total.derivationExpression?.keyPath == "parts.@count")
        let parts = try #require(item.relationshipsByName["parts"])
        #expect(parts.minCount == 1 && parts.maxCount == 5 && parts.deleteRule == .cascadeDeleteRule)
        #expect(parts.inverseRelationship === model.entitiesByName["Part"]?.relationshipsByName["item"])
        let bigParts = try #require(item.propertiesByName["bigParts"] as? NSFetchedPropertyDescription)
        #expect(bigParts.fetchRequest?.predicate?.predicateFormat == "size > 10")
        let request = try #require(model.fetchRequestFromTemplate(withName: "ItemsDueBefore",
                                                                  substitutionVariables: ["DATE": Date(timeIntervalSinceReferenceDate: 0)]))
        #expect(request.fetchLimit == 10)
        #expect(request.predicate?.evaluate(with: ["due": Date(timeIntervalSinceReferenceDate: -5)]) == true)
        #expect(request.predicate?.evaluate(with: ["due": Date(timeIntervalSinceReferenceDate: 5)]) == false)
    }

    // MARK: Bad input

    @Test func aMissingDestinationEntityNamesTheRelationshipAndLine() throws {
        let xml = """
        <?xml version="1.0" encoding="UTF-8"?>
        <model type="com.apple.IDECoreDataModeler.DataModel">
            <entity name="Person">
                <relationship name="pets" toMany="YES" deletionRule="Nullify" destinationEntity="Pet"/>
            </entity>
        </model>
        """
        let error = try #require(throws: ModelFileError.self) { try Self.load(xml) }
        #expect(error.line == 4)
        #expect(error.element == "Person.pets")
        #expect(error.reason == "the destination entity \"Pet\" is not in the model")
    }

    @Test func anUnknownAttributeTypeIsNamed() throws {
        let xml = """
        <?xml version="1.0" encoding="UTF-8"?>
        <model>
            <entity name="Person">
                <attribute name="age" attributeType="Integer 128"/>
            </entity>
        </model>
        """
        let error = try #require(throws: ModelFileError.self) { try Self.load(xml) }
        #expect(error.line == 4)
        #expect(error.element == "Person.age")
        #expect(error.reason == "unknown attribute type \"Integer 128\"")
    }

    @Test func malformedXMLNamesTheLine() throws {
        let xml = "<?xml version=\"1.0\"?>\n<model>\n<entity name=\"A\">\n</model>\n"
        let error = try #require(throws: ModelFileError.self) { try Self.load(xml) }
        #expect(error.line != nil)
        #expect(error.reason.hasPrefix("the XML is not well formed"))
    }

    @Test func badReferencesAndValuesAreNamed() throws {
        let cases: [(body: String, element: String, reason: String)] = [
            ("<entity name=\"A\" parentEntity=\"B\"/>", "entity A", "the parent entity \"B\" is not in the model"),
            ("<entity name=\"A\"/><entity name=\"A\"/>", "entity A", "a second entity has this name"),
            ("<entity name=\"A\"><attribute name=\"n\" attributeType=\"Integer 16\" defaultValueString=\"ten\"/></entity>",
             "A.n", "defaultValueString \"ten\" is not a valid Integer 16 value"),
            ("<entity name=\"A\"><relationship name=\"r\" maxCount=\"1\" deletionRule=\"Explode\" destinationEntity=\"A\"/></entity>",
             "A.r", "unknown deletion rule \"Explode\""),
            ("<entity name=\"A\"><relationship name=\"r\" maxCount=\"1\" deletionRule=\"Nullify\" destinationEntity=\"A\" inverseName=\"x\" inverseEntity=\"A\"/></entity>",
             "A.r", "the inverse relationship \"x\" is not a relationship of A"),
            ("<entity name=\"A\"/><fetchRequest name=\"f\" entity=\"A\" predicateString=\"a ==\"/>",
             "fetch request f", "its predicate cannot be read: Unable to parse the format string \"a ==\": expected an expression, found the end of the format at character 4"),
        ]
        for (body, element, reason) in cases {
            let error = try #require(throws: ModelFileError.self) { try Self.load("<model>\(body)</model>") }
            #expect(error.element == element, "\(body)")
            #expect(error.reason == reason, "\(body)")
        }
    }

    @Test func anOldBinaryModelIsRefusedClearly() throws {
        let directory = TemporaryDirectory()
        let version = directory.file("Old.xcdatamodel")
        try FileManager.default.createDirectory(at: version, withIntermediateDirectories: true)
        try Data([0x62, 0x70, 0x6c, 0x69, 0x73, 0x74]).write(to: version.appendingPathComponent("elements"))
        let error = try #require(throws: ModelFileError.self) { try NSManagedObjectModel(validatingContentsOf: version) }
        #expect(error.reason.contains("binary format of Xcode 3"))
        #expect(NSManagedObjectModel(contentsOf: version) == nil)
        #expect(NSManagedObjectModel(contentsOf: directory.file("Missing.xcdatamodeld")) == nil)
    }

    // MARK: Helpers

    static func minimalModel(entity: String) -> String {
        "<?xml version=\"1.0\"?><model><entity name=\"\(entity)\"><attribute name=\"a\" optional=\"YES\" attributeType=\"String\"/></entity></model>"
    }

    static func load(_ xml: String) throws -> NSManagedObjectModel {
        let directory = TemporaryDirectory()
        let version = directory.file("Test.xcdatamodel")
        try FileManager.default.createDirectory(at: version, withIntermediateDirectories: true)
        try xml.write(to: version.appendingPathComponent("contents"), atomically: true, encoding: .utf8)
        return try NSManagedObjectModel(validatingContentsOf: version)
    }
}

private extension XMLElement {
    func attributeValue(_ name: String) -> String { attribute(forName: name)?.stringValue ?? "" }
}

/// Finding models among the process's bundles, as `NSPersistentContainer(name:)` does.
@Suite struct ModelLookupTests {
    @Test func aContainerFindsItsModelInTheSwiftPMResourceBundle() async throws {
        // Tests/OpenCoreDataTests/Resources/Journal.xcdatamodeld is a resource of this target.
        let directory = TemporaryDirectory()
        let container = NSPersistentContainer(name: "Journal")
        #expect(Set(container.managedObjectModel.entitiesByName.keys) == ["Entry", "Tag"])
        container.persistentStoreDescriptions = [NSPersistentStoreDescription(url: directory.file("Journal.sqlite"))]
        try await container.loadPersistentStores()
        let context = container.newBackgroundContext()
        try await context.perform {
            let entry = NSEntityDescription.insertNewObject(forEntityName: "Entry", into: context)
            entry.setValue(Date(), forKey: "time")
            let tag = NSEntityDescription.insertNewObject(forEntityName: "Tag", into: context)
            tag.setValue("tea", forKey: "name")
            entry.mutableSetValue(forKey: "tags").add(tag)
            try context.save()
        }
    }

    @Test func aContainerWithoutAModelSaysSoWhenLoading() async throws {
        let container = NSPersistentContainer(name: "NoSuchModel")
        #expect(container.managedObjectModel.entities.isEmpty)
        let error = await #expect(throws: CocoaError.self) { try await container.loadPersistentStores() }
        #expect(error?.code == .fileReadNoSuchFile)
        #expect((error?.userInfo[NSLocalizedDescriptionKey] as? String)?.hasPrefix("No model named NoSuchModel") == true)
    }

    /// The model a store was written with is found among every version of a bundle's models.
    @Test func mergedModelForStoreMetadataFindsTheVersionTheStoreWasWrittenWith() throws {
        let directory = TemporaryDirectory()
        let models = directory.file("Models")
        try FileManager.default.createDirectory(at: models, withIntermediateDirectories: true)
        let bundleDirectory = TemporaryDirectory()
        let modelBundle = try ModelBundle(in: bundleDirectory, versions: [("Journal", LightweightMigrationTests.entryV1),
                                                                         ("Journal 2", LightweightMigrationTests.entryV2)], current: "Journal")
        try FileManager.default.copyItem(at: modelBundle.url, to: models.appendingPathComponent("Journal.xcdatamodeld"))
        let url = directory.file("Journal.sqlite")
        try LightweightMigrationTests.writeVersion1Store(at: url, bundle: modelBundle)
        let metadata = try NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: NSSQLiteStoreType, at: url, options: nil)
        // The bundle's current version is now 2; the store was written with version 1.
        try ModelBundle(url: models.appendingPathComponent("Journal.xcdatamodeld")).makeCurrent("Journal 2")
        let bundle = try #require(Bundle(url: models))
        let found = try #require(NSManagedObjectModel.mergedModel(from: [bundle], forStoreMetadata: metadata))
        #expect(found.entitiesByName["Scratch"] != nil)
        #expect(found.isConfiguration(withName: nil, compatibleWithStoreMetadata: metadata))
        let other = ["NSStoreModelVersionHashes": ["Nothing": Data(repeating: 1, count: 32)]] as [String: Any]
        #expect(NSManagedObjectModel.mergedModel(from: [bundle], forStoreMetadata: other) == nil)
    }

    /// `init(byMerging:forStoreMetadata:)`: the models given whose entities, together, are the
    /// store's — and nil, leaving every model as it was, when they are not.
    @Test func mergingModelsForStoreMetadataKeepsTheModelsTheStoreWasWrittenWith() throws {
        let directory = TemporaryDirectory()
        let bundle = try ModelBundle(in: directory, versions: [("Journal", LightweightMigrationTests.entryV1),
                                                                ("Journal 2", LightweightMigrationTests.entryV2)], current: "Journal")
        let url = directory.file("Journal.sqlite")
        try LightweightMigrationTests.writeVersion1Store(at: url, bundle: bundle)
        let metadata = try NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: NSSQLiteStoreType, at: url, options: nil)
        func version(_ name: String) throws -> NSManagedObjectModel {
            try NSManagedObjectModel(validatingContentsOf: bundle.url.appendingPathComponent("\(name).xcdatamodel"))
        }

        let second = try version("Journal 2")
        #expect(NSManagedObjectModel(byMerging: [second], forStoreMetadata: metadata) == nil)
        #expect(!second.entities.isEmpty)  // left as it was
        let first = try version("Journal")
        let found = try #require(NSManagedObjectModel(byMerging: [first], forStoreMetadata: metadata))
        #expect(found.isConfiguration(withName: nil, compatibleWithStoreMetadata: metadata))
        // A model of other entities beside it is not merged in, and stays whole.
        let unrelated = NSManagedObjectModel()
        unrelated.entities = [NSEntityDescription(name: "Unrelated")]
        let again = try #require(NSManagedObjectModel(byMerging: [try version("Journal"), unrelated], forStoreMetadata: metadata))
        #expect(again.entitiesByName["Unrelated"] == nil)
        #expect(unrelated.entities.count == 1)
        #expect(NSManagedObjectModel(byMerging: [try version("Journal")], forStoreMetadata: [:]) == nil)
        // Given every version, in either order, it is the store's version that is kept.
        for order in [["Journal", "Journal 2"], ["Journal 2", "Journal"]] {
            let versions = try order.map(version)
            let merged = try #require(NSManagedObjectModel(byMerging: versions, forStoreMetadata: metadata))
            #expect(merged.isConfiguration(withName: nil, compatibleWithStoreMetadata: metadata))
            #expect(versions[order.firstIndex(of: "Journal 2")!].entities.count == second.entities.count)  // not merged: left whole
        }
    }

    @Test func mergedModelJoinsTheModelsOfABundle() throws {
        let directory = TemporaryDirectory()
        for (name, entity) in [("A", "Alpha"), ("B", "Beta")] {
            let version = directory.file("\(name).xcdatamodel")
            try FileManager.default.createDirectory(at: version, withIntermediateDirectories: true)
            try XcodeModelTests.minimalModel(entity: entity).write(to: version.appendingPathComponent("contents"), atomically: true, encoding: .utf8)
        }
        let bundle = try #require(Bundle(url: directory.url))
        let merged = try #require(NSManagedObjectModel.mergedModel(from: [bundle]))
        #expect(Set(merged.entitiesByName.keys) == ["Alpha", "Beta"])
        // The same entity twice cannot be merged.
        let clash = directory.file("C.xcdatamodel")
        try FileManager.default.createDirectory(at: clash, withIntermediateDirectories: true)
        try XcodeModelTests.minimalModel(entity: "Alpha").write(to: clash.appendingPathComponent("contents"), atomically: true, encoding: .utf8)
        #expect(NSManagedObjectModel.mergedModel(from: [bundle]) == nil)
    }
}

/// Every corpus model makes a SQLite store that opens again with the same model and takes an
/// object of each entity: the schema OpenCoreData derives from real models is consistent.
@Suite struct CorpusModelStoreTests {
    @Test(.needsCorpus, arguments: XcodeModelTests.versionFolders)
    func everyCorpusModelMakesAStoreThatReopens(_ folder: URL) throws {
        let directory = TemporaryDirectory()
        let url = directory.file("Corpus.sqlite")
        let model = try NSManagedObjectModel(validatingContentsOf: folder)
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        _ = try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url, options: nil)
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        let inserted = context.performAndWait {
            var count = 0
            for entity in model.entities where !entity.isAbstract {
                let object = NSManagedObject(entity: entity, insertInto: context)
                for attribute in entity.attributesByName.values where !attribute.isTransient && !attribute.isOptional {
                    guard object.value(forKey: attribute.name) == nil else { continue }
                    // Strings unique per entity, so that uniqueness constraints over a tree hold.
                    let value = attribute.attributeType == .stringAttributeType ? "\(entity.name!).\(attribute.name)" : Self.sample(attribute.attributeType)
                    object.setValue(value, forKey: attribute.name)
                }
                count += 1
            }
            // Required relationships and validation rules of real models may refuse these bare
            // objects; what must hold is that whatever saves reads back.
            do { try context.save() } catch { context.rollback(); return 0 }
            return count
        }
        let reopened = NSPersistentStoreCoordinator(managedObjectModel: try NSManagedObjectModel(validatingContentsOf: folder))
        _ = try reopened.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url, options: nil)
        let readContext = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        readContext.persistentStoreCoordinator = reopened
        let stored = readContext.performAndWait {
            model.entities.filter { !$0.isAbstract }.reduce(0) { total, entity in
                let request = NSFetchRequest<NSManagedObject>(entityName: entity.name!)
                request.includesSubentities = false
                return total + ((try? readContext.count(for: request)) ?? -1)
            }
        }
        #expect(stored == inserted)
    }

    static func sample(_ type: NSAttributeType) -> Any? {
        switch type {
        case .integer16AttributeType, .integer32AttributeType, .integer64AttributeType: 1
        case .doubleAttributeType, .floatAttributeType: 1.5
        case .decimalAttributeType: Decimal(1)
        case .booleanAttributeType: true
        case .stringAttributeType: "sample"
        case .dateAttributeType: Date(timeIntervalSinceReferenceDate: 0)
        case .binaryDataAttributeType: Data([1])
        case .UUIDAttributeType: UUID()
        case .URIAttributeType: URL(string: "https://example.com")
        default: nil
        }
    }
}

extension ModelLookupTests {
    @Test func byMergingJoinsModelsThatAreNotInUse() throws {
        let first = try XcodeModelTests.load(XcodeModelTests.minimalModel(entity: "Alpha"))
        let second = try XcodeModelTests.load(XcodeModelTests.minimalModel(entity: "Beta"))
        let merged = try #require(NSManagedObjectModel(byMerging: [first, second]))
        #expect(Set(merged.entitiesByName.keys) == ["Alpha", "Beta"])
        #expect(first.entities.isEmpty && second.entities.isEmpty)
        #expect(merged.entitiesByName["Alpha"]?.managedObjectModel === merged)
        #expect(NSManagedObjectModel(byMerging: nil) == nil)
        let clash = [try XcodeModelTests.load(XcodeModelTests.minimalModel(entity: "Gamma")),
                     try XcodeModelTests.load(XcodeModelTests.minimalModel(entity: "Gamma"))]
        #expect(NSManagedObjectModel(byMerging: clash) == nil)
        let inUse = try XcodeModelTests.load(XcodeModelTests.minimalModel(entity: "Delta"))
        _ = NSPersistentStoreCoordinator(managedObjectModel: inUse)
        #expect(NSManagedObjectModel(byMerging: [inUse]) == nil)
    }
}
