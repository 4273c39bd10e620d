import Foundation
import Testing
import Synchronization
import OpenCoreData

/// `NSPersistentStoreCoordinator.addPersistentStore(with:completionHandler:)` and
/// `url(for:)`: a store added from its description, at once or on another queue as the
/// description asks, with the error handed to the block; and where an added store lives.
@Suite struct StoreDescriptionAddingTests {
    @Test func aSynchronousAddCallsTheBlockBeforeReturning() throws {
        let directory = TemporaryDirectory()
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: TestModel.make())
        let description = NSPersistentStoreDescription(url: directory.file("Store.sqlite"))
        description.shouldAddStoreAsynchronously = false
        var called: (NSPersistentStoreDescription, Error?)?
        coordinator.addPersistentStore(with: description) { description, error in called = (description, error) }
        let (given, error) = try #require(called)
        #expect(given === description)
        #expect(error == nil)
        #expect(coordinator.persistentStores.map(\.url) == [description.url])
        #expect(coordinator.url(for: coordinator.persistentStores[0]) == description.url)
    }

    @Test func anAsynchronousAddCallsTheBlockFromAnotherQueue() async throws {
        let directory = TemporaryDirectory()
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: TestModel.make())
        let description = NSPersistentStoreDescription(url: directory.file("Store.sqlite"))
        description.shouldAddStoreAsynchronously = true
        // The block waits for the call to have returned: called before returning, it would
        // wait in vain.
        let returned = DispatchSemaphore(value: 0)
        let result: (String?, Bool, Bool) = await withCheckedContinuation { continuation in
            coordinator.addPersistentStore(with: description) { description, error in
                let afterReturn = returned.wait(timeout: .now() + 10) == .success
                continuation.resume(returning: (description.url?.lastPathComponent, error == nil, afterReturn))
            }
            returned.signal()
        }
        #expect(result.0 == "Store.sqlite")
        #expect(result.1)
        #expect(result.2)
        #expect(coordinator.persistentStores.count == 1)
    }

    @Test func aFailedAddHandsTheErrorToTheBlockAndAddsNothing() throws {
        let directory = TemporaryDirectory()
        let notes = directory.file("notes.sqlite")
        try "not a database".write(to: notes, atomically: true, encoding: .utf8)
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: TestModel.make())
        let description = NSPersistentStoreDescription(url: notes)
        description.shouldAddStoreAsynchronously = false
        var failure: Error?
        coordinator.addPersistentStore(with: description) { _, error in failure = error }
        let error = try #require(failure as NSError?)
        #expect(error.domain == NSCocoaErrorDomain)
        #expect(error.localizedDescription.contains(notes.path))
        #expect(coordinator.persistentStores.isEmpty)
        #expect(try String(contentsOf: notes, encoding: .utf8) == "not a database")
    }

    @Test func addingAStoreAlreadyAddedHandsItsErrorToTheBlock() throws {
        let directory = TemporaryDirectory()
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: TestModel.make())
        let description = NSPersistentStoreDescription(url: directory.file("Store.sqlite"))
        description.shouldAddStoreAsynchronously = false
        var failures: [Error?] = []
        for _ in 0..<2 { coordinator.addPersistentStore(with: description) { _, error in failures.append(error) } }
        #expect(failures.count == 2)
        #expect(failures.first.flatMap { $0 } == nil)
        let second = try #require(failures.last.flatMap { $0 } as NSError?)
        #expect(second.localizedDescription.contains("already added"))
        #expect(coordinator.persistentStores.count == 1)
    }

    @Test func theDescriptionsOptionsAndTypeReachTheStore() throws {
        let directory = TemporaryDirectory()
        let url = directory.file("Store.sqlite")
        // A store made first, then added read-only through a description.
        let first = NSPersistentStoreCoordinator(managedObjectModel: TestModel.make())
        try first.remove(try first.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url))
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: TestModel.make())
        let description = NSPersistentStoreDescription(url: url)
        description.isReadOnly = true
        description.shouldAddStoreAsynchronously = false
        var failure: Error?
        coordinator.addPersistentStore(with: description) { _, error in failure = error }
        #expect(failure == nil)
        #expect(coordinator.persistentStores.first?.isReadOnly == true)

        let memory = NSPersistentStoreDescription()
        memory.type = NSInMemoryStoreType
        memory.shouldAddStoreAsynchronously = false
        coordinator.addPersistentStore(with: memory) { _, error in failure = error }
        #expect(failure == nil)
        let inMemory = try #require(coordinator.persistentStores.first { $0.type == NSInMemoryStoreType })
        // A store without a URL answers one that names no file.
        #expect(coordinator.url(for: inMemory).path == "/dev/null")
    }
}
