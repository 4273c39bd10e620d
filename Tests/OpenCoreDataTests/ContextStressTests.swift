import Dispatch
import Foundation
import Testing
import OpenCoreData
@testable import OpenCoreDataCore

/// Many writers on one store (issue 14, "Stress"): contexts on their own threads, and a child
/// context saving through its parent, insert, update, delete and merge the same people and pets
/// for a fixed number of rounds, under each merge policy. Afterwards: inverses agree, counts agree
/// with the store, and every pet a successful save inserted is still there unless a successful
/// save deleted it. Runs under the thread sanitizer in CI.
@Suite struct ContextStressTests {
    static let policies: [(name: String, type: NSMergePolicyType)] = [
        ("error", .errorMergePolicyType), ("rollback", .rollbackMergePolicyType), ("overwrite", .overwriteMergePolicyType),
        ("objectTrump", .mergeByPropertyObjectTrumpMergePolicyType), ("storeTrump", .mergeByPropertyStoreTrumpMergePolicyType),
    ]
    static let people = 8
    static let rounds = 12
    static let workers = 3

    /// What the writers did that must still show at the end.
    struct Ledger {
        var insertedPets: Set<NSManagedObjectID> = []
        var deletedPets: Set<NSManagedObjectID> = []
        var failures: [String] = []
        var conflicts = 0
    }

    @Test(arguments: policies.indices)
    func writersOnThreadsAndThroughAParentKeepTheGraphWhole(policyIndex: Int) throws {
        let (name, type) = Self.policies[policyIndex]
        let policy = NSMergePolicy(merge: type)
        let stack = try TestStack(.sqlite)
        for number in 0..<Self.people { stack.insert("Person", ["name": "p\(number)", "age": 1]) }
        try stack.context.save()

        let ledger = LockedBox(Ledger())
        let roots = (0..<Self.workers).map { _ in context(on: stack, policy: policy) }
        let writer = context(on: stack, policy: policy)
        let child = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        child.parent = writer
        child.automaticallyMergesChangesFromParent = true

        DispatchQueue.concurrentPerform(iterations: Self.workers + 1) { worker in
            var random = SplitMix(seed: UInt64(worker + 1) * 7919 + UInt64(policyIndex))
            for round in 0..<Self.rounds {
                if worker < Self.workers {
                    let context = roots[worker]
                    context.performAndWait {
                        let changes = change(context, worker: worker, round: round, random: &random)
                        save(context, changes: changes, ledger: ledger, policyName: name, label: "context \(worker) round \(round)")
                    }
                } else {
                    // The chain: the child saves into the writer, which saves to the store.
                    child.performAndWait {
                        let changes = change(child, worker: worker, round: round, random: &random)
                        do {
                            try child.save()
                        } catch {
                            ledger.withLock { $0.failures.append("child round \(round): \(error)") }
                            child.rollback()
                            return
                        }
                        writer.performAndWait { save(writer, changes: changes, ledger: ledger, policyName: name, label: "writer round \(round)") }
                    }
                }
            }
        }

        let result = ledger.withLock { $0 }
        #expect(result.failures.isEmpty, "\(name): \(result.failures.prefix(3))")
        // The writers got their saves through: at least one round in two of every writer.
        #expect(result.insertedPets.count >= (Self.workers + 1) * Self.rounds / 2, "\(name)")
        try checkGraph(stack, ledger: result, policyName: name)
    }

    private func context(on stack: TestStack, policy: NSMergePolicy) -> NSManagedObjectContext {
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = stack.coordinator
        context.mergePolicy = policy
        context.automaticallyMergesChangesFromParent = true
        return context
    }

    /// The changes of one round, made in `context`: a person's age, a new pet, a pet moved to
    /// another owner, a pet deleted. Returns the IDs of the new pets (permanent once saved).
    private func change(_ context: NSManagedObjectContext, worker: Int, round: Int,
                        random: inout SplitMix) -> [NSManagedObject] {
        guard let people = try? context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Person")), !people.isEmpty else { return [] }
        let person = people[Int(random.next() % UInt64(people.count))]
        person.setValue(Int(random.next() % 100), forKey: "age")
        let pet = NSEntityDescription.insertNewObject(forEntityName: "Pet", into: context)
        pet.setValue("w\(worker)-r\(round)", forKey: "name")
        pet.setValue(person, forKey: "owner")
        if let pets = try? context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Pet")), !pets.isEmpty {
            let moved = pets[Int(random.next() % UInt64(pets.count))]
            if !moved.isInserted { moved.setValue(people[Int(random.next() % UInt64(people.count))], forKey: "owner") }
            if round % 3 == 2 {
                let doomed = pets[Int(random.next() % UInt64(pets.count))]
                if !doomed.isInserted { context.delete(doomed) }
            }
        }
        return [pet]
    }

    /// Saves `context`; records what a successful save inserted and deleted, and what failed.
    private func save(_ context: NSManagedObjectContext, changes: [NSManagedObject], ledger: LockedBox<Ledger>, policyName: String,
                      label: String) {
        let deleted = context.deletedObjects.filter { $0.entity.name == "Pet" }.map(\.objectID)
        do {
            try context.save()
            let inserted = changes.filter { $0.managedObjectContext != nil && !$0.objectID.isTemporaryID }.map(\.objectID)
            ledger.withLock {
                $0.insertedPets.formUnion(inserted)
                $0.deletedPets.formUnion(deleted)
            }
        } catch {
            let code = (error as NSError).code
            // Conflicts the error policy reports are what it specifies; any other policy must
            // settle them, and nothing else may fail.
            if policyName == "error" && (code == NSManagedObjectMergeError || code == NSManagedObjectConstraintMergeError) {
                ledger.withLock { $0.conflicts += 1 }
            } else {
                ledger.withLock { $0.failures.append("\(policyName), \(label): \(error)") }
            }
            context.rollback()
        }
    }

    private func checkGraph(_ stack: TestStack, ledger: Ledger, policyName: String) throws {
        let reader = stack.newContext()
        let people = try reader.fetch(NSFetchRequest<NSManagedObject>(entityName: "Person"))
        let pets = try reader.fetch(NSFetchRequest<NSManagedObject>(entityName: "Pet"))
        #expect(people.count == Self.people, "\(policyName)")
        #expect(try reader.count(for: NSFetchRequest<NSManagedObject>(entityName: "Pet")) == pets.count, "\(policyName)")
        // Inverses agree both ways.
        for pet in pets {
            if let owner = pet.value(forKey: "owner") as? NSManagedObject {
                #expect((owner.value(forKey: "pets") as? Set<NSManagedObject>)?.contains(pet) == true, "\(policyName): \(pet.objectID)")
            }
        }
        for person in people {
            for pet in person.value(forKey: "pets") as? Set<NSManagedObject> ?? [] {
                #expect(pet.value(forKey: "owner") as? NSManagedObject === person, "\(policyName): \(pet.objectID)")
            }
        }
        // Nothing a successful save inserted is lost, unless a successful save deleted it.
        let stored = Set(pets.map(\.objectID))
        let lost = ledger.insertedPets.subtracting(ledger.deletedPets).subtracting(stored)
        #expect(lost.isEmpty, "\(policyName): \(lost.count) saved pets are gone")
    }
}
