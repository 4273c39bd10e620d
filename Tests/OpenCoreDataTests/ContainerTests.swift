import Foundation
import Testing
import OpenCoreData
@testable import OpenCoreDataCore
@testable import OpenCoreDataSQLite

/// NSPersistentContainer (§11). Every test points the store description at its own temporary
/// directory, so nothing is written to the user's data directory.
@Suite struct ContainerTests {
    /// A container whose single store lives in `directory`.
    private func container(in directory: TemporaryDirectory, name: String = "Journal") -> NSPersistentContainer {
        let container = NSPersistentContainer(name: name, managedObjectModel: TestModel.make())
        container.persistentStoreDescriptions[0].url = directory.file("\(name).sqlite")
        return container
    }

    /// Loads the container's stores and returns each completion call's description and error.
    private func load(_ container: NSPersistentContainer) -> [(NSPersistentStoreDescription, Error?)] {
        let calls = LockedBox<[(NSPersistentStoreDescription, Error?)]>([])
        container.loadPersistentStores { description, error in
            calls.mutate { $0.append((description, error)) }
        }
        return calls.value
    }

    @Test func defaultStoreDescription() throws {
        // Creating the container doesn't load anything; the description is only inspected.
        let container = NSPersistentContainer(name: "Journal", managedObjectModel: TestModel.make())
        #expect(container.name == "Journal")
        // §11.3
        #expect(container.persistentStoreDescriptions.count == 1)
        let description = try #require(container.persistentStoreDescriptions.first)
        #expect(description.type == NSSQLiteStoreType)
        #expect(description.type == "SQLite")
        #expect(description.url == NSPersistentContainer.defaultDirectoryURL().appendingPathComponent("Journal.sqlite"))
        #expect(description.shouldAddStoreAsynchronously == false)
        #expect(description.shouldMigrateStoreAutomatically == true)
        #expect(description.shouldInferMappingModelAutomatically == true)
        #expect(description.isReadOnly == false)
        #expect(description.configuration == nil)  // [UNCONFIRMED] (§11.3)
        #expect(container.persistentStoreCoordinator.persistentStores.isEmpty)
    }

    /// On Linux the default directory follows the XDG Base Directory specification.
    @Test(arguments: [(["XDG_DATA_HOME": "/srv/data"], "/srv/data"),
                      ([:], "/home/ada/.local/share"),
                      (["XDG_DATA_HOME": ""], "/home/ada/.local/share"),
                      (["XDG_DATA_HOME": "relative/data"], "/home/ada/.local/share")])
    func theDataDirectoryFollowsXDG(environment: [String: String], expected: String) {
        let home = URL(fileURLWithPath: "/home/ada", isDirectory: true)
        #expect(NSPersistentContainer.dataDirectory(environment: environment, home: home).path == expected)
    }

    @Test func theDefaultDirectoryExists() {
        var isDirectory: ObjCBool = false
        let path = NSPersistentContainer.defaultDirectoryURL().path
        #expect(FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) && isDirectory.boolValue)
    }

    /// The class property answers what the class method does, a subclass's override included.
    @Test func theDefaultDirectoryPropertyIsTheMethodsAnswer() {
        final class ProjectContainer: NSPersistentContainer, @unchecked Sendable {
            override class func defaultDirectoryURL() -> URL { URL(fileURLWithPath: "/srv/projects", isDirectory: true) }
        }
        #expect(NSPersistentContainer.defaultDirectoryURL == NSPersistentContainer.defaultDirectoryURL())
        #expect(ProjectContainer.defaultDirectoryURL.path == "/srv/projects")
    }

    @Test func loadPersistentStoresCallsTheCompletionOncePerStore() throws {
        let directory = TemporaryDirectory()
        let container = container(in: directory)
        let memory = NSPersistentStoreDescription()
        memory.type = NSInMemoryStoreType
        container.persistentStoreDescriptions.append(memory)

        let calls = load(container)
        // §11.4: once per store, synchronously (shouldAddStoreAsynchronously is false).
        #expect(calls.count == 2)
        let calledFor = calls.map { ObjectIdentifier($0.0) }
        #expect(calledFor == container.persistentStoreDescriptions.map { ObjectIdentifier($0) })
        #expect(calls.allSatisfy { $0.1 == nil })
        #expect(container.persistentStoreCoordinator.persistentStores.map(\.type) == [NSSQLiteStoreType, NSInMemoryStoreType])
        #expect(FileManager.default.fileExists(atPath: directory.file("Journal.sqlite").path))

        // Loading again doesn't add the stores a second time.
        _ = load(container)
        #expect(container.persistentStoreCoordinator.persistentStores.filter { $0.type == NSSQLiteStoreType }.count == 1)
    }

    @Test func aDescriptionAddedAsynchronouslyStillCallsTheCompletionOnce() async throws {
        let directory = TemporaryDirectory()
        let container = container(in: directory)
        container.persistentStoreDescriptions[0].shouldAddStoreAsynchronously = true
        let calls = LockedBox(0)
        let error: (any Error)? = await withCheckedContinuation { continuation in
            container.loadPersistentStores { _, error in
                calls.mutate { $0 += 1 }
                continuation.resume(returning: error)
            }
        }
        #expect(error == nil)
        #expect(calls.value == 1)
        #expect(container.persistentStoreCoordinator.persistentStores.count == 1)
    }

    @Test func asyncLoadPersistentStoresThenSaveAndReadBack() async throws {
        let directory = TemporaryDirectory()
        let container = container(in: directory)
        try await container.loadPersistentStores()
        #expect(container.persistentStoreCoordinator.persistentStores.count == 1)

        let context = container.viewContext
        let person = NSEntityDescription.insertNewObject(forEntityName: "Person", into: context)
        person.setValue("Ada", forKey: "name")
        try context.save()

        // A second container on the same file sees the row.
        let again = self.container(in: directory)
        try await again.loadPersistentStores()
        let names = try again.viewContext.fetch(NSFetchRequest<NSManagedObject>(entityName: "Person")).map { $0.value(forKey: "name") as? String }
        #expect(names == ["Ada"])
    }

    @Test func aLoadErrorIsReportedNotFatal() async throws {
        let directory = TemporaryDirectory()
        let bad = directory.file("Broken.sqlite")
        try Data(String(repeating: "not a database ", count: 100).utf8).write(to: bad)
        let container = container(in: directory)
        let good = try #require(container.persistentStoreDescriptions.first)
        let broken = NSPersistentStoreDescription(url: bad)
        container.persistentStoreDescriptions = [broken, good]

        let calls = load(container)
        #expect(calls.count == 2)
        #expect(calls.first?.0 === broken)
        #expect(calls.first?.1 != nil)
        #expect(calls.last?.0 === good)
        #expect(calls.last?.1 == nil)
        #expect(container.persistentStoreCoordinator.persistentStores.count == 1)

        // The async form throws the failure instead.
        let other = self.container(in: directory, name: "Other")
        other.persistentStoreDescriptions = [NSPersistentStoreDescription(url: bad)]
        await #expect(throws: (any Error).self) { try await other.loadPersistentStores() }
        #expect(other.persistentStoreCoordinator.persistentStores.isEmpty)
    }

    @Test func viewContextIsOneMainQueueContextOnTheCoordinator() throws {
        let directory = TemporaryDirectory()
        let container = container(in: directory)
        // §11.5
        let view = container.viewContext
        #expect(view.concurrencyType == .mainQueueConcurrencyType)
        #expect(view.persistentStoreCoordinator === container.persistentStoreCoordinator)
        #expect(container.viewContext === view)
    }

    @Test func newBackgroundContextGivesDistinctPrivateQueueContexts() throws {
        let directory = TemporaryDirectory()
        let container = container(in: directory)
        // §11.6
        let first = container.newBackgroundContext()
        let second = container.newBackgroundContext()
        #expect(first !== second)
        #expect(first !== container.viewContext)
        for context in [first, second] {
            #expect(context.concurrencyType == .privateQueueConcurrencyType)
            #expect(context.persistentStoreCoordinator === container.persistentStoreCoordinator)
        }
    }

    @Test func performBackgroundTaskRunsOnANewPrivateContextEachTime() async throws {
        let directory = TemporaryDirectory()
        let container = container(in: directory)
        #expect(load(container).allSatisfy { $0.1 == nil })

        // The completion-block form. The first context is kept alive, so that its identity can't
        // be reused by the second one.
        let first: NSManagedObjectContext = await withCheckedContinuation { continuation in
            container.performBackgroundTask { context in
                let person = NSEntityDescription.insertNewObject(forEntityName: "Person", into: context)
                person.setValue("Ada", forKey: "name")
                try? context.save()
                #expect(context.concurrencyType == .privateQueueConcurrencyType)
                #expect(context.isOnOwnQueue)
                continuation.resume(returning: context)
            }
        }
        // The async form returns the block's value.
        let (second, count) = try await container.performBackgroundTask { context in
            (ObjectIdentifier(context), try context.count(for: NSFetchRequest<NSManagedObject>(entityName: "Person")))
        }
        #expect(count == 1)
        #expect(ObjectIdentifier(first) != second)
        #expect(try container.viewContext.count(for: NSFetchRequest<NSManagedObject>(entityName: "Person")) == 1)
    }

    @Test func saveIfChangedSavesOnlyWhenThereAreChanges() throws {
        let directory = TemporaryDirectory()
        let container = container(in: directory)
        #expect(load(container).allSatisfy { $0.1 == nil })
        let context = container.viewContext
        #expect(try context.saveIfChanged() == false)

        let person = NSEntityDescription.insertNewObject(forEntityName: "Person", into: context)
        person.setValue("Ada", forKey: "name")
        #expect(try context.saveIfChanged() == true)
        #expect(!context.hasChanges)
        #expect(try context.saveIfChanged() == false)

        // Insert-then-delete leaves nothing to save.
        context.delete(NSEntityDescription.insertNewObject(forEntityName: "Person", into: context))
        #expect(try context.saveIfChanged() == false)
        let background = container.newBackgroundContext()
        #expect(try background.performAndWait { try background.count(for: NSFetchRequest<NSManagedObject>(entityName: "Person")) } == 1)
    }
}
