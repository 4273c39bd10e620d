import Foundation
import Testing
import OpenCoreData
@testable import OpenCoreDataCore
@testable import OpenCoreDataSQLite

/// A Person subclass that counts its life-cycle calls (§1.17, §1.21).
final class TrackedPerson: NSManagedObject {
    var awakeFromInsertCount = 0
    var awakeFromFetchCount = 0
    var willSaveCount = 0
    var didSaveCount = 0
    /// `isDeleted` as seen by each willSave call.
    var deletedAtWillSave: [Bool] = []

    override func awakeFromInsert() {
        super.awakeFromInsert()
        awakeFromInsertCount += 1
    }

    override func awakeFromFetch() {
        super.awakeFromFetch()
        awakeFromFetchCount += 1
    }

    override func willSave() {
        super.willSave()
        willSaveCount += 1
        deletedAtWillSave.append(isDeleted)
    }

    override func didSave() {
        super.didSave()
        didSaveCount += 1
    }

    var faultTransitions: [String] = []

    override func willTurnIntoFault() {
        super.willTurnIntoFault()
        faultTransitions.append("will")
    }

    override func didTurnIntoFault() {
        super.didTurnIntoFault()
        faultTransitions.append("did")
    }

    var prepareForDeletionCount = 0
    /// How many pets the person had when `prepareForDeletion` ran.
    var petsAtPrepareForDeletion: Int?

    override func prepareForDeletion() {
        super.prepareForDeletion()
        prepareForDeletionCount += 1
        petsAtPrepareForDeletion = (value(forKey: "pets") as? Set<NSManagedObject>)?.count
    }
}

/// The managed object context: identity, IDs, faulting, change tracking, fetch options,
/// conflicts, life-cycle hooks, notifications and queues.
@Suite struct ContextTests {
    // MARK: Identity

    @Test func userInfoKeepsWhatTheApplicationPutsThereForItsContextOnly() throws {
        let stack = try TestStack(.inMemory)
        stack.context.userInfo["importBatch"] = 7
        #expect(stack.context.userInfo["importBatch"] as? Int == 7)
        #expect(stack.context.userInfo === stack.context.userInfo)
        // Kept through a save and a reset, and not shared with another context.
        _ = stack.insert("Person", ["name": "Ada"])
        try stack.context.save()
        stack.context.reset()
        #expect(stack.context.userInfo["importBatch"] as? Int == 7)
        #expect(stack.newContext().userInfo.count == 0)
    }

    @Test(arguments: StoreKind.allCases)
    func oneInstancePerRowInAContextAndDistinctInstancesAcrossContexts(kind: StoreKind) throws {
        let stack = try TestStack(kind)
        _ = stack.insert("Person", ["name": "Ada"])
        try stack.context.save()
        try stack.reopen()

        // §1.5 uniquing.
        let first = try #require(try stack.fetch("Person").first)
        let second = try #require(try stack.fetch("Person", NSComparisonPredicate(key: "name", .equalTo, "Ada")).first)
        #expect(first === second)
        #expect(stack.context.object(with: first.objectID) === first)
        let other = stack.newContext()
        let elsewhere = try #require(try stack.fetch("Person", in: other).first)
        #expect(elsewhere !== first)
        #expect(elsewhere.objectID == first.objectID)
        #expect(elsewhere.managedObjectContext === other)
    }

    @Test(arguments: StoreKind.allCases)
    func temporaryIDsBecomePermanentAtSave(kind: StoreKind) throws {
        let stack = try TestStack(kind)
        let store = try #require(stack.coordinator.persistentStores.first)
        let person = stack.insert("Person", ["name": "Ada"])
        let temporary = person.objectID
        // §1.1, §1.2, §1.3
        #expect(temporary.isTemporaryID)
        #expect(temporary.persistentStore == nil)
        let temporaryURI = temporary.uriRepresentation().absoluteString
        #expect(temporaryURI.wholeMatch(of: try Regex("x-coredata:///Person/t[0-9A-Fa-f-]{36}")) != nil)
        #expect(stack.context.registeredObject(for: temporary) === person)

        try stack.context.save()
        let permanent = person.objectID
        #expect(!permanent.isTemporaryID)
        #expect(permanent != temporary)
        #expect(permanent.persistentStore === store)
        #expect(stack.context.registeredObject(for: permanent) === person)
        let uri = permanent.uriRepresentation().absoluteString
        #expect(uri.wholeMatch(of: try Regex("x-coredata://\(store.identifier)/Person/p[0-9]+")) != nil)
        #expect(UUID(uuidString: store.identifier) != nil)
        #expect(store.metadata[NSStoreUUIDKey] as? String == store.identifier)

        // The permanent URI names the same row after a reopen (the store UUID is kept on disk).
        try stack.reopen()
        let fetched = try #require(try stack.fetch("Person").first)
        #expect(fetched.objectID.uriRepresentation().absoluteString == uri)
    }

    @Test(arguments: StoreKind.allCases)
    func obtainPermanentIDsKeepsTheObjectInserted(kind: StoreKind) throws {
        let stack = try TestStack(kind)
        let ada = stack.insert("Person", ["name": "Ada"])
        let bob = stack.insert("Person", ["name": "Bob"])
        try stack.context.obtainPermanentIDs(for: [ada])
        // §1.4
        let id = ada.objectID
        #expect(!id.isTemporaryID)
        #expect(id.persistentStore != nil)
        #expect(ada.isInserted)
        #expect(stack.context.insertedObjects.contains(ada))
        #expect(bob.objectID.isTemporaryID)
        #expect(stack.context.registeredObject(for: id) === ada)
        // Objects that already have permanent IDs are skipped.
        try stack.context.obtainPermanentIDs(for: [ada])
        #expect(ada.objectID == id)
        #expect(try stack.storedCount("Person") == 0)

        try stack.context.save()
        #expect(ada.objectID == id)
        #expect(!ada.isInserted)
        #expect(ada.objectID != bob.objectID)
        let uri = id.uriRepresentation()
        try stack.reopen()
        let fetched = try stack.fetch("Person", sortedBy: "name")
        #expect(fetched.first?.objectID.uriRepresentation() == uri)
        #expect(fetched.count == 2)
    }

    @Test(arguments: StoreKind.allCases)
    func registeredObjectNeverLoads(kind: StoreKind) throws {
        let stack = try TestStack(kind)
        let person = stack.insert("Person", ["name": "Ada"])
        try stack.context.save()
        let id = person.objectID

        // §1.6: a fresh context has nothing registered, whatever the store holds.
        let fresh = stack.newContext()
        #expect(fresh.registeredObject(for: id) == nil)
        let fetched = try #require(try stack.fetch("Person", in: fresh).first)
        #expect(fresh.registeredObject(for: id) === fetched)
    }

    @Test(arguments: StoreKind.allCases)
    func objectWithReturnsAFaultThatLoadsOnUse(kind: StoreKind) throws {
        let stack = try TestStack(kind)
        let person = stack.insert("Person", ["name": "Ada", "age": 36])
        try stack.context.save()
        let id = person.objectID

        // §1.7: never nil, a fault, registered.
        let fresh = stack.newContext()
        let fault = fresh.object(with: id)
        #expect(fault.isFault)
        #expect(fault.objectID == id)
        #expect(fresh.registeredObject(for: id) === fault)
        #expect(fault.value(forKey: "name") as? String == "Ada")
        #expect(!fault.isFault)
        #expect(fault.value(forKey: "age") as? Int == 36)
        #expect(try stack.fetch("Person", in: fresh).first === fault)
    }

    @Test(arguments: StoreKind.allCases)
    func existingObjectLoadsOrThrows133000(kind: StoreKind) throws {
        let stack = try TestStack(kind)
        let ada = stack.insert("Person", ["name": "Ada"])
        let bob = stack.insert("Person", ["name": "Bob"])
        try stack.context.save()
        let (adaID, bobID) = (ada.objectID, bob.objectID)

        // §1.8: a present row comes back loaded.
        let reader = stack.newContext()
        let loaded = try reader.existingObject(with: adaID)
        #expect(!loaded.isFault)
        #expect(loaded.value(forKey: "name") as? String == "Ada")

        // Delete Bob's row through another context.
        stack.context.delete(bob)
        try stack.context.save()
        let fresh = stack.newContext()
        let error = #expect(throws: (any Error).self) { try fresh.existingObject(with: bobID) }
        #expect((error as? NSError)?.domain == NSCocoaErrorDomain)
        #expect(error?.code == 133000)  // the code is [UNCONFIRMED] (§1.8)
        // object(with:) still hands out a fault for the missing row (§1.7).
        #expect(fresh.object(with: bobID).isFault)
    }

    @Test(arguments: StoreKind.allCases)
    func aFaultWhoseRowIsGoneReadsAsDeleted(kind: StoreKind) throws {
        let stack = try TestStack(kind)
        let bob = stack.insert("Person", ["name": "Bob", "age": 40])
        try stack.context.save()
        let id = bob.objectID
        stack.context.delete(bob)
        try stack.context.save()

        let fresh = stack.newContext()
        let fault = fresh.object(with: id)
        #expect(fault.isFault)
        #expect(fresh.shouldDeleteInaccessibleFaults)
        // §2.8: with shouldDeleteInaccessibleFaults (the default) firing doesn't fail: the
        // object is marked deleted and every property, mandatory ones included, reads as nil.
        #expect(fault.value(forKey: "name") == nil)
        #expect(fault.value(forKey: "age") == nil || fault.value(forKey: "age") as? Int == 0)
        #expect(fault.isDeleted)
    }

    @Test(arguments: StoreKind.allCases)
    func objectIDsRoundTripThroughURIs(kind: StoreKind) throws {
        let stack = try TestStack(kind)
        let person = stack.insert("Person", ["name": "Ada"])
        let pet = stack.insert("Pet", ["name": "Rex", "owner": person])
        try stack.context.save()
        let uri = person.objectID.uriRepresentation()
        #expect(stack.coordinator.managedObjectID(forURIRepresentation: uri) == person.objectID)
        #expect(stack.coordinator.managedObjectID(forURIRepresentation: pet.objectID.uriRepresentation()) == pet.objectID)

        try stack.reopen()
        let id = try #require(stack.coordinator.managedObjectID(forURIRepresentation: uri))
        #expect(id.entity.name == "Person")
        #expect(try stack.context.existingObject(with: id).value(forKey: "name") as? String == "Ada")

        let store = try #require(stack.coordinator.persistentStores.first).identifier
        let garbage = [
            "https://example.com/Person/p1",
            "x-coredata://\(UUID().uuidString)/Person/p1",
            "x-coredata://\(store)/Nobody/p1",
            "x-coredata://\(store)/Person/q1",
            "x-coredata://\(store)/Person/pabc",
            "x-coredata://\(store)/Person",
            "x-coredata:///Person/t\(UUID().uuidString)",
        ]
        for text in garbage {
            let url = try #require(URL(string: text))
            #expect(stack.coordinator.managedObjectID(forURIRepresentation: url) == nil, "\(text)")
        }
    }

    // MARK: Faulting

    @Test(arguments: StoreKind.allCases)
    func fetchedObjectsAreFaultsFilledWithoutAnotherFetch(kind: StoreKind) throws {
        let stack = try TestStack(kind)
        for (name, age) in [("Ada", 36), ("Bob", 40)] { _ = stack.insert("Person", ["name": name, "age": age]) }
        try stack.context.save()
        try stack.reopen()

        let log = stack.recordSQL()
        let people = try stack.fetch("Person", sortedBy: "name")
        // §2.1: faults by default…
        #expect(people.count == 2)
        for person in people { #expect(person.isFault) }
        if kind == .sqlite { #expect(log?.all.isEmpty == false) }
        log?.clear()
        // …whose values came with the fetch: firing them issues no SQL.
        #expect(people.map { $0.value(forKey: "name") as? String } == ["Ada", "Bob"])
        #expect(people.map { $0.value(forKey: "age") as? Int } == [36, 40])
        for person in people { #expect(!person.isFault) }
        #expect(log?.all ?? [] == [])

        // returnsObjectsAsFaults = false gives realized objects.
        let other = stack.newContext()
        let request = NSFetchRequest<NSManagedObject>(entityName: "Person")
        request.returnsObjectsAsFaults = false
        for person in try other.fetch(request) { #expect(!person.isFault) }
    }

    @Test(arguments: StoreKind.allCases)
    func inspectingAFaultDoesNotFireIt(kind: StoreKind) throws {
        let stack = try TestStack(kind)
        _ = stack.insert("Person", ["name": "Ada"])
        try stack.context.save()
        try stack.reopen()

        let fault = try #require(try stack.fetch("Person").first)
        let twin = stack.context.object(with: fault.objectID)
        // §1.9: identity, entity, context and state flags are safe on a fault.
        #expect(fault.objectID.entity.name == "Person")
        #expect(fault.entity.name == "Person")
        #expect(fault.managedObjectContext === stack.context)
        #expect(!fault.isInserted && !fault.isUpdated && !fault.isDeleted && !fault.hasChanges)
        #expect(fault == twin && fault.hashValue == twin.hashValue)
        #expect(Set([fault, twin]).count == 1)
        _ = fault.description
        #expect(fault.isFault)
    }

    @Test(arguments: StoreKind.allCases)
    func refreshWithoutMergingDropsChanges(kind: StoreKind) throws {
        let stack = try TestStack(kind)
        let person = stack.insert("Person", ["name": "Ada"])
        try stack.context.save()
        person.setValue("X", forKey: "name")
        #expect(stack.context.hasChanges)

        // §2.4
        stack.context.refresh(person, mergeChanges: false)
        #expect(person.isFault)
        #expect(!person.hasChanges)
        #expect(!stack.context.hasChanges)
        #expect(stack.context.updatedObjects.isEmpty)
        #expect(person.value(forKey: "name") as? String == "Ada")
        try stack.context.save()
        #expect(try stack.storedStrings("Person") == ["Ada"])
    }

    // MARK: Discarding changes

    @Test(arguments: StoreKind.allCases)
    func rollbackDiscardsEveryUnsavedChange(kind: StoreKind) throws {
        let stack = try TestStack(kind)
        let ada = stack.insert("Person", ["name": "Ada", "age": 36])
        let bob = stack.insert("Person", ["name": "Bob"])
        try stack.context.save()

        let cy = stack.insert("Person", ["name": "Cy"])
        ada.setValue(99, forKey: "age")
        stack.context.delete(bob)
        stack.context.processPendingChanges()
        #expect(stack.context.hasChanges)

        // §9.5
        stack.context.rollback()
        #expect(!stack.context.hasChanges)
        #expect(stack.context.insertedObjects.isEmpty)
        #expect(stack.context.updatedObjects.isEmpty)
        #expect(stack.context.deletedObjects.isEmpty)
        #expect(cy.managedObjectContext == nil)
        #expect(!bob.isDeleted)
        #expect(ada.value(forKey: "age") as? Int == 36)
        #expect(!ada.hasChanges)
        #expect(strings(try stack.fetch("Person")) == ["Ada", "Bob"])
        try stack.context.save()
        #expect(try stack.storedStrings("Person") == ["Ada", "Bob"])
    }

    @Test(arguments: StoreKind.allCases)
    func resetForgetsEveryRegisteredObject(kind: StoreKind) throws {
        let stack = try TestStack(kind)
        let ada = stack.insert("Person", ["name": "Ada"])
        try stack.context.save()
        let id = ada.objectID
        let bob = stack.insert("Person", ["name": "Bob"])

        stack.context.reset()
        #expect(stack.context.registeredObjects.isEmpty)
        #expect(!stack.context.hasChanges)
        #expect(ada.managedObjectContext == nil)
        #expect(bob.managedObjectContext == nil)
        #expect(stack.context.registeredObject(for: id) == nil)
        let again = try #require(try stack.fetch("Person").first)
        #expect(again !== ada)
        #expect(again.value(forKey: "name") as? String == "Ada")
        #expect(try stack.storedStrings("Person") == ["Ada"])
    }

    // MARK: Change tracking

    @Test(arguments: StoreKind.allCases)
    func hasChangesIsInsertedOrUpdatedOrDeleted(kind: StoreKind) throws {
        let stack = try TestStack(kind)
        let context = stack.context
        func state(_ object: NSManagedObject) -> [Bool] {
            // §1.10: hasChanges == isInserted || isUpdated || isDeleted, always.
            #expect(object.hasChanges == (object.isInserted || object.isUpdated || object.isDeleted))
            return [object.isInserted, object.isUpdated, object.isDeleted, object.hasChanges, context.hasChanges]
        }
        #expect(!context.hasChanges)
        let person = stack.insert("Person", ["name": "Ada"])
        #expect(state(person) == [true, false, false, true, true])
        person.setValue(3, forKey: "age")  // an edit of an inserted object keeps it "inserted"
        #expect(state(person) == [true, false, false, true, true])
        try context.save()
        #expect(state(person) == [false, false, false, false, false])
        person.setValue("Bea", forKey: "name")
        #expect(state(person) == [false, true, false, true, true])
        try context.save()
        #expect(state(person) == [false, false, false, false, false])
        context.delete(person)
        #expect(state(person) == [false, false, true, true, true])
        try context.save()
        #expect(!context.hasChanges)
        // §1.12 only says the context "may" be nil after the delete is saved; OpenCoreData
        // documents that it is.
        #expect(person.managedObjectContext == nil)
    }

    @Test(arguments: StoreKind.allCases)
    func changedValuesAndCommittedValues(kind: StoreKind) throws {
        let stack = try TestStack(kind)
        _ = stack.insert("Person", ["name": "Ada", "age": 36])
        try stack.context.save()
        try stack.reopen()

        let person = try #require(try stack.fetch("Person").first)
        #expect(person.changedValues().isEmpty)
        person.setValue("B", forKey: "name")
        person.setValue("Bee", forKey: "nickname")  // transient: not reported
        // §1.14: persistent changes with their new values.
        let changes = person.changedValues()
        #expect(Set(changes.keys) == ["name"])
        #expect(changes["name"] as? String == "B")
        // §1.16: the last saved values; nil as NSNull; transient properties not reported.
        #expect(person.committedValues(forKeys: ["name"])["name"] as? String == "Ada")
        #expect(person.committedValues(forKeys: ["email"])["email"] is NSNull)
        let all = person.committedValues(forKeys: nil)
        #expect(all["name"] as? String == "Ada")
        #expect(all["age"] as? Int == 36)
        #expect(all["email"] is NSNull)
        #expect(all["nickname"] == nil)

        try stack.context.save()
        #expect(person.changedValues().isEmpty)
        #expect(person.committedValues(forKeys: ["name"])["name"] as? String == "B")
    }

    // MARK: Fetching with pending changes

    @Test(arguments: StoreKind.allCases)
    func fetchIncludesPendingChanges(kind: StoreKind) throws {
        let stack = try TestStack(kind)
        _ = stack.insert("Person", ["name": "A", "age": 20])
        _ = stack.insert("Person", ["name": "C", "age": 30])
        _ = stack.insert("Person", ["name": "X", "age": 5])
        try stack.context.save()
        try stack.reopen()

        let saved = try stack.fetch("Person", sortedBy: "name")
        let (a, c, x) = (saved[0], saved[1], saved[2])
        _ = stack.insert("Person", ["name": "B", "age": 15])
        c.setValue(1, forKey: "age")  // no longer matches
        x.setValue(50, forKey: "age")  // now matches
        stack.context.delete(a)

        let request = NSFetchRequest<NSManagedObject>(entityName: "Person")
        request.predicate = NSComparisonPredicate(key: "age", .greaterThanOrEqualTo, 10)
        request.sortDescriptors = [NSSortDescriptor(key: "name", ascending: true)]
        // §6.1: inserted matches in, deleted out, changed objects judged on their new values.
        #expect(strings(try stack.context.fetch(request)) == ["B", "X"])
        // §6.7: count(for:) counts the same way.
        #expect(try stack.context.count(for: request) == 2)

        // §6.1 (H3): without pending changes, only what matches in the store.
        request.includesPendingChanges = false
        let stored = try stack.context.fetch(request)
        #expect(Set(stored.map(\.objectID)) == Set([a.objectID, c.objectID]))
        #expect(try stack.context.count(for: request) == 2)
    }

    @Test(arguments: StoreKind.allCases)
    func countIncludesAPendingInsert(kind: StoreKind) throws {
        let stack = try TestStack(kind)
        _ = stack.insert("Person", ["name": "A", "age": 20])
        _ = stack.insert("Person", ["name": "B", "age": 30])
        try stack.context.save()
        try stack.reopen()

        _ = stack.insert("Person", ["name": "C", "age": 40])
        _ = stack.insert("Person", ["name": "D", "age": 1])
        let request = NSFetchRequest<NSManagedObject>(entityName: "Person")
        request.predicate = NSComparisonPredicate(key: "age", .greaterThanOrEqualTo, 10)
        // §6.7
        #expect(try stack.context.count(for: request) == 3)
        request.includesPendingChanges = false
        #expect(try stack.context.count(for: request) == 2)
    }

    /// Rows of different sub-entities interleaved in one result each become an object of their
    /// own entity with their own attributes (the SQLite store decodes them through one statement).
    @Test(arguments: StoreKind.allCases)
    func interleavedSubentityRowsKeepTheirEntities(kind: StoreKind) throws {
        let stack = try TestStack(kind)
        for index in 0..<12 {
            if index % 3 == 0 {
                _ = stack.insert("Bird", ["wingspan": Double(index), "legs": index])
            } else {
                _ = stack.insert("Dog", ["breed": "breed \(index)", "legs": index])
            }
        }
        try stack.context.save()
        try stack.reopen()
        let animals = try stack.fetch("Animal", sortedBy: "legs")
        #expect(animals.count == 12)
        for (index, animal) in animals.enumerated() {
            #expect(animal.value(forKey: "legs") as? Int == index)
            if index % 3 == 0 {
                #expect(animal.entity.name == "Bird")
                #expect(animal.value(forKey: "wingspan") as? Double == Double(index))
            } else {
                #expect(animal.entity.name == "Dog")
                #expect(animal.value(forKey: "breed") as? String == "breed \(index)")
            }
        }
    }

    /// Uniquing holds while objects come and go: objects still held are found again, and those
    /// let go are made afresh, through many rounds of fetching and releasing (the registry's
    /// removals and reuse of freed slots).
    @Test(arguments: StoreKind.allCases)
    func uniquingHoldsWhileObjectsComeAndGo(kind: StoreKind) throws {
        let stack = try TestStack(kind)
        for index in 0..<300 { _ = stack.insert("Person", ["name": "p\(index)", "age": index % 100]) }
        try stack.context.save()
        try stack.reopen()
        var kept: [NSManagedObject] = []
        for round in 0..<6 {
            let fetched = try stack.fetch("Person", sortedBy: "name")
            #expect(fetched.count == 300)
            // Every object kept from earlier rounds is the one fetched again.
            let byName = Dictionary(uniqueKeysWithValues: fetched.map { ($0.value(forKey: "name") as! String, $0) })
            for object in kept { #expect(byName[object.value(forKey: "name") as! String] === object) }
            kept += fetched.enumerated().filter { $0.offset % 7 == round }.map(\.element)
        }
        #expect(Set(kept.map(ObjectIdentifier.init)).count == kept.count)
    }

    @Test(arguments: StoreKind.allCases)
    func includesSubentities(kind: StoreKind) throws {
        let stack = try TestStack(kind)
        _ = stack.insert("Dog", ["breed": "Collie"])
        _ = stack.insert("Bird", ["wingspan": 0.3, "legs": 2])
        func count(_ entity: String, subentities: Bool = true) throws -> Int {
            let request = NSFetchRequest<NSManagedObject>(entityName: entity)
            request.includesSubentities = subentities
            let fetched = try stack.context.fetch(request).count
            #expect(try stack.context.count(for: request) == fetched)
            return fetched
        }
        // §6.8, with pending inserts…
        #expect(try count("Animal") == 2)
        #expect(try count("Animal", subentities: false) == 0)
        #expect(try count("Dog") == 1)
        #expect(try count("Bird", subentities: false) == 1)
        try stack.context.save()
        try stack.reopen()
        // …and from the store.
        #expect(try count("Animal") == 2)
        #expect(try count("Animal", subentities: false) == 0)
        #expect(try count("Dog") == 1)
        #expect(try count("Bird", subentities: false) == 1)
        let animals = try stack.fetch("Animal", sortedBy: "legs")
        #expect(animals.map { $0.entity.name } == ["Bird", "Dog"])
        #expect(animals.map { $0.value(forKey: "legs") as? Int } == [2, 4])
        #expect(animals[1].value(forKey: "breed") as? String == "Collie")
    }

    @Test(arguments: StoreKind.allCases)
    func resultTypes(kind: StoreKind) throws {
        let stack = try TestStack(kind)
        let ada = stack.insert("Person", ["name": "Ada", "age": 36, "email": "ada@example.com"])
        let bob = stack.insert("Person", ["name": "Bob", "age": 40])
        try stack.context.save()
        let uris = [ada, bob].map { $0.objectID.uriRepresentation() }
        try stack.reopen()
        _ = stack.insert("Person", ["name": "Unsaved"])

        // §6.3 object IDs.
        let idRequest = NSFetchRequest<NSManagedObjectID>(entityName: "Person")
        idRequest.resultType = .managedObjectIDResultType
        idRequest.predicate = NSComparisonPredicate(key: "age", .greaterThan, 0)
        idRequest.sortDescriptors = [NSSortDescriptor(key: "name", ascending: true)]
        #expect(try stack.context.fetch(idRequest).map { $0.uriRepresentation() } == uris)

        // Dictionaries of the properties asked for; store values only (§6.2).
        let dictionaryRequest = NSFetchRequest<NSDictionary>(entityName: "Person")
        dictionaryRequest.resultType = .dictionaryResultType
        dictionaryRequest.propertiesToFetch = ["name", "age"]
        dictionaryRequest.sortDescriptors = [NSSortDescriptor(key: "name", ascending: true)]
        let dictionaries = try stack.context.fetch(dictionaryRequest)
        #expect(dictionaries.count == 2)
        #expect(dictionaries.map { $0["name"] as? String } == ["Ada", "Bob"])
        #expect(dictionaries.map { ($0["age"] as? NSNumber)?.intValue } == [36, 40])
        #expect(dictionaries.allSatisfy { $0.count == 2 && $0["email"] == nil })

        // Count.
        let countRequest = NSFetchRequest<NSNumber>(entityName: "Person")
        countRequest.resultType = .countResultType
        countRequest.predicate = NSComparisonPredicate(key: "age", .greaterThan, 0)
        #expect(try stack.context.fetch(countRequest).map(\.intValue) == [2])
    }

    // MARK: Conflicts

    @Test(arguments: StoreKind.allCases)
    func optimisticLockingFailsTheSecondSaveWith133020(kind: StoreKind) throws {
        let stack = try TestStack(kind)
        _ = stack.insert("Person", ["name": "Ada", "age": 30])
        try stack.context.save()
        try stack.reopen()

        let first = stack.context
        let second = stack.newContext()
        let mine = try #require(try stack.fetch("Person", in: first).first)
        let theirs = try #require(try stack.fetch("Person", in: second).first)
        #expect(mine.value(forKey: "name") as? String == "Ada")
        #expect(theirs.value(forKey: "name") as? String == "Ada")

        mine.setValue("A", forKey: "name")
        try first.save()
        theirs.setValue(40, forKey: "age")
        // §8.1/§8.2: the default error policy fails the save on the conflict.
        let error = #expect(throws: (any Error).self) { try second.save() }
        #expect((error as? NSError)?.domain == NSCocoaErrorDomain)
        #expect(error?.code == 133020)
        #expect((error?.userInfo["conflictList"] as? [NSMergeConflict])?.count == 1)
        // The losing context keeps its changes; the store keeps the winner's.
        #expect(second.hasChanges)
        #expect(second.updatedObjects == [theirs])
        #expect(theirs.value(forKey: "age") as? Int == 40)
        let stored = try #require(try stack.fetch("Person", in: stack.newContext()).first)
        #expect(stored.value(forKey: "name") as? String == "A")
        #expect(stored.value(forKey: "age") as? Int == 30)
    }

    @Test(arguments: StoreKind.allCases)
    func aConflictFailsTheWholeSaveAndRefreshWithMergeRecovers(kind: StoreKind) throws {
        let stack = try TestStack(kind)
        _ = stack.insert("Person", ["name": "Ada", "age": 30])
        try stack.context.save()
        try stack.reopen()

        let second = stack.newContext()
        let mine = try #require(try stack.fetch("Person").first)
        let theirs = try #require(try stack.fetch("Person", in: second).first)
        _ = theirs.value(forKey: "name")
        mine.setValue("A", forKey: "name")
        try stack.context.save()

        theirs.setValue(40, forKey: "age")
        let newcomer = NSEntityDescription.insertNewObject(forEntityName: "Person", into: second)
        newcomer.setValue("Cy", forKey: "name")
        #expect(throws: (any Error).self) { try second.save() }
        // Nothing of the failed save is written, the insert included.
        #expect(try stack.storedStrings("Person") == ["A"])
        #expect(newcomer.isInserted && newcomer.objectID.isTemporaryID)

        // §2.5: refresh with merge takes the store's values and keeps the local change on top.
        second.refresh(theirs, mergeChanges: true)
        #expect(theirs.value(forKey: "name") as? String == "A")
        #expect(theirs.value(forKey: "age") as? Int == 40)
        #expect(theirs.hasChanges)
        try second.save()
        try stack.reopen()
        #expect(try stack.fetch("Person", sortedBy: "name").map { "\($0.value(forKey: "name") ?? "-"):\($0.value(forKey: "age") ?? "-")" }
            == ["A:40", "Cy:0"])
    }

    @Test(arguments: StoreKind.allCases)
    func deletingARowChangedElsewhereIs133020(kind: StoreKind) throws {
        let stack = try TestStack(kind)
        _ = stack.insert("Person", ["name": "Ada"])
        try stack.context.save()
        try stack.reopen()
        let second = stack.newContext()
        let mine = try #require(try stack.fetch("Person").first)
        let theirs = try #require(try stack.fetch("Person", in: second).first)
        _ = theirs.value(forKey: "name")
        mine.setValue("A", forKey: "name")
        try stack.context.save()
        second.delete(theirs)
        #expect(throws: (any Error).self) { try second.save() }
        #expect(try stack.storedStrings("Person") == ["A"])
    }

    // MARK: Life-cycle hooks

    @Test(arguments: StoreKind.allCases)
    func lifeCycleHooksAreCalledOnSubclasses(kind: StoreKind) throws {
        let model = TestModel.make()
        model.entitiesByName["Person"]?.managedObjectClass = TrackedPerson.self
        let stack = try TestStack(kind, model: model)

        let person = try #require(stack.insert("Person", ["name": "Ada"]) as? TrackedPerson)
        // §1.17: awakeFromInsert once, at insertion.
        #expect(person.awakeFromInsertCount == 1)
        #expect(person.willSaveCount == 0)
        try stack.context.save()
        // §1.21: willSave and didSave once per save of a changed object.
        #expect(person.willSaveCount == 1)
        #expect(person.didSaveCount == 1)
        #expect(person.awakeFromInsertCount == 1)

        try stack.context.save()  // nothing changed: no hooks
        #expect(person.willSaveCount == 1)
        person.setValue(40, forKey: "age")
        try stack.context.save()
        #expect(person.willSaveCount == 2)
        #expect(person.didSaveCount == 2)

        // Deleted objects get willSave too, seeing isDeleted.
        stack.context.delete(person)
        try stack.context.save()
        #expect(person.deletedAtWillSave == [false, false, true])
        #expect(person.awakeFromInsertCount == 1)
    }

    /// A stored property of the subclass's own is no change to save
    /// (`contextShouldIgnoreUnmodeledPropertyChanges`).
    @Test func settingAnUnmodeledPropertyIsNoChange() throws {
        let model = TestModel.make()
        model.entitiesByName["Person"]?.managedObjectClass = TrackedPerson.self
        let stack = try TestStack(.sqlite, model: model)
        let person = try #require(stack.insert("Person", ["name": "Ada"]) as? TrackedPerson)
        try stack.context.save()
        #expect(TrackedPerson.contextShouldIgnoreUnmodeledPropertyChanges)
        person.willSaveCount = 7
        #expect(!person.hasChanges)
        #expect(!stack.context.hasChanges)
    }

    @Test(arguments: StoreKind.allCases)
    func fetchedSubclassInstancesAwakeFromFetchNotInsert(kind: StoreKind) throws {
        let model = TestModel.make()
        model.entitiesByName["Person"]?.managedObjectClass = TrackedPerson.self
        let stack = try TestStack(kind, model: model)
        _ = stack.insert("Person", ["name": "Ada"])
        try stack.context.save()
        try stack.reopen()

        let fetched = try #require(try stack.fetch("Person").first as? TrackedPerson)
        #expect(fetched.awakeFromInsertCount == 0)
        _ = fetched.value(forKey: "name")
        #expect(fetched.awakeFromFetchCount == 1)
        #expect(!fetched.hasChanges)
    }

    // MARK: Notifications

    @Test(arguments: StoreKind.allCases)
    func didSaveNotificationListsTheSavedObjects(kind: StoreKind) throws {
        let stack = try TestStack(kind)
        let recorder = NotificationRecorder(.NSManagedObjectContextDidSave, object: stack.context)
        let ada = stack.insert("Person", ["name": "Ada"])
        let bob = stack.insert("Person", ["name": "Bob"])
        try stack.context.save()
        // §10.3
        #expect(recorder.notifications.count == 1)
        #expect(recorder.notifications.first?.object as? NSManagedObjectContext === stack.context)
        #expect(recorder.objects(NSInsertedObjectsKey, at: 0) == [ada, bob])
        #expect(recorder.objects(NSInsertedObjectsKey, at: 0).allSatisfy { !$0.objectID.isTemporaryID })
        #expect(recorder.objects(NSUpdatedObjectsKey, at: 0).isEmpty)
        #expect(recorder.objects(NSDeletedObjectsKey, at: 0).isEmpty)

        ada.setValue(1, forKey: "age")
        stack.context.delete(bob)
        try stack.context.save()
        #expect(recorder.notifications.count == 2)
        #expect(recorder.objects(NSInsertedObjectsKey, at: 1).isEmpty)
        #expect(recorder.objects(NSUpdatedObjectsKey, at: 1) == [ada])
        #expect(recorder.objects(NSDeletedObjectsKey, at: 1) == [bob])
    }

    /// The object-ID variant of DidSave carries the saved objects' IDs, permanent ones for the
    /// inserted objects, as sets that can travel to other threads.
    @Test(arguments: StoreKind.allCases)
    func didSaveObjectIDsNotificationListsPermanentIDs(kind: StoreKind) throws {
        let stack = try TestStack(kind)
        let ada = stack.insert("Person", ["name": "Ada"])
        let bob = stack.insert("Person", ["name": "Bob"])
        try stack.context.save()
        let recorder = NotificationRecorder(NSManagedObjectContext.didSaveObjectIDsNotification, object: stack.context)
        func ids(_ key: String, at index: Int) -> Set<NSManagedObjectID> {
            let list = recorder.notifications
            return index < list.count ? list[index].userInfo?[key] as? Set<NSManagedObjectID> ?? [] : []
        }
        let cy = stack.insert("Person", ["name": "Cy"])
        ada.setValue(41, forKey: "age")
        stack.context.delete(bob)
        let bobID = bob.objectID
        try stack.context.save()
        #expect(recorder.notifications.count == 1)
        #expect(ids(NSInsertedObjectIDsKey, at: 0) == [cy.objectID])
        #expect(ids(NSInsertedObjectIDsKey, at: 0).allSatisfy { !$0.isTemporaryID })
        #expect(ids(NSUpdatedObjectIDsKey, at: 0) == [ada.objectID])
        #expect(ids(NSDeletedObjectIDsKey, at: 0) == [bobID])
    }

    /// `refreshAllObjects()` brings every registered object up to the store's values and keeps
    /// unsaved changes on top.
    @Test(arguments: StoreKind.allCases)
    func refreshAllObjectsTakesStoredValuesAndKeepsChanges(kind: StoreKind) throws {
        let stack = try TestStack(kind)
        _ = stack.insert("Person", ["name": "Ada", "age": 1])
        _ = stack.insert("Person", ["name": "Bo", "age": 2])
        try stack.context.save()
        try stack.reopen()
        let people = try stack.fetch("Person", sortedBy: "name")
        #expect(people.map { $0.value(forKey: "age") as? Int } == [1, 2])
        people[1].setValue("Bobby", forKey: "email")

        let other = stack.newContext()
        for person in try stack.fetch("Person", in: other) { person.setValue(50, forKey: "age") }
        try other.save()

        stack.context.refreshAllObjects()
        #expect(people.map { $0.value(forKey: "age") as? Int } == [50, 50])
        #expect(people[1].value(forKey: "email") as? String == "Bobby")
        #expect(people[1].hasChanges && !people[0].hasChanges)
    }

    /// DidSave lists what the save wrote even when the save's own ObjectsDidChange listed
    /// something else: changes posted by an earlier event, or an updated object deleted since.
    @Test(arguments: StoreKind.allCases)
    func didSaveListsTheSaveNotTheLastEvent(kind: StoreKind) throws {
        let stack = try TestStack(kind)
        let recorder = NotificationRecorder(.NSManagedObjectContextDidSave, object: stack.context)
        let ada = stack.insert("Person", ["name": "Ada"])
        stack.context.processPendingChanges()
        let bob = stack.insert("Person", ["name": "Bob"])
        try stack.context.save()
        #expect(recorder.objects(NSInsertedObjectsKey, at: 0) == [ada, bob])

        ada.setValue(30, forKey: "age")
        bob.setValue(31, forKey: "age")
        stack.context.delete(bob)
        try stack.context.save()
        #expect(recorder.objects(NSUpdatedObjectsKey, at: 1) == [ada])
        #expect(recorder.objects(NSDeletedObjectsKey, at: 1) == [bob])
    }

    // MARK: Queues

    @Test(arguments: StoreKind.allCases)
    func privateQueueContextWorksThroughPerform(kind: StoreKind) async throws {
        let stack = try TestStack(kind)
        let background = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        background.persistentStoreCoordinator = stack.coordinator
        #expect(background.concurrencyType == .privateQueueConcurrencyType)
        #expect(!background.isOnOwnQueue)

        // performAndWait: runs on the queue, returns the block's value.
        let adaID = try background.performAndWait {
            #expect(background.isOnOwnQueue)
            let ada = NSEntityDescription.insertNewObject(forEntityName: "Person", into: background)
            ada.setValue("Ada", forKey: "name")
            try background.save()
            return ada.objectID
        }
        #expect(!adaID.isTemporaryID)

        // perform: asynchronous; wait for its block to report back.
        let onQueue: Bool = await withCheckedContinuation { continuation in
            background.perform {
                let bob = NSEntityDescription.insertNewObject(forEntityName: "Person", into: background)
                bob.setValue("Bob", forKey: "name")
                let saved = (try? background.save()) != nil
                continuation.resume(returning: background.isOnOwnQueue && saved)
            }
        }
        #expect(onQueue)

        // async perform: returns a value across the await.
        let names = try await background.perform {
            try background.fetch(NSFetchRequest<NSManagedObject>(entityName: "Person")).compactMap { $0.value(forKey: "name") as? String }.sorted()
        }
        #expect(names == ["Ada", "Bob"])
        let count = try await background.perform { try background.count(for: NSFetchRequest<NSManagedObject>(entityName: "Person")) }
        #expect(count == 2)

        try stack.reopen()
        #expect(try stack.storedStrings("Person") == ["Ada", "Bob"])
    }

    @Test(arguments: StoreKind.allCases)
    func asyncPerformRethrowsTheBlocksError(kind: StoreKind) async throws {
        let stack = try TestStack(kind)
        let background = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        background.persistentStoreCoordinator = stack.coordinator
        let error = await #expect(throws: (any Error).self) {
            try await background.perform {
                _ = NSEntityDescription.insertNewObject(forEntityName: "Person", into: background)  // no name
                try background.save()
            }
        }
        #expect(error?.code == 1570)
        #expect(try stack.storedCount("Person") == 0)
    }

    /// A save writes exactly the attributes that differ from what was last saved, whichever way
    /// they were set, and several saves in a row each write their own changes.
    @Test(arguments: StoreKind.allCases)
    func everyWayOfSettingAnAttributeIsSavedAndOnlyRealChangesAre(kind: StoreKind) throws {
        let stack = try TestStack(kind)
        let person = stack.insert("Person", ["name": "Ada", "age": 36, "height": 1.6])
        try stack.context.save()

        person.setValue(37, forKey: "age")
        person.setPrimitiveValue(1.65, forKey: "height")
        person.setValue("Ada", forKey: "name")  // set back to what is saved: not a change
        #expect(Set(person.changedValues().keys) == ["age", "height"])
        try stack.context.save()
        person.setValue("Ada Lovelace", forKey: "name")
        try stack.context.save()
        person.setValue(38, forKey: "age")
        stack.context.refresh(person, mergeChanges: true)  // keeps the unsaved age on top
        try stack.context.save()
        try stack.reopen()

        let stored = try #require(try stack.fetch("Person").first)
        #expect(stored.value(forKey: "name") as? String == "Ada Lovelace")
        #expect(stored.value(forKey: "age") as? Int == 38)
        #expect(stored.value(forKey: "height") as? Double == 1.65)
    }

    /// Core Data's oldest initializer, deprecated by Apple: a confinement context, which saves
    /// to and fetches from a store on the thread that made it.
    @Test func theInitializerWithoutArgumentsMakesAConfinementContext() throws {
        let stack = try TestStack(.sqlite)
        let context = NSManagedObjectContext()
        #expect(context.concurrencyType == .confinementConcurrencyType)
        context.persistentStoreCoordinator = stack.coordinator
        NSEntityDescription.insertNewObject(forEntityName: "Person", into: context).setValue("Ada", forKey: "name")
        try context.save()
        let reader = NSManagedObjectContext()
        reader.persistentStoreCoordinator = stack.coordinator
        let people = try reader.fetch(NSFetchRequest<NSManagedObject>(entityName: "Person"))
        #expect(people.map { $0.value(forKey: "name") as? String } == ["Ada"])
    }
}

@Suite struct ContextlessObjectTests {
    @Test(arguments: StoreKind.allCases)
    func anObjectInNoContextHoldsValuesAndCanBeInsertedLater(kind: StoreKind) throws {
        let stack = try TestStack(kind)
        let entity = try #require(stack.model.entitiesByName["Person"])
        let person = NSManagedObject(entity: entity, insertInto: nil)
        #expect(person.value(forKey: "age") as? Int == 0)          // its default
        person.setValue("Ada", forKey: "name")
        #expect(person.managedObjectContext == nil)
        #expect(!person.isInserted)
        stack.context.insert(person)
        #expect(person.isInserted)
        try stack.context.save()
        try stack.reopen()
        #expect(try stack.storedStrings("Person") == ["Ada"])
    }
}
