import Foundation
import Testing
import OpenCoreData

/// `NSCopying` where Core Data has it: a store description copies its settings; the immutable
/// values (object IDs, history tokens, changes and transactions, query generation tokens) are
/// their own copies.
@Suite struct CopyingTests {
    @Test func aStoreDescriptionsCopyChangesWithoutChangingTheOriginal() throws {
        let description = NSPersistentStoreDescription(url: URL(fileURLWithPath: "/tmp/a.sqlite"))
        description.type = NSBinaryStoreType
        description.configuration = "Cache"
        description.isReadOnly = true
        description.timeout = 5
        description.shouldAddStoreAsynchronously = true
        description.shouldMigrateStoreAutomatically = false
        description.shouldInferMappingModelAutomatically = false
        description.setOption(true as NSNumber, forKey: NSPersistentHistoryTrackingKey)
        description.setValue("FULL" as NSString, forPragmaNamed: "synchronous")

        let copy = try #require(description.copy() as? NSPersistentStoreDescription)
        #expect(copy !== description)
        #expect(copy.type == NSBinaryStoreType && copy.configuration == "Cache" && copy.url == description.url)
        #expect(copy.isReadOnly && copy.timeout == 5 && copy.shouldAddStoreAsynchronously)
        #expect(!copy.shouldMigrateStoreAutomatically && !copy.shouldInferMappingModelAutomatically)
        #expect(copy.options[NSPersistentHistoryTrackingKey] as? NSNumber == true)
        #expect(copy.sqlitePragmas["synchronous"] as? NSString == "FULL")

        copy.url = URL(fileURLWithPath: "/tmp/b.sqlite")
        copy.setOption(nil, forKey: NSPersistentHistoryTrackingKey)
        #expect(description.url?.lastPathComponent == "a.sqlite")
        #expect(description.options[NSPersistentHistoryTrackingKey] != nil)
    }

    @Test func immutableValuesAreTheirOwnCopies() throws {
        let directory = TemporaryDirectory()
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: TestModel.make())
        try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: directory.file("Clubs.sqlite"),
                                           options: [NSPersistentHistoryTrackingKey: true as NSNumber])
        let context = NSManagedObjectContext(concurrencyType: .confinementConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        let club = NSEntityDescription.insertNewObject(forEntityName: "Club", into: context)
        try context.save()
        let id = club.objectID
        #expect(id.copy(with: nil) as? NSManagedObjectID === id)
        let generation = NSQueryGenerationToken.current
        #expect(generation.copy(with: nil) as? NSQueryGenerationToken === generation)
        let result = try #require(try context.execute(NSPersistentHistoryChangeRequest.fetchHistory(after: nil as NSPersistentHistoryToken?)) as? NSPersistentHistoryResult)
        let transaction = try #require((result.result as? [NSPersistentHistoryTransaction])?.first)
        #expect(transaction.copy(with: nil) as? NSPersistentHistoryTransaction === transaction)
        let token = transaction.token
        #expect(token.copy(with: nil) as? NSPersistentHistoryToken === token)
        let change = try #require(transaction.changes?.first)
        #expect(change.copy(with: nil) as? NSPersistentHistoryChange === change)
    }
}
