import Foundation
import OpenCoreData

/// `ocd-crashtest history-writer STORE ENTITY ATTRIBUTE COUNT`: another process writing to a
/// store that records persistent history, for the tests of remote change notifications. It
/// opens the store with the model the store itself holds, and saves COUNT objects of ENTITY,
/// one save each, with ATTRIBUTE set to "remote <n>" and the author "history-writer".
enum HistoryWriter {
    static func run(url: URL, entity: String, attribute: String, count: Int) throws {
        let model = try NSPersistentStoreCoordinator.storedModelForPersistentStore(ofType: NSSQLiteStoreType, at: url).model
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url,
                                           options: [NSPersistentHistoryTrackingKey: true])
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        context.transactionAuthor = "history-writer"
        try context.performAndWait {
            for index in 0..<count {
                NSEntityDescription.insertNewObject(forEntityName: entity, into: context).setValue("remote \(index)", forKey: attribute)
                try context.save()
            }
        }
    }
}
