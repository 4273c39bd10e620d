import Foundation
import Testing
@testable import OpenCoreData
@testable import OpenCoreDataCore

/// A policy that splits a person's name in two, as an Apple app's `NSEntityMigrationPolicy`
/// subclass would, and answers the `initialsOf:` function of the mapping's expressions.
class SplitNamePolicy: NSEntityMigrationPolicy {
    /// When a test makes the policy fail or cancel; each suite has a subclass with its own, so
    /// that suites running side by side do not see each other's.
    final class Knobs: @unchecked Sendable {
        // @unchecked Sendable: set and cleared by one serialized suite around its migrations.
        var failAfter: Int?
        var cancelAfter: Int?
        /// A progress the policy cancels once it has made its first instance.
        var progressToCancel: Progress?
    }
    static let managerKnobs = Knobs()
    class var knobs: Knobs { managerKnobs }
    private var created = 0

    override func createDestinationInstances(forSource source: NSManagedObject, in mapping: NSEntityMapping,
                                             manager: NSMigrationManager) throws {
        if let limit = Self.knobs.failAfter, created == limit { throw CocoaError(.validationStringTooLong) }
        if let limit = Self.knobs.cancelAfter, created == limit { manager.cancelMigrationWithError(CocoaError(.userCancelled)) }
        if created == 1 { Self.knobs.progressToCancel?.cancel() }
        try super.createDestinationInstances(forSource: source, in: mapping, manager: manager)
        created += 1
        let person = manager.destinationInstances(forEntityMappingName: mapping.name!, sourceInstances: [source])[0]
        let parts = (source.value(forKey: "name") as? String ?? "").split(separator: " ", maxSplits: 1).map(String.init)
        person.setValue(parts.first, forKey: "firstName")
        person.setValue(parts.count > 1 ? parts[1] : nil, forKey: "lastName")
    }

    override func value(ofFunction selector: String, arguments: [Any?]) throws -> Any? {
        guard selector == "initialsOf:" else { return try super.value(ofFunction: selector, arguments: arguments) }
        let name = arguments.first as? String ?? ""
        return String(name.split(separator: " ").compactMap(\.first))
    }
}

/// `NSMigrationManager` and `NSEntityMigrationPolicy`: a store migrated through a mapping model
/// into a new store, by the default policy and by policies of one's own (Apple's documentation
/// of both classes; COREDATA-SEMANTICS.md §12 for the error codes).
@Suite(.serialized) struct MigrationManagerTests {
    static func people(v2: Bool) -> NSManagedObjectModel {
        let person = NSEntityDescription(name: "Person")
        let pet = NSEntityDescription(name: "Pet")
        let pets = NSRelationshipDescription(name: "pets", destination: pet, toMany: true, deleteRule: .cascadeDeleteRule)
        let owner = NSRelationshipDescription(name: "owner", destination: person)
        owner.isOptional = !v2
        pets.inverseRelationship = owner
        owner.inverseRelationship = pets
        if v2 {
            person.properties = [NSAttributeDescription(name: "firstName", type: .stringAttributeType, optional: false),
                                 NSAttributeDescription(name: "lastName", type: .stringAttributeType),
                                 NSAttributeDescription(name: "initials", type: .stringAttributeType), pets]
        } else {
            person.properties = [NSAttributeDescription(name: "name", type: .stringAttributeType),
                                 NSAttributeDescription(name: "active", type: .booleanAttributeType, defaultValue: true), pets]
        }
        pet.properties = [NSAttributeDescription(name: "name", type: .stringAttributeType), owner]
        let model = NSManagedObjectModel()
        model.entities = [person, pet]
        return model
    }

    /// A version-1 store: `count` active people with two pets each, and one inactive person.
    static func writeSource(at url: URL, count: Int = 3) throws -> NSManagedObjectModel {
        let model = people(v2: false)
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        let store = try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, at: url)
        let context = NSManagedObjectContext(concurrencyType: .confinementConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        for index in 0..<count {
            let person = NSEntityDescription.insertNewObject(forEntityName: "Person", into: context)
            person.setValue("Ada\(index) Lovelace", forKey: "name")
            for name in ["cat", "dog"] {
                let pet = NSEntityDescription.insertNewObject(forEntityName: "Pet", into: context)
                pet.setValue("\(name)\(index)", forKey: "name")
                pet.setValue(person, forKey: "owner")
            }
        }
        let inactive = NSEntityDescription.insertNewObject(forEntityName: "Person", into: context)
        inactive.setValue("Gone Away", forKey: "name")
        inactive.setValue(false, forKey: "active")
        try context.save()
        try coordinator.remove(store)
        return model
    }

    /// Version 1 → 2: people through `SplitNamePolicy`, only the active ones, with their
    /// initials computed by the policy's function; pets copied, each to its owner's new person.
    static func mapping(source: NSManagedObjectModel, destination: NSManagedObjectModel) -> NSMappingModel {
        let people = NSEntityMapping()
        people.name = "PersonToPerson"
        people.mappingType = .customEntityMappingType
        people.sourceEntityName = "Person"
        people.destinationEntityName = "Person"
        people.sourceEntityVersionHash = source.entitiesByName["Person"]!.versionHash
        people.entityMigrationPolicyClassName = String(reflecting: SplitNamePolicy.self)
        people.sourceExpression = NSExpression(format: "FUNCTION($manager, 'fetchRequestForSourceEntityNamed:predicateString:', 'Person', 'active == YES')")
        let initials = NSPropertyMapping()
        initials.name = "initials"
        initials.valueExpression = NSExpression(format: "FUNCTION($entityPolicy, 'initialsOf:', $source.name)")
        people.attributeMappings = [initials]
        let petsOfPerson = NSPropertyMapping()
        petsOfPerson.name = "pets"
        petsOfPerson.valueExpression = NSExpression(format: "FUNCTION($manager, 'destinationInstancesForEntityMappingNamed:sourceInstances:', 'PetToPet', $source.pets)")
        people.relationshipMappings = [petsOfPerson]

        let pets = NSEntityMapping()
        pets.name = "PetToPet"
        pets.mappingType = .copyEntityMappingType
        pets.sourceEntityName = "Pet"
        pets.destinationEntityName = "Pet"
        let name = NSPropertyMapping()
        name.name = "name"
        name.valueExpression = NSExpression(format: "$source.name")
        pets.attributeMappings = [name]
        let owner = NSPropertyMapping()
        owner.name = "owner"
        owner.valueExpression = NSExpression(format: "FUNCTION($manager, 'destinationInstancesForEntityMappingNamed:sourceInstances:', 'PersonToPerson', $source.owner)")
        pets.relationshipMappings = [owner]

        let mapping = NSMappingModel()
        mapping.entityMappings = [people, pets]
        return mapping
    }

    /// The contexts `fetch` read in, kept for the objects' faults to fire.
    nonisolated(unsafe) static var readers: [NSManagedObjectContext] = []

    static func fetch(_ entity: String, from url: URL, type: String = NSSQLiteStoreType, model: NSManagedObjectModel,
                      sortedBy key: String = "name") throws -> [NSManagedObject] {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(ofType: type, at: url, options: [NSReadOnlyPersistentStoreOption: true])
        let context = NSManagedObjectContext(concurrencyType: .confinementConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        readers.append(context)
        let request = NSFetchRequest<NSManagedObject>(entityName: entity)
        request.sortDescriptors = [NSSortDescriptor(key: key, ascending: true)]
        return try context.fetch(request)
    }

    @Test func aCustomMappingWithAPolicyOfOneOwnMigratesEveryObjectAndLink() throws {
        let directory = TemporaryDirectory()
        let (sourceURL, destinationURL) = (directory.file("v1.sqlite"), directory.file("v2.sqlite"))
        let v1 = try Self.writeSource(at: sourceURL)
        let v2 = Self.people(v2: true)
        let manager = NSMigrationManager(sourceModel: v1, destinationModel: v2)
        manager.batchSize = 2  // several batches, links across them

        try manager.migrateStore(from: sourceURL, sourceType: NSSQLiteStoreType, options: nil, with: Self.mapping(source: v1, destination: v2),
                                 toDestinationURL: destinationURL, destinationType: NSSQLiteStoreType, destinationOptions: nil)
        #expect(manager.migrationProgress == 1)

        let people = try Self.fetch("Person", from: destinationURL, model: v2, sortedBy: "firstName")
        // The inactive person was left out by the mapping's source expression.
        #expect(people.map { $0.value(forKey: "firstName") as? String } == ["Ada0", "Ada1", "Ada2"])
        #expect(people.allSatisfy { $0.value(forKey: "lastName") as? String == "Lovelace" })
        #expect(people.map { $0.value(forKey: "initials") as? String } == ["AL", "AL", "AL"])
        for (index, person) in people.enumerated() {
            let pets = (person.value(forKey: "pets") as? Set<NSManagedObject>) ?? []
            #expect(Set(pets.compactMap { $0.value(forKey: "name") as? String }) == ["cat\(index)", "dog\(index)"])
        }
        let pets = try Self.fetch("Pet", from: destinationURL, model: v2)
        #expect(pets.count == 6)
        #expect(pets.allSatisfy { $0.value(forKey: "owner") != nil })
        // The source store was only read.
        #expect(try Self.fetch("Person", from: sourceURL, model: v1).count == 4)
    }

    /// Gives the entity mapping `name` the source expression Xcode's mapping editor writes: a
    /// FETCH of `entity`'s instances matching `predicate` in the manager's source context.
    static func fetchSource(of name: String, in mapping: NSMappingModel, entity: String, predicate: String) throws {
        let entityMapping = try #require(mapping.entityMappings.first { $0.name == name })
        entityMapping.sourceExpression = try NSExpression(validatingFormat: """
            FETCH(FUNCTION($manager, "fetchRequestForSourceEntityNamed:predicateString:", "\(entity)", "\(predicate)"), \
            $manager.sourceContext, NO)
            """)
    }

    /// The source expression as Xcode's mapping editor writes it, a FETCH of the filtered
    /// request in the manager's source context, chooses the instances migrated.
    @Test func aFetchSourceExpressionChoosesTheInstancesMigrated() throws {
        let directory = TemporaryDirectory()
        let (sourceURL, destinationURL) = (directory.file("v1.sqlite"), directory.file("v2.sqlite"))
        let v1 = try Self.writeSource(at: sourceURL)
        let v2 = Self.people(v2: true)
        let mapping = Self.mapping(source: v1, destination: v2)
        try Self.fetchSource(of: "PersonToPerson", in: mapping, entity: "Person", predicate: "active == YES AND name BEGINSWITH 'Ada1'")
        // Their pets only: version 2's pets must have an owner.
        try Self.fetchSource(of: "PetToPet", in: mapping, entity: "Pet", predicate: "owner.name BEGINSWITH 'Ada1'")
        try NSMigrationManager(sourceModel: v1, destinationModel: v2)
            .migrateStore(from: sourceURL, sourceType: NSSQLiteStoreType, with: mapping,
                          toDestinationURL: destinationURL, destinationType: NSSQLiteStoreType)
        let migrated = try Self.fetch("Person", from: destinationURL, model: v2, sortedBy: "firstName")
        #expect(migrated.map { $0.value(forKey: "firstName") as? String } == ["Ada1"])
        let migratedPets = (migrated.first?.value(forKey: "pets") as? Set<NSManagedObject>) ?? []
        #expect(Set(migratedPets.compactMap { $0.value(forKey: "name") as? String }) == ["cat1", "dog1"])
    }

    /// A FETCH whose fetch fails (here: a key the source entity lacks) fails the migration with
    /// that fetch's error, naming the mapping; nothing is left at the destination.
    @Test func aFailingFetchSourceExpressionReportsTheFetchError() throws {
        let directory = TemporaryDirectory()
        let (sourceURL, destinationURL) = (directory.file("v1.sqlite"), directory.file("v2.sqlite"))
        let v1 = try Self.writeSource(at: sourceURL)
        let v2 = Self.people(v2: true)
        let mapping = Self.mapping(source: v1, destination: v2)
        try Self.fetchSource(of: "PersonToPerson", in: mapping, entity: "Person", predicate: "nickname == 'x'")
        let error = #expect(throws: (any Error).self) {
            try NSMigrationManager(sourceModel: v1, destinationModel: v2)
                .migrateStore(from: sourceURL, sourceType: NSSQLiteStoreType, with: mapping,
                              toDestinationURL: destinationURL, destinationType: NSSQLiteStoreType)
        }
        let message = (error as? NSError)?.localizedDescription ?? ""
        #expect(message.contains("The FETCH of the entity mapping PersonToPerson failed"))
        #expect(message.contains("nickname"))
        #expect(!FileManager.default.fileExists(atPath: destinationURL.path))
    }

    @Test func withoutAMappingModelTheInferredOneCopiesTheStoreIntoAnotherStoreType() throws {
        let directory = TemporaryDirectory()
        let (bundle, sourceURL) = try LightweightMigrationTests.version1Store(upgradingTo: LightweightMigrationTests.entryV2, in: directory)
        let v1 = try bundle.model()
        try bundle.makeCurrent("Journal 2")
        let v2 = try bundle.model()
        JSONFileStore.register()
        let destinationURL = directory.file("Journal.json")

        let manager = NSMigrationManager(sourceModel: v1, destinationModel: v2)
        try manager.migrateStore(from: sourceURL, sourceType: NSSQLiteStoreType, with: nil,
                                 toDestinationURL: destinationURL, destinationType: JSONFileStore.plainType)

        let entries = try Self.fetch("Entry", from: destinationURL, type: JSONFileStore.plainType, model: v2, sortedBy: "time")
        #expect(entries.map { $0.value(forKey: "text") as? String } == ["note 0", "note 1", nil])
        #expect(entries.map { ($0.value(forKey: "stars") as? NSNumber)?.doubleValue } == [3, 4, 1])
        let tags = (entries[0].value(forKey: "tags") as? Set<NSManagedObject>) ?? []
        #expect(Set(tags.compactMap { $0.value(forKey: "name") as? String }) == ["work", "home"])
        #expect((entries[1].value(forKey: "journal") as? NSManagedObject)?.value(forKey: "title") as? String == "Diary")
        #expect(entries[2].value(forKey: "journal") == nil)
    }

    @Test func aPolicyThatThrowsHalfwayNamesTheObjectAndLeavesNoDestination() throws {
        let directory = TemporaryDirectory()
        let (sourceURL, destinationURL) = (directory.file("v1.sqlite"), directory.file("v2.sqlite"))
        let v1 = try Self.writeSource(at: sourceURL)
        let v2 = Self.people(v2: true)
        SplitNamePolicy.knobs.failAfter = 2
        defer { SplitNamePolicy.knobs.failAfter = nil }
        let manager = NSMigrationManager(sourceModel: v1, destinationModel: v2)
        manager.batchSize = 2

        let error = #expect(throws: CocoaError.self) {
            try manager.migrateStore(from: sourceURL, sourceType: NSSQLiteStoreType, with: Self.mapping(source: v1, destination: v2),
                                     toDestinationURL: destinationURL, destinationType: NSSQLiteStoreType)
        }
        #expect(error?.code.rawValue == NSEntityMigrationPolicyError)
        let message = error?.localizedDescription ?? ""
        #expect(message.contains("SplitNamePolicy.createDestinationInstances for x-coredata://"))
        #expect(message.contains("entity mapping PersonToPerson (Person → Person)"))
        #expect((error?.userInfo[NSUnderlyingErrorKey] as? CocoaError)?.code == .validationStringTooLong)
        #expect(!FileManager.default.fileExists(atPath: destinationURL.path))
        #expect(try Self.fetch("Person", from: sourceURL, model: v1).count == 4)
    }

    @Test func aCancelledMigrationThrowsTheErrorGivenAndLeavesNoDestination() throws {
        let directory = TemporaryDirectory()
        let (sourceURL, destinationURL) = (directory.file("v1.sqlite"), directory.file("v2.sqlite"))
        let v1 = try Self.writeSource(at: sourceURL)
        let v2 = Self.people(v2: true)
        SplitNamePolicy.knobs.cancelAfter = 1
        defer { SplitNamePolicy.knobs.cancelAfter = nil }

        let manager = NSMigrationManager(sourceModel: v1, destinationModel: v2)
        let error = #expect(throws: CocoaError.self) {
            try manager.migrateStore(from: sourceURL, sourceType: NSSQLiteStoreType, with: Self.mapping(source: v1, destination: v2),
                                     toDestinationURL: destinationURL, destinationType: NSSQLiteStoreType)
        }
        #expect(error?.code == .userCancelled)
        #expect(!FileManager.default.fileExists(atPath: destinationURL.path))
    }

    @Test func destinationObjectsTheMappingLeavesInvalidFailTheMigration() throws {
        let directory = TemporaryDirectory()
        let (sourceURL, destinationURL) = (directory.file("v1.sqlite"), directory.file("v2.sqlite"))
        let v1 = try Self.writeSource(at: sourceURL, count: 1)
        let v2 = Self.people(v2: true)
        let mapping = Self.mapping(source: v1, destination: v2)
        // Without its owner mapping, every pet lacks the owner version 2 requires.
        mapping.entityMappings[1].relationshipMappings = []
        mapping.entityMappings[0].relationshipMappings = []

        let error = #expect(throws: CocoaError.self) {
            try NSMigrationManager(sourceModel: v1, destinationModel: v2).migrateStore(
                from: sourceURL, sourceType: NSSQLiteStoreType, with: mapping,
                toDestinationURL: destinationURL, destinationType: NSSQLiteStoreType)
        }
        #expect(error?.code == .validationMultipleErrors)
        #expect(!FileManager.default.fileExists(atPath: destinationURL.path))
    }

    @Test func aMappingMadeForOtherVersionsIsRefusedBeforeAnythingIsWritten() throws {
        let directory = TemporaryDirectory()
        let (sourceURL, destinationURL) = (directory.file("v1.sqlite"), directory.file("v2.sqlite"))
        let v1 = try Self.writeSource(at: sourceURL, count: 1)
        let v2 = Self.people(v2: true)
        let mapping = Self.mapping(source: v1, destination: v2)
        mapping.entityMappings[0].sourceEntityVersionHash = Data(repeating: 7, count: 32)

        let error = #expect(throws: CocoaError.self) {
            try NSMigrationManager(sourceModel: v1, destinationModel: v2).migrateStore(
                from: sourceURL, sourceType: NSSQLiteStoreType, with: mapping,
                toDestinationURL: destinationURL, destinationType: NSSQLiteStoreType)
        }
        #expect(error?.code == .migrationMissingMappingModel)
        #expect(error?.localizedDescription.contains("source entity Person") == true)
        #expect(!FileManager.default.fileExists(atPath: destinationURL.path))
    }

    @Test func aSourceStoreOfAnotherModelIsTheSourceStoreError() throws {
        let directory = TemporaryDirectory()
        let (sourceURL, destinationURL) = (directory.file("v1.sqlite"), directory.file("v2.sqlite"))
        _ = try Self.writeSource(at: sourceURL, count: 1)
        let v2 = Self.people(v2: true)

        let error = #expect(throws: CocoaError.self) {
            try NSMigrationManager(sourceModel: v2, destinationModel: v2).migrateStore(
                from: sourceURL, sourceType: NSSQLiteStoreType, with: nil,
                toDestinationURL: destinationURL, destinationType: NSSQLiteStoreType)
        }
        #expect(error?.code == .migrationManagerSourceStore)
        #expect((error?.userInfo[NSUnderlyingErrorKey] as? CocoaError)?.code == .persistentStoreIncompatibleVersionHash)
    }

    @Test func aPolicyClassThatDoesNotExistIsNamed() throws {
        let directory = TemporaryDirectory()
        let (sourceURL, destinationURL) = (directory.file("v1.sqlite"), directory.file("v2.sqlite"))
        let v1 = try Self.writeSource(at: sourceURL, count: 1)
        let v2 = Self.people(v2: true)
        let mapping = Self.mapping(source: v1, destination: v2)
        mapping.entityMappings[0].entityMigrationPolicyClassName = "NoSuchPolicy"

        let error = #expect(throws: CocoaError.self) {
            try NSMigrationManager(sourceModel: v1, destinationModel: v2).migrateStore(
                from: sourceURL, sourceType: NSSQLiteStoreType, with: mapping,
                toDestinationURL: destinationURL, destinationType: NSSQLiteStoreType)
        }
        #expect(error?.code.rawValue == NSEntityMigrationPolicyError)
        #expect(error?.localizedDescription.contains("NoSuchPolicy") == true)
    }
}
