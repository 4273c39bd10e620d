import Foundation
import Testing
import OpenCoreData
@testable import OpenCoreDataCore
@testable import OpenCoreDataSQLite
import OCDSQLite

/// Opening a store decides compatibility as Core Data does, by entity version hashes
/// (COREDATA-FORMAT.md §6), and by structure where the hashes cannot decide.
@Suite struct VersionHashCompatibilityTests {
    static func model(optionalName: Bool, derived: Bool = false) -> NSManagedObjectModel {
        let item = NSEntityDescription(name: "Item")
        let name = NSAttributeDescription(name: "name", type: .stringAttributeType, optional: optionalName)
        let count: NSAttributeDescription = derived ? NSDerivedAttributeDescription(name: "count", type: .integer64AttributeType)
                                                    : NSAttributeDescription(name: "count", type: .integer64AttributeType)
        item.properties = [name, count]
        let model = NSManagedObjectModel()
        model.entities = [item]
        return model
    }

    static func open(_ model: NSManagedObjectModel, at url: URL) throws {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        _ = try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url, options: nil)
    }

    @Test func aChangeTheTablesCannotShowIsRefusedByItsHash() throws {
        // Making `name` optional changes no column, but Core Data would refuse the store.
        let directory = TemporaryDirectory()
        let url = directory.file("Items.sqlite")
        try Self.open(Self.model(optionalName: false), at: url)
        try Self.open(Self.model(optionalName: false), at: url)
        let error = try #require(throws: CocoaError.self) { try Self.open(Self.model(optionalName: true), at: url) }
        #expect(error.code.rawValue == 134100)
        #expect(error.userInfo["NSEntityNameKey"] as? String == "Item")
        #expect((error.userInfo[NSLocalizedDescriptionKey] as? String)?.hasSuffix(
            "entity 'Item' is not the one the store was written with (its version hash differs)") == true)
    }

    /// A store opened with a model that changed in several places is refused with every change
    /// listed, not the first only, and is left as it was.
    @Test func anIncompatibleStoreIsRefusedWithEveryDifferenceListed() throws {
        let directory = TemporaryDirectory()
        let url = directory.file("Items.sqlite")
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: Self.model(optionalName: false))
        try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url, options: nil)
        let context = NSManagedObjectContext(concurrencyType: .confinementConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        NSEntityDescription.insertNewObject(forEntityName: "Item", into: context).setValue("kept", forKey: "name")
        try context.save()
        try coordinator.remove(coordinator.persistentStores[0])

        let newer = Self.model(optionalName: false)
        let item = try #require(newer.entitiesByName["Item"])
        item.properties += [NSAttributeDescription(name: "email", type: .stringAttributeType),
                            NSAttributeDescription(name: "rank", type: .integer64AttributeType)]
        let tag = NSEntityDescription(name: "Tag")
        tag.properties = [NSAttributeDescription(name: "title", type: .stringAttributeType)]
        newer.entities += [tag]
        let error = try #require(throws: CocoaError.self) { try Self.open(newer, at: url) }
        #expect(error.code.rawValue == 134100)
        #expect(error.userInfo["NSEntityNameKey"] as? String == "Item")
        let message = try #require(error.userInfo[NSLocalizedDescriptionKey] as? String)
        for difference in ["entity 'Item' is not the one the store was written with (its version hash differs)",
                           "the model has entity 'Tag', which the store does not have",
                           "attribute 'email' of entity 'Item' has no column ZEMAIL in the store",
                           "attribute 'rank' of entity 'Item' has no column ZRANK in the store"] {
            #expect(message.contains(difference), "\(difference)")
        }
        // Each difference once, though both the hashes and the tables find the missing entity.
        #expect(message.components(separatedBy: "entity 'Tag'").count == 2, "\(message)")

        // The store was only looked at: the old model opens it, with its data.
        let reopened = NSPersistentStoreCoordinator(managedObjectModel: Self.model(optionalName: false))
        try reopened.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url, options: nil)
        let check = NSManagedObjectContext(concurrencyType: .confinementConcurrencyType)
        check.persistentStoreCoordinator = reopened
        let names = try check.fetch(NSFetchRequest<NSManagedObject>(entityName: "Item")).map { $0.value(forKey: "name") as? String }
        #expect(names == ["kept"])
    }

    @Test func whereTheHashIsNotExactTheStructureDecides() throws {
        // Apple's hashing of derived attributes is not known: such an entity is checked by its columns.
        let directory = TemporaryDirectory()
        let url = directory.file("Items.sqlite")
        try Self.open(Self.model(optionalName: false, derived: true), at: url)
        #expect(Self.model(optionalName: true, derived: true).entitiesByName["Item"]?.hasExactVersionHash == false)
        try Self.open(Self.model(optionalName: true, derived: true), at: url)
    }

    @Test(.needsCorpus) func anAppleStoreIsRefusedByAnotherVersionOfItsModel() throws {
        // SampleModel_V2.sqlite was written with version SampleModel2 (which renamed
        // ExpensiveSportCar to LuxuryCar); version SampleModel differs first in Car.
        let directory = TemporaryDirectory()
        let pair = AppleStoreTests.pairs[7]
        let url = try Corpus.copyStore("stores/\(pair.store)", to: directory)
        let older = Corpus.url("models/\(AppleStoreTests.sampleModel)/SampleModel.xcdatamodel")
        let error = try #require(throws: CocoaError.self) { try Self.open(try NSManagedObjectModel(validatingContentsOf: older), at: url) }
        #expect(error.code.rawValue == 134100)
        #expect(error.userInfo["NSEntityNameKey"] as? String == "Car")
        try Self.open(try NSManagedObjectModel(validatingContentsOf: pair.modelURL), at: url)
    }
}

extension VersionHashCompatibilityTests {
    @Test func hashesOfTheModelsOtherConfigurationsDoNotRefuseAStore() throws {
        // A configuration's store whose metadata lists the whole model's hashes opens.
        let model = Self.model(optionalName: false)
        let other = NSEntityDescription(name: "Other")
        other.properties = [NSAttributeDescription(name: "x", type: .integer64AttributeType)]
        model.entities = model.entities + [other]
        model.setEntities([model.entitiesByName["Item"]!], forConfigurationName: "Items")
        let directory = TemporaryDirectory()
        let url = directory.file("Items.sqlite")
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        let store = try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: "Items", at: url, options: nil)
        try coordinator.remove(store)
        var metadata = try NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: NSSQLiteStoreType, at: url)
        metadata[NSStoreModelVersionHashesKey] = model.entityVersionHashesByName
        try NSPersistentStoreCoordinator.setMetadata(metadata, forPersistentStoreOfType: NSSQLiteStoreType, at: url)
        _ = try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: "Items", at: url, options: nil)
    }
}

/// A to-many without inverse is stored in a join table whose layout in Core Data's stores is a
/// guess: a store without that table still opens, and the relationship reads as not loadable
/// rather than as empty.
@Suite struct GuessedLayoutTests {
    @Test func aMissingJoinTableOfAToManyWithoutInverseIsNotReadAsEmpty() throws {
        let person = NSEntityDescription(name: "Person")
        let tag = NSEntityDescription(name: "Tag")
        let favorites = NSRelationshipDescription(name: "favorites", destination: tag, toMany: true)
        person.properties = [NSAttributeDescription(name: "name", type: .stringAttributeType), favorites]
        tag.properties = [NSAttributeDescription(name: "label", type: .stringAttributeType)]
        let model = NSManagedObjectModel()
        model.entities = [person, tag]
        let stack = try TestStack(.sqlite, model: model)
        let ada = stack.insert("Person", ["name": "Ada"])
        ada.mutableSetValue(forKey: "favorites").add(stack.insert("Tag", ["label": "x"]))
        try stack.context.save()
        let connection = try #require(stack.sqliteConnection)
        let join = try #require(try connection.rows("SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'Z\\_%FAVORITES' ESCAPE '\\'").first?[0].stringValue)
        try connection.execute("DROP TABLE \(join)")
        try stack.reopen()
        let reread = try #require(try stack.fetch("Person").first)
        _ = reread.value(forKey: "favorites")
        #expect(reread.hasFault(forRelationshipNamed: "favorites"))
    }
}

/// Comparing a store with the model only looks: it reports what differs and which of the
/// store's own names to adopt, and changes neither the file nor the schema.
@Suite struct StoreComparisonTests {
    /// Owner.pet points to Animal, which has a subentity, so the row keeps the pet's entity in a
    /// `Z<n>_PET` column.
    static func model() -> NSManagedObjectModel {
        let animal = NSEntityDescription(name: "Animal")
        let dog = NSEntityDescription(name: "Dog")
        let owner = NSEntityDescription(name: "Owner")
        animal.subentities = [dog]
        let pet = NSRelationshipDescription(name: "pet", destination: animal)
        let keeper = NSRelationshipDescription(name: "keeper", destination: owner)
        pet.inverseRelationship = keeper
        keeper.inverseRelationship = pet
        animal.properties = [NSAttributeDescription(name: "name", type: .stringAttributeType), keeper]
        owner.properties = [NSAttributeDescription(name: "name", type: .stringAttributeType), pet]
        let model = NSManagedObjectModel()
        model.entities = [animal, dog, owner]
        return model
    }

    @Test func aStoresOwnColumnNameIsReportedAsAnAdoptionAndTheSchemaIsLeftAlone() throws {
        let directory = TemporaryDirectory()
        let url = directory.file("Owners.sqlite")
        let model = Self.model()
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url, options: nil)
        try coordinator.remove(coordinator.persistentStores[0])

        let connection = try SQLiteConnection(path: url.path)
        let schema = SQLiteSchema(entities: model.entities)
        let owner = try #require(schema.mapping(for: model.entitiesByName["Owner"]!))
        let slot = try #require(model.entitiesByName["Owner"]?.relationshipsByName["pet"]).relationshipSlot
        let expected = try #require(owner.toOneEntityColumns[slot])
        try connection.execute("ALTER TABLE ZOWNER RENAME COLUMN \(expected) TO Z9_PET")

        let comparison = try StoreCompatibility(schema: schema, tables: try StoreTablesSnapshot(connection: connection, url: url, metadata: [:]),
                                                connection: connection, url: url).compare(metadata: [:])
        #expect(comparison.isCompatible)
        #expect(comparison.adoptions.count == 1)
        #expect(owner.toOneEntityColumns[slot] == expected)  // only looked
        for adoption in comparison.adoptions { adoption.apply(to: schema) }
        #expect(owner.toOneEntityColumns[slot] == "Z9_PET")

        // A column the store lacks altogether is a difference, named with its property.
        try connection.execute("ALTER TABLE ZOWNER DROP COLUMN ZNAME")
        let missing = try StoreCompatibility(schema: SQLiteSchema(entities: model.entities),
                                             tables: try StoreTablesSnapshot(connection: connection, url: url, metadata: [:]),
                                             connection: connection, url: url).compare(metadata: [:])
        #expect(missing.differences.map(\.kind) == [StoreDifference.Kind.missingColumn])
        #expect(missing.differences.first?.entity == "Owner")
        #expect(missing.differences.first?.property == "name")
    }
}
