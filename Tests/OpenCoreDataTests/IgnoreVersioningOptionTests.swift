import Foundation
import Testing
import OpenCoreData

/// `NSIgnorePersistentStoreVersioningOption`: a store whose version hashes differ from the
/// model's opens without being compared or migrated, and records the model's hashes from then on.
@Suite struct IgnoreVersioningOptionTests {
    /// `Item(name)`; a required `name` changes the entity's version hash and not its table, a
    /// `note` adds a column.
    static func model(requiredName: Bool = false, note: Bool = false) -> NSManagedObjectModel {
        let item = NSEntityDescription()
        item.name = "Item"
        var properties: [NSPropertyDescription] = []
        for name in ["name"] + (note ? ["note"] : []) {
            let attribute = NSAttributeDescription()
            attribute.name = name
            attribute.attributeType = .stringAttributeType
            attribute.isOptional = !(requiredName && name == "name")
            properties.append(attribute)
        }
        item.properties = properties
        let model = NSManagedObjectModel()
        model.entities = [item]
        return model
    }

    static func writeStore(ofType type: String, at url: URL) throws {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model())
        try coordinator.addPersistentStore(ofType: type, configurationName: nil, at: url, options: nil)
        let context = NSManagedObjectContext(concurrencyType: .confinementConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        NSEntityDescription.insertNewObject(forEntityName: "Item", into: context).setValue("kept", forKey: "name")
        try context.save()
        try coordinator.remove(coordinator.persistentStores[0])
    }

    static func names(in coordinator: NSPersistentStoreCoordinator) throws -> [String] {
        let context = NSManagedObjectContext(concurrencyType: .confinementConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        return try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Item")).compactMap { $0.value(forKey: "name") as? String }
    }

    @Test(arguments: [NSSQLiteStoreType, NSBinaryStoreType])
    func aStoreOfOtherHashesOpensWithTheOption(_ type: String) throws {
        let directory = TemporaryDirectory()
        let url = directory.file("Items.store")
        try Self.writeStore(ofType: type, at: url)
        let changed = Self.model(requiredName: true)
        #expect(throws: CocoaError.self) {
            try NSPersistentStoreCoordinator(managedObjectModel: changed).addPersistentStore(ofType: type, configurationName: nil, at: url, options: nil)
        }
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: changed)
        try coordinator.addPersistentStore(ofType: type, configurationName: nil, at: url,
                                           options: [NSIgnorePersistentStoreVersioningOption: true])
        #expect(try Self.names(in: coordinator) == ["kept"])
    }

    /// As Core Data, the store records the model's hashes from then on: after a save, the model
    /// opens it without the option.
    @Test(arguments: [NSSQLiteStoreType, NSBinaryStoreType])
    func theStoreRecordsTheModelsHashesWithItsNextSave(_ type: String) throws {
        let directory = TemporaryDirectory()
        let url = directory.file("Items.store")
        try Self.writeStore(ofType: type, at: url)
        let changed = Self.model(requiredName: true)
        do {
            let coordinator = NSPersistentStoreCoordinator(managedObjectModel: changed)
            try coordinator.addPersistentStore(ofType: type, configurationName: nil, at: url,
                                               options: [NSIgnorePersistentStoreVersioningOption: true as NSNumber])
            let context = NSManagedObjectContext(concurrencyType: .confinementConcurrencyType)
            context.persistentStoreCoordinator = coordinator
            NSEntityDescription.insertNewObject(forEntityName: "Item", into: context).setValue("added", forKey: "name")
            try context.save()
            try coordinator.remove(coordinator.persistentStores[0])
        }
        let metadata = try NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: type, at: url)
        #expect(changed.isConfiguration(withName: nil, compatibleWithStoreMetadata: metadata))
        #expect(metadata["NSPersistenceFrameworkVersion"] != nil || type != NSSQLiteStoreType, "the other keys stay")
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: changed)
        try coordinator.addPersistentStore(ofType: type, configurationName: nil, at: url, options: nil)
        #expect(try Self.names(in: coordinator).sorted() == ["added", "kept"])
    }

    /// A hash OpenCoreData cannot compute as Apple's (an entity with a hash modifier) is not
    /// written over the store's own: Apple's Core Data must still open the file.
    @Test func aHashThatIsAGuessIsNotRecorded() throws {
        let directory = TemporaryDirectory()
        let url = directory.file("Items.sqlite")
        try Self.writeStore(ofType: NSSQLiteStoreType, at: url)
        let before = try NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: NSSQLiteStoreType, at: url)
        let guessed = Self.model(requiredName: true)
        guessed.entitiesByName["Item"]?.versionHashModifier = "guess"
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: guessed)
        try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url,
                                           options: [NSIgnorePersistentStoreVersioningOption: true])
        let context = NSManagedObjectContext(concurrencyType: .confinementConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        NSEntityDescription.insertNewObject(forEntityName: "Item", into: context).setValue("added", forKey: "name")
        try context.save()
        try coordinator.remove(coordinator.persistentStores[0])
        let after = try NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: NSSQLiteStoreType, at: url)
        #expect((after[NSStoreModelVersionHashesKey] as? [String: Data]) == (before[NSStoreModelVersionHashesKey] as? [String: Data]))
    }

    /// Ignoring the hashes is not ignoring the tables: a column the model needs and the store
    /// lacks is refused (134100, naming it), and the option also keeps the store from being
    /// migrated, so the file is left as it was.
    @Test func aSQLiteStoreWhoseTablesDoNotFitIsStillRefused() throws {
        let directory = TemporaryDirectory()
        let url = directory.file("Items.sqlite")
        try Self.writeStore(ofType: NSSQLiteStoreType, at: url)
        let before = try Data(contentsOf: url)
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: Self.model(note: true))
        let error = #expect(throws: CocoaError.self) {
            try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url, options: [
                NSIgnorePersistentStoreVersioningOption: true,
                NSMigratePersistentStoresAutomaticallyOption: true, NSInferMappingModelAutomaticallyOption: true])
        }
        #expect(error?.code == .persistentStoreIncompatibleVersionHash)
        #expect(error?.localizedDescription.contains("ZNOTE") == true, "\(String(describing: error))")
        #expect(try Data(contentsOf: url) == before)
    }
}
