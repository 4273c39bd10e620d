import Foundation
import Testing
import OpenCoreData
@testable import OpenCoreDataCore
@testable import OpenCoreDataSQLite
import OCDSQLite

/// Query generations (issue 14 item 5; Apple's "Accessing data when the store has changed"): a
/// pinned context reads one state of the store — fetches, counts and faults fired later — while
/// other contexts, coordinators and processes save; `.current`, a token or nil move it; its own
/// save, a merge and `reset()` move it to the newest generation.
@Suite struct QueryGenerationTests {
    /// A stack holding Ann (30, two pets) and Bob (40).
    private func stackWithAnnAndBob(_ kind: StoreKind = .sqlite) throws -> TestStack {
        let stack = try TestStack(kind)
        let ann = stack.insert("Person", ["name": "Ann", "age": 30])
        stack.insert("Person", ["name": "Bob", "age": 40])
        for name in ["Rex", "Tom"] { stack.insert("Pet", ["name": name, "owner": ann]) }
        try stack.context.save()
        return stack
    }

    /// A second coordinator on the same file, standing for another process: its own writer.
    private func otherCoordinator(on stack: TestStack) throws -> NSManagedObjectContext {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: stack.model)
        try coordinator.addPersistentStore(ofType: stack.kind.type, configurationName: nil, at: stack.storeURL)
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        return context
    }

    /// Adds Cy, makes Ann 31 and deletes Bob, in `context`'s store.
    private func changeEveryone(in context: NSManagedObjectContext) throws {
        try context.performAndWait {
            let people = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Person"))
            for person in people {
                switch person.value(forKey: "name") as? String {
                case "Ann": person.setValue(31, forKey: "age")
                case "Bob": context.delete(person)
                default: break
                }
            }
            let cy = NSEntityDescription.insertNewObject(forEntityName: "Person", into: context)
            cy.setValue("Cy", forKey: "name")
            try context.save()
        }
    }

    private func names(in context: NSManagedObjectContext, _ format: String? = nil) throws -> [String] {
        let request = NSFetchRequest<NSManagedObject>(entityName: "Person")
        request.predicate = format.map { NSPredicate(format: $0) }
        request.sortDescriptors = [NSSortDescriptor(key: "name", ascending: true)]
        return try context.fetch(request).map { $0.value(forKey: "name") as? String ?? "?" }
    }

    private func personCount(in context: NSManagedObjectContext) throws -> Int {
        try context.count(for: NSFetchRequest<NSManagedObject>(entityName: "Person"))
    }

    // MARK: Pinning

    @Test(arguments: StorePlaces.tableStores) func aPinnedContextKeepsReadingItsGenerationWhileOthersSave(kind: StoreKind) throws {
        let stack = try stackWithAnnAndBob(kind)
        let viewer = stack.newContext()
        try viewer.setQueryGenerationFrom(.current)
        #expect(try names(in: viewer) == ["Ann", "Bob"])

        try changeEveryone(in: stack.newContext())
        #expect(try names(in: viewer) == ["Ann", "Bob"])
        #expect(try personCount(in: viewer) == 2)
        #expect(try names(in: viewer, "age > 30") == ["Bob"])
        // Batched fetches (their later batches too) and dictionary fetches read it as well.
        let batched = NSFetchRequest<NSManagedObject>(entityName: "Person")
        batched.sortDescriptors = [NSSortDescriptor(key: "name", ascending: true)]
        batched.fetchBatchSize = 1
        #expect(try viewer.fetch(batched).map { $0.value(forKey: "name") as? String } == ["Ann", "Bob"])
        let ages = NSFetchRequest<NSDictionary>(entityName: "Person")
        ages.resultType = .dictionaryResultType
        ages.propertiesToFetch = ["age"]
        #expect(try viewer.fetch(ages).compactMap { $0["age"] as? Int }.sorted() == [30, 40])
        // An unpinned context reads the newest state.
        #expect(try names(in: stack.newContext()) == ["Ann", "Cy"])
    }

    @Test(arguments: StorePlaces.tableStores) func aSaveThroughAnotherCoordinatorIsNotSeenEither(kind: StoreKind) throws {
        let stack = try stackWithAnnAndBob(kind)
        let viewer = stack.newContext()
        try viewer.setQueryGenerationFrom(.current)
        #expect(try personCount(in: viewer) == 2)
        try changeEveryone(in: try otherCoordinator(on: stack))
        #expect(try names(in: viewer) == ["Ann", "Bob"])
        #expect(try names(in: stack.newContext()) == ["Ann", "Cy"])
    }

    @Test(arguments: StorePlaces.tableStores) func faultsFiredLaterReadTheGeneration(kind: StoreKind) throws {
        let stack = try stackWithAnnAndBob(kind)
        let annID = try stack.fetch("Person", NSPredicate(format: "name == 'Ann'"))[0].objectID
        let viewer = stack.newContext()
        try viewer.setQueryGenerationFrom(.current)
        #expect(try personCount(in: viewer) == 2)  // the generation begins here
        let ann = viewer.object(with: annID)
        #expect(ann.isFault)

        let writer = stack.newContext()
        let annThere = try writer.existingObject(with: annID)
        annThere.setValue(55, forKey: "age")
        let pet = NSEntityDescription.insertNewObject(forEntityName: "Pet", into: writer)
        pet.setValue("Zed", forKey: "name")
        pet.setValue(annThere, forKey: "owner")
        try writer.save()

        #expect(ann.value(forKey: "age") as? Int == 30)
        #expect(strings(members(ann, "pets")) == ["Rex", "Tom"])
        // Refreshing reads the generation again, not the newest row.
        viewer.refresh(ann, mergeChanges: false)
        #expect(ann.value(forKey: "age") as? Int == 30)
        #expect(try viewer.existingObject(with: annID).value(forKey: "age") as? Int == 30)
    }

    @Test(arguments: StorePlaces.tableStores) func theGenerationBeginsAtTheNextRead(kind: StoreKind) throws {
        let stack = try stackWithAnnAndBob(kind)
        let viewer = stack.newContext()
        try viewer.setQueryGenerationFrom(.current)
        try changeEveryone(in: stack.newContext())
        // Pinned lazily: the save before the first read is part of the generation.
        #expect(try names(in: viewer) == ["Ann", "Cy"])
        let cy = NSEntityDescription.insertNewObject(forEntityName: "Person", into: stack.context)
        cy.setValue("Dee", forKey: "name")
        try stack.context.save()
        #expect(try names(in: viewer) == ["Ann", "Cy"])
    }

    @Test(arguments: StorePlaces.tableStores) func askingForTheTokenBeginsTheGeneration(kind: StoreKind) throws {
        let stack = try stackWithAnnAndBob(kind)
        let viewer = stack.newContext()
        #expect(viewer.queryGenerationToken == nil)
        try viewer.setQueryGenerationFrom(.current)
        let token = try #require(viewer.queryGenerationToken)
        #expect(token != NSQueryGenerationToken.current)
        #expect(viewer.queryGenerationToken == token)
        try changeEveryone(in: stack.newContext())
        #expect(try names(in: viewer) == ["Ann", "Bob"])
    }

    // MARK: Moving on

    @Test(arguments: StorePlaces.tableStores) func currentAgainAndNilMoveToTheNewestState(kind: StoreKind) throws {
        let stack = try stackWithAnnAndBob(kind)
        let viewer = stack.newContext()
        try viewer.setQueryGenerationFrom(.current)
        let first = try #require(viewer.queryGenerationToken)
        try changeEveryone(in: stack.newContext())
        #expect(try personCount(in: viewer) == 2)

        try viewer.setQueryGenerationFrom(.current)
        #expect(try names(in: viewer) == ["Ann", "Cy"])
        let second = try #require(viewer.queryGenerationToken)
        #expect(second != first)

        let dee = NSEntityDescription.insertNewObject(forEntityName: "Person", into: stack.context)
        dee.setValue("Dee", forKey: "name")
        try stack.context.save()
        #expect(try personCount(in: viewer) == 2)
        try viewer.setQueryGenerationFrom(nil)
        #expect(viewer.queryGenerationToken == nil)
        #expect(try names(in: viewer) == ["Ann", "Cy", "Dee"])
    }

    @Test(arguments: StorePlaces.tableStores) func aTokenPinsAnotherContextToTheSameGeneration(kind: StoreKind) throws {
        let stack = try stackWithAnnAndBob(kind)
        let viewer = stack.newContext()
        try viewer.setQueryGenerationFrom(.current)
        let token = try #require(viewer.queryGenerationToken)
        try changeEveryone(in: stack.newContext())

        let other = stack.newContext()
        try other.setQueryGenerationFrom(token)
        #expect(try names(in: other) == ["Ann", "Bob"])
        #expect(other.queryGenerationToken == token)
        #expect(Set([token, try #require(other.queryGenerationToken)]).count == 1)
        // The token keeps the generation when the context that made it moves on.
        try viewer.setQueryGenerationFrom(nil)
        let third = stack.newContext()
        try third.setQueryGenerationFrom(token)
        #expect(try names(in: third) == ["Ann", "Bob"])
    }

    @Test(arguments: StorePlaces.tableStores) func savingMovesAPinnedContextToTheNewestGeneration(kind: StoreKind) throws {
        let stack = try stackWithAnnAndBob(kind)
        let viewer = stack.newContext()
        try viewer.setQueryGenerationFrom(.current)
        let before = try #require(viewer.queryGenerationToken)
        try changeEveryone(in: stack.newContext())
        let dee = NSEntityDescription.insertNewObject(forEntityName: "Person", into: viewer)
        dee.setValue("Dee", forKey: "name")
        try viewer.save()
        #expect(try names(in: viewer) == ["Ann", "Cy", "Dee"])
        let after = try #require(viewer.queryGenerationToken)
        #expect(after != before)
    }

    @Test(arguments: StorePlaces.tableStores) func aConflictingSaveOfAPinnedContextWeighsTheNewestRow(kind: StoreKind) throws {
        let stack = try stackWithAnnAndBob(kind)
        let viewer = stack.newContext()
        viewer.mergePolicy = NSMergeByPropertyStoreTrumpMergePolicy
        try viewer.setQueryGenerationFrom(.current)
        let ann = try stack.fetch("Person", NSPredicate(format: "name == 'Ann'"), in: viewer)[0]
        try changeEveryone(in: stack.newContext())  // Ann is 31 in the store
        ann.setValue(99, forKey: "age")
        ann.setValue("ann@example.com", forKey: "email")
        try viewer.save()
        #expect(ann.value(forKey: "age") as? Int == 31)
        #expect(try stack.storedStrings("Person", "email") == ["ann@example.com"])
    }

    @Test(arguments: StorePlaces.tableStores) func theConflictsOfAPinnedContextsSaveHoldTheNewestRow(kind: StoreKind) throws {
        let stack = try stackWithAnnAndBob(kind)
        let viewer = stack.newContext()
        try viewer.setQueryGenerationFrom(.current)
        let ann = try stack.fetch("Person", NSPredicate(format: "name == 'Ann'"), in: viewer)[0]
        try changeEveryone(in: stack.newContext())
        ann.setValue(99, forKey: "age")
        let error = #expect(throws: CocoaError.self) { try viewer.save() }
        let conflict = try #require((error?.userInfo[NSPersistentStoreSaveConflictsErrorKey] as? [NSMergeConflict])?.first)
        #expect(conflict.persistedSnapshot?["age"] as? Int == 31)
        #expect(conflict.cachedSnapshot?["age"] as? Int == 30)
    }

    @Test(arguments: StorePlaces.tableStores) func mergingMovesAPinnedContextToTheNewestGeneration(kind: StoreKind) throws {
        let stack = try stackWithAnnAndBob(kind)
        let viewer = stack.newContext()
        try viewer.setQueryGenerationFrom(.current)
        #expect(try personCount(in: viewer) == 2)
        let writer = stack.newContext()
        let recorder = NotificationRecorder(.NSManagedObjectContextDidSave, object: writer)
        try changeEveryone(in: writer)
        #expect(try personCount(in: viewer) == 2)
        viewer.mergeChanges(fromContextDidSave: try #require(recorder.notifications.first))
        #expect(try names(in: viewer) == ["Ann", "Cy"])
        #expect(viewer.queryGenerationToken != nil)
    }

    @Test func resetReleasesThePinAndLetsCheckpointsFinish() throws {
        let stack = try stackWithAnnAndBob()
        let viewer = stack.newContext()
        try viewer.setQueryGenerationFrom(.current)
        #expect(try personCount(in: viewer) == 2)
        try changeEveryone(in: stack.newContext())

        // A checkpoint cannot pass the snapshot a pinned reader holds.
        #expect(try checkpointIsBusy(stack))
        viewer.reset()
        #expect(try !checkpointIsBusy(stack))
        // Still pinned, to the newest generation from the next read.
        #expect(try names(in: viewer) == ["Ann", "Cy"])
        #expect(viewer.queryGenerationToken != nil)
    }

    /// Whether a full checkpoint of the store's file is held back by a reader.
    private func checkpointIsBusy(_ stack: TestStack) throws -> Bool {
        var configuration = SQLiteConnection.Configuration()
        configuration.busyTimeoutMilliseconds = 0
        let connection = try SQLiteConnection(path: stack.storeURL.path, configuration: configuration)
        let row = try connection.rows("PRAGMA wal_checkpoint(TRUNCATE)")
        return row.first?.first?.int64Value == 1
    }

    // MARK: Contexts and stores that keep no generation

    @Test func storesWithoutGenerationsAreReadAtTheirNewestState() throws {
        let stack = try stackWithAnnAndBob(.inMemory)
        let viewer = stack.newContext()
        try viewer.setQueryGenerationFrom(.current)
        #expect(try personCount(in: viewer) == 2)
        #expect(viewer.queryGenerationToken == nil)
        try changeEveryone(in: stack.newContext())
        #expect(try names(in: viewer) == ["Ann", "Cy"])
    }

    @Test(arguments: StorePlaces.tableStores) func aChildReadsThroughItsPinnedParent(kind: StoreKind) throws {
        let stack = try stackWithAnnAndBob(kind)
        let parent = stack.newContext()
        try parent.setQueryGenerationFrom(.current)
        #expect(try personCount(in: parent) == 2)
        let child = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        child.parent = parent
        try changeEveryone(in: stack.newContext())

        try child.performAndWait {
            #expect(try names(in: child) == ["Ann", "Bob"])
            #expect(child.queryGenerationToken == nil)
            let error = #expect(throws: CocoaError.self) { try child.setQueryGenerationFrom(.current) }
            #expect(error?.code.rawValue == NSPersistentStoreOperationError)
            try child.setQueryGenerationFrom(nil)
        }
    }

    @Test func aTokenOfAnotherCoordinatorIsRefused() throws {
        let first = try stackWithAnnAndBob()
        let second = try stackWithAnnAndBob()
        try first.context.setQueryGenerationFrom(.current)
        let token = try #require(first.context.queryGenerationToken)
        let error = #expect(throws: CocoaError.self) { try second.context.setQueryGenerationFrom(token) }
        #expect(error?.code.rawValue == NSPersistentStoreOperationError)
        #expect(error?.message.contains("another persistent store coordinator") == true)
    }

    // MARK: Archived tokens

    private func archived(_ token: NSQueryGenerationToken) throws -> Data {
        try NSKeyedArchiver.archivedData(withRootObject: token, requiringSecureCoding: true)
    }

    private func unarchived(_ data: Data) throws -> NSQueryGenerationToken {
        try #require(try NSKeyedUnarchiver.unarchivedObject(ofClass: NSQueryGenerationToken.self, from: data))
    }

    @Test func anArchivedTokenNamesTheSameGenerationWhileItIsAlive() throws {
        let stack = try stackWithAnnAndBob()
        let viewer = stack.newContext()
        try viewer.setQueryGenerationFrom(.current)
        let token = try #require(viewer.queryGenerationToken)
        let data = try archived(token)
        try changeEveryone(in: stack.newContext())

        let decoded = try unarchived(data)
        #expect(decoded == token)
        #expect(decoded.hash == token.hash)
        let reader = stack.newContext()
        try reader.setQueryGenerationFrom(decoded)
        #expect(try names(in: reader) == ["Ann", "Bob"])
    }

    /// A token whose generation every context and token let go: archived, it names a generation
    /// that is gone, and pinning to it fails as Core Data's does for a generation no longer kept.
    @Test func anArchivedTokenWhoseGenerationIsGoneIsRefused() throws {
        let stack = try stackWithAnnAndBob()
        let data = try {
            let viewer = stack.newContext()
            try viewer.setQueryGenerationFrom(.current)
            let data = try archived(try #require(viewer.queryGenerationToken))
            try viewer.setQueryGenerationFrom(nil)
            return data
        }()
        let decoded = try unarchived(data)
        #expect(decoded != NSQueryGenerationToken.current)
        #expect(decoded.description.contains("no longer available"))
        let reader = stack.newContext()
        let error = #expect(throws: CocoaError.self) { try reader.setQueryGenerationFrom(decoded) }
        #expect(error?.code.rawValue == NSPersistentStoreOperationError)
        #expect(error?.message.contains("no longer available") == true)
        // The context stays unpinned and reads the newest state.
        try changeEveryone(in: stack.newContext())
        #expect(try names(in: reader) == ["Ann", "Cy"])
    }

    @Test func anArchivedCurrentTokenIsCurrent() throws {
        let decoded = try unarchived(try archived(.current))
        #expect(decoded == NSQueryGenerationToken.current)
        #expect(decoded !== NSQueryGenerationToken.current)
        let stack = try stackWithAnnAndBob()
        let viewer = stack.newContext()
        try viewer.setQueryGenerationFrom(decoded)
        #expect(try names(in: viewer) == ["Ann", "Bob"])
        try changeEveryone(in: stack.newContext())
        #expect(try names(in: viewer) == ["Ann", "Bob"])
    }

    @Test func removingTheStoreReleasesItsPinnedReaders() throws {
        let stack = try stackWithAnnAndBob()
        let viewer = stack.newContext()
        try viewer.setQueryGenerationFrom(.current)
        let token = try #require(viewer.queryGenerationToken)
        let annID = try stack.fetch("Person", NSPredicate(format: "name == 'Ann'"))[0].objectID
        try changeEveryone(in: stack.newContext())
        #expect(try checkpointIsBusy(stack))
        try stack.coordinator.remove(try #require(stack.coordinator.persistentStores.first))
        // The generation lives on (the token, the context), but its reader is closed.
        #expect(try !checkpointIsBusy(stack))
        let error = #expect(throws: CocoaError.self) { try viewer.existingObject(with: annID) }
        #expect(error?.message.contains("removed") == true)
        withExtendedLifetime(token) {}
    }

    @Test func aSQLiteStoreWithoutWALIsReadAtItsNewestState() throws {
        let directory = TemporaryDirectory()
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: TestModel.make())
        try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: directory.file("Rollback.sqlite"),
                                           options: [NSSQLitePragmasOption: ["journal_mode": "DELETE"]])
        let viewer = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        viewer.persistentStoreCoordinator = coordinator
        let writer = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        writer.persistentStoreCoordinator = coordinator
        try viewer.performAndWait {
            try viewer.setQueryGenerationFrom(.current)
            #expect(try personCount(in: viewer) == 0)
            #expect(viewer.queryGenerationToken == nil)
        }
        try writer.performAndWait {
            let person = NSEntityDescription.insertNewObject(forEntityName: "Person", into: writer)
            person.setValue("Ann", forKey: "name")
            try writer.save()
        }
        #expect(try viewer.performAndWait { try personCount(in: viewer) } == 1)
    }

    // MARK: Threads

    @Test func aPinnedContextReadsOneStateWhileAWriterSavesOnAnotherThread() async throws {
        let stack = try stackWithAnnAndBob()
        let viewer = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        viewer.persistentStoreCoordinator = stack.coordinator
        try viewer.performAndWait { try viewer.setQueryGenerationFrom(.current) }
        #expect(try viewer.performAndWait { try personCount(in: viewer) } == 2)

        let writer = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        writer.persistentStoreCoordinator = stack.coordinator
        let saves = LockedBox(0)
        async let writes: Void = writer.perform {
            for round in 0..<50 {
                let person = NSEntityDescription.insertNewObject(forEntityName: "Person", into: writer)
                person.setValue("Writer \(round)", forKey: "name")
                try writer.save()
                saves.mutate { $0 += 1 }
            }
        }
        // Reads go on until the writer is done, so that they meet its saves.
        var counts: Set<Int> = []
        var reads = 0
        while saves.value < 50 || reads < 50 {
            counts.insert(try await viewer.perform { try personCount(in: viewer) })
            reads += 1
        }
        try await writes
        #expect(counts == [2])
        try await viewer.perform { try viewer.setQueryGenerationFrom(.current) }
        #expect(try await viewer.perform { try personCount(in: viewer) } == 52)
    }
}
