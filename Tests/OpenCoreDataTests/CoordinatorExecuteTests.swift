import Foundation
import Testing
import OpenCoreData

/// `NSPersistentStoreCoordinator.execute(_:with:)`: a request run in the stores for a context,
/// as Core Data's stores receive it.
@Suite struct CoordinatorExecuteTests {
    /// Three saved people and one unsaved: the coordinator answers from the stores alone.
    private func stack(_ kind: StoreKind) throws -> TestStack {
        let stack = try TestStack(kind)
        for name in ["Ann", "Bob", "Cy"] {
            NSEntityDescription.insertNewObject(forEntityName: "Person", into: stack.context).setValue(name, forKey: "name")
        }
        try stack.context.save()
        NSEntityDescription.insertNewObject(forEntityName: "Person", into: stack.context).setValue("Unsaved", forKey: "name")
        return stack
    }

    @Test(arguments: StoreKind.allCases)
    func aFetchAnswersTheStoresObjectsRegisteredInTheContext(kind: StoreKind) throws {
        let stack = try stack(kind)
        let request = NSFetchRequest<NSManagedObject>(entityName: "Person")
        request.sortDescriptors = [NSSortDescriptor(key: "name", ascending: true)]
        let people = try #require(try stack.coordinator.execute(request, with: stack.context) as? [NSManagedObject])
        #expect(people.map { $0.value(forKey: "name") as? String } == ["Ann", "Bob", "Cy"])
        #expect(people.allSatisfy { $0.managedObjectContext === stack.context && stack.context.registeredObject(for: $0.objectID) === $0 })
        // The request itself is left as it was.
        #expect(request.includesPendingChanges)

        let count = NSFetchRequest<NSNumber>(entityName: "Person")
        count.resultType = .countResultType
        #expect((try stack.coordinator.execute(count, with: stack.context) as? [NSNumber]) == [3])
        let ids = NSFetchRequest<NSManagedObjectID>(entityName: "Person")
        ids.resultType = .managedObjectIDResultType
        #expect((try stack.coordinator.execute(ids, with: stack.context) as? [NSManagedObjectID])?.count == 3)
    }

    @Test func aBatchRequestAnswersItsResult() throws {
        let stack = try stack(.sqlite)
        let delete = NSBatchDeleteRequest(fetchRequest: NSFetchRequest(entityName: "Person"))
        delete.resultType = .resultTypeCount
        let result = try #require(try stack.coordinator.execute(delete, with: stack.context) as? NSBatchDeleteResult)
        #expect(result.result as? Int == 3)
        let remaining = NSFetchRequest<NSManagedObject>(entityName: "Person")
        remaining.includesPendingChanges = false
        #expect(try stack.context.count(for: remaining) == 0)
    }

    @Test func aSaveRequestAndAContextOfAnotherCoordinatorAreRefused() throws {
        let stack = try stack(.sqlite)
        let save = NSSaveChangesRequest(inserted: stack.context.insertedObjects, updated: nil, deleted: nil, locked: nil)
        let refused = try #require(throws: CocoaError.self) { try stack.coordinator.execute(save, with: stack.context) }
        #expect(refused.code.rawValue == NSPersistentStoreUnsupportedRequestTypeError)
        let other = try TestStack(.sqlite)
        let foreign = try #require(throws: CocoaError.self) {
            try stack.coordinator.execute(NSFetchRequest<NSManagedObject>(entityName: "Person"), with: other.context)
        }
        #expect(foreign.code.rawValue == NSPersistentStoreOperationError)
        let child = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
        child.parent = stack.context
        let childRefused = try #require(throws: CocoaError.self) {
            try stack.coordinator.execute(NSFetchRequest<NSManagedObject>(entityName: "Person"), with: child)
        }
        #expect(childRefused.code.rawValue == NSPersistentStoreOperationError)
        #expect(stack.context.insertedObjects.count == 1)
        // Nothing was saved by either.
        let saved = NSFetchRequest<NSManagedObject>(entityName: "Person")
        saved.includesPendingChanges = false
        #expect(try stack.context.count(for: saved) == 3)
    }

    /// A request of one's own goes to each store, and the answer holds each store's answer.
    @Test func aRequestOfOnesOwnGoesToEachStore() throws {
        NSPersistentStoreCoordinator.registerStoreClass(NamingJSONStore.self, forStoreType: NamingJSONStore.namingType)
        let directory = TemporaryDirectory()
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: TestModel.make())
        let first = try coordinator.addPersistentStore(ofType: NamingJSONStore.namingType, configurationName: nil, at: directory.file("a.json"))
        let second = try coordinator.addPersistentStore(ofType: NamingJSONStore.namingType, configurationName: nil, at: directory.file("b.json"))
        let context = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        let request = StoreNameRequest()
        #expect(try coordinator.execute(request, with: context) as? [String] == ["store \(first.identifier)", "store \(second.identifier)"])
        request.affectedStores = [second]
        #expect(try coordinator.execute(request, with: context) as? [String] == ["store \(second.identifier)"])
        // A built-in store does not take it.
        try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: directory.file("c.sqlite"))
        request.affectedStores = nil
        let refused = try #require(throws: CocoaError.self) { try coordinator.execute(request, with: context) }
        #expect(refused.code.rawValue == NSPersistentStoreUnsupportedRequestTypeError)
    }
}

/// A request of one's own, which `NamingJSONStore` answers with its identifier.
private final class StoreNameRequest: NSPersistentStoreRequest {}

private final class NamingJSONStore: JSONFileStore, @unchecked Sendable {
    // @unchecked Sendable: as JSONFileStore; it adds no state.
    static let namingType = "NamingJSONFile"

    override func execute(_ request: NSPersistentStoreRequest, with context: NSManagedObjectContext?) throws -> Any {
        if request is StoreNameRequest { return "store \(identifier)" }
        return try super.execute(request, with: context)
    }
}
