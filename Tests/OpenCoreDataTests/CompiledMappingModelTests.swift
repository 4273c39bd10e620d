import Foundation
import Testing
@testable import OpenCoreData
@testable import OpenCoreDataCore
@testable import OpenCoreDataSQLite

/// `SplitNamePolicy` with knobs of its own (this suite never sets them).
final class CompiledMappingPolicy: SplitNamePolicy {
    static let compiledKnobs = Knobs()
    override class var knobs: Knobs { compiledKnobs }
}

/// Compiled mapping models (`.cdm`), the form Xcode puts in an app's bundle and Core Data
/// reads: read with the keys Core Data's classes archive, chosen for a store's two versions by
/// the entity version hashes they record, and performed when the store is added.
@Suite struct CompiledMappingModelTests {
    /// XcodeMappingModelTests' project, its mapping compiled into `People1to2.cdm` beside the
    /// model bundle and the editor's file removed: a project as an app's bundle has it.
    static func compiledProject(in directory: TemporaryDirectory) throws -> (ModelBundle, URL) {
        let xcmapping = try XcodeMappingModelTests.xcmapping(policy: String(reflecting: CompiledMappingPolicy.self))
        let (bundle, file) = try XcodeMappingModelTests.project(in: directory, xcmapping: xcmapping)
        let mapping = try NSMappingModel(contentsOf: file, forSourceModel: try XcodeMappingModelTests.version(bundle, "People"),
                                         destinationModel: try XcodeMappingModelTests.version(bundle, "People 2"))
        // The source expression as Xcode compiles a filter: a FETCH of the editor's request.
        let people = try #require(mapping.entityMappings.first)
        people.sourceExpression = NSFetchRequestExpression.expression(
            forFetch: try #require(people.sourceExpression), context: NSExpression(format: "$manager.sourceContext"), countOnly: false)
        let compiled = directory.file("People1to2.cdm")
        try CompiledMappingModel.archive(mapping).write(to: compiled)
        try FileManager.default.removeItem(at: file)
        return (bundle, compiled)
    }

    @Test func aStoreIsMigratedThroughTheCompiledMappingModelOfItsVersions() throws {
        let directory = TemporaryDirectory()
        let (bundle, _) = try Self.compiledProject(in: directory)
        let url = directory.file("People.sqlite")
        try XcodeMappingModelTests.writeStore(at: url, bundle: bundle)
        try bundle.makeCurrent("People 2")

        // Without inference: only the mapping model can migrate the store.
        let (container, error) = LightweightMigrationTests.container(try bundle.model(), at: url) { $0.shouldInferMappingModelAutomatically = false }
        #expect(error == nil)
        let request = NSFetchRequest<NSManagedObject>(entityName: "Person")
        request.sortDescriptors = [NSSortDescriptor(key: "firstName", ascending: true)]
        let people = try container.viewContext.fetch(request)
        // The inactive person is filtered out by the source expression; the policy split names
        // and its function made the initials.
        #expect(people.map { $0.value(forKey: "firstName") as? String } == ["Ada0", "Ada1", "Ada2"])
        #expect(people.map { $0.value(forKey: "lastName") as? String } == ["Lovelace", "Lovelace", "Lovelace"])
        #expect(people.map { $0.value(forKey: "initials") as? String } == ["AL", "AL", "AL"])
        #expect(people.allSatisfy { ($0.value(forKey: "pets") as? Set<NSManagedObject>)?.count == 2 })
    }

    /// What is archived reads back: names, types, hashes, entity names, policy, user info and
    /// every expression.
    @Test func aCompiledMappingModelReadsBackWhatWasArchived() throws {
        let directory = TemporaryDirectory()
        let (bundle, compiled) = try Self.compiledProject(in: directory)
        let v1 = try XcodeMappingModelTests.version(bundle, "People"), v2 = try XcodeMappingModelTests.version(bundle, "People 2")
        let mapping = try #require(NSMappingModel(contentsOf: compiled))
        #expect(mapping.entityMappings.map(\.name) == ["PersonToPerson", "PetToPet"])
        let people = mapping.entityMappings[0], pets = mapping.entityMappings[1]
        #expect(people.mappingType == .customEntityMappingType)
        #expect(pets.mappingType == .transformEntityMappingType)
        #expect(people.sourceEntityName == "Person" && people.destinationEntityName == "Person")
        #expect(people.sourceEntityVersionHash == v1.entitiesByName["Person"]?.versionHash)
        #expect(people.destinationEntityVersionHash == v2.entitiesByName["Person"]?.versionHash)
        #expect(people.entityMigrationPolicyClassName == String(reflecting: CompiledMappingPolicy.self))
        #expect(people.sourceExpression?.description
                    == "FETCH(FUNCTION($manager, \"fetchRequestForSourceEntityNamed:predicateString:\", \"Person\", \"active == YES\"), $manager.sourceContext, NO)")
        #expect(people.attributeMappings?.map(\.name) == ["initials"])
        #expect(people.attributeMappings?.first?.valueExpression?.description == "FUNCTION($entityPolicy, \"initialsOf:\", $source.name)")
        #expect(people.relationshipMappings?.first?.valueExpression?.description
                    == "FUNCTION($manager, \"destinationInstancesForSourceRelationshipNamed:sourceInstances:\", \"pets\", $source.pets)")
        #expect(pets.attributeMappings?.first?.valueExpression?.description == "$source.name")
        #expect(mapping.entityMappingsByName["PetToPet"] === pets)

        // User info survives too.
        pets.userInfo = ["note": "kept"]
        let again = try CompiledMappingModel.read(contentsOf: try Self.write(mapping, in: directory, as: "Again.cdm"))
        #expect(again.entityMappings[1].userInfo?["note"] as? String == "kept")
    }

    /// An archive written by `NSKeyedArchiver` with the keys Core Data's `NSMappingModel`,
    /// `NSEntityMapping` and `NSPropertyMapping` encode (not by OpenCoreData's writer) is read.
    @Test func anArchiveWithCoreDatasKeysIsRead() throws {
        let directory = TemporaryDirectory()
        let hash = Data([1, 2, 3, 4])
        let property = ArchivedPropertyMappingStandIn(name: "title", value: ArchivedExpression.object(.keyPath(.variable("source"), "name")))
        // The source expression as Xcode compiles it: a FETCH of the manager's request for the
        // source entity, in the source context.
        let request = ArchivedExpression.object(.function(.variable("manager"), "fetchRequestForSourceEntityNamed:predicateString:",
                                                          [.constant("Book"), .constant("TRUEPREDICATE")]))
        let fetch = ArchivedFetchStandIn(request: request, context: ArchivedExpression.object(.keyPath(.variable("manager"), "sourceContext")))
        let entity = ArchivedEntityMappingStandIn(name: "BookToBook", type: 5, source: "Book", sourceHash: hash, destination: "Book",
                                                  destinationHash: Data([5, 6, 7, 8]), policy: "MyApp.BookPolicy", sourceExpression: fetch,
                                                  attributes: [property], relationships: [])
        let data = try ArchivedExpression.archive(root: ArchivedMappingModelStandIn(entityMappings: [entity]), otherNames: [
            "ArchivedMappingModelStandIn": "NSMappingModel", "ArchivedEntityMappingStandIn": "NSEntityMapping",
            "ArchivedPropertyMappingStandIn": "NSPropertyMapping", "ArchivedFetchStandIn": "NSFetchRequestExpression",
        ])
        let url = directory.file("Books.cdm")
        try data.write(to: url)
        let mapping = try CompiledMappingModel.read(contentsOf: url)
        let read = try #require(mapping.entityMappings.first)
        #expect(read.name == "BookToBook")
        #expect(read.mappingType == .transformEntityMappingType)
        #expect(read.sourceEntityName == "Book" && read.destinationEntityName == "Book")
        #expect(read.sourceEntityVersionHash == hash)
        #expect(read.destinationEntityVersionHash == Data([5, 6, 7, 8]))
        #expect(read.entityMigrationPolicyClassName == "MyApp.BookPolicy")
        #expect(read.sourceExpression?.description
                    == "FETCH(FUNCTION($manager, \"fetchRequestForSourceEntityNamed:predicateString:\", \"Book\", \"TRUEPREDICATE\"), $manager.sourceContext, NO)")
        #expect(read.attributeMappings?.map(\.name) == ["title"])
        #expect(read.attributeMappings?.first?.valueExpression?.description == "$source.name")
        #expect(read.relationshipMappings?.isEmpty == true)
    }

    /// A compiled mapping model is used only for the versions whose hashes it records.
    @Test func aCompiledMappingModelOfOtherVersionsIsNotUsed() throws {
        let directory = TemporaryDirectory()
        let (bundle, compiled) = try Self.compiledProject(in: directory)
        let v1 = try XcodeMappingModelTests.version(bundle, "People"), v2 = try XcodeMappingModelTests.version(bundle, "People 2")
        #expect(NSMappingModel(from: [], forSourceModel: v1, destinationModel: v2)?.entityMappings.count == 2)
        #expect(NSMappingModel(from: [], forSourceModel: v2, destinationModel: v1) == nil)
        #expect { try NSMappingModel(contentsOf: compiled, forSourceModel: v2, destinationModel: v1) } throws: { error in
            error is ModelFileError && "\(error)".contains("People1to2.cdm") && "\(error)".contains("entity version hashes")
        }
    }

    /// A file that is not a compiled mapping model is an error naming it and what is wrong;
    /// `init?(contentsOf:)` gives nil.
    @Test func aFileThatIsNotACompiledMappingModelIsNamed() throws {
        let directory = TemporaryDirectory()
        let garbage = directory.file("Garbage.cdm")
        try Data("not an archive".utf8).write(to: garbage)
        #expect(NSMappingModel(contentsOf: garbage) == nil)
        #expect { try CompiledMappingModel.read(contentsOf: garbage) } throws: { error in
            "\(error)".contains("Garbage.cdm") && "\(error)".contains("not a compiled mapping model")
        }
        // A keyed archive of something else.
        let other = directory.file("Other.cdm")
        try ArchivedExpression.archive(.variable("source")).write(to: other)
        #expect { try CompiledMappingModel.read(contentsOf: other) } throws: { error in
            "\(error)".contains("NSVariableExpression, not an NSMappingModel")
        }
    }

    static func write(_ mapping: NSMappingModel, in directory: TemporaryDirectory, as name: String) throws -> URL {
        let url = directory.file(name)
        try CompiledMappingModel.archive(mapping).write(to: url)
        return url
    }
}

// Stand-ins for Core Data's mapping classes, encoding the keys their NSCoding uses; archived
// under Core Data's class names (see ArchivedExpression.archive(root:otherNames:)).

final class ArchivedMappingModelStandIn: NSObject, NSCoding {
    let entityMappings: [NSObject]
    init(entityMappings: [NSObject]) { self.entityMappings = entityMappings }
    required init?(coder: NSCoder) { nil }
    func encode(with coder: NSCoder) {
        coder.encode(entityMappings as NSArray, forKey: "NSEntityMappings")
    }
}

final class ArchivedEntityMappingStandIn: NSObject, NSCoding {
    let name: String, type: Int32, source: String, sourceHash: Data, destination: String, destinationHash: Data, policy: String
    let sourceExpression: NSObject, attributes: [NSObject], relationships: [NSObject]
    init(name: String, type: Int32, source: String, sourceHash: Data, destination: String, destinationHash: Data, policy: String,
         sourceExpression: NSObject, attributes: [NSObject], relationships: [NSObject]) {
        (self.name, self.type, self.source, self.sourceHash, self.destination, self.destinationHash, self.policy) =
            (name, type, source, sourceHash, destination, destinationHash, policy)
        (self.sourceExpression, self.attributes, self.relationships) = (sourceExpression, attributes, relationships)
    }
    required init?(coder: NSCoder) { nil }
    func encode(with coder: NSCoder) {
        coder.encode(name as NSString, forKey: "NSMappingName")
        coder.encode(type, forKey: "NSMappingType")
        coder.encode(source as NSString, forKey: "NSSourceEntityName")
        coder.encode(sourceHash as NSData, forKey: "NSSourceEntityVersionHash")
        coder.encode(destination as NSString, forKey: "NSDestinationEntityName")
        coder.encode(destinationHash as NSData, forKey: "NSDestinationEntityVersionHash")
        coder.encode(sourceExpression, forKey: "NSSourceExpression")
        coder.encode(policy as NSString, forKey: "NSEntityMigrationPolicyClassName")
        coder.encode(attributes as NSArray, forKey: "NSAttributeMappings")
        coder.encode(relationships as NSArray, forKey: "NSRelationshipMappings")
    }
}

final class ArchivedPropertyMappingStandIn: NSObject, NSCoding {
    let name: String, value: NSObject
    init(name: String, value: NSObject) { (self.name, self.value) = (name, value) }
    required init?(coder: NSCoder) { nil }
    func encode(with coder: NSCoder) {
        coder.encode(name as NSString, forKey: "NSDestinationPropertyName")
        coder.encode(value, forKey: "NSValueExpression")
    }
}

/// Core Data's `NSFetchRequestExpression` (`FETCH(request, context, countOnly)`).
final class ArchivedFetchStandIn: ArchivedExpressionStandIn {
    let request: NSObject, context: NSObject
    init(request: NSObject, context: NSObject) { (self.request, self.context) = (request, context); super.init() }
    required init?(coder: NSCoder) { nil }
    override func encode(with coder: NSCoder) {
        coder.encode(request, forKey: "NSFRExpression")
        coder.encode(context, forKey: "NSMOCExpression")
        coder.encode(false, forKey: "NSCountOnlyFlag")
        coder.encode(50, forKey: "NSExpressionType")
    }
}
