import Foundation
import Testing
import OpenCoreData
@testable import OpenCoreDataCore
@testable import OpenCoreDataSQLite

/// A fetched object keeps its row's identity in its snapshot and makes its `NSManagedObjectID`
/// only when asked. These tests pin down that nothing a user relies on notices: uniquing, IDs
/// equal to the store's, the registry letting go, and identity kept through refreshes.
@Suite struct FetchedIdentityTests {
    private func stackWithPeople(_ kind: StoreKind, names: [String]) throws -> (TestStack, [NSManagedObjectID]) {
        let stack = try TestStack(kind)
        for name in names { _ = stack.insert("Person", ["name": name]) }
        try stack.context.save()
        try stack.reopen()
        return (stack, try personIDs(of: stack))
    }

    /// The people's IDs sorted by name, fetched as IDs through another context.
    private func personIDs(of stack: TestStack) throws -> [NSManagedObjectID] {
        let request = NSFetchRequest<NSManagedObjectID>(entityName: "Person")
        request.resultType = .managedObjectIDResultType
        request.sortDescriptors = [NSSortDescriptor(key: "name", ascending: true)]
        return try stack.newContext().fetch(request)
    }

    @Test(arguments: StoreKind.allCases)
    func fetchedObjectsAreFoundByTheirIDsBeforeAnyoneAsksForThem(kind: StoreKind) throws {
        let (stack, ids) = try stackWithPeople(kind, names: ["Ada", "Grace"])
        #expect(ids.count == 2)
        let fetched = try stack.fetch("Person", sortedBy: "name")
        // Looked up by IDs made elsewhere, before the objects made their own.
        let found = Set(ids.map { stack.context.registeredObject(for: $0) })
        #expect(found == Set(fetched.map { Optional($0) }))
        #expect(Set(fetched.map(\.objectID)) == Set(ids))
        // The ID an object makes is kept: asking twice gives the same ID object.
        #expect(fetched[0].objectID === fetched[0].objectID)
        #expect(stack.context.object(with: fetched[1].objectID) === fetched[1])
        #expect(fetched[0].objectID.uriRepresentation().absoluteString.hasSuffix("/Person/p\(fetched[0].objectID.primaryKey!)"))
    }

    @Test(arguments: StoreKind.allCases)
    func aRowFetchedTwiceIsOneObject(kind: StoreKind) throws {
        let (stack, _) = try stackWithPeople(kind, names: ["Ada"])
        let first = try stack.fetch("Person")
        let second = try stack.fetch("Person", NSPredicate(format: "name == %@", "Ada"))
        #expect(first[0] === second[0])
    }

    @Test(arguments: StoreKind.allCases)
    func anObjectNobodyHoldsIsForgottenWithoutEverMakingItsID(kind: StoreKind) throws {
        let (stack, ids) = try stackWithPeople(kind, names: ["Ada"])
        weak var gone: NSManagedObject?
        do {
            let fetched = try stack.fetch("Person")
            gone = fetched[0]
            #expect(fetched[0].storedObjectID == nil)
        }
        #expect(gone == nil)
        #expect(stack.context.registeredObject(for: ids[0]) == nil)
        #expect(stack.context.registeredObjects.isEmpty)
        let again = try stack.fetch("Person")
        #expect(again[0].value(forKey: "name") as? String == "Ada")
        #expect(again[0].objectID == ids[0])
    }

    @Test(arguments: StoreKind.allCases)
    func refreshingAFetchedObjectKeepsItsIdentity(kind: StoreKind) throws {
        let (stack, ids) = try stackWithPeople(kind, names: ["Ada"])
        let person = try stack.fetch("Person")[0]
        #expect(person.storedObjectID == nil)
        person.setValue("Changed", forKey: "name")
        stack.context.refresh(person, mergeChanges: false)
        #expect(person.objectID == ids[0])
        #expect(stack.context.registeredObject(for: ids[0]) === person)
        #expect(person.value(forKey: "name") as? String == "Ada")
    }

    @Test(arguments: StoreKind.allCases)
    func savedChangesOfFetchedObjectsCarryTheirIDs(kind: StoreKind) throws {
        let (stack, ids) = try stackWithPeople(kind, names: ["Ada", "Grace"])
        let people = try stack.fetch("Person", sortedBy: "name")
        people[0].setValue("Ada L.", forKey: "name")
        stack.context.delete(people[1])
        let recorder = NotificationRecorder(.NSManagedObjectContextDidSave, object: stack.context)
        try stack.context.save()
        #expect(recorder.objects(NSUpdatedObjectsKey, at: 0).map(\.objectID) == [ids[0]])
        #expect(recorder.objects(NSDeletedObjectsKey, at: 0).map(\.objectID) == [ids[1]])
        #expect(try stack.storedStrings("Person") == ["Ada L."])
    }
}
