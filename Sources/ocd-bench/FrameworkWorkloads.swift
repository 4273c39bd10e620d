import Foundation
import OpenCoreData
import OpenCoreDataPostgres

/// The framework side of workloads W1–W6: the same jobs through OpenCoreData's object graph —
/// managed objects with change tracking, uniquing and faulting over a SQLite store in Core
/// Data's layout. Setup runs untimed on one stack, which is closed before a fresh stack runs the
/// timed part, as on the raw side.
enum FrameworkWorkloads {
    /// W1: create N objects in one context, set every attribute, one save. W11 does the same
    /// with an undo manager recording every change (`recordingUndo`), W1h with persistent
    /// history recording the save (`tracksHistory`).
    /// W1b saves into a binary store (`storeType`).
    static func w1(directory: URL, n: Int, recordingUndo: Bool = false, tracksHistory: Bool = false,
                   storeType: String = NSSQLiteStoreType) throws -> Double {
        let stack = try BenchStack(directory: directory, model: BenchModel.items(), tracksHistory: tracksHistory, storeType: storeType)
        if recordingUndo { stack.context.undoManager = UndoManager() }
        var createSeconds = 0.0
        let seconds = try Stopwatch.time {
            createSeconds = try Stopwatch.time { try insertItems(n: n, into: stack.context) }
            try stack.context.save()
        }
        if ProcessInfo.processInfo.environment["OCD_BENCH_PHASES"] != nil {
            FileHandle.standardError.write(Data("W1 phases: create \(createSeconds) save \(seconds - createSeconds)\n".utf8))
        }
        try check(try stack.context.count(for: NSFetchRequest<Item>(entityName: "Item")) == n, "W1", "item count")
        if recordingUndo { try check(stack.context.undoManager?.canUndo == true, "W11", "nothing recorded") }
        return seconds
    }

    /// W2: one fetch of every object, every attribute read. W2b does the same in a binary store
    /// (`storeType`), with the store's opening timed too, as it reads the whole file.
    static func w2(directory: URL, n: Int, storeType: String = NSSQLiteStoreType) throws -> Double {
        try fillItemStore(in: directory, n: n, storeType: storeType)
        var stack: BenchStack?
        if storeType == NSSQLiteStoreType || storeType == OCDPostgreSQLStoreType {
            stack = try BenchStack(directory: directory, model: BenchModel.items(), storeType: storeType)
        }
        var checksum = 0
        var items: [Item] = []  // released after timing, as the raw side's rows are
        var fetchSeconds = 0.0
        let seconds = try Stopwatch.time {
            if stack == nil { stack = try BenchStack(directory: directory, model: BenchModel.items(), storeType: storeType) }
            fetchSeconds = try Stopwatch.time { items = try stack!.context.fetch(NSFetchRequest<Item>(entityName: "Item")) }
            checksum = Self.checksum(items)
        }
        if ProcessInfo.processInfo.environment["OCD_BENCH_PHASES"] != nil {
            FileHandle.standardError.write(Data("W2 phases: fetch \(fetchSeconds) read \(seconds - fetchSeconds)\n".utf8))
        }
        try check(items.count == n, "W2", "fetched \(items.count) objects, expected \(n)")
        BenchSink.consume(checksum)
        return seconds
    }

    /// W3: 1,000 fetches `score BETWEEN {lo, lo + 9}`, every attribute read. With
    /// `formatString`, the predicate is parsed from `NSPredicate(format:)` each time (W3f).
    static func w3(directory: URL, n: Int, formatString: Bool = false, storeType: String = NSSQLiteStoreType) throws -> Double {
        try fillItemStore(in: directory, n: n, storeType: storeType)
        let stack = try BenchStack(directory: directory, model: BenchModel.items(), storeType: storeType)
        var fetched = 0
        let seconds = try Stopwatch.time {
            for k in 0..<BenchData.rangeFetchCount {
                let lo = BenchData.rangeLow(k)
                let request = NSFetchRequest<Item>(entityName: "Item")
                request.predicate = formatString
                    ? NSPredicate(format: "score BETWEEN {%d, %d}", lo, lo + 9)
                    : NSComparisonPredicate(key: "score", .between, [lo, lo + 9])
                let items = try stack.context.fetch(request)
                fetched += items.count
                BenchSink.consume(Self.checksum(items))
            }
        }
        let expected = BenchData.expectedRangeFetchRows(n: n)
        try check(fetched == expected, "W3", "fetched \(fetched) objects, expected \(expected)")
        return seconds
    }

    /// W4: fetch the objects whose score is even, `price *= 1.1` on each, one save. W4h does
    /// the same on a store that records persistent history (`tracksHistory`).
    static func w4(directory: URL, n: Int, tracksHistory: Bool = false, storeType: String = NSSQLiteStoreType) throws -> Double {
        try fillItemStore(in: directory, n: n, tracksHistory: tracksHistory, storeType: storeType)
        let stack = try BenchStack(directory: directory, model: BenchModel.items(), tracksHistory: tracksHistory, storeType: storeType)
        var updated = 0
        let seconds = try Stopwatch.time {
            let request = NSFetchRequest<Item>(entityName: "Item")
            request.predicate = NSComparisonPredicate(key: "score", .in, Array(stride(from: Int64(0), to: 1000, by: 2)))
            let items = try stack.context.fetch(request)
            for item in items { item.price *= BenchData.priceFactor }
            updated = items.count
            try stack.context.save()
        }
        // Checked after the timed part, as the raw side checks its row counts.
        try check(updated == (n + 1) / 2, "W4", "updated \(updated) objects, expected \((n + 1) / 2)")
        try check(!stack.context.hasChanges, "W4", "changes left unsaved")
        return seconds
    }

    /// W5: fetch every second object (the rows with an even primary key, that is an odd `i`),
    /// delete each, one save.
    static func w5(directory: URL, n: Int, storeType: String = NSSQLiteStoreType) throws -> Double {
        try fillItemStore(in: directory, n: n, storeType: storeType)
        let stack = try BenchStack(directory: directory, model: BenchModel.items(), storeType: storeType)
        var deleted = 0
        let seconds = try Stopwatch.time {
            let request = NSFetchRequest<Item>(entityName: "Item")
            request.predicate = NSComparisonPredicate(key: "flag", .equalTo, false)
            let items = try stack.context.fetch(request)
            for item in items { stack.context.delete(item) }
            deleted = items.count
            try stack.context.save()
        }
        try check(deleted == n / 2, "W5", "deleted \(deleted) objects, expected \(n / 2)")
        let left = try stack.context.count(for: NSFetchRequest<Item>(entityName: "Item"))
        try check(left == n - n / 2, "W5", "\(left) objects left, expected \(n - n / 2)")
        return seconds
    }

    /// W6: 10,000 owners with 20 pets each: insert and save; fetch every owner prefetching its
    /// pets and sum the pets' weights; delete every owner (the pets cascade) and save.
    static func w6(directory: URL, n: Int, storeType: String = NSSQLiteStoreType) throws -> Double {
        let stack = try BenchStack(directory: directory, model: BenchModel.graph(), storeType: storeType)
        let context = stack.context
        var insertSaveSeconds = 0.0
        let insertSeconds = try Stopwatch.time {
            let ownerEntity = NSEntityDescription.entity(forEntityName: "Owner", in: context)!
            let petEntity = NSEntityDescription.entity(forEntityName: "Pet", in: context)!
            for index in 0..<BenchData.ownerCount {
                let owner = Owner(entity: ownerEntity, insertInto: context)
                owner.name = BenchData.ownerName(index)
                for petIndex in 0..<BenchData.petsPerOwner {
                    let pet = Pet(entity: petEntity, insertInto: context)
                    pet.name = BenchData.petName(owner: index, pet: petIndex)
                    pet.weight = BenchData.petWeight(pet: petIndex)
                    pet.owner = owner
                }
            }
            insertSaveSeconds = try Stopwatch.time { try context.save() }
        }
        context.reset()

        var total = 0.0
        var owners: [Owner] = []
        let fetchSeconds = try Stopwatch.time {
            let request = NSFetchRequest<Owner>(entityName: "Owner")
            request.relationshipKeyPathsForPrefetching = ["pets"]
            owners = try context.fetch(request)
            for owner in owners {
                for pet in owner.pets { total += pet.weight }
            }
        }
        try check(total == BenchData.expectedTotalPetWeight, "W6", "pet weights sum to \(total)")

        var deleted = 0
        var deleteSaveSeconds = 0.0
        let deleteSeconds = try Stopwatch.time {
            for owner in owners { context.delete(owner) }
            deleted = owners.count
            deleteSaveSeconds = try Stopwatch.time { try context.save() }
        }
        try check(deleted == BenchData.ownerCount, "W6", "deleted \(deleted) owners, expected \(BenchData.ownerCount)")
        // The cascade took every pet along: checked after the timed part.
        let pets = try context.count(for: NSFetchRequest<Pet>(entityName: "Pet"))
        let ownersLeft = try context.count(for: NSFetchRequest<Owner>(entityName: "Owner"))
        try check(pets == 0 && ownersLeft == 0, "W6", "\(ownersLeft) owners and \(pets) pets left after the cascade")
        BenchSink.consume(Int(total))
        if ProcessInfo.processInfo.environment["OCD_BENCH_PHASES"] != nil {
            FileHandle.standardError.write(Data("W6 phases: insert \(insertSeconds) (save \(insertSaveSeconds)) fetch \(fetchSeconds) delete \(deleteSeconds) (save \(deleteSaveSeconds))\n".utf8))
        }
        return insertSeconds + fetchSeconds + deleteSeconds
    }

    // MARK: Helpers

    private static func insertItems(n: Int, into context: NSManagedObjectContext) throws {
        try insertItems(0..<n, into: context)
    }

    /// Inserts items `range` (their values as BenchData gives them), unsaved.
    static func insertItems(_ range: Range<Int>, into context: NSManagedObjectContext) throws {
        let entity = try itemEntity(in: context)
        for i in range {
            let item = Item(entity: entity, insertInto: context)
            item.name = BenchData.name(i)
            item.score = BenchData.score(i)
            item.price = BenchData.price(i)
            item.created = Date(timeIntervalSinceReferenceDate: BenchData.created(i))
            item.flag = BenchData.flag(i)
            item.note = BenchData.note(i)
        }
    }

    private static func itemEntity(in context: NSManagedObjectContext) throws -> NSEntityDescription {
        guard let entity = NSEntityDescription.entity(forEntityName: "Item", in: context) else {
            throw BenchCheckError(workload: "setup", detail: "no Item entity")
        }
        return entity
    }

    /// Untimed setup of W2–W5: a store holding the N items, its stack closed again.
    static func fillItemStore(in directory: URL, n: Int, tracksHistory: Bool = false, storeType: String = NSSQLiteStoreType) throws {
        let stack = try BenchStack(directory: directory, model: BenchModel.items(), tracksHistory: tracksHistory, storeType: storeType)
        try insertItems(n: n, into: stack.context)
        try stack.context.save()
        try stack.close()
    }

    /// Reads every attribute of every item, as the raw side builds its structs.
    private static func checksum(_ items: [Item]) -> Int {
        var sum = 0
        for item in items {
            sum &+= item.name.utf8.count &+ Int(item.score) &+ Int(item.price) &+ Int(item.created.timeIntervalSinceReferenceDate)
                &+ (item.flag ? 1 : 0) &+ (item.note?.utf8.count ?? 0)
        }
        return sum
    }

    private static func check(_ condition: Bool, _ workload: String, _ detail: @autoclosure () -> String) throws {
        if !condition { throw BenchCheckError(workload: workload, detail: detail()) }
    }
}

/// A coordinator with one store (SQLite unless told) and a context, for one workload: in its run
/// directory, or for the PostgreSQL store in the run directory's schema (`BenchPostgres`).
struct BenchStack {
    let coordinator: NSPersistentStoreCoordinator
    let context: NSManagedObjectContext

    init(directory: URL, model: NSManagedObjectModel, tracksHistory: Bool = false, storeType: String = NSSQLiteStoreType) throws {
        coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        let url = storeType == OCDPostgreSQLStoreType ? URL(string: try BenchPostgres.url(for: directory))!
            : directory.appendingPathComponent(storeType == NSSQLiteStoreType ? "framework.sqlite" : "framework.store")
        try coordinator.addPersistentStore(ofType: storeType, configurationName: nil, at: url,
                                           options: tracksHistory ? [NSPersistentHistoryTrackingKey: true] : nil)
        context = NSManagedObjectContext(concurrencyType: .confinementConcurrencyType)
        context.persistentStoreCoordinator = coordinator
    }

    func close() throws {
        for store in coordinator.persistentStores { try coordinator.remove(store) }
    }
}

/// `Item` of WORKLOAD.md, with typed properties.
final class Item: NSManagedObject {
    @Managed var name: String
    @Managed var score: Int64
    @Managed var price: Double
    @Managed var created: Date
    @Managed var flag: Bool
    @Managed var note: String?
}

final class Owner: NSManagedObject {
    @Managed var name: String?
    @Managed var pets: Set<Pet>
}

final class Pet: NSManagedObject {
    @Managed var name: String?
    @Managed var weight: Double
    @Managed var owner: Owner?
}

/// The benchmark's models, built in code as WORKLOAD.md describes them.
enum BenchModel {
    static func items() -> NSManagedObjectModel {
        let item = NSEntityDescription(name: "Item")
        let score = NSAttributeDescription(name: "score", type: .integer64AttributeType, optional: false)
        score.isIndexed = true
        item.properties = [
            NSAttributeDescription(name: "name", type: .stringAttributeType, optional: false),
            score,
            NSAttributeDescription(name: "price", type: .doubleAttributeType, optional: false),
            NSAttributeDescription(name: "created", type: .dateAttributeType, optional: false),
            NSAttributeDescription(name: "flag", type: .booleanAttributeType, optional: false),
            NSAttributeDescription(name: "note", type: .stringAttributeType),
        ]
        item.managedObjectClass = Item.self
        let model = NSManagedObjectModel()
        model.entities = [item]
        return model
    }

    static func graph() -> NSManagedObjectModel {
        let owner = NSEntityDescription(name: "Owner")
        let pet = NSEntityDescription(name: "Pet")
        let pets = NSRelationshipDescription(name: "pets", destination: pet, toMany: true, deleteRule: .cascadeDeleteRule)
        let ownerOfPet = NSRelationshipDescription(name: "owner", destination: owner)
        pets.inverseRelationship = ownerOfPet
        ownerOfPet.inverseRelationship = pets
        owner.properties = [NSAttributeDescription(name: "name", type: .stringAttributeType), pets]
        pet.properties = [
            NSAttributeDescription(name: "name", type: .stringAttributeType),
            NSAttributeDescription(name: "weight", type: .doubleAttributeType), ownerOfPet,
        ]
        owner.managedObjectClass = Owner.self
        pet.managedObjectClass = Pet.self
        let model = NSManagedObjectModel()
        model.entities = [owner, pet]
        return model
    }
}
