import Foundation
import Testing
import OpenCoreData
import OCDSQLite

/// `NSPersistentStoreCoordinator.cachedModelForPersistentStore(at:options:)`: the model a SQLite
/// store keeps of itself (`Z_MODELCACHE`), read without the application's model.
@Suite struct CachedModelTests {
    @Test func aStoresOwnModelComesBackWithItsHashes() throws {
        let directory = TemporaryDirectory()
        let url = directory.file("Clubs.sqlite")
        let model = TestModel.make()
        do {
            let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
            try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url, options: nil)
            try coordinator.remove(coordinator.persistentStores[0])
        }
        let before = try FileManager.default.contentsOfDirectory(atPath: directory.url.path).sorted()
        let cached = try NSPersistentStoreCoordinator.cachedModelForPersistentStore(at: url)
        #expect(Set(cached.entitiesByName.keys) == Set(model.entitiesByName.keys))
        #expect(cached.entityVersionHashesByName == model.entityVersionHashesByName)
        // Read-only: nothing is created beside the file.
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.url.path).sorted() == before)
        // The model opens the store it came from.
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: cached)
        try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url, options: nil)
    }

    @Test(.needsCorpus) func aStoreAppleWroteGivesTheModelItWasWrittenWith() throws {
        let directory = TemporaryDirectory()
        let url = try Corpus.copyStore(at: OCDStoreInfoTests.sampleModel2Store, to: directory)
        let cached = try NSPersistentStoreCoordinator.cachedModelForPersistentStore(at: url)
        let metadata = try NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: NSSQLiteStoreType, at: url)
        let stored = try #require(metadata[NSStoreModelVersionHashesKey] as? [String: Any])
        #expect(Set(cached.entitiesByName.keys) == Set(stored.keys))
        // The model opens the store and reads every entity's rows.
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: cached)
        try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url,
                                           options: [NSReadOnlyPersistentStoreOption: true])
        let context = NSManagedObjectContext(concurrencyType: .confinementConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        for entity in cached.entities where !entity.isAbstract {
            _ = try context.count(for: NSFetchRequest<NSManagedObject>(entityName: entity.name!))
        }
    }

    @Test func whatHasNoModelIsRefusedNamingTheFile() throws {
        let directory = TemporaryDirectory()
        let missing = directory.file("Missing.sqlite")
        #expect(throws: CocoaError.self) { try NSPersistentStoreCoordinator.cachedModelForPersistentStore(at: missing) }

        let text = directory.file("Notes.sqlite")
        try Data("not a database, just some words that are long enough to be a header".utf8).write(to: text)
        let notAStore = #expect(throws: CocoaError.self) { try NSPersistentStoreCoordinator.cachedModelForPersistentStore(at: text) }
        #expect(notAStore?.localizedDescription.contains("Notes.sqlite") == true)

        let other = directory.file("Other.sqlite")
        try SQLiteConnection(path: other.path).execute("CREATE TABLE t(x)")
        let noCache = #expect(throws: CocoaError.self) { try NSPersistentStoreCoordinator.cachedModelForPersistentStore(at: other) }
        #expect(noCache?.code == .persistentStoreInvalidType)
        #expect(noCache?.localizedDescription.contains("Z_MODELCACHE") == true)
    }
}
