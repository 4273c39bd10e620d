import Foundation
import Testing
import OpenCoreData
@testable import OpenCoreDataCore
@testable import OpenCoreDataSQLite

@Suite struct ConcurrencyDebugTests {
    #if DEBUG
        /// A private-queue context used outside `perform`/`performAndWait` stops the program in
        /// debug builds, like Core Data's `-com.apple.CoreData.ConcurrencyDebug 1`.
        @Test func privateQueueContextUsedOffItsQueueStopsTheProgram() async {
            await #expect(processExitsWith: .failure) {
                let model = TestModel.make()
                let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
                _ = try? coordinator.addPersistentStore(ofType: NSInMemoryStoreType, configurationName: nil, at: nil)
                let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
                context.persistentStoreCoordinator = coordinator
                _ = try? context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Person"))
            }
        }
    #endif

    @Test func privateQueueContextUsedInsidePerformAndWaitIsFine() throws {
        let model = TestModel.make()
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(ofType: NSInMemoryStoreType, configurationName: nil, at: nil)
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        let count = try context.performAndWait {
            NSEntityDescription.insertNewObject(forEntityName: "Person", into: context).setValue("A", forKey: "name")
            try context.save()
            return try context.count(for: NSFetchRequest<NSManagedObject>(entityName: "Person"))
        }
        #expect(count == 1)
    }
}
