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

    /// A request's copy has every setting and changes without changing the original; the batch
    /// requests' copies run as the originals do.
    @Test func requestsCopyEverySetting() throws {
        let request = NSFetchRequest<NSManagedObject>(entityName: "Club")
        request.predicate = NSPredicate(format: "name BEGINSWITH 'a'")
        request.sortDescriptors = [NSSortDescriptor(key: "name", ascending: false)]
        request.fetchLimit = 3
        request.fetchOffset = 1
        request.fetchBatchSize = 10
        request.returnsObjectsAsFaults = false
        request.relationshipKeyPathsForPrefetching = ["members"]
        let copy = try #require(request.copy() as? NSFetchRequest<NSManagedObject>)
        #expect(copy !== request && copy.entityName == "Club" && copy.predicate == request.predicate)
        #expect(copy.sortDescriptors?.first?.key == "name" && copy.fetchLimit == 3 && copy.fetchOffset == 1)
        #expect(copy.fetchBatchSize == 10 && !copy.returnsObjectsAsFaults && copy.relationshipKeyPathsForPrefetching == ["members"])
        copy.fetchOffset = 40
        #expect(request.fetchOffset == 1)

        let directory = TemporaryDirectory()
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: TestModel.make())
        try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: directory.file("Clubs.sqlite"))
        let context = NSManagedObjectContext(concurrencyType: .confinementConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        for name in ["alpha", "beta", "gamma"] {
            NSEntityDescription.insertNewObject(forEntityName: "Club", into: context).setValue(name, forKey: "name")
        }
        try context.save()

        let update = NSBatchUpdateRequest(entityName: "Club")
        update.predicate = NSPredicate(format: "name == 'alpha'")
        update.propertiesToUpdate = ["name": "alpha 2"]
        update.resultType = .updatedObjectsCountResultType
        let updateCopy = try #require(update.copy() as? NSBatchUpdateRequest)
        #expect(updateCopy.resultType == .updatedObjectsCountResultType && updateCopy.predicate == update.predicate)
        #expect((try context.execute(updateCopy) as? NSBatchUpdateResult)?.result as? Int == 1)

        let insert = NSBatchInsertRequest(entityName: "Club", objects: [["name": "delta"]])
        insert.resultType = .count
        let insertCopy = try #require(insert.copy() as? NSBatchInsertRequest)
        #expect((try context.execute(insertCopy) as? NSBatchInsertResult)?.result as? Int == 1)

        let clubs = NSFetchRequest<NSFetchRequestResult>(entityName: "Club")
        clubs.predicate = NSPredicate(format: "name == 'beta'")
        let delete = NSBatchDeleteRequest(fetchRequest: clubs)
        delete.resultType = .resultTypeCount
        let deleteCopy = try #require(delete.copy() as? NSBatchDeleteRequest)
        #expect(deleteCopy.fetchRequest !== delete.fetchRequest && deleteCopy.fetchRequest.predicate == clubs.predicate)
        #expect((try context.execute(deleteCopy) as? NSBatchDeleteResult)?.result as? Int == 1)

        let names = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Club")).compactMap { $0.value(forKey: "name") as? String }
        #expect(names.sorted() == ["alpha 2", "delta", "gamma"])

        let history = NSPersistentHistoryChangeRequest.fetchHistory(after: Date(timeIntervalSince1970: 0))
        history.resultType = .transactionsOnly
        let historyCopy = try #require(history.copy() as? NSPersistentHistoryChangeRequest)
        #expect(historyCopy.resultType == .transactionsOnly && historyCopy.requestType == history.requestType)

        let save = NSSaveChangesRequest(inserted: [], updated: nil, deleted: nil, locked: nil)
        let saveCopy = try #require(save.copy() as? NSSaveChangesRequest)
        #expect(saveCopy.insertedObjects == [] && saveCopy.updatedObjects == nil)
    }
}
