import Foundation
import Testing
import OpenCoreData
@testable import OpenCoreDataCore
@testable import OpenCoreDataSQLite

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
