import Foundation
import Testing
import OpenCoreData
@testable import OpenCoreDataCore
@testable import OpenCoreDataSQLite

/// `fetchInBatches(_:)`: the same answer as `fetch(_:)`, a query per batch, and batches let go
/// of once the iteration has moved on (WORKLOAD.md W7).
@Suite struct BatchedFetchResultsTests {
    static func fill(_ stack: TestStack, people: Int) throws {
        for index in 0..<people { _ = stack.insert("Person", ["name": String(format: "p%03d", index), "age": index % 90]) }
        try stack.context.save()
    }

    @Test(arguments: StoreKind.allCases)
    func theSameObjectsInTheSameOrderAsFetch(kind: StoreKind) throws {
        let stack = try TestStack(kind)
        try Self.fill(stack, people: 95)
        try stack.reopen()
        let request = NSFetchRequest<NSManagedObject>(entityName: "Person")
        request.predicate = NSComparisonPredicate(key: "age", .greaterThan, 10)
        request.sortDescriptors = [NSSortDescriptor(key: "name", ascending: false)]
        request.fetchOffset = 3
        request.fetchLimit = 60
        request.fetchBatchSize = 7
        let batched = try stack.context.fetchInBatches(request)
        let eager = try stack.context.fetch(request)
        #expect(batched.count == eager.count)
        #expect(batched.map { $0.value(forKey: "name") as? String } == eager.map { $0.value(forKey: "name") as? String })
    }

    @Test(arguments: StoreKind.allCases)
    func subentitiesComeBackAsTheirOwnEntities(kind: StoreKind) throws {
        let stack = try TestStack(kind)
        for index in 0..<5 {
            _ = stack.insert("Dog", ["breed": "b\(index)"])
            _ = stack.insert("Bird", ["wingspan": Double(index)])
        }
        try stack.context.save()
        try stack.reopen()
        let request = NSFetchRequest<NSManagedObject>(entityName: "Animal")
        request.fetchBatchSize = 3
        let animals = try stack.context.fetchInBatches(request)
        #expect(animals.count == 10)
        #expect(animals.filter { $0.entity.name == "Dog" }.count == 5)
        #expect(animals.filter { $0.entity.name == "Bird" }.compactMap { $0.value(forKey: "wingspan") as? Double }.sorted() == [0, 1, 2, 3, 4])
    }

    @Test func oneQueryPerBatchAndBatchesAreLetGo() throws {
        let stack = try TestStack(.sqlite)
        try Self.fill(stack, people: 50)
        try stack.reopen()
        let request = NSFetchRequest<NSManagedObject>(entityName: "Person")
        request.sortDescriptors = [NSSortDescriptor(key: "name", ascending: true)]
        request.fetchBatchSize = 10
        let log = try #require(stack.recordSQL())
        let people = try stack.context.fetchInBatches(request)
        weak var first: NSManagedObject?
        var names: [String] = []
        for (index, person) in people.enumerated() {
            if index == 0 { first = person }
            names.append(person.value(forKey: "name") as! String)
        }
        #expect(names.count == 50 && names.first == "p000" && names.last == "p049")
        // One query for the keys, one per batch.
        #expect(log.all.filter { $0.hasPrefix("SELECT") }.count == 1 + 5)
        // The first batch was released: nothing holds its objects any more.
        #expect(first == nil)
        #expect(stack.context.registeredObjects.count <= 20)
    }

    @Test func pendingChangesAreIncludedByFetchingAtOnce() throws {
        let stack = try TestStack(.sqlite)
        try Self.fill(stack, people: 3)
        _ = stack.insert("Person", ["name": "new"])
        let people = try stack.context.fetchInBatches(NSFetchRequest<NSManagedObject>(entityName: "Person"))
        #expect(people.count == 4)
        #expect(people.contains { $0.value(forKey: "name") as? String == "new" })
    }

    @Test func onlyObjectsCanBeBatched() throws {
        let stack = try TestStack(.sqlite)
        let request = NSFetchRequest<NSDictionary>(entityName: "Person")
        request.resultType = .dictionaryResultType
        let error = try #require(throws: CocoaError.self) { try stack.context.fetchInBatches(request) }
        #expect(error.message.hasPrefix("fetchInBatches(_:) returns managed objects"))
    }
}
