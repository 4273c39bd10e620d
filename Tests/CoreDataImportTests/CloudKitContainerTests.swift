import Foundation
import Synchronization
import Testing
import CoreData

/// `NSPersistentCloudKitContainer` as Xcode's "Use CloudKit" app template writes its
/// persistence controller: on Linux, with no CloudKit, a local container that checks the model
/// and records history for its mirrored stores as Core Data does, in a SQLite store on disk.
@Suite struct CloudKitContainerTests {
    /// The template's model: an `Item` with an optional timestamp (CloudKit needs optional
    /// attributes or defaults).
    static func model(timestampOptional: Bool = true) -> NSManagedObjectModel {
        let item = NSEntityDescription()
        item.name = "Item"
        let timestamp = NSAttributeDescription()
        timestamp.name = "timestamp"
        timestamp.attributeType = .dateAttributeType
        timestamp.isOptional = timestampOptional
        item.properties = [timestamp]
        let model = NSManagedObjectModel()
        model.entities = [item]
        return model
    }

    /// The template's container, with the store's description mirrored to a CloudKit container.
    private func container(at url: URL, model: NSManagedObjectModel, mirrored: Bool = true) -> (NSPersistentCloudKitContainer, Error?) {
        let container = NSPersistentCloudKitContainer(name: "Items", managedObjectModel: model)
        let description = container.persistentStoreDescriptions.first!
        description.url = url
        if mirrored {
            description.cloudKitContainerOptions = NSPersistentCloudKitContainerOptions(containerIdentifier: "iCloud.com.example.Items")
        }
        var loadError: Error?
        container.loadPersistentStores(completionHandler: { (storeDescription, error) in
            if let error = error as NSError? { loadError = error }
        })
        container.viewContext.automaticallyMergesChangesFromParent = true
        return (container, loadError)
    }

    private func storeURL() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("ocd-cloudkit-\(UUID().uuidString)/Items.sqlite")
    }

    @Test func theTemplatesContainerSavesLocallyAndRecordsHistory() throws {
        let url = storeURL()
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        let (container, error) = container(at: url, model: Self.model())
        #expect(error == nil)
        let description = try #require(container.persistentStoreDescriptions.first)
        #expect(description.cloudKitContainerOptions?.containerIdentifier == "iCloud.com.example.Items")
        #expect((description.copy() as? NSPersistentStoreDescription)?.cloudKitContainerOptions === description.cloudKitContainerOptions)
        #expect(description.options[NSPersistentHistoryTrackingKey] == nil, "the description is left as it was")

        let item = NSEntityDescription.insertNewObject(forEntityName: "Item", into: container.viewContext)
        item.setValue(Date(timeIntervalSinceReferenceDate: 0), forKey: "timestamp")
        try container.viewContext.save()
        let store = try #require(container.persistentStoreCoordinator.persistentStores.first)
        #expect(container.canUpdateRecord(forManagedObjectWith: item.objectID))
        #expect(container.canDeleteRecord(forManagedObjectWith: item.objectID))
        #expect(container.canModifyManagedObjects(in: store))

        let (reopened, reopenError) = self.container(at: url, model: Self.model())
        #expect(reopenError == nil)
        let context = reopened.viewContext
        #expect(try context.count(for: NSFetchRequest<NSFetchRequestResult>(entityName: "Item")) == 1)
        let history = try #require(try context.execute(NSPersistentHistoryChangeRequest.fetchHistory(after: nil as NSPersistentHistoryToken?)) as? NSPersistentHistoryResult)
        let transactions = try #require(history.result as? [NSPersistentHistoryTransaction])
        #expect(transactions.count == 1)
        #expect(transactions.first?.changes?.first?.changeType == .insert)
    }

    @Test func aModelCloudKitCannotMirrorIsRefusedNamingWhatBreaksTheRules() throws {
        let url = storeURL()
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        let model = Self.model(timestampOptional: false)
        let owner = NSEntityDescription()
        owner.name = "Owner"
        let name = NSAttributeDescription()
        name.name = "name"
        name.attributeType = .stringAttributeType
        name.isOptional = true
        let items = NSRelationshipDescription()
        items.name = "items"
        items.destinationEntity = model.entities[0]
        items.maxCount = 0
        items.isOrdered = true
        let pet = NSRelationshipDescription()
        pet.name = "pet"
        pet.destinationEntity = model.entities[0]
        pet.maxCount = 1
        pet.isOptional = false
        let cache = NSAttributeDescription()
        cache.name = "cache"
        cache.attributeType = .stringAttributeType
        cache.isOptional = false
        cache.isTransient = true
        owner.properties = [name, items, pet, cache]
        owner.uniquenessConstraints = [[name]]
        model.entities.append(owner)

        let (container, error) = container(at: url, model: model)
        let refusal = try #require(error as NSError?)
        #expect(refusal.code == 134060)
        let reason = try #require(refusal.userInfo[NSLocalizedFailureReasonErrorKey] as? String)
        #expect(reason.contains("CloudKit integration requires that all attributes be optional, or have a default value set. The following attributes are marked non-optional but do not have a default value:\nItem: timestamp"))
        #expect(reason.contains("CloudKit integration does not support unique constraints. The following entities are constrained:\nOwner: name"))
        #expect(reason.contains("CloudKit integration requires that all relationships have an inverse, the following do not:\nOwner: items"))
        #expect(reason.contains("CloudKit integration does not support ordered relationships. The following relationships are marked ordered:\nOwner: items"))
        #expect(reason.contains("CloudKit integration requires that all relationships be optional, the following are not:\nOwner: pet"))
        #expect(!reason.contains("cache"), "a transient attribute is not mirrored")
        #expect(container.persistentStoreCoordinator.persistentStores.isEmpty)
        #expect(!FileManager.default.fileExists(atPath: url.path), "nothing was written")

        // The same model in a store that is not mirrored loads: the rules are CloudKit's.
        let (local, localError) = self.container(at: url, model: model, mirrored: false)
        #expect(localError == nil)
        #expect(local.persistentStoreCoordinator.persistentStores.count == 1)
    }

    @Test func initializingTheCloudKitSchemaFailsAsWithoutAnICloudAccount() throws {
        let url = storeURL()
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        let (container, _) = container(at: url, model: Self.model())
        let error = #expect(throws: NSError.self) { try container.initializeCloudKitSchema(options: [.dryRun, .printSchema]) }
        #expect(error?.code == 134400)
        #expect(error?.localizedDescription.contains("iCloud account") == true)
        #expect(NSPersistentCloudKitContainerSchemaInitializationOptions.dryRun.rawValue != NSPersistentCloudKitContainerSchemaInitializationOptions.printSchema.rawValue)
    }

    /// Code observing mirroring events, as sync-status views do, compiles and runs; on Linux no
    /// event is ever posted. The event types keep Core Data's raw values.
    @Test func eventObserversCompileAndHearNothingSinceNothingIsMirrored() throws {
        let url = storeURL()
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        let heard = Mutex(0)
        let observer = NotificationCenter.default.addObserver(forName: NSPersistentCloudKitContainer.eventChangedNotification,
                                                              object: nil, queue: nil) { notification in
            let key = NSPersistentCloudKitContainer.eventNotificationUserInfoKey
            if notification.userInfo?[key] is NSPersistentCloudKitContainer.Event { heard.withLock { $0 += 1 } }
        }
        defer { NotificationCenter.default.removeObserver(observer) }
        let (container, error) = container(at: url, model: Self.model())
        #expect(error == nil)
        let item = NSEntityDescription.insertNewObject(forEntityName: "Item", into: container.viewContext)
        item.setValue(Date(), forKey: "timestamp")
        try container.viewContext.save()
        #expect(heard.withLock { $0 } == 0)
        #expect([NSPersistentCloudKitContainer.EventType.setup, .import, .export].map(\.rawValue) == [0, 1, 2])
        #expect(NSPersistentCloudKitContainer.eventChangedNotification.rawValue == "NSPersistentCloudKitContainerEventChangedNotification")
    }

    /// Code asking for mirroring events, as sync-status views do, compiles and runs: on Linux
    /// nothing is mirrored, so every request answers no events, whichever way it selects them.
    @Test func eventRequestsCompileAndFindNoEventsSinceNothingIsMirrored() throws {
        let url = storeURL()
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        let (container, error) = container(at: url, model: Self.model())
        #expect(error == nil)
        let context = container.newBackgroundContext()
        let failedExports = NSPersistentCloudKitContainerEventRequest.fetchForEvents()
        failedExports.predicate = NSPredicate(format: "type == %d AND succeeded == NO", NSPersistentCloudKitContainer.EventType.export.rawValue)
        #expect(failedExports.entityName == "NSCKEvent")
        let requests = [
            NSPersistentCloudKitContainerEventRequest.fetchEvents(after: Date.distantPast),
            NSPersistentCloudKitContainerEventRequest.fetchEvents(after: nil as NSPersistentCloudKitContainer.Event?),
            NSPersistentCloudKitContainerEventRequest.fetchEvents(matchingFetch: failedExports),
        ]
        try context.performAndWait {
            for request in requests {
                let result = try #require(try context.execute(request) as? NSPersistentCloudKitContainerEventResult)
                #expect(result.resultType == .events)
                #expect((result.result as? [NSPersistentCloudKitContainer.Event])?.isEmpty == true)
                request.resultType = .countEvents
                let count = try #require(try context.execute(request) as? NSPersistentCloudKitContainerEventResult)
                #expect(count.resultType == .countEvents && count.result as? Int == 0)
            }
            // The coordinator answers as the context does.
            let answer = try container.persistentStoreCoordinator.execute(requests[0], with: context)
            #expect((answer as? NSPersistentCloudKitContainerEventResult)?.result as? Int == 0)
        }
        let copy = try #require(requests[0].copy() as? NSPersistentCloudKitContainerEventRequest)
        #expect(copy.resultType == .countEvents)
        #expect([NSPersistentCloudKitContainerEventResult.ResultType.events, .countEvents].map(\.rawValue) == [0, 1])

        // A context without a coordinator has no stores to ask.
        let detached = NSManagedObjectContext(concurrencyType: .confinementConcurrencyType)
        #expect(throws: NSError.self) { try detached.execute(requests[0]) }
    }
}
