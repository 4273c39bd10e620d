import Foundation
import CoreData
import Testing

/// A coordinator announces the stores it adds and removes, as client code that reacts to a
/// store coming and going (or a store moved to another file) observes it.
@Suite struct CoordinatorNotificationTests {
    @Test func addingAndRemovingAStoreIsAnnounced() throws {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: PersistenceController.model())
        let changes = ContextNotificationTests.Recorder(.NSPersistentStoreCoordinatorStoresDidChange, from: coordinator)
        let store = try coordinator.addPersistentStore(ofType: NSInMemoryStoreType, configurationName: nil, at: nil, options: nil)
        #expect((changes.recorded.last?[NSAddedPersistentStoresKey] as? [NSPersistentStore])?.first === store)

        let removals = ContextNotificationTests.Recorder(.NSPersistentStoreCoordinatorWillRemoveStore, from: store)
        try coordinator.remove(store)
        #expect(removals.recorded.count == 1)
        #expect((changes.recorded.last?[NSRemovedPersistentStoresKey] as? [NSPersistentStore])?.first === store)
        #expect(changes.recorded.count == 2)
    }

    @Test func autoreleasepoolRunsItsBodyAndPassesOnWhatItThrows() throws {
        var imported = 0
        for batch in 1...3 { autoreleasepool { imported += batch } }
        #expect(imported == 6)
        struct Stop: Error {}
        #expect(throws: Stop.self) { try autoreleasepool { throw Stop() } }
    }
}
