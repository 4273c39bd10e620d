import Foundation
import Testing
import OpenCoreData

/// What a save does, under each merge policy, with a row another context changed or deleted
/// since this context read it (COREDATA-SEMANTICS.md §8).
@Suite struct MergePolicyTests {
    /// Ada (age 30, email "a@x.org", height 1.5) saved; this context holds her; another context
    /// then changes what `theirs` does and saves first.
    static func conflict(_ kind: StoreKind, theirs: (NSManagedObject) -> Void) throws -> (TestStack, NSManagedObject) {
        let stack = try TestStack(kind)
        _ = stack.insert("Person", ["name": "Ada", "age": 30, "email": "a@x.org", "height": 1.5])
        try stack.context.save()
        let mine = try #require(try stack.fetch("Person").first)
        let other = stack.newContext()
        let hers = try #require(try other.fetch(NSFetchRequest<NSManagedObject>(entityName: "Person")).first)
        theirs(hers)
        try other.save()
        return (stack, mine)
    }

    /// The row as a new context reads it from the store.
    static func stored(_ stack: TestStack) throws -> NSManagedObject? {
        try stack.newContext().fetch(NSFetchRequest<NSManagedObject>(entityName: "Person")).first
    }

    /// §8.1: the default is the error policy, and `NSMergePolicyType`'s raw values are Core Data's.
    @Test func theDefaultPolicyIsTheErrorPolicy() throws {
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        #expect((context.mergePolicy as? NSMergePolicy) === NSMergePolicy.error)
        #expect(NSMergePolicy.error.mergeType == .errorMergePolicyType)
        #expect([NSMergePolicyType.errorMergePolicyType, .mergeByPropertyStoreTrumpMergePolicyType, .mergeByPropertyObjectTrumpMergePolicyType,
                 .overwriteMergePolicyType, .rollbackMergePolicyType].map(\.rawValue) == [0, 1, 2, 3, 4])
        #expect((NSMergeByPropertyObjectTrumpMergePolicy as? NSMergePolicy)?.mergeType == .mergeByPropertyObjectTrumpMergePolicyType)
        #expect((NSMergeByPropertyStoreTrumpMergePolicy as? NSMergePolicy)?.mergeType == .mergeByPropertyStoreTrumpMergePolicyType)
        #expect((NSOverwriteMergePolicy as? NSMergePolicy)?.mergeType == .overwriteMergePolicyType)
        #expect((NSRollbackMergePolicy as? NSMergePolicy)?.mergeType == .rollbackMergePolicyType)
        #expect(NSMergePolicy(merge: .overwriteMergePolicyType).mergeType == .overwriteMergePolicyType)
    }

    /// §8.2: the error policy fails with the conflict listed, and writes nothing.
    @Test(arguments: StoreKind.allCases)
    func theErrorPolicyFailsWithTheConflict(kind: StoreKind) throws {
        let (stack, mine) = try Self.conflict(kind) { $0.setValue("b@x.org", forKey: "email") }
        mine.setValue(31, forKey: "age")
        let error = try #require(throws: CocoaError.self) { try stack.context.save() }
        #expect(error.code == .managedObjectMerge)
        #expect((error.userInfo["conflictList"] as? [NSMergeConflict])?.count == 1)
        #expect(try Self.stored(stack)?.value(forKey: "age") as? Int == 30)
    }

    /// §8.3: where both changed a property the store wins; the context's other changes stay.
    @Test(arguments: StoreKind.allCases)
    func storeTrumpKeepsTheStoresChangesAndTheContextsOthers(kind: StoreKind) throws {
        let (stack, mine) = try Self.conflict(kind) { $0.setValue("b@x.org", forKey: "email") }
        stack.context.mergePolicy = NSMergeByPropertyStoreTrumpMergePolicy
        mine.setValue("mine@x.org", forKey: "email")
        mine.setValue(31, forKey: "age")
        try stack.context.save()
        #expect(!stack.context.hasChanges)
        #expect(mine.value(forKey: "email") as? String == "b@x.org")
        #expect(mine.value(forKey: "age") as? Int == 31)
        let row = try #require(try Self.stored(stack))
        #expect(row.value(forKey: "email") as? String == "b@x.org")
        #expect(row.value(forKey: "age") as? Int == 31)
    }

    /// §8.4: where both changed a property the context wins; the store's other changes stay.
    @Test(arguments: StoreKind.allCases)
    func objectTrumpKeepsTheContextsChangesAndTheStoresOthers(kind: StoreKind) throws {
        let (stack, mine) = try Self.conflict(kind) { hers in
            hers.setValue("b@x.org", forKey: "email")
            hers.setValue(2.0, forKey: "height")
        }
        stack.context.mergePolicy = NSMergeByPropertyObjectTrumpMergePolicy
        mine.setValue("mine@x.org", forKey: "email")
        mine.setValue(31, forKey: "age")
        try stack.context.save()
        #expect(!stack.context.hasChanges)
        #expect(mine.value(forKey: "height") as? Double == 2.0)
        let row = try #require(try Self.stored(stack))
        #expect(row.value(forKey: "email") as? String == "mine@x.org")
        #expect(row.value(forKey: "age") as? Int == 31)
        #expect(row.value(forKey: "height") as? Double == 2.0)
        // Saved at the row's next version: another save from here needs no merge.
        mine.setValue(32, forKey: "age")
        stack.context.mergePolicy = NSErrorMergePolicy
        try stack.context.save()
    }

    /// §8.5: the context's whole object is written: the store's change to a property the
    /// context never touched is lost.
    @Test(arguments: StoreKind.allCases)
    func overwriteWritesTheWholeObject(kind: StoreKind) throws {
        let (stack, mine) = try Self.conflict(kind) { $0.setValue(2.0, forKey: "height") }
        stack.context.mergePolicy = NSOverwriteMergePolicy
        mine.setValue(31, forKey: "age")
        try stack.context.save()
        #expect(!stack.context.hasChanges)
        let row = try #require(try Self.stored(stack))
        #expect(row.value(forKey: "age") as? Int == 31)
        #expect(row.value(forKey: "height") as? Double == 1.5)
    }

    /// §8.6: the context's changes to the conflicting object are discarded; it shows the store's.
    @Test(arguments: StoreKind.allCases)
    func rollbackDiscardsTheContextsChanges(kind: StoreKind) throws {
        let (stack, mine) = try Self.conflict(kind) { $0.setValue("b@x.org", forKey: "email") }
        stack.context.mergePolicy = NSRollbackMergePolicy
        mine.setValue(31, forKey: "age")
        try stack.context.save()
        #expect(!stack.context.hasChanges)
        #expect(mine.value(forKey: "age") as? Int == 30)
        #expect(mine.value(forKey: "email") as? String == "b@x.org")
        #expect(try Self.stored(stack)?.value(forKey: "age") as? Int == 30)
    }

    /// A delete that meets another context's update: it stands under the merging policies (at
    /// the row's new version), and rollback takes it back, the object showing the update.
    @Test(arguments: StoreKind.allCases)
    func aDeleteMeetingAnUpdateStandsUnlessRolledBack(kind: StoreKind) throws {
        let (stack, mine) = try Self.conflict(kind) { $0.setValue("b@x.org", forKey: "email") }
        stack.context.mergePolicy = NSMergeByPropertyObjectTrumpMergePolicy
        stack.context.delete(mine)
        try stack.context.save()
        #expect(try Self.stored(stack) == nil)

        let (again, kept) = try Self.conflict(kind) { $0.setValue("b@x.org", forKey: "email") }
        again.context.mergePolicy = NSRollbackMergePolicy
        again.context.delete(kept)
        try again.context.save()
        #expect(!kept.isDeleted)
        #expect(kept.value(forKey: "email") as? String == "b@x.org")
        #expect(try Self.stored(again)?.value(forKey: "email") as? String == "b@x.org")
    }

    /// An update to a row another context deleted is not brought back by any policy: the save
    /// succeeds without it and the row stays gone.
    @Test(arguments: StoreKind.allCases)
    func anUpdateToADeletedRowIsDropped(kind: StoreKind) throws {
        let stack = try TestStack(kind)
        _ = stack.insert("Person", ["name": "Ada", "age": 30])
        let bob = stack.insert("Person", ["name": "Bob", "age": 40])
        try stack.context.save()
        let other = stack.newContext()
        let hers = try other.existingObject(with: bob.objectID)
        other.delete(hers)
        try other.save()

        stack.context.mergePolicy = NSMergeByPropertyObjectTrumpMergePolicy
        bob.setValue(41, forKey: "age")
        try stack.context.save()
        #expect(!stack.context.hasChanges)
        let names = try stack.newContext().fetch(NSFetchRequest<NSManagedObject>(entityName: "Person")).compactMap { $0.value(forKey: "name") as? String }
        #expect(names == ["Ada"])
    }

    /// A to-one changed on both sides: object trump keeps the context's owner, store trump the
    /// store's; either way the inverse to-manys agree with the row.
    @Test(arguments: StoreKind.allCases, [true, false])
    func aToOneChangedOnBothSidesFollowsThePolicy(kind: StoreKind, objectTrump: Bool) throws {
        let stack = try TestStack(kind)
        let ada = stack.insert("Person", ["name": "Ada"])
        let bob = stack.insert("Person", ["name": "Bob"])
        let cy = stack.insert("Person", ["name": "Cy"])
        let rex = stack.insert("Pet", ["name": "Rex"])
        rex.setValue(ada, forKey: "owner")
        try stack.context.save()
        let other = stack.newContext()
        let theirRex = try other.existingObject(with: rex.objectID)
        theirRex.setValue(try other.existingObject(with: bob.objectID), forKey: "owner")
        try other.save()

        stack.context.mergePolicy = objectTrump ? NSMergeByPropertyObjectTrumpMergePolicy : NSMergeByPropertyStoreTrumpMergePolicy
        rex.setValue(cy, forKey: "owner")
        try stack.context.save()
        let expected = objectTrump ? "Cy" : "Bob"
        #expect((rex.value(forKey: "owner") as? NSManagedObject)?.value(forKey: "name") as? String == expected)
        let fresh = stack.newContext()
        let storedRex = try fresh.existingObject(with: rex.objectID)
        #expect((storedRex.value(forKey: "owner") as? NSManagedObject)?.value(forKey: "name") as? String == expected)
        let owner = objectTrump ? cy : bob
        #expect((owner.value(forKey: "pets") as? Set<NSManagedObject>)?.contains(rex) == true)
    }

    /// A to-many the context never loaded, changed only through a member's to-one, keeps its
    /// saved members when the object is merged.
    @Test(arguments: StoreKind.allCases)
    func anUnloadedToManyKeepsItsSavedMembers(kind: StoreKind) throws {
        let stack = try TestStack(kind)
        let ada = stack.insert("Person", ["name": "Ada", "age": 30])
        for name in ["Rex", "Tom"] { stack.insert("Pet", ["name": name]).setValue(ada, forKey: "owner") }
        try stack.context.save()
        stack.context.reset()
        let mine = try #require(try stack.fetch("Person").first)
        let other = stack.newContext()
        try other.existingObject(with: mine.objectID).setValue(31, forKey: "age")
        try other.save()

        stack.context.mergePolicy = NSMergeByPropertyObjectTrumpMergePolicy
        stack.insert("Pet", ["name": "Kit"]).setValue(mine, forKey: "owner")
        mine.setValue("Ada L.", forKey: "name")
        try stack.context.save()
        let fresh = stack.newContext()
        let stored = try fresh.existingObject(with: mine.objectID)
        #expect(stored.value(forKey: "age") as? Int == 31)
        #expect(stored.value(forKey: "name") as? String == "Ada L.")
        let pets = try #require(stored.value(forKey: "pets") as? Set<NSManagedObject>)
        #expect(Set(pets.compactMap { $0.value(forKey: "name") as? String }) == ["Rex", "Tom", "Kit"])
    }

    /// A delete that meets another context's change runs its delete rules again on the row as
    /// it is now: a pet added elsewhere meanwhile is cascaded too, not left pointing at nothing.
    @Test(arguments: StoreKind.allCases)
    func aDeleteThatStandsCascadesToMembersAddedElsewhere(kind: StoreKind) throws {
        let stack = try TestStack(kind)
        let ada = stack.insert("Person", ["name": "Ada"])
        try stack.context.save()
        stack.context.mergePolicy = NSMergeByPropertyObjectTrumpMergePolicy
        stack.context.delete(ada)
        stack.context.processPendingChanges()  // the delete rules run now, on no pets

        let other = stack.newContext()
        let hers = try other.existingObject(with: ada.objectID)
        let pet = NSEntityDescription.insertNewObject(forEntityName: "Pet", into: other)
        pet.setValue("Rex", forKey: "name")
        pet.setValue(hers, forKey: "owner")
        try other.save()
        try stack.context.save()
        let fresh = stack.newContext()
        #expect(try fresh.count(for: NSFetchRequest<NSManagedObject>(entityName: "Person")) == 0)
        #expect(try fresh.count(for: NSFetchRequest<NSManagedObject>(entityName: "Pet")) == 0)
    }

    /// A subclass sees every conflict, may change the objects, and calls `super`.
    @Test func aSubclassSeesTheConflictsAndCallsSuper() throws {
        final class Recording: NSMergePolicy {
            var seen: [NSMergeConflict] = []
            override func resolve(optimisticLockingConflicts list: [NSMergeConflict]) throws {
                seen += list
                try super.resolve(optimisticLockingConflicts: list)
            }
        }
        let (stack, mine) = try Self.conflict(.sqlite) { $0.setValue("b@x.org", forKey: "email") }
        let policy = Recording(merge: .mergeByPropertyObjectTrumpMergePolicyType)
        stack.context.mergePolicy = policy
        mine.setValue(31, forKey: "age")
        try stack.context.save()
        #expect(policy.seen.count == 1)
        #expect(policy.seen.first?.sourceObject === mine)
        #expect(policy.seen.first?.persistedSnapshot?["email"] as? String == "b@x.org")
    }

    /// §8.10: a new object with a saved object's unique email becomes that object. Under object
    /// trump the row takes the new values (an upsert); under store trump it keeps its own. Either
    /// way it is one row, holding the new object's pet.
    @Test(arguments: StoreKind.allCases, [true, false])
    func aNewObjectWithASavedObjectsKeyBecomesThatObject(kind: StoreKind, objectTrump: Bool) throws {
        let stack = try TestStack(kind)
        let saved = stack.insert("Person", ["name": "Ada", "email": "ada@example.com", "age": 30])
        try stack.context.save()
        stack.context.mergePolicy = objectTrump ? NSMergeByPropertyObjectTrumpMergePolicy : NSMergeByPropertyStoreTrumpMergePolicy
        let duplicate = stack.insert("Person", ["name": "Ada Two", "email": "ada@example.com", "age": 41])
        let rex = stack.insert("Pet", ["name": "Rex"])
        rex.setValue(duplicate, forKey: "owner")
        try stack.context.save()
        #expect(!stack.context.hasChanges)
        #expect(duplicate.managedObjectContext == nil)
        #expect(rex.value(forKey: "owner") as? NSManagedObject === saved)

        let fresh = stack.newContext()
        let people = try fresh.fetch(NSFetchRequest<NSManagedObject>(entityName: "Person"))
        #expect(people.count == 1)
        let row = try #require(people.first)
        #expect(row.objectID == saved.objectID)
        #expect(row.value(forKey: "name") as? String == (objectTrump ? "Ada Two" : "Ada"))
        #expect(row.value(forKey: "age") as? Int == (objectTrump ? 41 : 30))
        #expect((row.value(forKey: "pets") as? Set<NSManagedObject>)?.compactMap { $0.value(forKey: "name") as? String } == ["Rex"])
    }

    /// Two new objects of one save with the same key are one row under a merging policy, holding
    /// both objects' pets.
    @Test(arguments: StoreKind.allCases)
    func newObjectsSharingAKeyBecomeOneRow(kind: StoreKind) throws {
        let stack = try TestStack(kind)
        stack.context.mergePolicy = NSMergeByPropertyObjectTrumpMergePolicy
        for (name, pet) in [("Bo", "Rex"), ("Bo Two", "Tom")] {
            let person = stack.insert("Person", ["name": name, "email": "bo@example.com"])
            stack.insert("Pet", ["name": pet]).setValue(person, forKey: "owner")
        }
        try stack.context.save()
        let fresh = stack.newContext()
        let people = try fresh.fetch(NSFetchRequest<NSManagedObject>(entityName: "Person"))
        #expect(people.count == 1)
        let pets = try #require(people.first?.value(forKey: "pets") as? Set<NSManagedObject>)
        #expect(Set(pets.compactMap { $0.value(forKey: "name") as? String }) == ["Rex", "Tom"])
        #expect(try fresh.count(for: NSFetchRequest<NSManagedObject>(entityName: "Pet")) == 2)
    }
}
