import Foundation
import CoreData

extension APISignatures {
    static func nsPersistentContainer(_ check: inout Checks) {
        check("NSPersistentContainer") {
            let container = NSPersistentContainer(name: "x", managedObjectModel: NSManagedObjectModel())
            let _: NSObject = container
            let _: any Sendable = container
        }
        check("NSPersistentContainer.defaultDirectoryURL") {
            let _: URL = NSPersistentContainer.defaultDirectoryURL
        }
        check("NSPersistentContainer.defaultDirectoryURL()") {
            let _: () -> URL = NSPersistentContainer.defaultDirectoryURL
        }
        check("NSPersistentContainer.name") {
            let _: KeyPath<NSPersistentContainer, String> = \.name
        }
        check("NSPersistentContainer.viewContext") {
            let _: KeyPath<NSPersistentContainer, NSManagedObjectContext> = \.viewContext
        }
        check("NSPersistentContainer.managedObjectModel") {
            let _: KeyPath<NSPersistentContainer, NSManagedObjectModel> = \.managedObjectModel
        }
        check("NSPersistentContainer.persistentStoreCoordinator") {
            let _: KeyPath<NSPersistentContainer, NSPersistentStoreCoordinator> = \.persistentStoreCoordinator
        }
        check("NSPersistentContainer.persistentStoreDescriptions") {
            let _: ReferenceWritableKeyPath<NSPersistentContainer, [NSPersistentStoreDescription]> = \.persistentStoreDescriptions
        }
        check("NSPersistentContainer.init(name:)") {
            let _: (String) -> NSPersistentContainer = NSPersistentContainer.init(name:)
        }
        check("NSPersistentContainer.init(name:managedObjectModel:)") {
            let _: (String, NSManagedObjectModel) -> NSPersistentContainer = NSPersistentContainer.init(name:managedObjectModel:)
        }
        check("NSPersistentContainer.loadPersistentStores(completionHandler:)") {
            let _: (NSPersistentContainer) -> (@escaping (NSPersistentStoreDescription, (any Error)?) -> Void) -> Void
                = NSPersistentContainer.loadPersistentStores(completionHandler:)
            let container = NSPersistentContainer(name: "x", managedObjectModel: NSManagedObjectModel())
            final class Box { var error: (any Error)? }
            let notSendable = Box()
            container.loadPersistentStores { _, error in notSendable.error = error }
        }
        check("NSPersistentContainer.newBackgroundContext()") {
            let _: (NSPersistentContainer) -> () -> NSManagedObjectContext = NSPersistentContainer.newBackgroundContext
        }
        check("NSPersistentContainer.performBackgroundTask(_:)") {
            // Apple's block is @Sendable; OpenCoreData's is not.
            let _: (NSPersistentContainer) -> (@escaping (NSManagedObjectContext) -> Void) -> Void = NSPersistentContainer.performBackgroundTask
            let container = NSPersistentContainer(name: "x", managedObjectModel: NSManagedObjectModel())
            container.performBackgroundTask { context in _ = context.hasChanges }
        }
        check("NSPersistentContainer.performBackgroundTask(_:) [async]") {
            // Apple's: non-@Sendable block, any T, rethrows. OpenCoreData's: @Sendable block, T: Sendable, throws.
            let container = NSPersistentContainer(name: "x", managedObjectModel: NSManagedObjectModel())
            let _: Int = try await container.performBackgroundTask { (context: NSManagedObjectContext) throws -> Int in
                context.hasChanges ? 1 : 0
            }
        }
    }
}
