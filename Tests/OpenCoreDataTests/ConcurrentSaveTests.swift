import Dispatch
import Foundation
import Testing
import OpenCoreData
@testable import OpenCoreDataCore
@testable import OpenCoreDataSQLite

/// Several private-queue contexts on one coordinator saving and fetching at the same moment, from
/// different threads: every save lands, and every context sees them all afterwards. (Run under
/// the thread sanitizer, this is the case that once raced on the standard library's shared empty
/// array: saves that notify no updated or deleted objects, fetches that find nothing.)
@Suite struct ConcurrentSaveTests {
    @Test func contextsSavingAtOnceAllLand() throws {
        let stack = try TestStack(.sqlite)
        let contexts = (0..<4).map { _ in
            let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
            context.persistentStoreCoordinator = stack.coordinator
            return context
        }
        let failures = LockedBox<[String]>([])
        DispatchQueue.concurrentPerform(iterations: contexts.count) { index in
            let context = contexts[index]
            context.performAndWait {
                do {
                    for round in 0..<10 {
                        for number in 0..<20 {
                            let person = NSEntityDescription.insertNewObject(forEntityName: "Person", into: context)
                            person.setValue("p\(index)-\(round)-\(number)", forKey: "name")
                        }
                        try context.save()
                        let nobody = NSFetchRequest<NSManagedObject>(entityName: "Person")
                        nobody.predicate = NSPredicate(format: "name == %@", "nobody")
                        _ = try context.fetch(nobody)
                    }
                } catch {
                    failures.withLock { $0.append("context \(index): \(error)") }
                }
            }
        }
        #expect(failures.withLock { $0 }.isEmpty)
        try stack.reopen()
        #expect(try stack.storedCount("Person") == 4 * 10 * 20)
    }
}
