import Foundation
import Testing
import OpenCoreData
@testable import OpenCoreDataCore
@testable import OpenCoreDataSQLite

/// `NSFetchRequest.affectedStores` narrows a fetch to some of the coordinator's stores.
@Suite struct AffectedStoresTests {
    /// Writes people with `names` into a new SQLite store at `url`, through its own coordinator.
    private func makeStore(at url: URL, model: NSManagedObjectModel, names: [String]) throws {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        let store = try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, at: url)
        let context = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        for name in names { NSEntityDescription.insertNewObject(forEntityName: "Person", into: context).setValue(name, forKey: "name") }
        try context.save()
        try coordinator.remove(store)
    }

    @Test func aFetchReadsOnlyTheStoresItNames() throws {
        let directory = TemporaryDirectory()
        let model = TestModel.make()
        try makeStore(at: directory.file("A.sqlite"), model: model, names: ["Ada", "Bo"])
        try makeStore(at: directory.file("B.sqlite"), model: model, names: ["Cy"])
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        let first = try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, at: directory.file("A.sqlite"))
        let second = try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, at: directory.file("B.sqlite"))
        let context = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator

        let request = NSFetchRequest<NSManagedObject>(entityName: "Person")
        request.sortDescriptors = [NSSortDescriptor(key: "name", ascending: true)]
        #expect(strings(try context.fetch(request)) == ["Ada", "Bo", "Cy"])

        request.affectedStores = [second]
        #expect(strings(try context.fetch(request)) == ["Cy"])
        #expect(try context.count(for: request) == 1)
        #expect(try context.fetch(request).allSatisfy { $0.objectID.persistentStore === second })
        #expect((request.copy() as? NSFetchRequest<NSManagedObject>)?.affectedStores?.first === second)

        request.affectedStores = [first]
        #expect(strings(try context.fetch(request)) == ["Ada", "Bo"])
        let names = NSFetchRequest<NSDictionary>(entityName: "Person")
        names.resultType = .dictionaryResultType
        names.propertiesToFetch = ["name"]
        names.affectedStores = [first]
        #expect(try context.fetch(names).count == 2)
        let batched = try context.fetchInBatches(request)
        #expect(strings(Array(batched)) == ["Ada", "Bo"])

        // Unsaved changes count only for objects of the named stores; new objects, whose store is
        // not chosen yet, count everywhere.
        request.affectedStores = [first]
        request.sortDescriptors = nil
        let cy = try #require(try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Person")).first { $0.value(forKey: "name") as? String == "Cy" })
        cy.setValue("Cyrus", forKey: "name")
        NSEntityDescription.insertNewObject(forEntityName: "Person", into: context).setValue("Dee", forKey: "name")
        #expect(strings(try context.fetch(request)) == ["Ada", "Bo", "Dee"])
        #expect(try context.count(for: request) == 3)
        request.affectedStores = [second]
        #expect(strings(try context.fetch(request)) == ["Cyrus", "Dee"])
    }
}
