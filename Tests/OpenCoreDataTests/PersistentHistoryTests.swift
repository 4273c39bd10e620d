import Foundation
import Testing
import OpenCoreData
import OCDSQLite
@testable import OpenCoreDataCore

/// Persistent history: saves and batch requests of a store added with
/// `NSPersistentHistoryTrackingKey` recorded in Core Data's own tables (`ATRANSACTION`,
/// `ACHANGE`, `ATRANSACTIONSTRING`, COREDATA-FORMAT.md §2), read back through
/// `NSPersistentHistoryChangeRequest`, by a second coordinator, after a relaunch, and from a
/// store Apple's Core Data wrote.
@Suite struct PersistentHistoryTests {
    /// A coordinator and a context on the store at `url` (SQLite unless told), history tracked
    /// unless told.
    final class Stack {
        let coordinator: NSPersistentStoreCoordinator
        let context: NSManagedObjectContext
        var store: NSPersistentStore { coordinator.persistentStores[0] }

        /// With tracking, `options` are added to `NSPersistentHistoryTrackingKey`.
        init(at url: URL, type: String = NSSQLiteStoreType, model: NSManagedObjectModel = TestModel.make(), tracking: Bool = true,
             options: [AnyHashable: Any] = [:]) throws {
            coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
            var all = options
            if tracking { all[NSPersistentHistoryTrackingKey] = true as NSNumber }
            try coordinator.addPersistentStore(ofType: type, configurationName: nil, at: url, options: all.isEmpty ? nil : all)
            context = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
            context.persistentStoreCoordinator = coordinator
        }

        @discardableResult
        func insert(_ entity: String, _ values: [String: Any]) -> NSManagedObject {
            let object = NSEntityDescription.insertNewObject(forEntityName: entity, into: context)
            for (key, value) in values { object.setValue(value, forKey: key) }
            return object
        }

        func history(_ request: NSPersistentHistoryChangeRequest) throws -> Any? {
            try #require(try context.execute(request) as? NSPersistentHistoryResult).result
        }

        func transactions(after token: NSPersistentHistoryToken? = nil) throws -> [NSPersistentHistoryTransaction] {
            try #require(try history(.fetchHistory(after: token)) as? [NSPersistentHistoryTransaction])
        }
    }

    private static func changes(_ transaction: NSPersistentHistoryTransaction) -> [String] {
        (transaction.changes ?? []).map { change in
            let kind = ["insert", "update", "delete"][change.changeType.rawValue]
            let properties = change.updatedProperties.map { " " + $0.map(\.name).sorted().joined(separator: ",") } ?? ""
            return "\(kind) \(change.changedObjectID.entity.name!)\(properties)"
        }
    }

    // MARK: Recording

    @Test(arguments: StorePlaces.tableStores) func eachSaveBecomesOneTransactionWithItsChangesAuthorAndContextName(kind: StoreKind) throws {
        let places = StorePlaces(kind)
        let stack = try Stack(at: try places.url("History"), type: places.type)
        stack.context.transactionAuthor = "importer"
        stack.context.name = "import context"
        let ada = stack.insert("Person", ["name": "Ada", "age": 36])
        let rex = stack.insert("Pet", ["name": "Rex", "owner": ada])
        try stack.context.save()
        stack.context.transactionAuthor = "editor"
        ada.setValue(37, forKey: "age")
        rex.setValue("Max", forKey: "name")
        try stack.context.save()
        stack.context.delete(rex)
        try stack.context.save()

        let transactions = try stack.transactions()
        #expect(transactions.map(\.transactionNumber) == [1, 2, 3])
        #expect(transactions.map(\.author) == ["importer", "editor", "editor"])
        #expect(transactions.allSatisfy { $0.contextName == "import context" && $0.storeID == stack.store.identifier })
        #expect(transactions.allSatisfy { $0.processID == ProcessInfo.processInfo.processName && !$0.bundleID.isEmpty })
        #expect(Self.changes(transactions[0]).sorted() == ["insert Person", "insert Pet"])
        #expect(Self.changes(transactions[1]).sorted() == ["update Person age", "update Pet name"])
        // Deleting Rex empties Ada's pets: she is updated too (both sides of the inverse change).
        #expect(Self.changes(transactions[2]).sorted() == ["delete Pet", "update Person pets"])
        #expect(transactions[2].changes?.first { $0.changeType == .delete }?.changedObjectID == rex.objectID)
        #expect(transactions[0].timestamp <= transactions[2].timestamp)
        // A change knows its transaction.
        #expect(transactions[1].changes?.first?.transaction === transactions[1])
    }

    @Test(arguments: StorePlaces.tableStores) func theTablesHoldWhatCoreDataWouldWrite(kind: StoreKind) throws {
        let places = StorePlaces(kind)
        let url = try places.url("History")
        let stack = try Stack(at: url, type: places.type)
        stack.context.transactionAuthor = "app"
        let ada = stack.insert("Person", ["name": "Ada"])
        try stack.context.save()
        ada.setValue("Ada L.", forKey: "name")
        try stack.context.save()

        let raw = try places.raw("History")
        let keys = try raw.rows("SELECT Z_ENT, Z_NAME, Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT > 16000 ORDER BY Z_ENT")
        // Strings: the author, the bundle and the process (one string when both are the executable's name).
        let strings = try raw.scalar("SELECT count(*) FROM ATRANSACTIONSTRING")
        #expect(keys == [[16001, "CHANGE", 2], [16002, "TRANSACTION", 2], [16003, "TRANSACTIONSTRING", strings]])
        let personNumber = try raw.scalar("SELECT Z_ENT FROM Z_PRIMARYKEY WHERE Z_NAME = 'Person'")
        #expect(try raw.rows("SELECT Z_PK, Z_ENT, ZCHANGETYPE, ZENTITY, ZENTITYPK, ZTRANSACTIONID FROM ACHANGE ORDER BY Z_PK")
                == [[1, 16001, 0, personNumber, 1, 1], [2, 16001, 1, personNumber, 1, 2]])
        #expect(try raw.scalar("SELECT ZCOLUMNS FROM ACHANGE WHERE Z_PK = 1") == .null)
        #expect(try raw.scalar("SELECT ZCOLUMNS FROM ACHANGE WHERE Z_PK = 2").dataValue != nil)
        let author = try raw.scalar("SELECT s.ZNAME FROM ATRANSACTION t JOIN ATRANSACTIONSTRING s ON s.Z_PK = t.ZAUTHORTS WHERE t.Z_PK = 2")
        #expect(author == "app")
        // Each string is stored once, however many transactions name it.
        #expect(try raw.scalar("SELECT count(*) FROM ATRANSACTIONSTRING WHERE ZNAME = 'app'") == 1)
    }

    /// A save of more objects than one statement writes (100 rows each): every object gets one
    /// change, keyed in order.
    @Test(arguments: StorePlaces.tableStores) func aLargeSaveRecordsEveryObjectOnce(kind: StoreKind) throws {
        let places = StorePlaces(kind)
        let url = try places.url("History")
        let stack = try Stack(at: url, type: places.type)
        var people: [NSManagedObject] = []
        for index in 0..<150 {
            let person = stack.insert("Person", ["name": "P\(index)"])
            people.append(person)
            if index % 50 == 0 { stack.insert("Pet", ["name": "Pet \(index)", "owner": person]) }
        }
        try stack.context.save()
        for person in people.prefix(40) { person.setValue(50, forKey: "age") }
        try stack.context.save()

        let raw = try places.raw("History")
        let personNumber = try raw.scalar("SELECT Z_ENT FROM Z_PRIMARYKEY WHERE Z_NAME = 'Person'")
        #expect(try raw.scalar("SELECT count(*) FROM ACHANGE WHERE ZTRANSACTIONID = 1") == 153)
        #expect(try raw.rows("SELECT count(DISTINCT ZENTITYPK), min(ZENTITYPK), max(ZENTITYPK) FROM ACHANGE WHERE ZTRANSACTIONID = 1 AND ZENTITY = ?",
                             [personNumber]) == [[150, 1, 150]])
        #expect(try raw.rows("SELECT min(Z_PK), max(Z_PK), count(*) FROM ACHANGE") == [[1, 193, 193]])
        let transactions = try stack.transactions()
        #expect(Set(transactions[0].changes!.map(\.changedObjectID)).count == 153)
        #expect(transactions[1].changes?.count == 40)
        #expect(Set(transactions[1].changes!.map(\.changedObjectID)) == Set(people.prefix(40).map(\.objectID)))
    }

    @Test(arguments: StorePlaces.tableStores) func batchRequestsAreRecorded(kind: StoreKind) throws {
        let places = StorePlaces(kind)
        let stack = try Stack(at: try places.url("History"), type: places.type)
        for name in ["Ada", "Bo"] { stack.insert("Person", ["name": name]) }
        try stack.context.save()
        stack.context.transactionAuthor = "cleanup"
        let update = NSBatchUpdateRequest(entityName: "Person")
        update.propertiesToUpdate = ["age": 50]
        try stack.context.execute(update)
        try stack.context.execute(NSBatchDeleteRequest(fetchRequest: NSFetchRequest(entityName: "Person")))

        let transactions = try stack.transactions()
        #expect(transactions.count == 3)
        #expect(transactions[1].author == "cleanup")
        #expect(Self.changes(transactions[1]) == ["update Person age", "update Person age"])
        #expect(Self.changes(transactions[2]) == ["delete Person", "delete Person"])
    }

    @Test(arguments: StorePlaces.tableStores) func aSaveWithoutChangesRecordsNothing(kind: StoreKind) throws {
        let places = StorePlaces(kind)
        let stack = try Stack(at: try places.url("History"), type: places.type)
        try stack.context.save()
        #expect(try stack.transactions().isEmpty)
        #expect(stack.coordinator.currentPersistentHistoryToken(fromStores: nil)?
            .transactionNumber(forStoreWithIdentifier: stack.store.identifier) == 0)
    }

    @Test(arguments: StorePlaces.tableStores) func aDeletionKeepsTheValuesOfAttributesThatPreserveThem(kind: StoreKind) throws {
        let model = TestModel.make()
        let person = try #require(model.entitiesByName["Person"])
        for name in ["name", "email"] { (person.attributesByName[name])?.preservesValueInHistoryOnDeletion = true }
        let places = StorePlaces(kind)
        let url = try places.url("History")
        let stack = try Stack(at: url, type: places.type, model: model)
        let ada = stack.insert("Person", ["name": "Ada", "email": "ada@example.com", "age": 36])
        let bo = stack.insert("Person", ["name": "Bo"])
        try stack.context.save()
        stack.context.delete(ada)
        stack.context.delete(bo)
        try stack.context.save()
        // A batch deletion keeps them too.
        stack.insert("Person", ["name": "Cy", "email": "cy@example.com"])
        try stack.context.save()
        try stack.context.execute(NSBatchDeleteRequest(fetchRequest: NSFetchRequest(entityName: "Person")))

        let transactions = try Stack(at: url, type: places.type, model: model).transactions()
        let deletions = transactions.flatMap { $0.changes ?? [] }.filter { $0.changeType == .delete }
        let tombstones = deletions.map { change in
            (change.tombstone ?? [:]).reduce(into: [String: String]()) { $0[$1.key as! String] = $1.value as? String }
        }.sorted { ($0["name"] ?? "") < ($1["name"] ?? "") }
        #expect(tombstones == [["name": "Ada", "email": "ada@example.com"], ["name": "Bo"], ["name": "Cy", "email": "cy@example.com"]])
        // Other changes have none.
        #expect(transactions[0].changes?.allSatisfy { $0.tombstone == nil } == true)
        // In Core Data's layout: one ZTOMBSTONE<n> column per preserving attribute, by name (the
        // PostgreSQL store keeps each value with its type, PostgresTombstoneCoding).
        let raw = try places.raw("History")
        if kind == .sqlite {
            #expect(try raw.rows("SELECT ZTOMBSTONE0, ZTOMBSTONE1 FROM ACHANGE WHERE ZCHANGETYPE = 2 AND ZTOMBSTONE1 = 'Cy'")
                    == [["cy@example.com", "Cy"]])
        } else {
            #expect(try raw.scalar("SELECT count(*) FROM ACHANGE WHERE ZCHANGETYPE = 2 AND ZTOMBSTONE1 IS NOT NULL") == 3)
        }
    }

    // MARK: Reading

    @Test(arguments: StorePlaces.tableStores) func tokensMarkWhereAReaderLeftOffAcrossARelaunch(kind: StoreKind) throws {
        let places = StorePlaces(kind)
        let url = try places.url("History")
        var stack = try Stack(at: url, type: places.type)
        stack.insert("Person", ["name": "Ada"])
        try stack.context.save()
        let seen = try #require(try stack.transactions().last?.token)
        #expect(seen == stack.coordinator.currentPersistentHistoryToken(fromStores: nil))
        let json = try JSONEncoder().encode(seen)
        let archived = try NSKeyedArchiver.archivedData(withRootObject: seen, requiringSecureCoding: true)
        stack.insert("Person", ["name": "Bo"])
        try stack.context.save()

        stack = try Stack(at: url, type: places.type)
        let fromJSON = try JSONDecoder().decode(NSPersistentHistoryToken.self, from: json)
        let unarchived = try #require(try NSKeyedUnarchiver.unarchivedObject(ofClass: NSPersistentHistoryToken.self, from: archived))
        #expect(fromJSON == seen && unarchived == seen)
        let later = try stack.transactions(after: fromJSON)
        #expect(later.map(\.transactionNumber) == [2])
        #expect(seen < later[0].token)
        #expect(try stack.transactions(after: later[0].token).isEmpty)
    }

    @Test(arguments: StorePlaces.tableStores) func historyCanStartAfterADateOrATransaction(kind: StoreKind) throws {
        let places = StorePlaces(kind)
        let stack = try Stack(at: try places.url("History"), type: places.type)
        stack.insert("Person", ["name": "Ada"])
        try stack.context.save()
        let first = try #require(try stack.transactions().first)
        stack.insert("Person", ["name": "Bo"])
        try stack.context.save()
        let afterFirst = try #require(try stack.history(.fetchHistory(after: first)) as? [NSPersistentHistoryTransaction])
        #expect(afterFirst.map(\.transactionNumber) == [2])
        let sinceLongAgo = try #require(try stack.history(.fetchHistory(after: Date.distantPast)) as? [NSPersistentHistoryTransaction])
        #expect(sinceLongAgo.count == 2)
        let fromNow = try #require(try stack.history(.fetchHistory(after: Date.distantFuture)) as? [NSPersistentHistoryTransaction])
        #expect(fromNow.isEmpty)
    }

    @Test(arguments: StorePlaces.tableStores) func everyResultType(kind: StoreKind) throws {
        let places = StorePlaces(kind)
        let stack = try Stack(at: try places.url("History"), type: places.type)
        stack.context.transactionAuthor = "me"
        let ada = stack.insert("Person", ["name": "Ada"])
        stack.insert("Person", ["name": "Bo"])
        try stack.context.save()
        ada.setValue(40, forKey: "age")
        try stack.context.save()

        func run(_ type: NSPersistentHistoryResultType) throws -> Any? {
            let request = NSPersistentHistoryChangeRequest.fetchHistory(after: nil as NSPersistentHistoryToken?)
            request.resultType = type
            let result = try #require(try stack.context.execute(request) as? NSPersistentHistoryResult)
            #expect(result.resultType == type)
            return result.result
        }
        #expect(try run(.statusOnly) as? Bool == true)
        #expect(try run(.count) as? Int == 3)
        #expect(Set(try #require(try run(.objectIDs) as? [NSManagedObjectID])) == Set(try stack.context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Person")).map(\.objectID)))
        let only = try #require(try run(.transactionsOnly) as? [NSPersistentHistoryTransaction])
        #expect(only.count == 2 && only.allSatisfy { $0.changes == nil })
        let changes = try #require(try run(.changesOnly) as? [NSPersistentHistoryChange])
        #expect(changes.map(\.changeType) == [.insert, .insert, .update])
        // A change outlives the transaction value it came in, and still names its transaction.
        #expect(changes[2].transaction?.transactionNumber == 2 && changes[2].transaction?.author == "me")
        #expect(changes[2].updatedProperties?.map(\.name) == ["age"])
        let both = try #require(try run(.transactionsAndChanges) as? [NSPersistentHistoryTransaction])
        #expect(both.map { $0.changes?.count } == [2, 1])
        // The default is transactions with their changes.
        #expect(NSPersistentHistoryChangeRequest.fetchHistory(after: Date()).resultType == .transactionsAndChanges)
    }

    @Test(arguments: StorePlaces.tableStores) func aFetchRequestFiltersTransactionsOrChanges(kind: StoreKind) throws {
        let places = StorePlaces(kind)
        let stack = try Stack(at: try places.url("History"), type: places.type)
        stack.context.transactionAuthor = "app"
        let ada = stack.insert("Person", ["name": "Ada"])
        try stack.context.save()
        stack.context.transactionAuthor = "widget"
        stack.insert("Pet", ["name": "Rex", "owner": ada])
        try stack.context.save()

        let byAuthor = try #require(NSPersistentHistoryTransaction.fetchRequest)
        byAuthor.predicate = NSPredicate(format: "author != %@", "app")
        let others = try #require(try stack.history(.fetchHistory(withFetch: byAuthor)) as? [NSPersistentHistoryTransaction])
        #expect(others.map(\.author) == ["widget"])
        byAuthor.predicate = NSPredicate(format: "author == %@", "nobody")
        #expect((try stack.history(.fetchHistory(withFetch: byAuthor)) as? [NSPersistentHistoryTransaction])?.isEmpty == true)

        let pets = try #require(NSPersistentHistoryChange.fetchRequest)
        pets.predicate = NSPredicate(format: "changedEntity == %@ AND changeType == %d", "Pet", NSPersistentHistoryChangeType.insert.rawValue)
        let withPets = try #require(try stack.history(.fetchHistory(withFetch: pets)) as? [NSPersistentHistoryTransaction])
        #expect(withPets.map(\.transactionNumber) == [2])
        #expect(Self.changes(withPets[0]) == ["insert Pet"])  // the Person update of transaction 2 is left out
        #expect(NSPersistentHistoryTransaction.entityDescription(with: stack.context)?.attributesByName["author"] != nil)
    }

    @Test(arguments: StorePlaces.tableStores) func aSecondCoordinatorReadsAndMergesWhatTheFirstWrote(kind: StoreKind) throws {
        let places = StorePlaces(kind)
        let url = try places.url("History")
        let writer = try Stack(at: url, type: places.type)
        let reader = try Stack(at: url, type: places.type)
        let ada = writer.insert("Person", ["name": "Ada"])
        try writer.context.save()
        let readAda = try #require(try reader.context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Person")).first)
        #expect(readAda.value(forKey: "age") as? Int64 == 0)
        ada.setValue(41, forKey: "age")
        try writer.context.save()

        let transactions = try reader.transactions()
        #expect(transactions.count == 2)
        // The change names the object in the reader's own store.
        let change = try #require(transactions[1].changes?.first)
        #expect(change.changedObjectID == readAda.objectID)
        reader.context.mergeChanges(fromContextDidSave: transactions[1].objectIDNotification())
        #expect(readAda.value(forKey: "age") as? Int64 == 41)
    }

    // MARK: Deleting

    @Test(arguments: StorePlaces.tableStores) func deletingHistoryBeforeATokenExpiresOlderTokens(kind: StoreKind) throws {
        let places = StorePlaces(kind)
        let stack = try Stack(at: try places.url("History"), type: places.type)
        var tokens: [NSPersistentHistoryToken] = []
        for name in ["Ada", "Bo", "Cy"] {
            stack.insert("Person", ["name": name])
            try stack.context.save()
            tokens.append(try #require(stack.coordinator.currentPersistentHistoryToken(fromStores: nil)))
        }
        let delete = NSPersistentHistoryChangeRequest.deleteHistory(before: tokens[1])
        delete.resultType = .count
        #expect(try stack.history(delete) as? Int == 2)
        #expect(try stack.transactions().map(\.transactionNumber) == [3])
        #expect(try stack.transactions(after: tokens[1]).map(\.transactionNumber) == [3])
        let expired = #expect(throws: CocoaError.self) { try stack.transactions(after: tokens[0]) }
        #expect(expired?.code.rawValue == NSPersistentHistoryTokenExpiredError)

        // Deleting before a date: everything written before now.
        #expect(try stack.history(.deleteHistory(before: Date())) as? Bool == true)
        #expect(try stack.transactions().isEmpty)
        // The data stays.
        #expect(try stack.context.count(for: NSFetchRequest<NSManagedObject>(entityName: "Person")) == 3)
    }

    // MARK: Retention

    private static func retainingStack(at url: URL, type: String, _ retention: PersistentHistoryRetention) throws -> Stack {
        try Stack(at: url, type: type, options: [OCDPersistentHistoryRetentionOption: retention])
    }

    @Test(arguments: StorePlaces.tableStores) func aRetentionOfTransactionsKeepsTheNewest(kind: StoreKind) throws {
        let places = StorePlaces(kind)
        // Set through a store description, as every option.
        let description = NSPersistentStoreDescription(url: try places.url("History"))
        description.setOption(PersistentHistoryRetention.keepingTransactions(2), forKey: OCDPersistentHistoryRetentionOption)
        let stack = try Stack(at: try places.url("History"), type: places.type, options: description.storeOptions)
        for name in ["Ada", "Bo", "Cy", "Di"] {
            stack.insert("Person", ["name": name])
            try stack.context.save()
        }
        #expect(try stack.transactions().map(\.transactionNumber) == [3, 4])
        #expect(try stack.context.count(for: NSFetchRequest<NSManagedObject>(entityName: "Person")) == 4)
    }

    @Test(arguments: StorePlaces.tableStores) func aRetentionOfDaysKeepsRecentTransactions(kind: StoreKind) throws {
        let places = StorePlaces(kind)
        let url = try places.url("History")
        do {
            let old = try Stack(at: url, type: places.type)
            old.insert("Person", ["name": "Ada"])
            try old.context.save()
        }
        // Transaction 1 was written ten days ago.
        let raw = try places.raw("History")
        try raw.run("UPDATE ATRANSACTION SET ZTIMESTAMP = ZTIMESTAMP - 10 * 86400 WHERE Z_PK = 1")
        let stack = try Self.retainingStack(at: url, type: places.type, .keepingDays(7))
        stack.insert("Person", ["name": "Bo"])
        try stack.context.save()
        #expect(try stack.transactions().map(\.transactionNumber) == [2])
    }

    @Test(arguments: StorePlaces.tableStores) func whatEveryConsumerReadIsDeleted(kind: StoreKind) throws {
        let places = StorePlaces(kind)
        let url = try places.url("History")
        let stack = try Self.retainingStack(at: url, type: places.type, .deletingWhatEveryConsumerRead)
        for name in ["Ada", "Bo", "Cy"] {
            stack.insert("Person", ["name": name])
            try stack.context.save()
        }
        // No consumer yet: everything stays.
        #expect(try stack.transactions().count == 3)
        let transactions = try stack.transactions()
        try stack.coordinator.markHistoryRead(through: transactions[2].token, byConsumer: "indexer")
        // Another process's consumer, which has read less.
        let other = try Stack(at: url, type: places.type)
        try other.coordinator.markHistoryRead(through: transactions[0].token, byConsumer: "widget")
        stack.insert("Person", ["name": "Di"])
        try stack.context.save()
        #expect(try stack.transactions().map(\.transactionNumber) == [2, 3, 4])
        #expect(try stack.coordinator.historyReadByConsumers(in: stack.store).mapValues { $0.transactionNumber(forStoreWithIdentifier: stack.store.identifier) }
                == ["indexer": 3, "widget": 1])
        try other.coordinator.markHistoryRead(through: transactions[2].token, byConsumer: "widget")
        stack.insert("Person", ["name": "Ed"])
        try stack.context.save()
        #expect(try stack.transactions().map(\.transactionNumber) == [4, 5])
    }

    // MARK: Bad input and other stores

    @Test(arguments: StorePlaces.tableStores) func aTokenOfAnotherStoreIsRefused(kind: StoreKind) throws {
        let places = StorePlaces(kind)
        let one = try Stack(at: try places.url("One"), type: places.type)
        let two = try Stack(at: try places.url("Two"), type: places.type)
        one.insert("Person", ["name": "Ada"])
        try one.context.save()
        let foreign = try #require(one.coordinator.currentPersistentHistoryToken(fromStores: nil))
        let error = #expect(throws: CocoaError.self) { try two.transactions(after: foreign) }
        #expect(error?.code.rawValue == NSPersistentHistoryTokenExpiredError)
    }

    /// A store whose history began again (a migrated or restored file keeps its identifier):
    /// a token past its last transaction would otherwise skip what comes next silently.
    @Test(arguments: StorePlaces.tableStores) func aTokenPastTheStoresHistoryIsExpired(kind: StoreKind) throws {
        let places = StorePlaces(kind)
        let stack = try Stack(at: try places.url("History"), type: places.type)
        stack.insert("Person", ["name": "Ada"])
        try stack.context.save()
        let ahead = NSPersistentHistoryToken(transactionNumbers: [stack.store.identifier: 500])
        let error = #expect(throws: CocoaError.self) { try stack.transactions(after: ahead) }
        #expect(error?.code.rawValue == NSPersistentHistoryTokenExpiredError)
    }

    /// A migration through a mapping model writes a new store of new objects: its history
    /// starts again, and a token of the old history expires rather than naming transactions of
    /// the new one. (A lightweight migration keeps the history: see LightweightMigrationTests.)
    @Test func aMigrationThroughAMappingModelStartsTheHistoryAgain() throws {
        let directory = TemporaryDirectory()
        let (bundle, _) = try CompiledMappingModelTests.compiledProject(in: directory)
        let url = directory.file("People.sqlite")
        let v1 = try XcodeMappingModelTests.version(bundle, "People")
        let old = try Stack(at: url, model: v1)
        for index in 0..<3 {
            old.insert("Person", ["name": "Ada\(index) Lovelace"])
            try old.context.save()
        }
        let token = try #require(old.coordinator.currentPersistentHistoryToken(fromStores: nil))
        #expect(try old.transactions().count == 3)
        try old.coordinator.remove(old.store)

        try bundle.makeCurrent("People 2")
        let migrated = try Stack(at: url, model: try bundle.model(),
                                 options: [NSMigratePersistentStoresAutomaticallyOption: true, NSInferMappingModelAutomaticallyOption: false])
        #expect(try migrated.context.count(for: NSFetchRequest<NSManagedObject>(entityName: "Person")) == 3)
        // Nothing of the migration's own saves, which copied the objects.
        #expect(try migrated.transactions().isEmpty)
        let error = #expect(throws: CocoaError.self) { try migrated.transactions(after: token) }
        #expect(error?.code.rawValue == NSPersistentHistoryTokenExpiredError)
        // What the new store records from now on is read as usual.
        let next = try #require(migrated.coordinator.currentPersistentHistoryToken(fromStores: nil))
        for index in 0..<5 {
            migrated.insert("Person", ["firstName": "Grace\(index)"])
            try migrated.context.save()
        }
        let transactions = try migrated.transactions(after: next)
        #expect(transactions.count == 5)
        // Numbered after the old history (3 transactions) and the one left out for the migration,
        // so that the old token stays expired however many transactions follow.
        #expect(transactions.first?.transactionNumber == 5)
        #expect(throws: CocoaError.self) { try migrated.transactions(after: token) }
    }

    /// A store that claims tracking but whose history tables were dropped or damaged: a
    /// missing table is made again; a damaged one fails the request and the save with an
    /// error, the context and the store left as they were.
    @Test func damagedHistoryTablesGiveErrorsNotCrashes() throws {
        let directory = TemporaryDirectory()
        let url = directory.file("History.sqlite")
        do {
            let stack = try Stack(at: url)
            stack.insert("Person", ["name": "Ada"])
            try stack.context.save()
        }
        let raw = try SQLiteConnection(path: url.path)
        try raw.execute("DROP TABLE ACHANGE")
        do {
            let stack = try Stack(at: url)
            #expect(try stack.transactions().map { $0.changes?.count } == [0])
            stack.insert("Person", ["name": "Bo"])
            try stack.context.save()
            #expect(try stack.transactions().last?.changes?.count == 1)
        }
        // A transaction table without its timestamp (made anew: DROP COLUMN needs SQLite 3.35).
        try raw.execute("""
            ALTER TABLE ATRANSACTION RENAME TO ATRANSACTION_OLD;
            CREATE TABLE ATRANSACTION (Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZAUTHORTS INTEGER);
            INSERT INTO ATRANSACTION SELECT Z_PK, Z_ENT, Z_OPT, ZAUTHORTS FROM ATRANSACTION_OLD;
            DROP TABLE ATRANSACTION_OLD
            """)
        let stack = try Stack(at: url)
        #expect(throws: CocoaError.self) { try stack.transactions() }
        stack.insert("Person", ["name": "Cy"])
        #expect(throws: CocoaError.self) { try stack.context.save() }
        #expect(stack.context.hasChanges)
        #expect(try raw.scalar("SELECT count(*) FROM ZPERSON") == 2)
    }

    @Test(arguments: StorePlaces.tableStores) func aStoreWithoutTrackingAnswersNoHistoryRequest(kind: StoreKind) throws {
        let places = StorePlaces(kind)
        let stack = try Stack(at: try places.url("Plain"), type: places.type, tracking: false)
        stack.insert("Person", ["name": "Ada"])
        try stack.context.save()
        let error = #expect(throws: CocoaError.self) { try stack.transactions() }
        #expect(error?.code.rawValue == NSPersistentStoreUnsupportedRequestTypeError)
        #expect(stack.coordinator.currentPersistentHistoryToken(fromStores: nil) == nil)
    }

    @Test(arguments: StorePlaces.tableStores) func aTrackedStoreOpenedWithoutTrackingIsReadOnly(kind: StoreKind) throws {
        let places = StorePlaces(kind)
        let url = try places.url("History")
        do {
            let stack = try Stack(at: url, type: places.type)
            stack.insert("Person", ["name": "Ada"])
            try stack.context.save()
        }
        let plain = try Stack(at: url, type: places.type, tracking: false)
        #expect(plain.store.isReadOnly)
        #expect(try plain.context.count(for: NSFetchRequest<NSManagedObject>(entityName: "Person")) == 1)
        plain.insert("Person", ["name": "Bo"])
        #expect(throws: CocoaError.self) { try plain.context.save() }
    }

    // MARK: Remote changes

    /// Collects `.NSPersistentStoreRemoteChange` notifications of one coordinator.
    final class RemoteChanges: @unchecked Sendable {
        // @unchecked Sendable: `notes` is behind `lock`.
        private let lock = NSLock()
        private var notes: [Notification] = []
        private var observer: NSObjectProtocol?

        init(of coordinator: NSPersistentStoreCoordinator) {
            observer = NotificationCenter.default.addObserver(forName: .NSPersistentStoreRemoteChange, object: coordinator, queue: nil) {
                [weak self] note in
                guard let self else { return }
                self.lock.withLock { self.notes.append(note) }
            }
        }

        deinit { if let observer { NotificationCenter.default.removeObserver(observer) } }

        var received: [Notification] { lock.withLock { notes } }

        /// Waits up to `seconds` for a notification whose token has seen `transaction`.
        func wait(forTransaction transaction: Int64, seconds: Double = 10) -> Notification? {
            let deadline = Date().addingTimeInterval(seconds)
            while Date() < deadline {
                if let note = received.last(where: { note in
                    let token = note.userInfo?[NSPersistentHistoryTokenKey] as? NSPersistentHistoryToken
                    return token?.transactionNumbers.values.contains { $0 >= transaction } == true
                }) { return note }
                Thread.sleep(forTimeInterval: 0.01)
            }
            return nil
        }
    }

    private static func watchingStack(at url: URL, type: String = NSSQLiteStoreType) throws -> Stack {
        try Stack(at: url, type: type, options: [NSPersistentStoreRemoteChangeNotificationPostOptionKey: true])
    }

    @Test(arguments: StorePlaces.tableStores) func anotherCoordinatorsSaveIsAnnouncedAndOurOwnIsNot(kind: StoreKind) throws {
        let places = StorePlaces(kind)
        let url = try places.url("History")
        let watcher = try Self.watchingStack(at: url, type: places.type)
        let changes = RemoteChanges(of: watcher.coordinator)
        watcher.insert("Person", ["name": "Own"])
        try watcher.context.save()
        // Several checks later, the store's own save has not been announced.
        Thread.sleep(forTimeInterval: 0.25)
        #expect(changes.received.isEmpty)
        let other = try Stack(at: url, type: places.type)
        other.context.transactionAuthor = "other"
        other.insert("Person", ["name": "Theirs"])
        try other.context.save()

        let note = try #require(changes.wait(forTransaction: 2))
        #expect(note.userInfo?[NSPersistentStoreURLKey] as? URL == url)
        #expect(note.userInfo?[NSStoreUUIDKey] as? String == watcher.store.identifier)
        let token = try #require(note.userInfo?[NSPersistentHistoryTokenKey] as? NSPersistentHistoryToken)
        // Only the other coordinator's transaction was announced; reading history from the last
        // token seen before it finds it.
        Thread.sleep(forTimeInterval: 0.2)
        #expect(changes.received.count == 1)
        #expect(token.transactionNumber(forStoreWithIdentifier: watcher.store.identifier) == 2)
        let own = try #require(try watcher.transactions().first?.token)
        #expect(try watcher.transactions(after: own).map(\.author) == ["other"])
    }

    @Test func anotherProcesssSavesAreAnnounced() throws {
        let directory = TemporaryDirectory()
        let url = directory.file("History.sqlite")
        let watcher = try Self.watchingStack(at: url)
        let changes = RemoteChanges(of: watcher.coordinator)
        let result = try OCD.run(["history-writer", url.path, "Person", "name", "3"], executable: OCD.product("ocd-crashtest"))
        #expect(result.status == 0, "\(result.output)\(result.error)")
        #expect(changes.wait(forTransaction: 3) != nil)
        let names = try watcher.transactions().flatMap { $0.changes ?? [] }.map {
            try watcher.context.existingObject(with: $0.changedObjectID).value(forKey: "name") as? String
        }
        #expect(names == ["remote 0", "remote 1", "remote 2"])
        #expect(try watcher.transactions().allSatisfy { $0.author == "history-writer" && $0.processID == "ocd-crashtest" })
    }

    // MARK: ocd history

    @Test func ocdHistoryPrintsTransactionsAfterANumberAndByAuthor() throws {
        let directory = TemporaryDirectory()
        let url = directory.file("History.sqlite")
        do {
            let stack = try Stack(at: url)
            stack.context.transactionAuthor = "importer"
            let ada = stack.insert("Person", ["name": "Ada"])
            try stack.context.save()
            stack.context.transactionAuthor = "editor"
            ada.setValue(37, forKey: "age")
            try stack.context.save()
        }
        let all = try OCD.run(["history", url.path, "--json"])
        #expect(all.status == 0, "\(all.error)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(all.output.utf8)) as? [String: Any])
        let transactions = try #require(json["transactions"] as? [[String: Any]])
        #expect(transactions.map { $0["number"] as? Int } == [1, 2])
        #expect(transactions.map { $0["author"] as? String } == ["importer", "editor"])
        let update = try #require((transactions[1]["changes"] as? [[String: Any]])?.first)
        #expect(update["type"] as? String == "update" && update["entity"] as? String == "Person")
        #expect(update["updatedProperties"] as? [String] == ["age"])

        let beyond = try OCD.run(["history", url.path, "--after", "9"])
        #expect(beyond.status == 0 && beyond.output == "No transactions.\n")
        let after = try OCD.run(["history", url.path, "--after", "1"])
        #expect(after.status == 0)
        #expect(after.output.hasPrefix("Transaction 2 at ") && after.output.contains("by editor"))
        #expect(!after.output.contains("Transaction 1 "))
        let byAuthor = try OCD.run(["history", url.path, "--author", "importer", "--json"])
        let authored = try #require(try JSONSerialization.jsonObject(with: Data(byAuthor.output.utf8)) as? [String: Any])
        #expect((authored["transactions"] as? [[String: Any]])?.count == 1)
        let bad = try OCD.run(["history", url.path, "--after", "yesterday"])
        #expect(bad.status == 2 && bad.error.contains("--after takes a transaction number or an ISO 8601 date"))
    }

    @Test(.needsCorpus) func ocdHistoryReadsAppleWrittenHistory() throws {
        let directory = TemporaryDirectory()
        let url = try Corpus.copyStore("stores/alemar11__CoreDataPlus/Tests__Resources__SampleModel2__Fixtures__SampleModel2_V1.sqlite",
                                       to: directory)
        let result = try OCD.run(["history", url.path])
        #expect(result.status == 0, "\(result.error)")
        #expect(result.output.hasPrefix("Transaction 1 at 2024-"), "\(result.output.prefix(200))")
        #expect(result.output.contains("xctest, com.apple.dt.xctest.tool): 5468 changes"))
    }

    // MARK: Apple's history

    /// CoreDataPlus's SampleModel2_V1 store holds one transaction of 5,468 insertions that
    /// Apple's Core Data recorded (COREDATA-FORMAT.md §2): read change by change against its rows.
    @Test(.needsCorpus) func historyAppleWroteReadsChangeByChange() throws {
        for name in ["ContentTransformer", "CoverTransformer"] {
            ValueTransformer.setValueTransformer(PassThroughTransformer(), forName: NSValueTransformerName(name))
        }
        let directory = TemporaryDirectory()
        let url = try Corpus.copyStore("stores/alemar11__CoreDataPlus/Tests__Resources__SampleModel2__Fixtures__SampleModel2_V1.sqlite",
                                       to: directory)
        let model = try NSPersistentStoreCoordinator.storedModelForPersistentStore(ofType: NSSQLiteStoreType, at: url).model
        let stack = try Stack(at: url, model: model)
        let transactions = try stack.transactions()
        #expect(transactions.count == 1)
        let transaction = try #require(transactions.first)
        #expect(transaction.bundleID == "com.apple.dt.xctest.tool")
        #expect(transaction.processID == "xctest")
        #expect(transaction.author == nil && transaction.contextName == nil)
        #expect(abs(transaction.timestamp.timeIntervalSinceReferenceDate - 737057647.288022) < 0.001)

        let raw = try SQLiteConnection(path: url.path)
        let rows = try raw.rows("SELECT p.Z_NAME, c.ZENTITYPK, c.ZCHANGETYPE FROM ACHANGE c JOIN Z_PRIMARYKEY p ON p.Z_ENT = c.ZENTITY ORDER BY c.Z_PK")
        let changes = try #require(transaction.changes)
        #expect(changes.count == 5468 && rows.count == 5468)
        for (change, row) in zip(changes, rows) {
            #expect(change.changedObjectID.entity.name == row[0].stringValue)
            #expect(change.changedObjectID.primaryKey == row[1].int64Value)
            #expect(change.changeType.rawValue == Int(row[2].int64Value ?? -1))
        }
        // Every change names an object the store holds.
        let objects = try stack.context.existingObject(with: changes[0].changedObjectID)
        #expect(!objects.isDeleted)
    }
}
