import Dispatch
import Foundation
import Testing
import OpenCoreData
@testable import OpenCoreDataCore
@testable import OpenCoreDataSQLite

/// The SQLite store's reader connections: fetches and faults run beside the store's writer, so a
/// fetch completes while another context's save is being written, and sees the last commit.
@Suite struct SQLiteReaderTests {
    /// A store of its own that holds a save open: its save request waits, inside the coordinator's
    /// two-phase save, after the SQLite store has written its rows but before it commits them
    /// (incremental stores are prepared last).
    final class GateStore: NSIncrementalStore, @unchecked Sendable {
        // @unchecked Sendable: the semaphores are thread-safe; `duringSave` is set before the save
        // starts and only read by the saving thread.
        static let type = "SQLiteReaderTestsGate"
        /// Signalled when a save reaches the store; the save then waits for `release`.
        let entered = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        /// Run on the saving thread while the save is held open (the SQLite store has written but
        /// not committed).
        nonisolated(unsafe) var duringSave: (() -> Void)?

        override func loadMetadata() throws {
            metadata = [NSStoreTypeKey: Self.type, NSStoreUUIDKey: UUID().uuidString]
        }

        override func execute(_ request: NSPersistentStoreRequest, with context: NSManagedObjectContext?) throws -> Any {
            if request is NSSaveChangesRequest {
                duringSave?()
                entered.signal()
                release.wait()
            }
            return [Any]()
        }

        override func obtainPermanentIDs(for array: [NSManagedObject]) throws -> [NSManagedObjectID] {
            array.map { newObjectID(for: $0.entity, referenceObject: UUID().uuidString) }
        }
    }

    /// People in a SQLite store, and gate tokens in a `GateStore`.
    static func gatedStack(at url: URL, options: [AnyHashable: Any]? = nil) throws -> (NSPersistentStoreCoordinator, GateStore) {
        NSPersistentStoreCoordinator.registerStoreClass(GateStore.self, forStoreType: GateStore.type)
        let model = TestModel.make()
        let token = NSEntityDescription(name: "Token")
        token.properties = [NSAttributeDescription(name: "label", type: .stringAttributeType)]
        model.entities += [token]
        model.setEntities(model.entities.filter { $0.name != "Token" }, forConfigurationName: "Rows")
        model.setEntities([token], forConfigurationName: "Gate")
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: "Rows", at: url, options: options)
        let gate = try coordinator.addPersistentStore(ofType: GateStore.type, configurationName: "Gate", at: url.appendingPathExtension("gate"))
        return (coordinator, try #require(gate as? GateStore))
    }

    static func privateContext(on coordinator: NSPersistentStoreCoordinator) -> NSManagedObjectContext {
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        return context
    }

    static func people(in context: NSManagedObjectContext) throws -> [String] {
        try context.performAndWait {
            let request = NSFetchRequest<NSManagedObject>(entityName: "Person")
            request.sortDescriptors = [NSSortDescriptor(key: "name", ascending: true)]
            return try context.fetch(request).map { $0.value(forKey: "name") as? String ?? "?" }
        }
    }

    @Test func aFetchDuringAnotherContextsSaveSeesTheLastCommit() throws {
        let directory = TemporaryDirectory()
        // Readers take the connection pragmas and leave the file's to the writer.
        let (coordinator, gate) = try Self.gatedStack(at: directory.file("Store.sqlite"),
                                                      options: [NSSQLitePragmasOption: ["cache_size": 500, "user_version": 7]])
        // Even on the saving thread, between the save's phases, a fetch reads the last commit.
        let seenBySaver = LockedBox<[String]?>(nil)
        gate.duringSave = {
            let context = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
            context.persistentStoreCoordinator = coordinator
            seenBySaver.withLock { $0 = try? Self.people(in: context) }
        }
        let saver = Self.privateContext(on: coordinator)
        let reader = Self.privateContext(on: coordinator)
        try saver.performAndWait {
            NSEntityDescription.insertNewObject(forEntityName: "Person", into: saver).setValue("Ada", forKey: "name")
            try saver.save()
        }
        let saved = DispatchSemaphore(value: 0)
        let saveError = LockedBox<String?>(nil)
        saver.perform {
            NSEntityDescription.insertNewObject(forEntityName: "Person", into: saver).setValue("Bo", forKey: "name")
            NSEntityDescription.insertNewObject(forEntityName: "Token", into: saver).setValue("t", forKey: "label")
            do { try saver.save() } catch { saveError.withLock { $0 = "\(error)" } }
            saved.signal()
        }
        #expect(gate.entered.wait(timeout: .now() + 30) == .success, "the save never reached the gate")

        // The SQLite store has written Bo and holds its write transaction open. A fetch on
        // another thread must neither wait for it nor see it; nor must a fault that fires.
        let during = Self.within(seconds: 10) { try Self.people(in: reader) }
        #expect(try during?.get() == ["Ada"], "the fetch waited for the save, or saw it")
        let fault = Self.within(seconds: 10) {
            try reader.performAndWait {
                let request = NSFetchRequest<NSManagedObject>(entityName: "Person")
                request.includesPropertyValues = false
                let ada = try #require(try reader.fetch(request).first)
                return ada.isFault ? ada.value(forKey: "name") as? String : "not a fault"
            }
        }
        #expect(try fault?.get() == "Ada", "the fault waited for the save")
        gate.release.signal()
        #expect(saved.wait(timeout: .now() + 30) == .success)
        #expect(saveError.withLock { $0 } == nil)
        #expect(seenBySaver.withLock { $0 } == ["Ada"])
        #expect(try Self.people(in: reader) == ["Ada", "Bo"])
    }

    /// What `body` returns or throws, when it finishes within `seconds` on another thread; nil
    /// when it does not (it is then left running).
    static func within<T: Sendable>(seconds: Double, _ body: @escaping @Sendable () throws -> T) -> Result<T, any Error>? {
        let outcome = LockedBox<Result<T, any Error>?>(nil)
        let finished = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            let result = Result { try body() }
            outcome.withLock { $0 = result }
            finished.signal()
        }
        guard finished.wait(timeout: .now() + seconds) == .success else { return nil }
        return outcome.withLock { $0 }
    }

    @Test func readersAreFewAndReused() throws {
        let stack = try TestStack(.sqlite)
        for index in 0..<10 {
            NSEntityDescription.insertNewObject(forEntityName: "Person", into: stack.context).setValue("p\(index)", forKey: "name")
        }
        try stack.context.save()
        let store = try #require(stack.coordinator.persistentStores.first as? SQLiteStore)
        let contexts = (0..<8).map { _ in Self.privateContext(on: stack.coordinator) }
        let counts = LockedBox<[Int]>([])
        DispatchQueue.concurrentPerform(iterations: contexts.count) { index in
            for _ in 0..<20 {
                let count = (try? contexts[index].performAndWait {
                    try contexts[index].count(for: NSFetchRequest<NSManagedObject>(entityName: "Person"))
                }) ?? -1
                counts.withLock { $0.append(count) }
            }
        }
        #expect(counts.withLock { $0 }.allSatisfy { $0 == 10 })
        let opened = try #require(store.readers).openedCount
        #expect(opened <= SQLiteReaderPool.defaultCapacity)
    }

    @Test func aRemovedStoreRefusesReads() throws {
        let stack = try TestStack(.sqlite)
        NSEntityDescription.insertNewObject(forEntityName: "Person", into: stack.context).setValue("Ada", forKey: "name")
        try stack.context.save()
        let store = try #require(stack.coordinator.persistentStores.first)
        try stack.coordinator.remove(store)
        let error = try #require(throws: CocoaError.self) {
            try store.seam.execute(StoreFetch(entity: try #require(stack.model.entitiesByName["Person"]), includesSubentities: true,
                                         predicate: nil, sortDescriptors: [], fetchLimit: 0, fetchOffset: 0,
                                         returnsDistinctResults: false, result: .count))
        }
        #expect(error.localizedDescription.contains("has been removed from its coordinator"))
    }

    /// Two coordinators on one file, as two processes would be, each with background contexts
    /// saving and fetching at once: every save lands, none meets SQLITE_BUSY.
    @Test func backgroundContextsOfTwoCoordinatorsSaveAtOnce() throws {
        let directory = TemporaryDirectory()
        let url = directory.file("Shared.sqlite")
        let model = TestModel.make()
        let coordinators = try (0..<2).map { _ in
            let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
            try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, at: url)
            return coordinator
        }
        let contexts = (0..<4).map { Self.privateContext(on: coordinators[$0 % 2]) }
        let failures = LockedBox<[String]>([])
        DispatchQueue.concurrentPerform(iterations: contexts.count) { index in
            let context = contexts[index]
            context.performAndWait {
                do {
                    for round in 0..<25 {
                        for number in 0..<4 {
                            NSEntityDescription.insertNewObject(forEntityName: "Person", into: context)
                                .setValue("c\(index)-\(round)-\(number)", forKey: "name")
                        }
                        try context.save()
                        _ = try context.count(for: NSFetchRequest<NSManagedObject>(entityName: "Person"))
                    }
                } catch {
                    failures.withLock { $0.append("context \(index): \(error)") }
                }
            }
        }
        #expect(failures.withLock { $0 }.isEmpty)
        let check = Self.privateContext(on: coordinators[1])
        #expect(try Self.people(in: check).count == 4 * 25 * 4)
    }
}
