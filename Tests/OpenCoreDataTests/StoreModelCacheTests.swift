import Foundation
import Testing
import OpenCoreData
@testable import OpenCoreDataCore
@testable import OpenCoreDataSQLite
import OCDSQLite

/// The model a SQLite store carries (`Z_MODELCACHE`): written when the store is created and
/// when it is migrated, as Core Data does (COREDATA-FORMAT.md §5), so that the store can be
/// migrated and inspected without the application's old model.
@Suite struct StoreModelCacheTests {
    static func person(with extra: [NSAttributeDescription] = []) -> NSManagedObjectModel {
        let person = NSEntityDescription(name: "Person")
        person.properties = [NSAttributeDescription(name: "name", type: .stringAttributeType)] + extra
        let model = NSManagedObjectModel()
        model.entities = [person]
        return model
    }

    static func addStore(_ model: NSManagedObjectModel, at url: URL) throws -> NSPersistentStoreCoordinator {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url, options: nil)
        return coordinator
    }

    /// A store at `url` written with `model`, holding one person, Ada; closed.
    static func storeWithAda(_ model: NSManagedObjectModel, at url: URL) throws {
        let coordinator = try addStore(model, at: url)
        let context = NSManagedObjectContext(concurrencyType: .confinementConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        NSEntityDescription.insertNewObject(forEntityName: "Person", into: context).setValue("Ada", forKey: "name")
        try context.save()
        try coordinator.remove(coordinator.persistentStores[0])
    }

    @Test func aNewStoreCarriesItsModel() throws {
        let directory = TemporaryDirectory()
        let url = directory.file("People.sqlite")
        let model = TestModel.make()
        let coordinator = try Self.addStore(model, at: url)
        try coordinator.remove(coordinator.persistentStores[0])

        let stored = try NSPersistentStoreCoordinator.storedModelForPersistentStore(ofType: NSSQLiteStoreType, at: url)
        #expect(stored.source == .modelCache)
        #expect(stored.model.entityVersionHashesByName == model.entityVersionHashesByName)
        #expect(ModelDescription(stored.model) == ModelDescription(model), "\(ModelDescription(stored.model).differences(from: ModelDescription(model)))")
    }

    /// A lightweight migration replaces the cache with the new model, in the same transaction.
    @Test func aMigratedStoreCarriesTheNewModel() throws {
        let directory = TemporaryDirectory()
        let url = directory.file("People.sqlite")
        let old = try Self.addStore(Self.person(), at: url)
        try old.remove(old.persistentStores[0])

        let newer = Self.person(with: [NSAttributeDescription(name: "email", type: .stringAttributeType)])
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: newer)
        try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url,
                                           options: [NSMigratePersistentStoresAutomaticallyOption: true, NSInferMappingModelAutomaticallyOption: true])
        try coordinator.remove(coordinator.persistentStores[0])

        let cached = try #require(try StoreModelCache.model(ofStoreAt: url))
        #expect(cached.entityVersionHashesByName == newer.entityVersionHashesByName)
        #expect(cached.entitiesByName["Person"]?.attributesByName["email"] != nil)
    }

    /// A migration that fails leaves the cache as it was, with the rest of the store.
    @Test func aFailedMigrationLeavesTheOldCache() throws {
        let directory = TemporaryDirectory()
        let url = directory.file("People.sqlite")
        let oldModel = Self.person()
        try Self.storeWithAda(oldModel, at: url)

        // A required attribute without a default cannot be filled for Ada: 134110.
        let newer = Self.person(with: [NSAttributeDescription(name: "age", type: .integer32AttributeType, optional: false)])
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: newer)
        let error = try #require(throws: CocoaError.self) {
            try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url,
                                               options: [NSMigratePersistentStoresAutomaticallyOption: true, NSInferMappingModelAutomaticallyOption: true])
        }
        #expect(error.code.rawValue == 134110)
        let cached = try #require(try StoreModelCache.model(ofStoreAt: url))
        #expect(cached.entityVersionHashesByName == oldModel.entityVersionHashesByName)
    }

    /// The cache is what finds the source model when no model version has the store's hashes:
    /// a store written by a model built in code moves to the next one with its rows.
    @Test func aStoreWhoseModelIsNowhereElseMigratesThroughItsCache() throws {
        let directory = TemporaryDirectory()
        let url = directory.file("People.sqlite")
        try Self.storeWithAda(Self.person(), at: url)

        let newer = Self.person(with: [NSAttributeDescription(name: "age", type: .integer32AttributeType, optional: false, defaultValue: 36)])
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: newer)
        try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url,
                                           options: [NSMigratePersistentStoresAutomaticallyOption: true, NSInferMappingModelAutomaticallyOption: true])
        let reader = NSManagedObjectContext(concurrencyType: .confinementConcurrencyType)
        reader.persistentStoreCoordinator = coordinator
        let people = try reader.fetch(NSFetchRequest<NSManagedObject>(entityName: "Person"))
        #expect(people.map { $0.value(forKey: "name") as? String } == ["Ada"])
        #expect(people.first?.value(forKey: "age") as? Int == 36)
    }

    /// A model the archive cannot hold (a block predicate in a fetch request template) gives a
    /// store without a cache, which opens and works as any other.
    @Test func aModelTheArchiveCannotHoldLeavesTheCacheEmpty() throws {
        let directory = TemporaryDirectory()
        let url = directory.file("People.sqlite")
        let model = Self.person()
        let template = NSFetchRequest<NSFetchRequestResult>(entityName: "Person")
        template.predicate = NSPredicate { _, _ in true }
        model.setFetchRequestTemplate(template, forName: "everyone")
        #expect(throws: KeyedArchiveEncodingError.self) { try CompiledModel.modelCache(of: model) }

        try Self.storeWithAda(model, at: url)
        #expect(try StoreModelCache.content(ofStoreAt: url) == nil)
        let reopened = try Self.addStore(Self.person(), at: url)
        #expect(reopened.persistentStores.count == 1)
    }

    /// A predicate nested deeper than the readers accept is refused, not archived unreadable.
    @Test func aPredicateTooDeepToReadBackIsNotArchived() throws {
        var predicate: NSPredicate = NSPredicate(format: "name == 'Ada'")
        for _ in 0..<(BinaryPropertyList.maximumDepth + 10) { predicate = NSCompoundPredicate(notPredicateWithSubpredicate: predicate) }
        let model = Self.person()
        let template = NSFetchRequest<NSFetchRequestResult>(entityName: "Person")
        template.predicate = predicate
        model.setFetchRequestTemplate(template, forName: "deep")
        let error = try #require(throws: KeyedArchiveEncodingError.self) { try CompiledModel.modelCache(of: model) }
        #expect(error.reason.contains("nested more than \(BinaryPropertyList.maximumDepth) levels"))
    }

    /// The blob is raw DEFLATE of a binary keyed archive, read here by Foundation's property
    /// list reader too, not by ours alone (the archive's layout is compared with Apple's in
    /// `KeyedArchiveModelEncoderTests`).
    @Test func theCacheIsRawDeflateOfABinaryKeyedArchive() throws {
        let directory = TemporaryDirectory()
        let url = directory.file("People.sqlite")
        let coordinator = try Self.addStore(Self.person(), at: url)
        try coordinator.remove(coordinator.persistentStores[0])
        let blob = try #require(try StoreModelCache.content(ofStoreAt: url))
        let archive = try RawDeflate.inflate(blob)
        #expect(archive.starts(with: Array("bplist00".utf8)))
        // Foundation's own reader agrees it is a property list with the keyed archive's keys.
        let plist = try #require(try PropertyListSerialization.propertyList(from: archive, format: nil) as? [String: Any])
        #expect(plist["$archiver"] as? String == "NSKeyedArchiver")
        #expect(plist["$version"] as? Int == 100_000)
        #expect((plist["$objects"] as? [Any])?.first as? String == "$null")
    }
}
