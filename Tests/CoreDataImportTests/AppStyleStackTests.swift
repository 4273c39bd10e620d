import Foundation
import Testing
import CoreData

/// A Core Data stack written as apps and Apple's sample code write one — history tracking and
/// remote-change processing, batch insert, update and delete merged into the view context, a
/// dictionary fetch with an aggregate, a fetched results controller, query generations — built
/// through `import CoreData` unchanged and run against a SQLite store on disk.
final class AppStyleStack: @unchecked Sendable {
    // @unchecked Sendable: the history token is only touched inside a task context's performAndWait.
    static let modelName = "Quakes"
    let container: NSPersistentContainer
    private var historyToken: NSPersistentHistoryToken?
    private var observers: [NSObjectProtocol] = []

    init(inMemory: Bool = false, storeURL: URL? = nil, model: NSManagedObjectModel) {
        container = NSPersistentContainer(name: Self.modelName, managedObjectModel: model)
        guard let description = container.persistentStoreDescriptions.first else {
            fatalError("Failed to retrieve a persistent store description.")
        }
        if inMemory {
            description.url = URL(fileURLWithPath: "/dev/null")
        } else if let storeURL {
            description.url = storeURL
        }
        description.setOption(true as NSNumber, forKey: NSPersistentHistoryTrackingKey)
        description.setOption(true as NSNumber, forKey: NSPersistentStoreRemoteChangeNotificationPostOptionKey)
        description.shouldMigrateStoreAutomatically = true
        description.shouldInferMappingModelAutomatically = true
        container.loadPersistentStores { storeDescription, error in
            if let error = error as NSError? {
                fatalError("Unresolved error \(error), \(error.userInfo)")
            }
        }
        container.viewContext.automaticallyMergesChangesFromParent = true
        container.viewContext.mergePolicy = NSMergeByPropertyObjectTrumpMergePolicy
        container.viewContext.name = "viewContext"
        container.viewContext.transactionAuthor = "app"
        container.viewContext.undoManager = nil
        container.viewContext.shouldDeleteInaccessibleFaults = true
        do {
            try container.viewContext.setQueryGenerationFrom(.current)
        } catch {
            print("Failed to pin viewContext to the current generation: \(error)")
        }
    }

    func observeRemoteChanges() {
        observers.append(NotificationCenter.default.addObserver(forName: .NSPersistentStoreRemoteChange, object: container.persistentStoreCoordinator, queue: .main) { [weak self] note in
            self?.processRemoteStoreChange(note)
        })
    }

    /// How many transactions of other authors the last processing merged.
    private(set) var mergedTransactions = 0

    func newTaskContext() -> NSManagedObjectContext {
        let taskContext = container.newBackgroundContext()
        taskContext.mergePolicy = NSMergeByPropertyObjectTrumpMergePolicy
        taskContext.undoManager = nil
        return taskContext
    }

    func processRemoteStoreChange(_ notification: Notification) {
        let context = newTaskContext()
        context.performAndWait {
            self.mergedTransactions = 0
            let request = NSPersistentHistoryChangeRequest.fetchHistory(after: self.historyToken)
            if let fetchRequest = NSPersistentHistoryTransaction.fetchRequest {
                fetchRequest.predicate = NSPredicate(format: "%K != %@", "author", "app")
                request.fetchRequest = fetchRequest
            }
            request.resultType = .transactionsAndChanges
            guard let result = try? context.execute(request) as? NSPersistentHistoryResult,
                  let transactions = result.result as? [NSPersistentHistoryTransaction],
                  !transactions.isEmpty else { return }
            let viewContext = self.container.viewContext
            viewContext.performAndWait {
                for transaction in transactions {
                    viewContext.mergeChanges(fromContextDidSave: transaction.objectIDNotification())
                }
            }
            self.mergedTransactions = transactions.count
            self.historyToken = transactions.last?.token
            let purge = NSPersistentHistoryChangeRequest.deleteHistory(before: transactions.last!)
            _ = try? context.execute(purge)
        }
    }

    func batchInsert(names: [String]) async throws {
        let taskContext = newTaskContext()
        taskContext.name = "importContext"
        taskContext.transactionAuthor = "importer"
        try await taskContext.perform {
            var index = 0
            let total = names.count
            let batchInsertRequest = NSBatchInsertRequest(entityName: "Quake", dictionaryHandler: { dictionary in
                guard index < total else { return true }
                dictionary["name"] = names[index]
                dictionary["magnitude"] = Double(index)
                index += 1
                return false
            })
            batchInsertRequest.resultType = .statusOnly
            if let fetchResult = try? taskContext.execute(batchInsertRequest),
               let batchInsertResult = fetchResult as? NSBatchInsertResult,
               let success = batchInsertResult.result as? Bool, success {
                return
            }
            throw NSError(domain: "Quakes", code: 1)
        }
    }

    func deleteAll() throws {
        let taskContext = newTaskContext()
        try taskContext.performAndWait {
            let fetchRequest: NSFetchRequest<NSFetchRequestResult> = NSFetchRequest(entityName: "Quake")
            let batchDeleteRequest = NSBatchDeleteRequest(fetchRequest: fetchRequest)
            batchDeleteRequest.resultType = .resultTypeObjectIDs
            let result = try taskContext.execute(batchDeleteRequest) as? NSBatchDeleteResult
            let changes: [AnyHashable: Any] = [NSDeletedObjectsKey: result?.result as? [NSManagedObjectID] ?? []]
            NSManagedObjectContext.mergeChanges(fromRemoteContextSave: changes, into: [container.viewContext])
        }
    }

    func update(magnitudeAbove threshold: Double) throws -> Int {
        let request = NSBatchUpdateRequest(entityName: "Quake")
        request.predicate = NSPredicate(format: "magnitude > %f", threshold)
        request.propertiesToUpdate = ["name": NSExpression(forConstantValue: "big")]
        request.resultType = .updatedObjectsCountResultType
        let result = try container.viewContext.execute(request) as! NSBatchUpdateResult
        return result.result as! Int
    }

    func count(where predicate: NSPredicate?) throws -> Int {
        let request = NSFetchRequest<NSManagedObject>(entityName: "Quake")
        request.predicate = predicate
        request.includesSubentities = false
        return try container.viewContext.count(for: request)
    }

    func names(sortedBy key: String) throws -> [String] {
        let request = NSFetchRequest<NSDictionary>(entityName: "Quake")
        request.resultType = .dictionaryResultType
        request.propertiesToFetch = ["name"]
        request.sortDescriptors = [NSSortDescriptor(key: key, ascending: true)]
        request.returnsDistinctResults = true
        let dictionaries = try container.viewContext.fetch(request)
        return dictionaries.compactMap { $0["name"] as? String }
    }

    func objectID(for uri: URL) -> NSManagedObjectID? {
        container.persistentStoreCoordinator.managedObjectID(forURIRepresentation: uri)
    }

    func saveContext() {
        let context = container.viewContext
        if context.hasChanges {
            do {
                try context.save()
            } catch {
                let nserror = error as NSError
                context.rollback()
                print("Unresolved error \(nserror), \(nserror.userInfo)")
            }
        }
    }

    func maxMagnitude() throws -> Double? {
        let request = NSFetchRequest<NSDictionary>(entityName: "Quake")
        request.resultType = .dictionaryResultType
        let expression = NSExpressionDescription()
        expression.name = "maxMagnitude"
        expression.expression = NSExpression(forFunction: "max:", arguments: [NSExpression(forKeyPath: "magnitude")])
        expression.expressionResultType = .doubleAttributeType
        request.propertiesToFetch = [expression]
        return try container.viewContext.fetch(request).first?["maxMagnitude"] as? Double
    }

    func observeSaves() {
        observers.append(NotificationCenter.default.addObserver(forName: .NSManagedObjectContextDidSave, object: nil, queue: nil) { notification in
            guard let userInfo = notification.userInfo else { return }
            if let inserts = userInfo[NSInsertedObjectsKey] as? Set<NSManagedObject>, !inserts.isEmpty {
                print("inserted", inserts.count)
            }
            if let updates = userInfo[NSUpdatedObjectsKey] as? Set<NSManagedObject> { _ = updates }
            if let deletes = userInfo[NSDeletedObjectsKey] as? Set<NSManagedObject> { _ = deletes }
        })
        observers.append(NotificationCenter.default.addObserver(forName: NSManagedObjectContext.didSaveObjectIDsNotification, object: nil, queue: nil) { notification in
            let ids = notification.userInfo?[NSInsertedObjectIDsKey] as? Set<NSManagedObjectID>
            _ = ids
        })
    }

    func destroy(at url: URL) throws {
        let coordinator = container.persistentStoreCoordinator
        try coordinator.destroyPersistentStore(at: url, ofType: NSSQLiteStoreType, options: nil)
        let metadata = try NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: NSSQLiteStoreType, at: url, options: nil)
        _ = container.managedObjectModel.isConfiguration(withName: nil, compatibleWithStoreMetadata: metadata)
    }
}

// A typical fetched results controller user.
final class AppStyleQuakeList: NSObject, NSFetchedResultsControllerDelegate {
    let frc: NSFetchedResultsController<NSManagedObject>
    var changes: [String] = []

    init(context: NSManagedObjectContext) {
        let request = NSFetchRequest<NSManagedObject>(entityName: "Quake")
        request.sortDescriptors = [NSSortDescriptor(key: "magnitude", ascending: false)]
        request.fetchBatchSize = 20
        frc = NSFetchedResultsController(fetchRequest: request, managedObjectContext: context, sectionNameKeyPath: nil, cacheName: nil)
        super.init()
        frc.delegate = self
    }

    func start() throws { try frc.performFetch() }

    var count: Int { frc.sections?.first?.numberOfObjects ?? 0 }

    func controllerWillChangeContent(_ controller: NSFetchedResultsController<NSFetchRequestResult>) { changes.removeAll() }

    func controller(_ controller: NSFetchedResultsController<NSFetchRequestResult>, didChange anObject: Any, at indexPath: IndexPath?, for type: NSFetchedResultsChangeType, newIndexPath: IndexPath?) {
        switch type {
        case .insert: changes.append("insert \(newIndexPath!.item)")
        case .delete: changes.append("delete \(indexPath!.item)")
        case .move: changes.append("move")
        case .update: changes.append("update")
        @unknown default: break
        }
    }

    func controllerDidChangeContent(_ controller: NSFetchedResultsController<NSFetchRequestResult>) {}
}

extension NSManagedObjectContext {
    func saveIfNeeded() throws {
        guard hasChanges else { return }
        try save()
    }

    func fetchFirst<T: NSManagedObject>(_ type: T.Type, predicate: NSPredicate) throws -> T? {
        let request = NSFetchRequest<T>(entityName: String(describing: type))
        request.predicate = predicate
        request.fetchLimit = 1
        return try fetch(request).first
    }

    func insertObject<T: NSManagedObject>() -> T {
        guard let object = NSEntityDescription.insertNewObject(forEntityName: T.entity().name!, into: self) as? T else {
            fatalError("Wrong object type")
        }
        return object
    }
}

extension NSManagedObject {
    func changedKeys() -> [String] { Array(changedValues().keys) }
    var isNew: Bool { objectID.isTemporaryID }
}

func quakeModel() -> NSManagedObjectModel {
    let quake = NSEntityDescription()
    quake.name = "Quake"
    quake.managedObjectClassName = NSStringFromClass(NSManagedObject.self)
    let name = NSAttributeDescription()
    name.name = "name"
    name.attributeType = .stringAttributeType
    name.isOptional = true
    let magnitude = NSAttributeDescription()
    magnitude.name = "magnitude"
    magnitude.attributeType = .doubleAttributeType
    magnitude.defaultValue = 0.0
    quake.properties = [name, magnitude]
    quake.indexes = [NSFetchIndexDescription(name: "byMagnitude", elements: [NSFetchIndexElementDescription(property: magnitude, collationType: .binary)])]
    let model = NSManagedObjectModel()
    model.entities = [quake]
    return model
}

@Suite struct AppStyleStackTests {
    private func storeURL() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("ocd-appstyle-\(UUID().uuidString)/Quakes.sqlite")
    }

    @Test func batchRequestsAndAggregatesRunAndMergeIntoTheViewContext() async throws {
        let url = storeURL()
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        let stack = AppStyleStack(storeURL: url, model: quakeModel())
        try await stack.batchInsert(names: ["e", "d", "c", "b", "a"])
        #expect(try stack.count(where: nil) == 5)
        #expect(try stack.names(sortedBy: "name") == ["a", "b", "c", "d", "e"])
        #expect(try stack.maxMagnitude() == 4)
        #expect(try stack.update(magnitudeAbove: 2.5) == 2)
        // The view context reads the generation it pinned at its first read (`.current` pins
        // lazily) until it is moved on: the batch update shows only then.
        let big = NSPredicate(format: "name == %@", "big")
        #expect(try stack.count(where: big) == 0)
        try stack.container.viewContext.setQueryGenerationFrom(.current)
        #expect(try stack.count(where: big) == 2)

        let list = AppStyleQuakeList(context: stack.container.viewContext)
        try list.start()
        #expect(list.count == 5)
        try stack.deleteAll()
        #expect(try stack.count(where: nil) == 0)
        // The batch delete, merged into the view context, reached the controller.
        #expect(list.count == 0)
        #expect(list.changes.filter { $0.hasPrefix("delete") }.count == 5)
    }

    @Test func historyOfOtherAuthorsIsMergedAndThenPurged() async throws {
        let url = storeURL()
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        let stack = AppStyleStack(storeURL: url, model: quakeModel())
        try await stack.batchInsert(names: ["a", "b"])
        stack.processRemoteStoreChange(Notification(name: .NSPersistentStoreRemoteChange))
        #expect(stack.mergedTransactions == 1)

        // The app's own saves are not merged again.
        let viewContext = stack.container.viewContext
        let quake = NSEntityDescription.insertNewObject(forEntityName: "Quake", into: viewContext)
        quake.setValue("mine", forKey: "name")
        stack.saveContext()
        stack.processRemoteStoreChange(Notification(name: .NSPersistentStoreRemoteChange))
        #expect(stack.mergedTransactions == 0)

        try await stack.batchInsert(names: ["c"])
        stack.processRemoteStoreChange(Notification(name: .NSPersistentStoreRemoteChange))
        #expect(stack.mergedTransactions == 1)
        #expect(try stack.count(where: nil) == 4)

        // What was merged was purged: only the last transaction is left.
        let history = try viewContext.execute(NSPersistentHistoryChangeRequest.fetchHistory(after: nil as NSPersistentHistoryToken?)) as? NSPersistentHistoryResult
        #expect((history?.result as? [NSPersistentHistoryTransaction])?.map(\.author) == ["importer"])
    }

    /// Apple's idiom for a store that lives in memory only: a SQLite store at `/dev/null`.
    @Test func aStoreAtDevNullLivesInMemory() async throws {
        let stack = AppStyleStack(inMemory: true, model: quakeModel())
        try await stack.batchInsert(names: ["a", "b", "c"])
        #expect(try stack.count(where: nil) == 3)
        let again = AppStyleStack(inMemory: true, model: quakeModel())
        #expect(try again.count(where: nil) == 0)
    }
}
