import Foundation
import Testing
import OpenCoreData
@testable import OpenCoreDataCore
@testable import OpenCoreDataSQLite

/// Bringing a context up to date with what another context of the same coordinator saved:
/// `mergeChanges(fromContextDidSave:)` and `automaticallyMergesChangesFromParent`.
@Suite struct MergingTests {
    /// Ada (age 20) and Bo saved; `context` has both realized.
    static func stack(_ kind: StoreKind) throws -> (TestStack, ada: NSManagedObject, bo: NSManagedObject) {
        let stack = try TestStack(kind)
        _ = stack.insert("Person", ["name": "Ada", "age": 20])
        _ = stack.insert("Person", ["name": "Bo", "age": 30])
        try stack.context.save()
        try stack.reopen()
        let people = try stack.fetch("Person", sortedBy: "name")
        #expect(people.map { $0.value(forKey: "age") as? Int } == [20, 30])
        return (stack, people[0], people[1])
    }

    /// In another context: Ada turns 21, Bo is deleted, Cy is inserted; saved.
    static func changeElsewhere(_ other: NSManagedObjectContext, _ stack: TestStack) throws {
        let people = try stack.fetch("Person", sortedBy: "name", in: other)
        people[0].setValue(21, forKey: "age")
        other.delete(people[1])
        let cy = NSEntityDescription.insertNewObject(forEntityName: "Person", into: other)
        cy.setValue("Cy", forKey: "name")
        try other.save()
    }

    @Test(arguments: StoreKind.allCases)
    func mergingADidSaveNotification(kind: StoreKind) throws {
        let (stack, ada, bo) = try Self.stack(kind)
        ada.setValue("ada@example.com", forKey: "email")  // an unsaved change of our own
        let other = stack.newContext()
        let recorder = NotificationRecorder(.NSManagedObjectContextDidSave, object: other)
        try Self.changeElsewhere(other, stack)
        let saved = try #require(recorder.notifications.first)

        stack.context.mergeChanges(fromContextDidSave: saved)
        #expect(ada.value(forKey: "age") as? Int == 21)
        #expect(ada.value(forKey: "email") as? String == "ada@example.com")
        #expect(bo.managedObjectContext == nil)
        #expect(strings(try stack.fetch("Person")) == ["Ada", "Cy"])
    }

    /// A context merging automatically picks up another context's save on its own queue; one
    /// that does not keeps what it read.
    @Test(arguments: StoreKind.allCases)
    func automaticMergingFollowsOtherContextsSaves(kind: StoreKind) throws {
        let (stack, _, _) = try Self.stack(kind)
        let merging = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        merging.persistentStoreCoordinator = stack.coordinator
        merging.automaticallyMergesChangesFromParent = true
        let still = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        still.persistentStoreCoordinator = stack.coordinator
        func ada(in context: NSManagedObjectContext) throws -> NSManagedObject {
            try context.performAndWait { try #require(try stack.fetch("Person", sortedBy: "name", in: context).first) }
        }
        let mergingAda = try ada(in: merging), stillAda = try ada(in: still)
        #expect(merging.performAndWait { mergingAda.value(forKey: "age") as? Int } == 20)
        #expect(still.performAndWait { stillAda.value(forKey: "age") as? Int } == 20)

        try Self.changeElsewhere(stack.newContext(), stack)
        // The merge was queued on the context's queue; waiting there lets it run first.
        #expect(merging.performAndWait { mergingAda.value(forKey: "age") as? Int } == 21)
        #expect(still.performAndWait { stillAda.value(forKey: "age") as? Int } == 20)

        merging.automaticallyMergesChangesFromParent = false
        let ada = try #require(try stack.fetch("Person", sortedBy: "name").first)
        ada.setValue(22, forKey: "age")
        try stack.context.save()
        #expect(merging.performAndWait { mergingAda.value(forKey: "age") as? Int } == 21)
    }
}
