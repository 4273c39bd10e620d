import Foundation
import Testing
import OpenCoreData
@testable import OpenCoreDataCore
@testable import OpenCoreDataSQLite

/// A fetch request run again reuses the SQL made before, unless its arguments could
/// have changed in between; either way the results are what a fresh request would give.
@Suite struct FetchStatementCacheTests {
    private func storeFetch(_ entity: NSEntityDescription, _ predicate: NSPredicate?, sort: [NSSortDescriptor] = [],
                            limit: Int = 0) -> StoreFetch {
        StoreFetch(entity: entity, includesSubentities: true, predicate: predicate, sortDescriptors: sort, fetchLimit: limit,
                   fetchOffset: 0, returnsDistinctResults: false, result: .snapshots)
    }

    @Test func theSameFetchIsCompiledOnce() throws {
        let stack = try TestStack(.sqlite)
        let store = try #require(stack.coordinator.persistentStores.first as? SQLiteStore)
        let entity = try #require(stack.model.entitiesByName["Person"])
        var cache = FetchStatementCache()
        var compiled = 0
        func statement(_ fetch: StoreFetch) throws -> SQLiteFetchStatement {
            try cache.statement(for: fetch) {
                compiled += 1
                return try SQLiteFetchStatement(fetch, schema: store.schema)
            }
        }
        let predicate = NSPredicate(format: "age BETWEEN {%d, %d} AND name BEGINSWITH[c] %@", 20, 30, "a")
        let sort = [NSSortDescriptor(key: "name", ascending: true)]
        // Compiled on the first two runs (the second keeps it), then taken from the cache.
        let first = try statement(storeFetch(entity, predicate, sort: sort))
        _ = try statement(storeFetch(entity, predicate, sort: sort))
        #expect(compiled == 2)
        let again = try statement(storeFetch(entity, predicate, sort: sort))
        #expect(compiled == 2)
        #expect(again.sql == first.sql)
        // Any other setting, or another (even equal) predicate or sort descriptor, is compiled anew.
        _ = try statement(storeFetch(entity, predicate, sort: sort, limit: 5))
        _ = try statement(storeFetch(entity, predicate, sort: [NSSortDescriptor(key: "name", ascending: true)]))
        _ = try statement(storeFetch(entity, NSPredicate(format: "age BETWEEN {%d, %d} AND name BEGINSWITH[c] %@", 20, 30, "a"), sort: sort))
        #expect(compiled == 5)
    }

    @Test(arguments: ["born < now()", "age == %@", "name IN %@", "uppercase:(name) == 'ADA'"])
    func fetchesWhoseArgumentsCanChangeAreNotKept(format: String) throws {
        let stack = try TestStack(.sqlite)
        let store = try #require(stack.coordinator.persistentStores.first as? SQLiteStore)
        let entity = try #require(stack.model.entitiesByName["Person"])
        let argument: Any = format.contains("IN") ? NSMutableArray(array: ["Ada"]) : NSNumber(value: 3)
        let predicate = NSPredicate(format: format, argumentArray: [argument])
        var cache = FetchStatementCache()
        var compiled = 0
        for _ in 0..<3 {
            _ = try cache.statement(for: storeFetch(entity, predicate)) {
                compiled += 1
                return try SQLiteFetchStatement(storeFetch(entity, predicate), schema: store.schema)
            }
        }
        #expect(compiled == 3)
    }

    /// A fetch run once leaves nothing alive in the store's cache: its predicate may hold managed
    /// objects, which must go away with their context's other references.
    @Test func aFetchRunOnceHoldsNothingAlive() throws {
        let stack = try TestStack(.sqlite)
        let ada = stack.insert("Person", ["name": "Ada"])
        try stack.context.save()
        weak var released: NSPredicate?
        do {
            let predicate = NSPredicate(format: "SELF == %@", ada)
            released = predicate
            let request = NSFetchRequest<NSManagedObject>(entityName: "Person")
            request.predicate = predicate
            request.includesPendingChanges = false
            #expect(try stack.context.fetch(request) == [ada])
        }
        #expect(released == nil)
    }

    /// An unsaved object in a predicate matches nothing; once saved, the same request finds it.
    @Test func aRequestNamingAnObjectFindsItOnceItIsSaved() throws {
        let stack = try TestStack(.sqlite)
        let ada = stack.insert("Person", ["name": "Ada"])
        try stack.context.save()
        let rex = stack.insert("Pet", ["name": "Rex"])
        let request = NSFetchRequest<NSManagedObject>(entityName: "Person")
        request.predicate = NSPredicate(format: "ANY pets == %@", rex)
        request.includesPendingChanges = false
        #expect(try stack.context.fetch(request).isEmpty)
        rex.setValue(ada, forKey: "owner")
        try stack.context.save()
        #expect(try stack.context.fetch(request) == [ada])
    }

    /// `now()` is read at every run of a kept request.
    @Test func nowIsReadAtEveryRun() throws {
        let stack = try TestStack(.sqlite)
        _ = stack.insert("Person", ["name": "Soon", "born": Date().addingTimeInterval(0.4)])
        try stack.context.save()
        let request = NSFetchRequest<NSManagedObject>(entityName: "Person")
        request.predicate = NSPredicate(format: "born < now()")
        #expect(try stack.context.fetch(request).isEmpty)
        Thread.sleep(forTimeInterval: 0.5)
        #expect(try stack.context.fetch(request).count == 1)
    }

    /// A kept request sees the changes its settings get between runs, and the store's new rows.
    @Test func aReRunRequestFollowsItsSettingsAndTheStore() throws {
        let stack = try TestStack(.sqlite)
        for (name, age) in [("Ada", 36), ("Bo", 20), ("Cy", 50)] { _ = stack.insert("Person", ["name": name, "age": age]) }
        try stack.context.save()
        func names(_ objects: [NSManagedObject]) -> [String] { objects.compactMap { $0.value(forKey: "name") as? String } }
        let request = NSFetchRequest<NSManagedObject>(entityName: "Person")
        request.predicate = NSPredicate(format: "age >= %d", 30)
        request.sortDescriptors = [NSSortDescriptor(key: "name", ascending: true)]
        #expect(names(try stack.context.fetch(request)) == ["Ada", "Cy"])
        #expect(names(try stack.context.fetch(request)) == ["Ada", "Cy"])
        request.sortDescriptors = [NSSortDescriptor(key: "name", ascending: false)]
        #expect(names(try stack.context.fetch(request)) == ["Cy", "Ada"])
        request.fetchLimit = 1
        #expect(names(try stack.context.fetch(request)) == ["Cy"])
        _ = stack.insert("Person", ["name": "Dee", "age": 40])
        try stack.context.save()
        #expect(names(try stack.context.fetch(request)) == ["Dee"])
        #expect(try stack.context.count(for: request) == 1)
    }
}
