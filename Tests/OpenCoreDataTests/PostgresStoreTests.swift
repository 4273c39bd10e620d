import Foundation
import OCDPostgres
import Testing
import OpenCoreData
@testable import OpenCoreDataCore
@testable import OpenCoreDataPostgres

/// What the PostgreSQL store does beyond the shared store suites (which run on it too): its
/// tables in PostgreSQL's types, several coordinators as several app servers on one database —
/// their keys, their conflicts settled by each merge policy — and the errors for bad input,
/// each naming the server and the database.
@Suite(.needsPostgres) struct PostgresStoreTests {
    /// A coordinator and a context on the store at `url`, as one app server has them.
    private struct Server {
        let coordinator: NSPersistentStoreCoordinator
        let context: NSManagedObjectContext
        let store: NSPersistentStore

        init(_ url: URL, model: NSManagedObjectModel = TestModel.make(), policy: Any = NSErrorMergePolicy,
             options: [AnyHashable: Any]? = nil) throws {
            coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
            store = try coordinator.addPersistentStore(ofType: OCDPostgreSQLStoreType, configurationName: nil, at: url, options: options)
            context = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
            context.persistentStoreCoordinator = coordinator
            context.mergePolicy = policy
        }

        func people(_ format: String? = nil) throws -> [NSManagedObject] {
            let request = NSFetchRequest<NSManagedObject>(entityName: "Person")
            request.predicate = format.map { NSPredicate(format: $0) }
            request.sortDescriptors = [NSSortDescriptor(key: "name", ascending: true)]
            return try context.fetch(request)
        }

        @discardableResult
        func insertPerson(_ name: String, _ values: [String: Any] = [:]) -> NSManagedObject {
            let person = NSEntityDescription.insertNewObject(forEntityName: "Person", into: context)
            person.setValue(name, forKey: "name")
            for (key, value) in values { person.setValue(value, forKey: key) }
            return person
        }
    }

    @Test func aNewStoreHasCoreDataLayoutInPostgreSQLTypes() throws {
        let schema = try PostgresTestSchema()
        defer { schema.drop() }
        let server = try Server(URL(string: schema.url)!)
        server.insertPerson("Ada", ["age": 36, "born": Date(timeIntervalSinceReferenceDate: 1.25), "photo": Data([1, 2])])
        try server.context.save()

        let connection = try schema.connect()
        let columns = try connection.query("""
            SELECT column_name, data_type, collation_name FROM information_schema.columns
            WHERE table_schema = current_schema() AND table_name = 'zperson' ORDER BY column_name
            """)
        var types: [String: String] = [:]
        for row in 0..<columns.rowCount {
            types[columns.string(row, 0)!] = columns.string(row, 1)! + (columns.string(row, 2).map { " " + $0 } ?? "")
        }
        #expect(types["z_pk"] == "bigint" && types["z_ent"] == "bigint" && types["z_opt"] == "bigint")
        #expect(types["zage"] == "bigint")
        #expect(types["zname"] == "text C")
        #expect(types["zborn"] == "double precision")
        #expect(types["zphoto"] == "bytea")
        // A date is Core Data's seconds since 2001, to the last bit.
        #expect(try connection.scalar("SELECT zborn FROM zperson") == .real(1.25))
        let entities = try connection.query("SELECT z_name FROM z_primarykey ORDER BY z_ent").rows.compactMap { $0.first?.stringValue }
        #expect(entities == ["Animal", "Bird", "Dog", "Club", "Person", "Pet", "Playlist", "Song"])
        #expect(try connection.scalar("SELECT count(*) FROM z_modelcache") == .integer(1))
        #expect(try connection.tableExists("zperson_z_pk_seq"))
        #expect(try connection.tableExists("z_5clubs") || connection.tableExists("z_4members"))

        let metadata = try NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: OCDPostgreSQLStoreType, at: URL(string: schema.url)!)
        #expect(metadata[NSStoreTypeKey] as? String == OCDPostgreSQLStoreType)
        #expect(metadata[NSStoreUUIDKey] as? String == server.store.identifier)
        #expect(TestModel.make().isConfiguration(withName: nil, compatibleWithStoreMetadata: metadata))
    }

    @Test func twoCoordinatorsAreTwoAppServersThatNeverShareAKey() throws {
        let schema = try PostgresTestSchema()
        defer { schema.drop() }
        let url = URL(string: schema.url)!
        let first = try Server(url), second = try Server(url)
        first.insertPerson("Ada")
        try first.context.save()
        #expect(try second.people().map { $0.value(forKey: "name") as? String } == ["Ada"])

        // Both insert at once, each reserving keys as its saves need them.
        for round in 0..<5 {
            for index in 0..<20 {
                first.insertPerson("f\(round)-\(index)")
                second.insertPerson("s\(round)-\(index)")
            }
            try second.context.save()
            try first.context.save()
        }
        let keys = try schema.connect().query("SELECT z_pk FROM zperson").rows.compactMap { $0.first?.int64Value }
        #expect(keys.count == 201)
        #expect(Set(keys).count == 201)
    }

    /// Two servers change Ada's age; the second to save meets the first's change (its `Z_OPT`
    /// moved on) and settles it as its merge policy says. The other server is another
    /// coordinator of this process, or another OS process (a Swift Testing exit test with a
    /// stack of its own).
    @Test(arguments: [("error", nil), ("objectTrump", 50), ("storeTrump", 41), ("overwrite", 50), ("rollback", 41)] as [(String, Int?)],
          [false, true])
    func aConflictBetweenTwoServersIsSettledByTheMergePolicy(policy: (name: String, expectedAge: Int?), inAnotherProcess: Bool) async throws {
        let (policy, expectedAge) = policy
        let schema = try PostgresTestSchema()
        defer { schema.drop() }
        let url = URL(string: schema.url)!
        let policies: [String: Any] = [
            "error": NSErrorMergePolicy, "objectTrump": NSMergeByPropertyObjectTrumpMergePolicy,
            "storeTrump": NSMergeByPropertyStoreTrumpMergePolicy, "overwrite": NSOverwriteMergePolicy, "rollback": NSRollbackMergePolicy,
        ]
        let first = try Server(url, policy: policies[policy]!)
        first.insertPerson("Ada", ["age": 30, "email": "ada@example.com"])
        try first.context.save()
        let mine = try #require(try first.people().first)
        if inAnotherProcess {
            let storeURL: String = schema.url
            await #expect(processExitsWith: .success) { [storeURL = storeURL as String] in
                try PostgresStoreTests.changeAdasAge(to: 41, storeURL: storeURL)
            }
        } else {
            let second = try Server(url)
            try #require(try second.people().first).setValue(41, forKey: "age")
            try second.context.save()
        }

        mine.setValue(50, forKey: "age")
        if let expectedAge {
            try first.context.save()
            let stored = try Server(url).people().first?.value(forKey: "age") as? Int
            #expect(stored == expectedAge)
        } else {
            let error = try #require(throws: CocoaError.self) { try first.context.save() }
            #expect(error.code == .managedObjectMerge)
            let conflicts = try #require(error.userInfo[NSPersistentStoreSaveConflictsErrorKey] as? [NSMergeConflict])
            #expect(conflicts.count == 1 && conflicts.first?.newVersionNumber == 2)
            #expect(try Server(url).people().first?.value(forKey: "age") as? Int == 41)
        }
    }

    /// A new object whose email another server saved first: with the object's values trumping,
    /// it becomes that row.
    @Test func aUniquenessConflictWithAnotherServersRowIsSettledByTheMergePolicy() throws {
        let schema = try PostgresTestSchema()
        defer { schema.drop() }
        let url = URL(string: schema.url)!
        let first = try Server(url, policy: NSMergeByPropertyObjectTrumpMergePolicy), second = try Server(url)
        second.insertPerson("Ada", ["email": "ada@example.com", "age": 30])
        try second.context.save()
        first.insertPerson("Ada Lovelace", ["email": "ada@example.com", "age": 36])
        try first.context.save()
        let stored = try Server(url).people()
        #expect(stored.count == 1)
        #expect(stored.first?.value(forKey: "name") as? String == "Ada Lovelace")
        #expect(stored.first?.value(forKey: "age") as? Int == 36)

        // Without a policy that settles it, the save fails with the conflict and writes nothing.
        let third = try Server(url)
        third.insertPerson("Impostor", ["email": "ada@example.com"])
        let error = try #require(throws: CocoaError.self) { try third.context.save() }
        #expect(error.code == .managedObjectConstraintMerge)
        #expect(try Server(url).people().count == 1)
    }

    @Test func aFetchItsSQLCannotComputeIsAnsweredInMemory() throws {
        let schema = try PostgresTestSchema()
        defer { schema.drop() }
        let server = try Server(URL(string: schema.url)!)
        for name in ["ada", "Bob", "Ádám", "anna", "Cy", "ÁRON"] { server.insertPerson(name) }
        try server.context.save()
        let request = NSFetchRequest<NSManagedObject>(entityName: "Person")
        request.predicate = NSPredicate(format: "name BEGINSWITH[cd] 'a'")
        #expect(try server.context.count(for: request) == 4)
        request.sortDescriptors = [NSSortDescriptor(key: "name", ascending: true, selectorName: "caseInsensitiveCompare:")]
        request.fetchOffset = 1
        request.fetchLimit = 2
        let names = try Server(URL(string: schema.url)!).context.fetch(request).compactMap { $0.value(forKey: "name") as? String }
        let expected = ["ada", "Ádám", "anna", "ÁRON"].sorted { $0.caseInsensitiveCompare($1) == .orderedAscending }
        #expect(names == Array(expected.dropFirst().prefix(2)))

        // The conjuncts of an AND that SQL computes pick the rows memory then checks; one that
        // SQL refuses at run time (a division by zero) leaves every row to memory.
        for (index, person) in try server.people().enumerated() { person.setValue(index * 10, forKey: "age") }
        try server.context.save()
        let everyone = try Server(URL(string: schema.url)!).people()
        for format in ["age >= 20 AND name BEGINSWITH[cd] 'a'", "name CONTAINS[c] 'o' AND age < 40 AND age != 10",
                       "age / 0 == 1 AND name BEGINSWITH[c] 'a'", "NOT (age >= 20 AND name BEGINSWITH[cd] 'a')"] {
            let expected = everyone.filtered(using: NSPredicate(format: format)).compactMap { $0.value(forKey: "name") as? String }
            #expect(try server.people(format).compactMap { $0.value(forKey: "name") as? String } == expected, "\(format)")
        }
    }

    /// What PostgreSQL's SQL refuses or orders otherwise — a division or remainder by zero, a
    /// product beyond `bigint`, rows in no order, `DISTINCT` ordered by a value not selected —
    /// is answered as memory answers it.
    @Test func whatPostgreSQLComputesOtherwiseIsAnsweredAsInMemory() throws {
        let schema = try PostgresTestSchema()
        defer { schema.drop() }
        let url = URL(string: schema.url)!
        let server = try Server(url)
        for (index, name) in ["Cy", "Ada", "Bob", "Dee"].enumerated() { server.insertPerson(name, ["age": index * 10]) }
        try server.context.save()
        // An update moves Cy's row to the end of the table's heap.
        try server.people("name == 'Cy'").first?.setValue(1, forKey: "age")
        try server.context.save()

        let reader = try Server(url)
        let everyone = try reader.people()
        for format in ["age / 0 > 1", "modulus:by:(age, 0) == 1", "NOT (age / 0 > 1)", "age * 9223372036854775807 > 0", "age + 9223372036854775807 < 0",
                       "trunc(age / 3) == 3", "sqrt:(age) > 2", "floor:(age / 7) == 1"] {
            let predicate = NSPredicate(format: format)
            let names = try reader.people(format).map { $0.value(forKey: "name") as! String }
            #expect(names == everyone.filtered(using: predicate).map { $0.value(forKey: "name") as! String }, "\(format)")
        }
        // No sort: key order, as the other stores answer, so that offsets and limits page.
        let request = NSFetchRequest<NSManagedObject>(entityName: "Person")
        request.fetchLimit = 2
        #expect(try reader.context.fetch(request).map { $0.value(forKey: "name") as! String } == ["Cy", "Ada"])
        request.fetchOffset = 2
        #expect(try reader.context.fetch(request).map { $0.value(forKey: "name") as! String } == ["Bob", "Dee"])

        let distinct = NSFetchRequest<NSDictionary>(entityName: "Person")
        distinct.resultType = .dictionaryResultType
        distinct.propertiesToFetch = ["active"]
        distinct.returnsDistinctResults = true
        distinct.sortDescriptors = [NSSortDescriptor(key: "name", ascending: true)]
        #expect(try reader.context.fetch(distinct).count == 1)
    }

    @Test func aStoreOfAnotherModelVersionIsRefusedAndLeftAsItWas() throws {
        let schema = try PostgresTestSchema()
        defer { schema.drop() }
        let url = URL(string: schema.url)!
        let server = try Server(url)
        server.insertPerson("Ada")
        try server.context.save()

        let changed = TestModel.make()
        let title = NSAttributeDescription(name: "title", type: .stringAttributeType)
        changed.entitiesByName["Person"]!.properties.append(title)
        let error = try #require(throws: CocoaError.self) { try Server(url, model: changed) }
        #expect(error.code == .persistentStoreIncompatibleVersionHash)
        #expect(error.message.contains("Person"))
        #expect(try schema.connect().query("SELECT column_name FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = 'zperson' AND column_name = 'ztitle'").rowCount == 0)
        #expect(try Server(url).people().count == 1)
    }

    @Test func aDatabaseThatIsNotAStoreIsRefusedAndLeftAlone() throws {
        let schema = try PostgresTestSchema()
        defer { schema.drop() }
        try schema.connect().execute("CREATE TABLE customers (id bigint)")
        let error = try #require(throws: CocoaError.self) { try Server(URL(string: schema.url)!) }
        #expect(error.code == .persistentStoreInvalidType)
        #expect(error.message.contains("CUSTOMERS"))
        #expect(error.message.contains("database \"postgres\"") || error.message.contains("database \""))
        #expect(try !schema.connect().tableExists("z_metadata"))
    }

    @Test func aWrongURLOrAMissingServerIsAClearError() throws {
        let file = try #require(throws: CocoaError.self) { try Server(URL(fileURLWithPath: "/tmp/shop.sqlite")) }
        #expect(file.message.contains("needs a postgresql:// URL"))
        let noServer = try #require(throws: CocoaError.self) {
            try Server(URL(string: "postgresql:///shop?host=/nonexistent/ocd-socket-folder")!)
        }
        #expect(noServer.code == .persistentStoreOpen)
        #expect(noServer.message.contains("database \"shop\" on /nonexistent/ocd-socket-folder"))
    }

    /// The server drops the store's connection (a restart, a failover): the next save fails
    /// with nothing written and the context's changes kept, and the one after reconnects.
    @Test func aDroppedConnectionFailsOneSaveAndTheNextReconnects() throws {
        let schema = try PostgresTestSchema()
        defer { schema.drop() }
        let url = URL(string: schema.url)!
        let server = try Server(url)
        let ada = server.insertPerson("Ada", ["age": 30])
        try server.context.save()
        let store = try #require(server.store as? PostgreSQLStore)
        let backend = try #require(store.connection?.backendProcessID)
        try schema.connect().query("SELECT pg_terminate_backend(?::int4)", [.integer(Int64(backend))])

        ada.setValue(31, forKey: "age")
        let error = try #require(throws: CocoaError.self) { try server.context.save() }
        #expect(error.message.contains("database \""))
        #expect(server.context.hasChanges)
        #expect(try Server(url).people().first?.value(forKey: "age") as? Int == 30)

        try server.context.save()
        #expect(try Server(url).people().first?.value(forKey: "age") as? Int == 31)
    }

    /// Another app server's saves reach this server's contexts that merge changes: each save
    /// sends its rows' keys with NOTIFY when it commits, the store's listener posts
    /// `.NSPersistentStoreRemoteChange` with their object IDs, and the context merges them —
    /// from another coordinator in this process, then from another OS process.
    @Test func anotherServersSavesAreMergedIntoContextsThatMergeChanges() async throws {
        let schema = try PostgresTestSchema()
        defer { schema.drop() }
        let url = URL(string: schema.url)!
        let watcher = try Server(url, options: [NSPersistentStoreRemoteChangeNotificationPostOptionKey: true])
        watcher.context.automaticallyMergesChangesFromParent = true
        let writer = try Server(url)
        writer.insertPerson("Ada", ["age": 30])
        try writer.context.save()
        let ada = try #require(try watcher.people().first)
        #expect(ada.value(forKey: "age") as? Int == 30)

        func mergedWithin(_ seconds: Double, _ done: () -> Bool) -> Double? {
            let start = Date()
            while Date().timeIntervalSince(start) < seconds {
                watcher.context.processPendingChanges()
                if done() { return Date().timeIntervalSince(start) }
                Thread.sleep(forTimeInterval: 0.005)
            }
            return nil
        }
        try #require(try writer.people().first).setValue(41, forKey: "age")
        writer.insertPerson("Bob")
        try writer.context.save()
        let sameProcess = mergedWithin(5) { ada.value(forKey: "age") as? Int == 41 }
        #expect(sameProcess != nil, "the other coordinator's save was not merged within 5 s")

        // Another OS process: an app server of its own.
        let storeURL: String = schema.url
        await #expect(processExitsWith: .success) { [storeURL = storeURL as String] in
            try PostgresStoreTests.changeAdasAge(to: 52, storeURL: storeURL)
        }
        let otherProcess = mergedWithin(5) { ada.value(forKey: "age") as? Int == 52 }
        #expect(otherProcess != nil, "the other process's save was not merged within 5 s")
        // The watcher's own saves are not told back to it, and its objects stay as they are.
        ada.setValue(60, forKey: "age")
        try watcher.context.save()
        #expect(mergedWithin(0.3) { ada.changedValues().isEmpty && ada.value(forKey: "age") as? Int != 60 } == nil)
    }

    /// `NOTIFY` reaches only a listener connected when the save commits; for a store that
    /// records history, the history is the durable record: a listener that lost its connection
    /// reads what other servers committed meanwhile once it is back, and tells it (not its own
    /// store's saves).
    @Test func savesMissedWhileTheListenerWasCutOffAreReadFromTheHistory() throws {
        let schema = try PostgresTestSchema()
        defer { schema.drop() }
        let url = URL(string: schema.url)!
        let watcher = try Server(url, options: [NSPersistentHistoryTrackingKey: true, NSPersistentStoreRemoteChangeNotificationPostOptionKey: true])
        watcher.context.automaticallyMergesChangesFromParent = true
        let notes = PersistentHistoryTests.RemoteChanges(of: watcher.coordinator)
        let writer = try Server(url, options: [NSPersistentHistoryTrackingKey: true])
        writer.insertPerson("Ada", ["age": 30])
        try writer.context.save()
        try #require(notes.wait(forTransaction: 1) != nil)
        let told = notes.received.count
        let ada = try #require(try watcher.people().first)

        let listener = try #require((watcher.store as? PostgreSQLStore)?.changeListener)
        listener.holdsReconnecting.store(true, ordering: .sequentiallyConsistent)
        let pid = listener.listeningProcessID.load(ordering: .sequentiallyConsistent)
        try #require(pid != 0)
        _ = try schema.connect().query("SELECT pg_terminate_backend(CAST(? AS integer))", [.integer(Int64(pid))])
        try #require(try writer.people("name == 'Ada'").first).setValue(41, forKey: "age")
        writer.insertPerson("Bob")
        try writer.context.save()
        watcher.insertPerson("Cy")
        try watcher.context.save()
        let cy = try #require(try watcher.people("name == 'Cy'").first).objectID

        // Nothing reaches the watcher while its listener is cut off.
        Thread.sleep(forTimeInterval: 0.3)
        watcher.context.processPendingChanges()
        #expect(notes.received.count == told)
        #expect(ada.value(forKey: "age") as? Int == 30)

        listener.holdsReconnecting.store(false, ordering: .sequentiallyConsistent)
        let note = try #require(notes.wait(forTransaction: 2, seconds: 10))
        let inserted = note.userInfo?[NSInsertedObjectIDsKey] as? Set<NSManagedObjectID> ?? []
        let updated = note.userInfo?[NSUpdatedObjectIDsKey] as? Set<NSManagedObjectID> ?? []
        #expect(updated == [ada.objectID])
        #expect(inserted.count == 1 && !inserted.contains(cy))
        let deadline = Date().addingTimeInterval(5)
        while ada.value(forKey: "age") as? Int != 41, Date() < deadline {
            watcher.context.processPendingChanges()
            Thread.sleep(forTimeInterval: 0.01)
        }
        #expect(ada.value(forKey: "age") as? Int == 41)
        // Told once: the watcher's own save is not told, and nothing is told twice.
        Thread.sleep(forTimeInterval: 0.3)
        #expect(notes.received.count == told + 1)
    }

    /// What the other process of `anotherServersSavesAreMergedIntoContextsThatMergeChanges` does.
    static func changeAdasAge(to age: Int, storeURL: String) throws {
        let server = try Server(URL(string: storeURL)!)
        guard let ada = try server.people("name == 'Ada'").first else { exit(3) }
        ada.setValue(age, forKey: "age")
        try server.context.save()
    }

    /// Persistent history on a database many servers write: transactions are numbered in the
    /// order they commit, so that a reader that follows the history with tokens while two
    /// servers save at once sees every transaction once, none skipped (a number taken before a
    /// save commits could be overtaken by a later one, and a token past it would skip it).
    @Test func historyWrittenByManyServersIsReadInCommitOrderWithNothingSkipped() throws {
        let schema = try PostgresTestSchema()
        defer { schema.drop() }
        let url = URL(string: schema.url)!
        let tracking: [AnyHashable: Any] = [NSPersistentHistoryTrackingKey: true]
        let reader = try Server(url, options: tracking)
        let servers = try (0..<2).map { _ in try Server(url, options: tracking) }
        let savesEach = 15
        let done = DispatchGroup()
        for (index, server) in servers.enumerated() {
            DispatchQueue.global().async(group: done) {
                let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
                context.persistentStoreCoordinator = server.coordinator
                context.transactionAuthor = "server \(index)"
                context.performAndWait {
                    for save in 0..<savesEach {
                        let person = NSEntityDescription.insertNewObject(forEntityName: "Person", into: context)
                        person.setValue("S\(index)-\(save)", forKey: "name")
                        try? context.save()
                    }
                }
            }
        }
        var seen: [Int64] = []
        var names: [String] = []
        var token: NSPersistentHistoryToken?
        func readOn() throws {
            let result = try reader.context.execute(NSPersistentHistoryChangeRequest.fetchHistory(after: token)) as? NSPersistentHistoryResult
            for transaction in result?.result as? [NSPersistentHistoryTransaction] ?? [] {
                seen.append(transaction.transactionNumber)
                names += try (transaction.changes ?? []).map {
                    try reader.context.existingObject(with: $0.changedObjectID).value(forKey: "name") as? String ?? "?"
                }
                token = transaction.token
            }
        }
        while done.wait(timeout: .now() + 0.005) == .timedOut { try readOn() }
        try readOn()
        #expect(seen == Array(1...Int64(2 * savesEach)))
        #expect(Set(names).count == 2 * savesEach && names.count == 2 * savesEach)
        #expect(try reader.people().count == 2 * savesEach)
    }

    /// A query generation is a `REPEATABLE READ` snapshot on a connection of its own: fetches
    /// the store answers in memory read it too, a query that fails inside it (and is answered in
    /// memory) leaves it usable, and once the store is removed its reads fail rather than move
    /// on to the newest state. (The shared generation suite runs on this store as well.)
    @Test func aQueryGenerationIsOneSnapshotForEveryKindOfRead() throws {
        let schema = try PostgresTestSchema()
        defer { schema.drop() }
        let url = URL(string: schema.url)!
        let app = try Server(url)
        app.insertPerson("Ada", ["age": 30])
        app.insertPerson("Bob", ["age": 40])
        try app.context.save()
        let viewer = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
        viewer.persistentStoreCoordinator = app.coordinator
        try viewer.setQueryGenerationFrom(.current)
        func names(_ format: String, in context: NSManagedObjectContext) throws -> [String] {
            let request = NSFetchRequest<NSManagedObject>(entityName: "Person")
            request.predicate = NSPredicate(format: format)
            return try context.fetch(request).compactMap { $0.value(forKey: "name") as? String }.sorted()
        }
        #expect(try names("age > 0", in: viewer) == ["Ada", "Bob"])

        let other = try Server(url)
        try #require(try other.people("name == 'Ada'").first).setValue(31, forKey: "age")
        other.insertPerson("Cy", ["age": 50])
        try other.context.save()
        // Answered in memory (a case-insensitive comparison), from the snapshot's rows.
        #expect(try names("name BEGINSWITH[c] 'c' OR age == 31", in: viewer) == [])
        #expect(try names("name BEGINSWITH[c] 'c' OR age == 31", in: app.context) == ["Ada", "Cy"])
        // A division by zero fails in SQL and is answered in memory (nil): the snapshot goes on.
        #expect(try names("age / 0 == 1", in: viewer) == [])
        #expect(try names("age > 0", in: viewer) == ["Ada", "Bob"])

        let bobID = try #require(try app.people("name == 'Bob'").first).objectID
        try app.coordinator.remove(app.store)
        let error = #expect(throws: CocoaError.self) { try viewer.existingObject(with: bobID) }
        #expect(error?.message.contains("removed") == true)
    }

    /// Contexts on many threads read at once on the store's readers, which never outnumber the
    /// pool's size (`NSPersistentStoreConnectionPoolMaxSizeKey`), beside the one writer.
    @Test func readsRunInParallelOnABoundedPoolOfConnections() throws {
        let schema = try PostgresTestSchema()
        defer { schema.drop() }
        let application = "ocd_pool_" + UUID().uuidString.prefix(8).lowercased()
        let url = URL(string: schema.url + "&application_name=\(application)")!
        let server = try Server(url, options: [NSPersistentStoreConnectionPoolMaxSizeKey: 3])
        for index in 0..<200 { server.insertPerson("p\(index)") }
        try server.context.save()

        let counts = LockedState<[Int]>([])
        let failures = LockedState<[String]>([])
        DispatchQueue.concurrentPerform(iterations: 12) { _ in
            let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
            context.persistentStoreCoordinator = server.coordinator
            context.performAndWait {
                for _ in 0..<10 {
                    do {
                        let fetched = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Person")).count
                        counts.withLock { $0.append(fetched) }
                    } catch {
                        failures.withLock { $0.append("\(error)") }
                    }
                }
            }
        }
        #expect(failures.withLock { $0 } == [])
        #expect(counts.withLock { $0 }.count == 120 && counts.withLock { $0 }.allSatisfy { $0 == 200 })
        let open = try schema.connect().scalar("SELECT count(*) FROM pg_stat_activity WHERE application_name = ?", [.text(application)])
        #expect((open.int64Value ?? 99) <= 4)
        #expect((open.int64Value ?? 0) >= 2)
    }

    /// A save of N objects is a bounded number of round trips (its rows pipelined, a thousand a
    /// trip), and a fetch of N objects one query: never a round trip per object.
    @Test func savesAndFetchesOfManyObjectsTakeAFewRoundTrips() throws {
        let schema = try PostgresTestSchema()
        defer { schema.drop() }
        let server = try Server(URL(string: schema.url)!)
        let connection = try #require((server.store as? PostgreSQLStore)?.connection)
        for index in 0..<2_500 { server.insertPerson("p\(index)", ["age": index % 100]) }
        var before = connection.roundTrips
        try server.context.save()
        // BEGIN, the keys (prepared, run), the INSERT prepared, three batches, COMMIT.
        #expect(connection.roundTrips - before <= 10)

        server.context.reset()
        before = connection.roundTrips
        let people = try server.people()
        #expect(people.count == 2_500)
        #expect(connection.roundTrips - before <= 2)

        for person in people { person.setValue(7, forKey: "age") }
        before = connection.roundTrips
        try server.context.save()
        #expect(connection.roundTrips - before <= 10)
        for person in people { server.context.delete(person) }
        before = connection.roundTrips
        try server.context.save()
        // The rows, and their join rows (clubs) by lists of a thousand keys.
        #expect(connection.roundTrips - before <= 25)
        #expect(try Server(URL(string: schema.url)!).people().isEmpty)
    }

    @Test func metadataIsWrittenWithoutAddingTheStoreAndTheStoreCanBeDestroyed() throws {
        let schema = try PostgresTestSchema()
        defer { schema.drop() }
        let url = URL(string: schema.url)!
        let server = try Server(url)
        server.insertPerson("Ada")
        try server.context.save()
        try server.coordinator.remove(server.store)
        try schema.connect().execute("CREATE TABLE notes (id bigint)")

        var metadata = try NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: OCDPostgreSQLStoreType, at: url)
        metadata["importedAt"] = "today"
        try NSPersistentStoreCoordinator.setMetadata(metadata, forPersistentStoreOfType: OCDPostgreSQLStoreType, at: url)
        let reopened = try Server(url)
        #expect(reopened.store.metadata["importedAt"] as? String == "today")
        try reopened.coordinator.remove(reopened.store)

        try NSPersistentStoreCoordinator(managedObjectModel: TestModel.make()).destroyPersistentStore(at: url, ofType: OCDPostgreSQLStoreType)
        let connection = try schema.connect()
        #expect(try !connection.tableExists("zperson"))
        #expect(try !connection.tableExists("z_metadata"))
        #expect(try connection.tableExists("notes"))
        // What is left is not a store, and is not taken for one.
        #expect(throws: CocoaError.self) { try Server(url) }
    }
}
