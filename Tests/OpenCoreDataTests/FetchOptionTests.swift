import Foundation
import Testing
import OpenCoreData
@testable import OpenCoreDataCore
@testable import OpenCoreDataSQLite

/// Fetch and context options a Core Data user relies on, through a real store of each kind:
/// `includesPropertyValues`, `shouldRefreshRefetchedObjects`, `returnsDistinctResults`,
/// `localizedStandardCompare:` sorting, `retainsRegisteredObjects`, `prepareForDeletion` and
/// `stalenessInterval`.
@Suite struct FetchOptionTests {
    static func people(_ stack: TestStack, _ names: [String]) throws {
        for (index, name) in names.enumerated() {
            _ = stack.insert("Person", ["name": name, "age": 20 + index % 2])
        }
        try stack.context.save()
        try stack.reopen()
    }

    /// §6.4: without property values the fetch brings identities only; reading a property goes
    /// to the store (one query for the SQLite store) and gives the stored value.
    @Test(arguments: StoreKind.allCases)
    func withoutPropertyValuesObjectsLoadOnFirstRead(kind: StoreKind) throws {
        let stack = try TestStack(kind)
        try Self.people(stack, ["Ada", "Bo"])
        let request = NSFetchRequest<NSManagedObject>(entityName: "Person")
        request.includesPropertyValues = false
        request.sortDescriptors = [NSSortDescriptor(key: "name", ascending: true)]
        let people = try stack.context.fetch(request)
        #expect(people.count == 2)
        #expect(people.allSatisfy { $0.isFault })
        let log = stack.recordSQL()
        #expect(people[0].value(forKey: "name") as? String == "Ada")
        #expect(!people[0].isFault)
        if let log { #expect(log.all.count == 1) }
        #expect(people[1].value(forKey: "name") as? String == "Bo")
    }

    /// §2.2: a refetch leaves a realized object's values alone, unless
    /// `shouldRefreshRefetchedObjects` asks for the store's current values.
    @Test(arguments: StoreKind.allCases)
    func refetchingRefreshesOnlyWhenAsked(kind: StoreKind) throws {
        let stack = try TestStack(kind)
        try Self.people(stack, ["Ada"])
        let ada = try #require(try stack.fetch("Person").first)
        #expect(ada.value(forKey: "age") as? Int == 20)

        let other = stack.newContext()
        let sameAda = try #require(try stack.fetch("Person", in: other).first)
        sameAda.setValue(55, forKey: "age")
        try other.save()

        let plain = NSFetchRequest<NSManagedObject>(entityName: "Person")
        #expect(try stack.context.fetch(plain).first === ada)
        #expect(ada.value(forKey: "age") as? Int == 20)

        let refreshing = NSFetchRequest<NSManagedObject>(entityName: "Person")
        refreshing.shouldRefreshRefetchedObjects = true
        #expect(try stack.context.fetch(refreshing).first === ada)
        #expect(ada.value(forKey: "age") as? Int == 55)
        #expect(!ada.hasChanges)
    }

    /// §6.11: distinct dictionaries, in the store and with pending changes alike.
    @Test(arguments: StoreKind.allCases)
    func distinctDictionaryResults(kind: StoreKind) throws {
        let stack = try TestStack(kind)
        try Self.people(stack, ["Ada", "Bo", "Cy", "Di"])
        let request = NSFetchRequest<NSDictionary>(entityName: "Person")
        request.resultType = .dictionaryResultType
        request.propertiesToFetch = ["age"]
        request.sortDescriptors = [NSSortDescriptor(key: "age", ascending: true)]
        request.returnsDistinctResults = true
        let ages = try stack.context.fetch(request).map { $0["age"] as? Int }
        #expect(ages == [20, 21])
        request.returnsDistinctResults = false
        #expect(try stack.context.fetch(request).count == 4)
    }

    /// `localizedStandardCompare:` orders as the Finder does: numbers by value, case ignored;
    /// the same order in SQL and in memory (pending inserts are sorted in memory).
    @Test(arguments: StoreKind.allCases)
    func localizedStandardCompareSortsNumbersByValue(kind: StoreKind) throws {
        let stack = try TestStack(kind)
        try Self.people(stack, ["file10", "File2", "file1", "file20"])
        let request = NSFetchRequest<NSManagedObject>(entityName: "Person")
        request.sortDescriptors = [NSSortDescriptor(key: "name", ascending: true, selectorName: "localizedStandardCompare:")]
        let stored = try stack.context.fetch(request).compactMap { $0.value(forKey: "name") as? String }
        #expect(stored == ["file1", "File2", "file10", "file20"])
        _ = stack.insert("Person", ["name": "file3"])
        let withPending = try stack.context.fetch(request).compactMap { $0.value(forKey: "name") as? String }
        #expect(withPending == ["file1", "File2", "file3", "file10", "file20"])
    }

    /// Each sort selector orders the same way in SQL, in the in-memory store, and for pending
    /// objects sorted in memory (ties between case variants broken by a second descriptor).
    @Test(arguments: [
        ("compare:", ["A2", "B", "a", "a10", "b", "é"]),
        ("caseInsensitiveCompare:", ["a", "a10", "A2", "B", "b", "é"]),
        ("localizedCaseInsensitiveCompare:", nil),
        ("localizedCompare:", nil),
        ("localizedStandardCompare:", nil),
    ])
    func everySortSelectorOrdersAlikeInSQLAndInMemory(selector: String, expected: [String]?) throws {
        let names = ["b", "B", "a", "A2", "a10", "é"]
        var orders: [[String]] = []
        for kind in StoreKind.allCases {
            let stack = try TestStack(kind)
            for (index, name) in names.enumerated() where index % 2 == 0 { _ = stack.insert("Person", ["name": name, "age": index]) }
            try stack.context.save()
            try stack.reopen()
            // Half stored, half pending: the pending ones are merged in by the in-memory sort.
            for (index, name) in names.enumerated() where index % 2 == 1 { _ = stack.insert("Person", ["name": name, "age": index]) }
            let request = NSFetchRequest<NSManagedObject>(entityName: "Person")
            request.sortDescriptors = [NSSortDescriptor(key: "name", ascending: true, selectorName: selector),
                                       NSSortDescriptor(key: "age", ascending: false)]
            orders.append(try stack.context.fetch(request).compactMap { $0.value(forKey: "name") as? String })
            try stack.context.save()
            orders.append(try stack.context.fetch(request).compactMap { $0.value(forKey: "name") as? String })
        }
        #expect(Set(orders.map { $0.joined(separator: ",") }).count == 1, "\(orders)")
        if let expected { #expect(orders[0] == expected) }
    }

    /// A sort no store can do is an invalid fetch request (134091) naming what is wrong, in
    /// every store alike: an unknown comparison selector, a key the entity lacks.
    @Test(arguments: StoreKind.everyStore)
    func anUnsupportedSortIsRefusedByEveryStore(kind: StoreKind) throws {
        let stack = try TestStack(kind)
        try Self.people(stack, ["Ada"])
        for (descriptor, expected) in [
            (NSSortDescriptor(key: "name", ascending: true, selectorName: "compareByVowels:"), "unsupported sort selector compareByVowels: for key name"),
            (NSSortDescriptor(key: "nmae", ascending: true), "keypath nmae not found in entity Person"),
        ] {
            let request = NSFetchRequest<NSManagedObject>(entityName: "Person")
            request.sortDescriptors = [descriptor]
            let error = #expect(throws: (any Error).self) { try stack.context.fetch(request) }
            #expect(error?.code == NSPersistentStoreUnsupportedRequestTypeError)
            #expect(error?.message.contains(expected) == true, "\(error?.message ?? "")")
        }
    }

    /// With `retainsRegisteredObjects` the context keeps the objects it registers alive; without,
    /// objects nobody holds go away (the context keeps no strong reference).
    @Test(arguments: StoreKind.allCases)
    func retainsRegisteredObjectsKeepsFetchedObjectsAlive(kind: StoreKind) throws {
        let stack = try TestStack(kind)
        try Self.people(stack, ["Ada", "Bo", "Cy"])
        _ = try stack.fetch("Person")
        #expect(stack.context.registeredObjects.isEmpty)

        stack.context.retainsRegisteredObjects = true
        _ = try stack.fetch("Person")
        #expect(strings(stack.context.registeredObjects) == ["Ada", "Bo", "Cy"])

        stack.context.retainsRegisteredObjects = false
        #expect(stack.context.registeredObjects.isEmpty)
    }

    /// §1.20: prepareForDeletion runs once, before propagation, with relationships intact.
    @Test(arguments: StoreKind.allCases)
    func prepareForDeletionSeesRelationshipsIntact(kind: StoreKind) throws {
        let model = TestModel.make()
        model.entitiesByName["Person"]?.managedObjectClass = TrackedPerson.self
        let stack = try TestStack(kind, model: model)
        let ada = try #require(stack.insert("Person", ["name": "Ada"]) as? TrackedPerson)
        for name in ["Rex", "Tom"] { _ = stack.insert("Pet", ["name": name, "owner": ada]) }
        try stack.context.save()

        stack.context.delete(ada)
        try stack.context.save()
        #expect(ada.prepareForDeletionCount == 1)
        #expect(ada.petsAtPrepareForDeletion == 2)
        #expect(try stack.storedCount("Pet") == 0)
    }

    /// `stalenessInterval`: a fault carrying row data older than the interval reads the row
    /// again when it fires; by default (negative) it uses what the fetch brought.
    @Test(arguments: StoreKind.allCases)
    func stalenessIntervalDecidesWhetherAFaultRereadsItsRow(kind: StoreKind) throws {
        let stack = try TestStack(kind)
        try Self.people(stack, ["Ada", "Bo"])
        let people = try stack.fetch("Person", sortedBy: "name")
        #expect(people.allSatisfy { $0.isFault })

        let other = stack.newContext()
        for person in try stack.fetch("Person", in: other) { person.setValue(70, forKey: "age") }
        try other.save()

        // Any age allowed: Ada's fault fires from the row the fetch read.
        #expect(people[0].value(forKey: "age") as? Int == 20)
        // No age allowed: Bo's fault reads the row again and sees the other context's save.
        stack.context.stalenessInterval = 0
        #expect(people[1].value(forKey: "age") as? Int == 70)
        #expect(!people[1].hasChanges)
    }

    /// §6.6: offset skips that many matches and limit caps the rest, from the store and with
    /// pending inserts merged in alike.
    @Test(arguments: StoreKind.allCases)
    func offsetAndLimit(kind: StoreKind) throws {
        let stack = try TestStack(kind)
        try Self.people(stack, ["a", "b", "c"])
        _ = stack.insert("Person", ["name": "d"])  // pending
        func names(offset: Int, limit: Int) throws -> [String] {
            let request = NSFetchRequest<NSManagedObject>(entityName: "Person")
            request.sortDescriptors = [NSSortDescriptor(key: "name", ascending: true)]
            request.fetchOffset = offset
            request.fetchLimit = limit
            return try stack.context.fetch(request).compactMap { $0.value(forKey: "name") as? String }
        }
        #expect(try names(offset: 1, limit: 0) == ["b", "c", "d"])
        #expect(try names(offset: 4, limit: 0) == [])
        #expect(try names(offset: 1, limit: 2) == ["b", "c"])
        #expect(try names(offset: 0, limit: 1) == ["a"])
        try stack.context.save()
        #expect(try names(offset: 2, limit: 5) == ["c", "d"])
    }

    /// §1.11: `hasChanges` is a dirty flag; `hasPersistentChangedValues` only counts persistent
    /// values that differ from the saved ones.
    @Test(arguments: StoreKind.allCases)
    func persistentChangesAreNotTheDirtyFlag(kind: StoreKind) throws {
        let stack = try TestStack(kind)
        try Self.people(stack, ["Ada"])
        let ada = try #require(try stack.fetch("Person").first)
        ada.setValue("Addy", forKey: "nickname")  // transient
        #expect(ada.hasChanges)
        #expect(!ada.hasPersistentChangedValues)
        ada.setValue(99, forKey: "age")
        #expect(ada.hasPersistentChangedValues)
        ada.setValue(20, forKey: "age")  // back to the saved value
        #expect(!ada.hasPersistentChangedValues)
        #expect(ada.changedValues().isEmpty)
    }

    /// §1.22: turning a realized object back into a fault brackets it with willTurnIntoFault and
    /// didTurnIntoFault, once each, in that order.
    @Test(arguments: StoreKind.allCases)
    func refreshingIntoAFaultCallsTheFaultHooks(kind: StoreKind) throws {
        let model = TestModel.make()
        model.entitiesByName["Person"]?.managedObjectClass = TrackedPerson.self
        let stack = try TestStack(kind, model: model)
        _ = stack.insert("Person", ["name": "Ada"])
        try stack.context.save()
        try stack.reopen()
        let ada = try #require(try stack.fetch("Person").first as? TrackedPerson)
        _ = ada.value(forKey: "name")
        stack.context.refresh(ada, mergeChanges: false)
        #expect(ada.isFault)
        #expect(ada.faultTransitions == ["will", "did"])
        #expect(ada.value(forKey: "name") as? String == "Ada")
    }

    /// §6.12: with managed-object results, `propertiesToFetch` names what the fetch reads; the
    /// objects still answer every property.
    @Test(arguments: StoreKind.allCases)
    func propertiesToFetchWithObjects(kind: StoreKind) throws {
        let stack = try TestStack(kind)
        try Self.people(stack, ["Ada", "Bo"])
        let request = NSFetchRequest<NSManagedObject>(entityName: "Person")
        request.propertiesToFetch = ["name"]
        request.sortDescriptors = [NSSortDescriptor(key: "name", ascending: true)]
        let people = try stack.context.fetch(request)
        #expect(people.compactMap { $0.value(forKey: "name") as? String } == ["Ada", "Bo"])
        #expect(people.compactMap { $0.value(forKey: "age") as? Int } == [20, 21])
    }
}
