import Foundation
import Testing
import OpenCoreData

/// The merge policies across the kinds of conflict the issue lists, filling in what
/// `MergePolicyTests` covers for some policies only: relationship conflicts and deletes meeting
/// updates under every policy, and uniqueness clashes under overwrite, rollback and store trump
/// (COREDATA-SEMANTICS.md §8).
@Suite struct MergePolicyMatrixTests {
    /// The policy a test argument names.
    private static func policy(_ name: String) -> Any {
        switch name {
        case "storeTrump": NSMergeByPropertyStoreTrumpMergePolicy
        case "objectTrump": NSMergeByPropertyObjectTrumpMergePolicy
        case "overwrite": NSOverwriteMergePolicy
        case "rollback": NSRollbackMergePolicy
        default: NSErrorMergePolicy
        }
    }

    private func ownerName(of pet: NSManagedObject) -> String? {
        (pet.value(forKey: "owner") as? NSManagedObject)?.value(forKey: "name") as? String
    }

    /// Rex belongs to Ada; another context gives him to Bob and saves; this context gives him to
    /// Cy. Error fails and writes nothing; store trump and rollback keep Bob; object trump and
    /// overwrite keep Cy. Both sides of the relationship agree with the row afterwards.
    @Test(arguments: StoreKind.allCases, ["error", "storeTrump", "objectTrump", "overwrite", "rollback"])
    func aToOneConflictUnderEveryPolicy(kind: StoreKind, policy: String) throws {
        let stack = try TestStack(kind)
        let ada = stack.insert("Person", ["name": "Ada"])
        let bob = stack.insert("Person", ["name": "Bob"])
        let cy = stack.insert("Person", ["name": "Cy"])
        let rex = stack.insert("Pet", ["name": "Rex", "owner": ada])
        try stack.context.save()
        let other = stack.newContext()
        try other.existingObject(with: rex.objectID).setValue(try other.existingObject(with: bob.objectID), forKey: "owner")
        try other.save()

        stack.context.mergePolicy = Self.policy(policy)
        rex.setValue(cy, forKey: "owner")
        // Read through a new context, kept alive while its objects are read.
        let reader = stack.newContext()
        let stored = {
            reader.reset()
            return try self.ownerName(of: reader.existingObject(with: rex.objectID))
        }
        if policy == "error" {
            let error = #expect(throws: CocoaError.self) { try stack.context.save() }
            #expect(error?.code == .managedObjectMerge)
            #expect(try stored() == "Bob")
            return
        }
        try stack.context.save()
        #expect(!stack.context.hasChanges)
        let expected = ["storeTrump": "Bob", "rollback": "Bob", "objectTrump": "Cy", "overwrite": "Cy"][policy]
        #expect(ownerName(of: rex) == expected)
        #expect(try stored() == expected)
        let fresh = stack.newContext()
        for person in try fresh.fetch(NSFetchRequest<NSManagedObject>(entityName: "Person")) {
            let name = person.value(forKey: "name") as? String
            #expect(members(person, "pets").count == (name == expected ? 1 : 0), "\(name ?? "?")")
        }
    }

    /// Ada is deleted here while another context changes her email: the delete stands under
    /// every policy that merges (at the row's new version) and the error policy fails; rollback
    /// takes the delete back.
    @Test(arguments: StoreKind.allCases, ["error", "storeTrump", "objectTrump", "overwrite", "rollback"])
    func aDeleteMeetingAnUpdateUnderEveryPolicy(kind: StoreKind, policy: String) throws {
        let (stack, mine) = try MergePolicyTests.conflict(kind) { $0.setValue("b@x.org", forKey: "email") }
        stack.context.mergePolicy = Self.policy(policy)
        stack.context.delete(mine)
        switch policy {
        case "error":
            let error = #expect(throws: CocoaError.self) { try stack.context.save() }
            #expect(error?.code == .managedObjectMerge)
            #expect(try MergePolicyTests.stored(stack)?.value(forKey: "email") as? String == "b@x.org")
        case "rollback":
            try stack.context.save()
            #expect(!mine.isDeleted)
            #expect(try MergePolicyTests.stored(stack)?.value(forKey: "email") as? String == "b@x.org")
        default:
            try stack.context.save()
            #expect(try MergePolicyTests.stored(stack) == nil)
        }
    }

    /// A new object with a saved object's unique email: overwrite makes the row take the new
    /// values (as object trump does), rollback keeps the saved ones (as store trump does); one
    /// row either way, holding the new object's pet.
    @Test(arguments: StoreKind.allCases, ["overwrite", "rollback"])
    func aUniquenessClashUnderOverwriteAndRollback(kind: StoreKind, policy: String) throws {
        let stack = try TestStack(kind)
        let saved = stack.insert("Person", ["name": "Ada", "email": "ada@example.com", "age": 30])
        try stack.context.save()
        stack.context.mergePolicy = Self.policy(policy)
        let duplicate = stack.insert("Person", ["name": "Ada Two", "email": "ada@example.com", "age": 41])
        stack.insert("Pet", ["name": "Rex", "owner": duplicate])
        try stack.context.save()
        #expect(!stack.context.hasChanges)
        let reader = stack.newContext()
        let people = try reader.fetch(NSFetchRequest<NSManagedObject>(entityName: "Person"))
        #expect(people.count == 1)
        let row = try #require(people.first)
        #expect(row.objectID == saved.objectID)
        #expect(row.value(forKey: "age") as? Int == (policy == "overwrite" ? 41 : 30))
        #expect(strings(members(row, "pets")) == ["Rex"])
    }

    /// Two new objects of one save sharing a key are one row under store trump too, keeping
    /// both objects' pets.
    @Test(arguments: StoreKind.allCases)
    func newObjectsSharingAKeyUnderStoreTrump(kind: StoreKind) throws {
        let stack = try TestStack(kind)
        stack.context.mergePolicy = NSMergeByPropertyStoreTrumpMergePolicy
        for (name, pet) in [("Bo", "Rex"), ("Bo Two", "Tom")] {
            let person = stack.insert("Person", ["name": name, "email": "bo@example.com"])
            stack.insert("Pet", ["name": pet, "owner": person])
        }
        try stack.context.save()
        let reader = stack.newContext()
        let people = try reader.fetch(NSFetchRequest<NSManagedObject>(entityName: "Person"))
        #expect(people.count == 1)
        #expect(try strings(members(#require(people.first), "pets")) == ["Rex", "Tom"])
    }

    /// A subclass overriding `resolve(constraintConflicts:)` sees each clash and calls super.
    @Test func aSubclassSeesTheUniquenessConflictsAndCallsSuper() throws {
        final class Recording: NSMergePolicy {
            var seen: [NSConstraintConflict] = []
            override func resolve(constraintConflicts list: [NSConstraintConflict]) throws {
                seen += list
                try super.resolve(constraintConflicts: list)
            }
        }
        let stack = try TestStack(.sqlite)
        let saved = stack.insert("Person", ["name": "Ada", "email": "ada@example.com"])
        try stack.context.save()
        let policy = Recording(merge: .mergeByPropertyObjectTrumpMergePolicyType)
        stack.context.mergePolicy = policy
        let duplicate = stack.insert("Person", ["name": "Ada Two", "email": "ada@example.com"])
        try stack.context.save()
        #expect(policy.seen.count == 1)
        #expect(policy.seen.first?.databaseObject === saved)
        #expect(policy.seen.first?.conflictingObjects.contains(duplicate) == true)
        #expect(policy.seen.first?.constraint == ["email"])
        #expect(try stack.storedStrings("Person") == ["Ada Two"])
    }
}
