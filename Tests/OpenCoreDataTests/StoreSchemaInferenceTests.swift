import Foundation
import Testing
import OCDSQLite
import OpenCoreData
@testable import OpenCoreDataCore
@testable import OpenCoreDataSQLite

/// Stores without a model cache (Core Data before about iOS 6) can still be read: the entities,
/// attributes and to-one links are inferred from `Z_PRIMARYKEY` and the tables.
@Suite struct StoreSchemaInferenceTests {
    /// A store in Core Data's layout with inheritance, a to-one into a tree, and every column
    /// type; written by OpenCoreData, then stripped of what an old store would not have.
    static func makeOldStyleStore(in directory: TemporaryDirectory) throws -> URL {
        let url = directory.file("Old.sqlite")
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: TestModel.make())
        _ = try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url, options: nil)
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        try context.performAndWait {
            let ada = NSEntityDescription.insertNewObject(forEntityName: "Person", into: context)
            ada.setValue("Ada", forKey: "name")
            ada.setValue(36, forKey: "age")
            // Three people, so that only ZPERSON holds the key Pet.owner refers to.
            for name in ["Bo", "Cy"] {
                NSEntityDescription.insertNewObject(forEntityName: "Person", into: context).setValue(name, forKey: "name")
            }
            try context.save()
            let dan = NSEntityDescription.insertNewObject(forEntityName: "Person", into: context)
            dan.setValue("Dan", forKey: "name")
            let pet = NSEntityDescription.insertNewObject(forEntityName: "Pet", into: context)
            pet.setValue("Tom", forKey: "name")
            pet.setValue(dan, forKey: "owner")
            let rex = NSEntityDescription.insertNewObject(forEntityName: "Dog", into: context)
            rex.setValue("Collie", forKey: "breed")
            try context.save()
        }
        try coordinator.remove(coordinator.persistentStores[0])
        let connection = try SQLiteConnection(path: url.path)
        try connection.execute("DROP TABLE Z_MODELCACHE")
        return url
    }

    @Test func entitiesColumnsAndToOnesAreInferred() throws {
        let directory = TemporaryDirectory()
        let url = try Self.makeOldStyleStore(in: directory)
        let connection = try SQLiteConnection(path: url.path)
        var inference = StoreSchemaInference(connection: connection, url: url)
        let model = try inference.inferModel()
        let original = TestModel.make()
        #expect(Set(model.entitiesByName.keys) == Set(original.entitiesByName.keys))
        for entity in original.entities {
            let inferred = try #require(model.entitiesByName[entity.name!])
            #expect(inferred.superentity?.name == entity.superentity?.name, "\(entity.name!)")
        }
        let person = try #require(model.entitiesByName["Person"])
        #expect(person.attributesByName["name"]?.attributeType == .stringAttributeType)
        #expect(person.attributesByName["age"]?.attributeType == .integer64AttributeType)
        // Pet.owner is a to-one to Person: an indexed INTEGER column named after an entity.
        let owner = try #require(model.entitiesByName["Pet"]?.relationshipsByName["owner"])
        #expect(owner.destinationEntity?.name == "Person")
        #expect(model.isInferredFromStore)
    }

    @Test func anInferredModelReadsTheStoreButCannotWriteIt() throws {
        let directory = TemporaryDirectory()
        let url = try Self.makeOldStyleStore(in: directory)
        var inference = StoreSchemaInference(connection: try SQLiteConnection(path: url.path), url: url)
        let model = try inference.inferModel()
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        let error = try #require(throws: CocoaError.self) {
            try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url, options: nil)
        }
        #expect((error.userInfo[NSLocalizedDescriptionKey] as? String)?.contains("inferred from the store's tables") == true)
        _ = try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url,
                                               options: [NSReadOnlyPersistentStoreOption: true])
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        let (names, dogs) = try context.performAndWait {
            let people = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Person"))
            let animals = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Dog"))
            return (people.map { "\($0.value(forKey: "name") ?? "nil") \($0.value(forKey: "age") ?? "nil")" },
                    animals.map { $0.value(forKey: "breed") as? String })
        }
        #expect(names.sorted() == ["Ada 36", "Bo 0", "Cy 0", "Dan 0"])
        #expect(dogs == ["Collie"])
    }

    @Test func aBrokenPrimaryKeyTableIsNamed() throws {
        let directory = TemporaryDirectory()
        let url = try Self.makeOldStyleStore(in: directory)
        let connection = try SQLiteConnection(path: url.path)
        try connection.execute("UPDATE Z_PRIMARYKEY SET Z_SUPER = 99 WHERE Z_NAME = 'Dog'")
        var inference = StoreSchemaInference(connection: connection, url: url)
        let error = try #require(throws: ModelFileError.self) { try inference.inferModel() }
        #expect(error.element == "Z_PRIMARYKEY")
        #expect(error.reason == "entity Dog names the missing parent entity 99")
    }
}
