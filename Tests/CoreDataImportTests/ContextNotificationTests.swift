import Foundation
import CoreData
import Testing

/// The Swift names Apple's overlay gives the contexts' notifications and their keys, observed
/// as client code observes them.
@Suite struct ContextNotificationTests {
    /// Records the user info of every notification of `name` posted by `object`.
    final class Recorder: @unchecked Sendable {
        // @unchecked Sendable: `infos` is only touched under `lock`.
        private let lock = NSLock()
        private var infos: [[AnyHashable: Any]] = []
        private var token: NSObjectProtocol?

        init(_ name: Notification.Name, from object: AnyObject) {
            token = NotificationCenter.default.addObserver(forName: name, object: object, queue: nil) { [weak self] note in
                guard let self else { return }
                self.lock.withLock { self.infos.append(note.userInfo ?? [:]) }
            }
        }

        deinit { if let token { NotificationCenter.default.removeObserver(token) } }

        var recorded: [[AnyHashable: Any]] { lock.withLock { infos } }
    }

    private static func container() throws -> NSPersistentContainer {
        let container = NSPersistentContainer(name: "Items", managedObjectModel: PersistenceController.model())
        let description = NSPersistentStoreDescription()
        description.type = NSInMemoryStoreType
        container.persistentStoreDescriptions = [description]
        var loadError: Error?
        container.loadPersistentStores { _, error in loadError = error }
        if let loadError { throw loadError }
        return container
    }

    @Test func didSaveObjectsNotificationCarriesTheSavedObjectsUnderItsKeys() throws {
        let container = try Self.container()
        let context = container.viewContext
        let saves = Recorder(NSManagedObjectContext.didSaveObjectsNotification, from: context)
        let willSaves = Recorder(NSManagedObjectContext.willSaveObjectsNotification, from: context)
        let changes = Recorder(NSManagedObjectContext.didChangeObjectsNotification, from: context)
        let item = Item(context: context)
        item.name = "pear"
        try context.save()

        #expect(willSaves.recorded.count == 1)
        let inserted = saves.recorded.first?[NSManagedObjectContext.NotificationKey.insertedObjects.rawValue] as? Set<NSManagedObject>
        #expect(inserted == [item])
        #expect(changes.recorded.contains { ($0[NSManagedObjectContext.NotificationKey.insertedObjects.rawValue] as? Set<NSManagedObject>) == [item] })
        #expect(NSManagedObjectContext.NotificationKey(rawValue: NSInsertedObjectIDsKey) == .insertedObjectIDs)
    }

    @Test func aMergePostsTheObjectIDsItMerged() throws {
        let container = try Self.container()
        let viewContext = container.viewContext
        let existing = Item(context: viewContext)
        existing.name = "old"
        let doomed = Item(context: viewContext)
        doomed.name = "doomed"
        try viewContext.save()

        let background = container.newBackgroundContext()
        let saves = Recorder(NSManagedObjectContext.didSaveObjectsNotification, from: background)
        var newID: NSManagedObjectID?
        try background.performAndWait {
            let added = Item(context: background)
            added.name = "new"
            let mine = try #require(try background.existingObject(with: existing.objectID) as? Item)
            mine.name = "renamed"
            background.delete(try background.existingObject(with: doomed.objectID))
            try background.save()
            newID = added.objectID
        }
        let merges = Recorder(NSManagedObjectContext.didMergeChangesObjectIDsNotification, from: viewContext)
        viewContext.mergeChanges(fromContextDidSave: Notification(name: NSManagedObjectContext.didSaveObjectsNotification,
                                                                  object: background, userInfo: saves.recorded.first))

        let merged = try #require(merges.recorded.first)
        #expect(merged[NSInsertedObjectIDsKey] as? Set<NSManagedObjectID> == [try #require(newID)])
        #expect(merged[NSUpdatedObjectIDsKey] as? Set<NSManagedObjectID> == [existing.objectID])
        #expect(merged[NSDeletedObjectIDsKey] as? Set<NSManagedObjectID> == [doomed.objectID])
        #expect(existing.name == "renamed")
    }

    @Test func attributeTypesHaveTheOverlaysNames() {
        let attribute = NSAttributeDescription()
        attribute.type = .uuid
        #expect(attribute.attributeType == .UUIDAttributeType)
        attribute.attributeType = .binaryDataAttributeType
        #expect(attribute.type == .binaryData)
        let total = NSExpressionDescription()
        total.resultType = .integer64
        #expect(total.expressionResultType == .integer64AttributeType)
    }
}
