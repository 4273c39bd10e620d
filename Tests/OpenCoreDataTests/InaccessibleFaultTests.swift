import Foundation
@testable import OpenCoreData
import Testing

/// A context that lets a vanished Person pass as deleted but not a vanished Pet.
final class PetGuardingContext: NSManagedObjectContext, @unchecked Sendable {
    // @unchecked Sendable: as its superclass; it adds no state.
    override func shouldHandleInaccessibleFault(_ fault: NSManagedObject, for oid: NSManagedObjectID,
                                                triggeredByProperty property: NSPropertyDescription?) -> Bool {
        fault.entity.name != "Pet"
    }
}

/// A context whose hook reads the object it is asked about, and counts how often it is asked.
final class ReadingContext: NSManagedObjectContext, @unchecked Sendable {
    // @unchecked Sendable: as its superclass; `asked` is used on the context's queue only.
    var asked = 0
    override func shouldHandleInaccessibleFault(_ fault: NSManagedObject, for oid: NSManagedObjectID,
                                                triggeredByProperty property: NSPropertyDescription?) -> Bool {
        asked += 1
        _ = fault.value(forKey: "name")  // must not fire the fault again
        return false
    }
}

/// What a fault whose row has gone becomes (COREDATA-SEMANTICS §2.8):
/// `shouldDeleteInaccessibleFaults` and `shouldHandleInaccessibleFault(_:for:triggeredByProperty:)`.
@Suite struct InaccessibleFaultTests {
    /// Saves a person with a pet, deletes both through the stack's context, and returns their IDs.
    private func vanishedIDs(in stack: TestStack) throws -> (person: NSManagedObjectID, pet: NSManagedObjectID) {
        let person = stack.insert("Person", ["name": "Bob", "age": 40])
        let pet = stack.insert("Pet", ["name": "Rex"])
        try stack.context.save()
        let ids = (person.objectID, pet.objectID)
        stack.context.delete(person)
        stack.context.delete(pet)
        try stack.context.save()
        return ids
    }

    /// `context`, on the stack's coordinator.
    private func attached<Context: NSManagedObjectContext>(_ context: Context, to stack: TestStack) -> Context {
        context.persistentStoreCoordinator = stack.coordinator
        return context
    }

    @Test(arguments: StoreKind.allCases)
    func withoutDeletingInaccessibleFaultsTheObjectIsUnreadableAndASaveRefusesIt(kind: StoreKind) throws {
        let stack = try TestStack(kind)
        let ids = try vanishedIDs(in: stack)
        let fresh = stack.newContext()
        fresh.shouldDeleteInaccessibleFaults = false
        let fault = fresh.object(with: ids.person)
        #expect(fault.value(forKey: "name") == nil)
        #expect(!fault.isDeleted)
        fault.setValue("Bobby", forKey: "name")
        let error = try #require(throws: CocoaError.self) { try fresh.save() }
        #expect(error.code.rawValue == 1550)
        #expect(error.message.contains("no longer in the store"))
        // Nothing was written: the store still has no person.
        #expect(try stack.storedCount("Person") == 0)
    }

    @Test func byDefaultTheContextAnswersShouldDeleteInaccessibleFaults() throws {
        let stack = try TestStack(.sqlite)
        let ids = try vanishedIDs(in: stack)
        let fresh = stack.newContext()
        #expect(fresh.shouldHandleInaccessibleFault(fresh.object(with: ids.person), for: ids.person, triggeredByProperty: nil))
        fresh.shouldDeleteInaccessibleFaults = false
        #expect(!fresh.shouldHandleInaccessibleFault(fresh.object(with: ids.pet), for: ids.pet, triggeredByProperty: nil))
    }

    /// An override decides per object: the vanished person reads as deleted, the pet as
    /// unreadable.
    @Test func anOverrideDecidesPerObject() throws {
        let stack = try TestStack(.sqlite)
        let ids = try vanishedIDs(in: stack)
        let guarding = attached(PetGuardingContext(concurrencyType: .mainQueueConcurrencyType), to: stack)
        let person = guarding.object(with: ids.person)
        let pet = guarding.object(with: ids.pet)
        #expect(person.value(forKey: "name") == nil)
        #expect(person.isDeleted)
        #expect(pet.value(forKey: "name") == nil)
        #expect(!pet.isDeleted)
        pet.setValue("Max", forKey: "name")
        #expect(throws: CocoaError.self) { try guarding.save() }
    }

    /// The hook may read the object: it is no longer a fault then, and is asked once.
    @Test func theHookMayReadTheObjectItIsAskedAbout() throws {
        let stack = try TestStack(.sqlite)
        let ids = try vanishedIDs(in: stack)
        let reading = attached(ReadingContext(concurrencyType: .mainQueueConcurrencyType), to: stack)
        let person = reading.object(with: ids.person)
        #expect(person.value(forKey: "name") == nil)
        #expect(reading.asked == 1)
        #expect(!person.isDeleted)
    }

    /// `existingObject(with:)` throws for a vanished row whatever the hook answers.
    @Test func existingObjectThrowsForAVanishedRowTheHookKept() throws {
        let stack = try TestStack(.sqlite)
        let ids = try vanishedIDs(in: stack)
        let fresh = stack.newContext()
        fresh.shouldDeleteInaccessibleFaults = false
        let fault = fresh.object(with: ids.person)
        _ = fault.value(forKey: "name")
        let error = try #require(throws: CocoaError.self) { try fresh.existingObject(with: ids.person) }
        #expect(error.code.rawValue == 133000)
    }

    /// A child reads no row for an object its parent kept unreadable: it is asked itself.
    @Test func aChildOfAParentThatKeptTheObjectIsAskedItself() throws {
        let stack = try TestStack(.sqlite)
        let ids = try vanishedIDs(in: stack)
        let parent = stack.newContext()
        parent.shouldDeleteInaccessibleFaults = false
        let kept = parent.object(with: ids.person)
        kept.setValue("Bobby", forKey: "name")
        let child = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
        child.parent = parent
        let seen = child.object(with: ids.person)
        #expect(seen.value(forKey: "name") == nil)
        #expect(seen.isDeleted)
    }
}
