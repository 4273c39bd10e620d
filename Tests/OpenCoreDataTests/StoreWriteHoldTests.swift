import Foundation
import Testing
import OpenCoreData
@testable import OpenCoreDataCore

/// A save that meets conflicts holds its SQLite store until it ends (`StoreWriteHold`), so that
/// no other process writes between its merge policy's reading and its next try. Writes made on
/// its thread meanwhile — from the policy, validation or notifications — would share its fate,
/// so they are refused with a clear error and the holding save goes on.
@Suite struct StoreWriteHoldTests {
    /// Object trump that, while it settles, tries to write through another context.
    final class MeddlingPolicy: NSMergePolicy {
        let other: NSManagedObjectContext
        var refusals: [String] = []

        init(other: NSManagedObjectContext) {
            self.other = other
            super.init(merge: .mergeByPropertyObjectTrumpMergePolicyType)
        }

        override func resolve(mergeConflicts list: [Any]) throws {
            let bob = NSEntityDescription.insertNewObject(forEntityName: "Person", into: other)
            bob.setValue("Bob", forKey: "name")
            do { try other.obtainPermanentIDs(for: [bob]) } catch { refusals.append(error.message) }
            do { try other.save() } catch { refusals.append(error.message) }
            do {
                try other.execute(NSBatchInsertRequest(entityName: "Person", objects: [["name": "Cy"]]))
            } catch { refusals.append(error.message) }
            try super.resolve(mergeConflicts: list)
        }
    }

    @Test func writesOnTheHoldingThreadAreRefusedAndTheSaveGoesOn() throws {
        let stack = try TestStack(.sqlite)
        stack.insert("Person", ["name": "Ann", "age": 30])
        try stack.context.save()
        let editor = stack.newContext()
        let ann = try stack.fetch("Person", in: editor)[0]

        // Another coordinator (another process) changes Ann first.
        let elsewhere = NSPersistentStoreCoordinator(managedObjectModel: stack.model)
        try elsewhere.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: stack.storeURL)
        let writer = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        writer.persistentStoreCoordinator = elsewhere
        try writer.performAndWait {
            try writer.fetch(NSFetchRequest<NSManagedObject>(entityName: "Person"))[0].setValue(31, forKey: "age")
            try writer.save()
        }

        let other = stack.newContext()
        let policy = MeddlingPolicy(other: other)
        editor.mergePolicy = policy
        ann.setValue("ann@example.com", forKey: "email")
        try editor.save()

        #expect(policy.refusals.count == 3)
        #expect(policy.refusals.allSatisfy { $0.contains("held by a save settling its conflicts") }, "\(policy.refusals)")
        #expect(ann.value(forKey: "age") as? Int == 31)
        #expect(try stack.storedStrings("Person", "email") == ["ann@example.com"])
        // Once the hold is over, the other context saves as usual.
        try other.save()
        #expect(try stack.storedStrings("Person") == ["Ann", "Bob"])
    }
}
