import Foundation
import Testing
import OpenCoreData
@testable import OpenCoreDataCore
@testable import OpenCoreDataSQLite

/// Fetches over several stores of one coordinator: the coordinator merges the stores' answers
/// into one, sorted and limited as if one store held every row.
@Suite struct MultiStoreFetchTests {
    /// A SQLite store and an in-memory store that both hold every entity, with people (and their
    /// pets) saved to each through `assign(_:to:)`.
    struct Stack {
        let directory = TemporaryDirectory()
        let coordinator: NSPersistentStoreCoordinator
        let disk: NSPersistentStore
        let memory: NSPersistentStore
        let context: NSManagedObjectContext

        init(disk diskPeople: [(String, Int, [String])], memory memoryPeople: [(String, Int, [String])]) throws {
            coordinator = NSPersistentStoreCoordinator(managedObjectModel: TestModel.make())
            disk = try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, at: directory.file("A.sqlite"))
            memory = try coordinator.addPersistentStore(ofType: NSInMemoryStoreType, at: nil)
            context = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
            context.persistentStoreCoordinator = coordinator
            for (people, store) in [(diskPeople, disk), (memoryPeople, memory)] {
                for (name, age, pets) in people {
                    let person = NSEntityDescription.insertNewObject(forEntityName: "Person", into: context)
                    person.setValue(name, forKey: "name")
                    person.setValue(age, forKey: "age")
                    context.assign(person, to: store)
                    for petName in pets {
                        let pet = NSEntityDescription.insertNewObject(forEntityName: "Pet", into: context)
                        pet.setValue(petName, forKey: "name")
                        pet.setValue(person, forKey: "owner")
                        context.assign(pet, to: store)
                    }
                }
            }
            try context.save()
            context.reset()
        }

        static func standard() throws -> Stack {
            try Stack(disk: [("Ada", 40, ["Rex"]), ("Cy", 20, []), ("Eve", 35, ["Ace", "Zed"])],
                      memory: [("Bo", 30, ["Max"]), ("Dee", 50, []), ("Fay", 25, ["Kit"])])
        }
    }

    /// The objects' names, in their order.
    private func names(_ objects: [NSManagedObject]) -> [String] {
        objects.map { $0.value(forKey: "name") as? String ?? "?" }
    }

    private func people(sortedBy key: String, ascending: Bool = true, offset: Int = 0, limit: Int = 0) -> NSFetchRequest<NSManagedObject> {
        let request = NSFetchRequest<NSManagedObject>(entityName: "Person")
        request.sortDescriptors = [NSSortDescriptor(key: key, ascending: ascending)]
        request.fetchOffset = offset
        request.fetchLimit = limit
        return request
    }

    @Test func assignedObjectsAreSavedToTheirStores() throws {
        let stack = try Stack.standard()
        let everyone = try stack.context.fetch(people(sortedBy: "name"))
        let stores = everyone.map { $0.objectID.persistentStore === stack.disk ? "disk" : "memory" }
        #expect(stores == ["disk", "memory", "disk", "memory", "disk", "memory"])
        let pets = try stack.context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Pet"))
        #expect(pets.allSatisfy { $0.objectID.persistentStore === ($0.value(forKey: "owner") as? NSManagedObject)?.objectID.persistentStore })
    }

    @Test func aSortedFetchInterleavesTheStoresRows() throws {
        let stack = try Stack.standard()
        #expect(names(try stack.context.fetch(people(sortedBy: "name"))) == ["Ada", "Bo", "Cy", "Dee", "Eve", "Fay"])
        #expect(names(try stack.context.fetch(people(sortedBy: "age", ascending: false))) == ["Dee", "Ada", "Eve", "Bo", "Fay", "Cy"])
    }

    @Test func offsetAndLimitApplyToTheMergedAnswer() throws {
        let stack = try Stack.standard()
        #expect(names(try stack.context.fetch(people(sortedBy: "name", offset: 1, limit: 3))) == ["Bo", "Cy", "Dee"])
        #expect(names(try stack.context.fetch(people(sortedBy: "age", offset: 4, limit: 10))) == ["Ada", "Dee"])
        #expect(try stack.context.fetch(people(sortedBy: "name", offset: 6, limit: 2)).isEmpty)
        // Without sort descriptors: the first store's rows, then the next store's.
        let unsorted = NSFetchRequest<NSManagedObject>(entityName: "Person")
        unsorted.fetchLimit = 4
        let found = try stack.context.fetch(unsorted)
        #expect(found.count == 4)
        #expect(found.prefix(3).allSatisfy { $0.objectID.persistentStore === stack.disk })
        #expect(found.last?.objectID.persistentStore === stack.memory)
    }

    @Test func limitsThatDoNotFitAreNoLimits() throws {
        let stack = try Stack.standard()
        let huge = people(sortedBy: "name", offset: 2, limit: Int.max)
        #expect(names(try stack.context.fetch(huge)) == ["Cy", "Dee", "Eve", "Fay"])
        #expect(try stack.context.count(for: huge) == 4)
        let negative = people(sortedBy: "name", offset: -3, limit: 2)
        #expect(names(try stack.context.fetch(negative)) == ["Ada", "Bo"])
        #expect(try stack.context.count(for: negative) == 2)
    }

    @Test func anAssignmentToAReadOnlyStoreFailsThePermanentIDs() throws {
        let stack = try Stack.standard()
        stack.memory.isReadOnly = true
        let person = NSEntityDescription.insertNewObject(forEntityName: "Person", into: stack.context)
        stack.context.assign(person, to: stack.memory)
        let error = try #require(throws: CocoaError.self) { try stack.context.obtainPermanentIDs(for: [person]) }
        #expect(error.code == .persistentStoreSave)
        #expect(error.localizedDescription.contains("read-only"))
        #expect(person.objectID.isTemporaryID)
    }

    @Test func countsAddUpOverTheStoresWithinTheLimits() throws {
        let stack = try Stack.standard()
        #expect(try stack.context.count(for: people(sortedBy: "name")) == 6)
        #expect(try stack.context.count(for: people(sortedBy: "name", offset: 1, limit: 3)) == 3)
        #expect(try stack.context.count(for: people(sortedBy: "name", offset: 4, limit: 3)) == 2)
        #expect(try stack.context.count(for: people(sortedBy: "name", offset: 7)) == 0)
        let pets = NSFetchRequest<NSManagedObject>(entityName: "Pet")
        pets.predicate = NSComparisonPredicate(key: "owner.age", .greaterThan, 26)
        #expect(try stack.context.count(for: pets) == 4)
    }

    @Test func aSortThroughAToOneReadsEachStoresDestinations() throws {
        let stack = try Stack.standard()
        let pets = NSFetchRequest<NSManagedObject>(entityName: "Pet")
        pets.sortDescriptors = [NSSortDescriptor(key: "owner.age", ascending: true), NSSortDescriptor(key: "name", ascending: false)]
        #expect(names(try stack.context.fetch(pets)) == ["Kit", "Max", "Zed", "Ace", "Rex"])
        pets.fetchLimit = 2
        pets.fetchOffset = 2
        #expect(names(try stack.context.fetch(pets)) == ["Zed", "Ace"])
    }

    @Test func objectIDResultsAreMergedInOrder() throws {
        let stack = try Stack.standard()
        let request = NSFetchRequest<NSManagedObjectID>(entityName: "Person")
        request.resultType = .managedObjectIDResultType
        request.sortDescriptors = [NSSortDescriptor(key: "age", ascending: true)]
        request.fetchLimit = 3
        let ids = try stack.context.fetch(request)
        #expect(ids.map { names([stack.context.object(with: $0)])[0] } == ["Cy", "Fay", "Bo"])
    }

    @Test func dictionaryResultsAreMergedSortedAndLimited() throws {
        let stack = try Stack.standard()
        let request = NSFetchRequest<NSDictionary>(entityName: "Pet")
        request.resultType = .dictionaryResultType
        request.propertiesToFetch = ["name", "owner.name"]
        request.sortDescriptors = [NSSortDescriptor(key: "owner.name", ascending: false), NSSortDescriptor(key: "name", ascending: true)]
        request.fetchLimit = 4
        let rows = try stack.context.fetch(request)
        #expect(rows.map { $0["name"] as? String } == ["Kit", "Ace", "Zed", "Max"])
        #expect(rows.map { $0["owner.name"] as? String } == ["Fay", "Eve", "Eve", "Bo"])

        request.sortDescriptors = [NSSortDescriptor(key: "weight", ascending: true)]
        let unsortable = try #require(throws: CocoaError.self) { try stack.context.fetch(request) }
        #expect(unsortable.code == .persistentStoreUnsupportedRequestType)
        #expect(unsortable.localizedDescription.contains("sorts by 'weight', which is not among its propertiesToFetch"))

        let ages = NSFetchRequest<NSDictionary>(entityName: "Person")
        ages.resultType = .dictionaryResultType
        ages.propertiesToFetch = ["active"]
        ages.returnsDistinctResults = true
        #expect(try stack.context.fetch(ages).count == 1)
    }

    @Test func aGroupedFetchOverSeveralStoresIsRefusedUntilItNamesOne() throws {
        let stack = try Stack.standard()
        let total = NSExpressionDescription()
        total.name = "total"
        total.expression = NSExpression(forFunction: "sum:", arguments: [NSExpression(forKeyPath: "age")])
        total.expressionResultType = .integer64AttributeType
        let request = NSFetchRequest<NSDictionary>(entityName: "Person")
        request.resultType = .dictionaryResultType
        request.propertiesToFetch = [total]
        let error = try #require(throws: CocoaError.self) { try stack.context.fetch(request) }
        #expect(error.code == .persistentStoreUnsupportedRequestType)
        #expect(error.localizedDescription.contains("2 stores hold the entity"))
        request.affectedStores = [stack.memory]
        #expect(try stack.context.fetch(request).first?["total"] as? Int == 105)
    }

    @Test func pendingChangesJoinTheMergedAnswerBeforeTheLimits() throws {
        let stack = try Stack.standard()
        let bo = try #require(try stack.context.fetch(people(sortedBy: "name")).first { names([$0]) == ["Bo"] })
        bo.setValue("Zoe", forKey: "name")
        let new = NSEntityDescription.insertNewObject(forEntityName: "Person", into: stack.context)
        new.setValue("Abe", forKey: "name")
        #expect(names(try stack.context.fetch(people(sortedBy: "name", offset: 1, limit: 3))) == ["Ada", "Cy", "Dee"])
        #expect(try stack.context.count(for: people(sortedBy: "name")) == 7)
    }

    @Test func permanentIDsComeFromTheAssignedStore() throws {
        let stack = try Stack.standard()
        let onDisk = NSEntityDescription.insertNewObject(forEntityName: "Person", into: stack.context)
        let inMemory = NSEntityDescription.insertNewObject(forEntityName: "Person", into: stack.context)
        stack.context.assign(inMemory, to: stack.memory)
        try stack.context.obtainPermanentIDs(for: [onDisk, inMemory])
        #expect(onDisk.objectID.persistentStore === stack.disk)
        #expect(inMemory.objectID.persistentStore === stack.memory)
        #expect(!onDisk.objectID.isTemporaryID && !inMemory.objectID.isTemporaryID)
    }

    @Test func anAssignmentToAStoreOfAnotherCoordinatorFailsTheSave() throws {
        let stack = try Stack.standard()
        let elsewhere = NSPersistentStoreCoordinator(managedObjectModel: TestModel.make())
        let foreign = try elsewhere.addPersistentStore(ofType: NSInMemoryStoreType, at: nil)
        let person = NSEntityDescription.insertNewObject(forEntityName: "Person", into: stack.context)
        person.setValue("Gus", forKey: "name")
        stack.context.assign(person, to: foreign)
        let error = try #require(throws: CocoaError.self) { try stack.context.save() }
        #expect(error.code == .persistentStoreSave)
        #expect(person.isInserted)
        // Rolled back, the assignment is gone with the object's insertion.
        stack.context.rollback()
        #expect(try stack.context.count(for: people(sortedBy: "name")) == 6)
    }
}
