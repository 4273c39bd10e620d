import Foundation
import OCDPostgres
import OCDSQL
import Testing
import OpenCoreData
@testable import OpenCoreDataCore
import OpenCoreDataPostgres

/// Lightweight migration of the PostgreSQL store: the next model version opens a store on the
/// server with its data, migrated in place as DDL in the transaction that opens it; what cannot
/// be migrated fails and leaves the store as it was (LightweightMigrationTests' versions of the
/// journal model, COREDATA-SEMANTICS.md: inference applies when migration is also on).
@Suite(.needsPostgres) struct PostgresMigrationTests {
    typealias Journal = LightweightMigrationTests

    /// Every row of every table of the store's schema, for comparing before and after.
    private static func contents(of schema: PostgresTestSchema) throws -> [String: [[SQLValue]]] {
        let connection = try schema.connect()
        let tables = try connection.query("SELECT tablename FROM pg_tables WHERE schemaname = current_schema() ORDER BY 1").rows
        var contents: [String: [[SQLValue]]] = [:]
        for table in tables.compactMap({ $0.first?.stringValue }) {
            contents[table] = try connection.query("SELECT * FROM \(table) ORDER BY 1").rows
        }
        return contents
    }

    @Test func theNextVersionOpensTheStoreWithItsData() throws {
        let directory = TemporaryDirectory()
        let schema = try PostgresTestSchema()
        defer { schema.drop() }
        let url = URL(string: schema.url)!
        let (bundle, _) = try Journal.version1Store(upgradingTo: Journal.entryV2, in: directory, at: url)
        let keysBefore = try schema.connect().query("SELECT max(Z_PK) FROM ZENTRY").int64(0, 0)

        try bundle.makeCurrent("Journal 2")
        let (container, error) = Journal.container(try bundle.model(), at: url)
        #expect(error == nil)
        let entries = try Journal.entries(in: container.viewContext)
        #expect(entries.count == 3)
        #expect(entries.map { $0.value(forKey: "text") as? String } == ["note 0", "note 1", nil])
        #expect(entries.map { ($0.value(forKey: "stars") as? NSNumber)?.doubleValue } == [3, 4, 1])
        #expect(entries.allSatisfy { $0.value(forKey: "mood") == nil })
        #expect(entries.allSatisfy { ($0.value(forKey: "pinned") as? Bool) == true })
        #expect(entries.map { $0.value(forKey: "time") as? Date } == (0..<3).map { Journal.start.addingTimeInterval(Double($0)) })
        let tags = (entries[0].value(forKey: "tags") as? Set<NSManagedObject>) ?? []
        #expect(Set(tags.compactMap { $0.value(forKey: "name") as? String }) == ["work", "home"])
        #expect((entries[0].value(forKey: "journal") as? NSManagedObject)?.value(forKey: "title") as? String == "Diary")
        #expect(entries[2].value(forKey: "journal") == nil)
        let place = NSEntityDescription.insertNewObject(forEntityName: "Place", into: container.viewContext)
        place.setValue("Home", forKey: "name")
        entries[2].setValue(place, forKey: "place")
        // Keys continue after the old ones: a new entry never takes an old entry's key.
        let entry = NSEntityDescription.insertNewObject(forEntityName: "Entry", into: container.viewContext)
        entry.setValue(Journal.start.addingTimeInterval(10), forKey: "time")
        try container.viewContext.save()
        #expect(try container.viewContext.obtainedKey(of: entry) > keysBefore)
        try container.persistentStoreCoordinator.remove(container.persistentStoreCoordinator.persistentStores[0])

        // Reopened without migrating, it fits version 2 as it is.
        let model = try bundle.model()
        let metadata = try NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: OCDPostgreSQLStoreType, at: url, options: nil)
        #expect(model.isConfiguration(withName: nil, compatibleWithStoreMetadata: metadata))
        let (reopened, reopenError) = Journal.container(model, at: url) { $0.shouldMigrateStoreAutomatically = false }
        #expect(reopenError == nil)
        let again = try Journal.entries(in: reopened.viewContext)
        #expect(again.count == 4)
        #expect((again[2].value(forKey: "place") as? NSManagedObject)?.value(forKey: "name") as? String == "Home")
        let raw = try schema.connect()
        #expect(try !raw.tableExists("ZSCRATCH") && !raw.tableExists("ZBOOK") && raw.tableExists("ZJOURNAL"))
        #expect(try raw.query("SELECT Z_NAME FROM Z_PRIMARYKEY ORDER BY Z_NAME").rows.compactMap { $0[0].stringValue }
                == ["Entry", "Journal", "Place", "Tag"])
        // Nothing of the migration is left behind.
        #expect(try raw.query("SELECT tablename FROM pg_tables WHERE schemaname = current_schema() AND tablename LIKE 'zocd_migrating%'").rowCount == 0)
    }

    /// A to-one becoming a many-to-many keeps its links: the key column fills the join table.
    @Test func aToOneBecomingAToManyKeepsItsLinks() throws {
        let directory = TemporaryDirectory()
        let schema = try PostgresTestSchema()
        defer { schema.drop() }
        let manyToMany = Journal.entryV1(
            book: "<relationship name=\"books\" optional=\"YES\" toMany=\"YES\" deletionRule=\"Nullify\" destinationEntity=\"Book\" inverseName=\"entries\" inverseEntity=\"Book\" elementID=\"book\"/>",
            bookEntries: "<relationship name=\"entries\" optional=\"YES\" toMany=\"YES\" deletionRule=\"Nullify\" ordered=\"YES\" destinationEntity=\"Entry\" inverseName=\"books\" inverseEntity=\"Entry\"/>")
        let (container, entries, books) = try Journal.booksOfEntries(afterMigratingTo: manyToMany, in: directory, at: URL(string: schema.url)!)
        let diary = try #require(books[0].first)
        let members = try #require(diary.value(forKey: "entries") as? NSOrderedSet)
        #expect(members.array.compactMap { ($0 as? NSManagedObject)?.value(forKey: "note") as? String } == ["note 0", "note 1"])
        let other = NSEntityDescription.insertNewObject(forEntityName: "Book", into: container.viewContext)
        other.setValue(NSOrderedSet(array: [entries[0]]), forKey: "entries")
        try container.viewContext.save()
        container.viewContext.reset()
        #expect((try Journal.entries(in: container.viewContext)[0].value(forKey: "books") as? Set<NSManagedObject>)?.count == 2)
    }

    /// A table whose attributes are only added (empty or with a default) or removed changes in
    /// place, without its rows being rewritten: the same table, its indexes and links kept.
    @Test func addedAndRemovedAttributesChangeTheTableInPlace() throws {
        let directory = TemporaryDirectory()
        let schema = try PostgresTestSchema()
        defer { schema.drop() }
        let url = URL(string: schema.url)!
        let changed = Journal.entryV1.replacingOccurrences(
            of: "<attribute name=\"draft\" optional=\"YES\" attributeType=\"String\"/>",
            with: """
                <attribute name="mood" optional="YES" attributeType="String"/>
                <attribute name="kept" attributeType="Boolean" defaultValueString="YES" usesScalarValueType="YES"/>
                <attribute name="label" attributeType="String" defaultValueString="it's new"/>
                """)
        let (bundle, _) = try Journal.version1Store(upgradingTo: changed, in: directory, at: url)
        let raw = try schema.connect()
        func tableIdentity(_ table: String) throws -> Int64 {
            try raw.query("SELECT CAST(oid AS bigint) FROM pg_class WHERE oid = to_regclass(?)", [.text(table)]).int64(0, 0)
        }
        let before = try ["ZENTRY", "ZTAG", "ZBOOK"].map(tableIdentity)
        let lastKey = try raw.query("SELECT max(Z_PK) FROM ZENTRY").int64(0, 0)

        try bundle.makeCurrent("Journal 2")
        let (container, error) = Journal.container(try bundle.model(), at: url)
        #expect(error == nil)
        #expect(try ["ZENTRY", "ZTAG", "ZBOOK"].map(tableIdentity) == before)
        let columns = try raw.query("""
            SELECT upper(column_name) FROM information_schema.columns WHERE table_schema = current_schema() AND upper(table_name) = 'ZENTRY'
            """).rows.compactMap { $0.first?.stringValue }
        #expect(!columns.contains("ZDRAFT") && columns.contains("ZMOOD") && columns.contains("ZKEPT"))
        let entries = try Journal.entries(in: container.viewContext)
        #expect(entries.map { $0.value(forKey: "note") as? String } == ["note 0", "note 1", nil])
        #expect(entries.allSatisfy { $0.value(forKey: "mood") == nil && $0.value(forKey: "kept") as? Bool == true })
        #expect(entries.allSatisfy { $0.value(forKey: "label") as? String == "it's new" })
        #expect(((entries[0].value(forKey: "tags") as? Set<NSManagedObject>) ?? []).count == 2)
        #expect((entries[0].value(forKey: "book") as? NSManagedObject)?.value(forKey: "title") as? String == "Diary")
        // The key sequence goes on; a row written now has every column, no table default.
        let entry = NSEntityDescription.insertNewObject(forEntityName: "Entry", into: container.viewContext)
        entry.setValue(Journal.start.addingTimeInterval(9), forKey: "time")
        try container.viewContext.save()
        #expect(try #require(entry.objectID.primaryKey) > lastKey)
        #expect(try raw.query("SELECT count(*) FROM ZENTRY WHERE ZKEPT = 1 AND ZLABEL = 'it''s new'").int64(0, 0) == 4)
        #expect(try raw.query("""
            SELECT count(*) FROM information_schema.columns WHERE table_schema = current_schema() AND column_default IS NOT NULL
            """).int64(0, 0) == 0)
    }

    /// Changes in inheritance (InheritanceMigrationTests' zoo): a sub-entity leaves its tree
    /// for a table of its own, a root gets a new parent, a sub-entity moves up — rows move
    /// between tables with their keys, values and links, and new objects get keys no object had.
    @Test func rowsMoveBetweenTreesWithTheirValuesAndLinks() throws {
        let directory = TemporaryDirectory()
        let schema = try PostgresTestSchema()
        defer { schema.drop() }
        let url = URL(string: schema.url)!
        typealias Zoo = InheritanceMigrationTests
        let bundle = try ModelBundle(in: directory, name: "Zoo", versions: [("Zoo", Zoo.zooV1), ("Zoo 2", Zoo.zooV2)], current: "Zoo")
        try Zoo.writeZoo(at: url, bundle: bundle)
        let raw = try schema.connect()
        let animalsLastKey = try raw.query("SELECT last_value FROM ZANIMAL_Z_PK_SEQ").int64(0, 0)
        try bundle.makeCurrent("Zoo 2")
        let (container, error) = Journal.container(try bundle.model(), at: url)
        #expect(error == nil)
        try Zoo.expectZooV2(in: container.viewContext)
        let tables = Set(try raw.query("SELECT upper(tablename) FROM pg_tables WHERE schemaname = current_schema() AND tablename ~ '^z[a-z]'")
            .rows.compactMap { $0.first?.stringValue })
        #expect(tables == ["ZANIMAL", "ZBIRD", "ZPERSON", "ZTAG"])
        // Bird's keys came from Animal's tree: its sequence goes on after Animal's last key.
        #expect(try raw.query("SELECT last_value FROM ZBIRD_Z_PK_SEQ").int64(0, 0) >= animalsLastKey)
        try Zoo.expectNewObjectsFit(container)
        try container.persistentStoreCoordinator.remove(container.persistentStoreCoordinator.persistentStores[0])
        let (reopened, reopenError) = Journal.container(try bundle.model(), at: url)
        #expect(reopenError == nil)
        #expect(try Zoo.fetch("Animal", in: reopened.viewContext).count == 6)
        #expect(try Zoo.fetch("Bird", in: reopened.viewContext).compactMap { $0.value(forKey: "name") as? String } == ["Polly", "Tweety"])
    }

    /// A one-to-many that loses its to-one inverse keeps every link (the inverse's key column
    /// fills the join table of the to-many without inverse), ordered ones in their order.
    @Test func aToManyThatLosesItsToOneInverseKeepsItsLinksInTheirOrder() throws {
        let withoutInverse = Journal.entryV1(
            book: "", bookEntries: "<relationship name=\"entries\" optional=\"YES\" toMany=\"YES\" deletionRule=\"Nullify\" destinationEntity=\"Entry\"/>")
        let orderedWithoutInverse = Journal.entryV1(
            book: "", bookEntries: "<relationship name=\"entries\" optional=\"YES\" toMany=\"YES\" deletionRule=\"Nullify\" ordered=\"YES\" destinationEntity=\"Entry\"/>")
        for next in [withoutInverse, orderedWithoutInverse] {
            let directory = TemporaryDirectory()
            let schema = try PostgresTestSchema()
            defer { schema.drop() }
            let (container, diary, notes) = try Journal.diaryEntryNotes(afterMigratingTo: next, in: directory, at: URL(string: schema.url)!)
            #expect(next == withoutInverse ? notes.sorted() == ["note 0", "note 1"] : notes == ["note 0", "note 1"])
            #expect(diary.value(forKey: "title") as? String == "Diary")
            withExtendedLifetime(container) {}
        }
    }

    /// A new attribute of every kind with a default gets it in every row (a string's default
    /// is bound as text, whatever the column's collation).
    @Test func newAttributesWithDefaultsTakeThemInEveryRow() throws {
        let directory = TemporaryDirectory()
        let schema = try PostgresTestSchema()
        defer { schema.drop() }
        let url = URL(string: schema.url)!
        let added = Journal.entryV1.replacingOccurrences(
            of: "<attribute name=\"draft\" optional=\"YES\" attributeType=\"String\"/>",
            with: """
                <attribute name="draft" optional="YES" attributeType="String"/>
                <attribute name="mood" attributeType="String" defaultValueString="calm"/>
                <attribute name="link" optional="YES" attributeType="URI" defaultValueString="https://example.com"/>
                <attribute name="words" attributeType="Integer 64" defaultValueString="12" usesScalarValueType="YES"/>
                <attribute name="weight" attributeType="Double" defaultValueString="0.5" usesScalarValueType="YES"/>
                <attribute name="kept" attributeType="Boolean" defaultValueString="YES" usesScalarValueType="YES"/>
                """)
        let (bundle, _) = try Journal.version1Store(upgradingTo: added, in: directory, at: url)
        try bundle.makeCurrent("Journal 2")
        let (container, error) = Journal.container(try bundle.model(), at: url)
        #expect(error == nil)
        let entries = try Journal.entries(in: container.viewContext)
        #expect(entries.count == 3)
        #expect(entries.allSatisfy { $0.value(forKey: "mood") as? String == "calm" })
        #expect(entries.allSatisfy { ($0.value(forKey: "link") as? URL)?.absoluteString == "https://example.com" })
        #expect(entries.allSatisfy { ($0.value(forKey: "words") as? NSNumber)?.int64Value == 12 })
        #expect(entries.allSatisfy { ($0.value(forKey: "weight") as? NSNumber)?.doubleValue == 0.5 })
        #expect(entries.allSatisfy { $0.value(forKey: "kept") as? Bool == true })
    }

    /// A migration whose connection is cut in the middle of copying rows (its process killed,
    /// as the server sees it) leaves the store as it was — PostgreSQL rolls the transaction
    /// back, DDL and all — and the next opening migrates it whole.
    @Test func aMigrationCutOffMidwayLeavesTheOldStoreWhole() throws {
        let directory = TemporaryDirectory()
        let schema = try PostgresTestSchema()
        defer { schema.drop() }
        let url = URL(string: schema.url)!
        let crashy = { (note: String) in
            "<entity name=\"Crashy\" representedClassName=\"Crashy\" syncable=\"YES\">\(note)</entity>"
        }
        let bundle = try ModelBundle(in: directory, name: "Crashy", versions: [
            ("Crashy", crashy("<attribute name=\"note\" optional=\"YES\" attributeType=\"String\"/>")),
            // Renamed: the table is built anew, its rows copied.
            ("Crashy 2", crashy("<attribute name=\"remark\" optional=\"YES\" attributeType=\"String\" elementID=\"note\"/>")),
        ], current: "Crashy")
        do {
            let (container, error) = Journal.container(try bundle.model(), at: url)
            #expect(error == nil)
            NSEntityDescription.insertNewObject(forEntityName: "Crashy", into: container.viewContext).setValue("first", forKey: "note")
            try container.viewContext.save()
            try container.persistentStoreCoordinator.remove(container.persistentStoreCoordinator.persistentStores[0])
        }
        let raw = try schema.connect()
        let rows: Int64 = 300_000
        try raw.execute("INSERT INTO ZCRASHY (Z_PK, Z_ENT, Z_OPT, ZNOTE) SELECT g, 1, 1, 'note ' || g FROM generate_series(2, \(rows)) g")
        _ = try raw.query("SELECT setval('ZCRASHY_Z_PK_SEQ', \(rows))")
        let fingerprint = "SELECT count(*), sum(hashtext(ZNOTE)) FROM ZCRASHY"
        let before = try raw.query(fingerprint).rows
        let metadataBefore = try raw.query("SELECT Z_PLIST FROM Z_METADATA").rows

        // Cuts the migrating connection once it is copying the rows.
        let cut = LockedBox(false)
        let watched = DispatchSemaphore(value: 0)
        let schemaURL: String = schema.url
        let watching = Thread {
            defer { watched.signal() }
            guard let cutter = try? PostgresConnection(url: schemaURL) else { return }
            let deadline = Date().addingTimeInterval(20)
            while Date() < deadline {
                let killed = try? cutter.query("""
                    SELECT count(*) FROM (SELECT pg_terminate_backend(pid) AS killed FROM pg_stat_activity
                    WHERE query LIKE 'INSERT INTO ZOCD_MIGRATING%' AND query LIKE '%ZCRASHY%' AND pid <> pg_backend_pid()) cut WHERE killed
                    """).int64(0, 0)
                if let killed, killed > 0 {
                    cut.mutate { $0 = true }
                    return
                }
                Thread.sleep(forTimeInterval: 0.001)
            }
        }
        watching.start()
        try bundle.makeCurrent("Crashy 2")
        let (_, error) = Journal.container(try bundle.model(), at: url)
        // The watcher stops once it has cut the migration (or given up, failing the test).
        watched.wait()
        try #require(cut.value, "the migration finished before it could be cut; make the store larger")
        #expect(error != nil)
        #expect(try raw.query(fingerprint).rows == before)
        #expect(try raw.query("SELECT Z_PLIST FROM Z_METADATA").rows == metadataBefore)
        #expect(try raw.query("SELECT count(*) FROM pg_tables WHERE schemaname = current_schema() AND tablename LIKE 'zocd%'").int64(0, 0) == 0)

        let (container, again) = Journal.container(try bundle.model(), at: url)
        #expect(again == nil)
        let remarked = NSFetchRequest<NSManagedObject>(entityName: "Crashy")
        remarked.predicate = NSPredicate(format: "remark != nil")
        #expect(try container.viewContext.count(for: remarked) == Int(rows))
    }

    /// A server still running the old version when another migrates the store fails its next
    /// save with an error: it is never told a save succeeded that the migrated store lacks.
    @Test func aServerOfTheOldVersionCannotSaveIntoTheMigratedStore() throws {
        let directory = TemporaryDirectory()
        let schema = try PostgresTestSchema()
        defer { schema.drop() }
        let url = URL(string: schema.url)!
        let (bundle, _) = try Journal.version1Store(upgradingTo: Journal.entryV2, in: directory, at: url)
        let (old, oldError) = Journal.container(try bundle.model(), at: url)
        #expect(oldError == nil)
        #expect(try Journal.entries(in: old.viewContext).count == 3)

        try bundle.makeCurrent("Journal 2")
        let (migrated, error) = Journal.container(try bundle.model(), at: url)
        #expect(error == nil)
        let late = NSEntityDescription.insertNewObject(forEntityName: "Entry", into: old.viewContext)
        late.setValue(Journal.start, forKey: "time")
        #expect(throws: CocoaError.self) { try old.viewContext.save() }
        #expect(try Journal.entries(in: migrated.viewContext).count == 3)
    }

    /// A migration that fails — a required attribute the rows have no value for (134110), a new
    /// uniqueness constraint the rows break (134111) — leaves every table and row as it was, and
    /// the older version still opens the store.
    @Test func aFailedMigrationLeavesTheStoreAsItWas() throws {
        let required = Journal.entryV1.replacingOccurrences(of: "<attribute name=\"note\" optional=\"YES\" attributeType=\"String\"/>",
                                                            with: "<attribute name=\"note\" attributeType=\"String\"/>")
        let unique = Journal.entryV1.replacingOccurrences(
            of: "<attribute name=\"name\" attributeType=\"String\"/>",
            with: "<attribute name=\"name\" attributeType=\"String\"/><uniquenessConstraints><uniquenessConstraint><constraint value=\"name\"/></uniquenessConstraint></uniquenessConstraints>")
        for (next, code) in [(required, 134110), (unique, 134111)] {
            let directory = TemporaryDirectory()
            let schema = try PostgresTestSchema()
            defer { schema.drop() }
            let url = URL(string: schema.url)!
            let (bundle, _) = try Journal.version1Store(upgradingTo: next, in: directory, at: url)
            do {
                // A second tag named "work", which the new constraint refuses.
                let (container, _) = Journal.container(try bundle.model(), at: url)
                NSEntityDescription.insertNewObject(forEntityName: "Tag", into: container.viewContext).setValue("work", forKey: "name")
                try container.viewContext.save()
                try container.persistentStoreCoordinator.remove(container.persistentStoreCoordinator.persistentStores[0])
            }
            let before = try Self.contents(of: schema)
            try bundle.makeCurrent("Journal 2")
            let (_, error) = Journal.container(try bundle.model(), at: url)
            let failure = try #require(error as? CocoaError)
            #expect(failure.code.rawValue == code)
            if code == 134110 {
                #expect(failure.userInfo["NSEntityNameKey"] as? String == "Entry")
                #expect(failure.message.contains("no value for the required attribute 'note'"))
            }
            #expect(try Self.contents(of: schema) == before)
            try Journal.expectVersion1StillOpens(url, bundle)
        }
    }

    /// Without the options the store is refused (134100), and a change inference cannot map (a
    /// string becoming a number) is 134140; either way nothing of the store is written.
    @Test func whatIsNotAskedForOrCannotBeMappedLeavesTheStoreAlone() throws {
        let directory = TemporaryDirectory()
        let schema = try PostgresTestSchema()
        defer { schema.drop() }
        let url = URL(string: schema.url)!
        let (bundle, _) = try Journal.version1Store(upgradingTo: Journal.entryV2, in: directory, at: url)
        let before = try Self.contents(of: schema)
        try bundle.makeCurrent("Journal 2")
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: try bundle.model())
        let refused = try #require(throws: CocoaError.self) {
            try coordinator.addPersistentStore(ofType: OCDPostgreSQLStoreType, configurationName: nil, at: url, options: nil)
        }
        #expect(refused.code.rawValue == 134100)
        #expect(try Self.contents(of: schema) == before)

        let numberNote = Journal.entryV1.replacingOccurrences(of: "<attribute name=\"note\" optional=\"YES\" attributeType=\"String\"/>",
                                                              with: "<attribute name=\"note\" optional=\"YES\" attributeType=\"Integer 64\" usesScalarValueType=\"NO\"/>")
        let other = try ModelBundle(in: directory, name: "Other", versions: [("Journal", Journal.entryV1), ("Journal 2", numberNote)], current: "Journal 2")
        let (_, error) = Journal.container(try other.model(), at: url)
        let failure = try #require(error as? CocoaError)
        #expect(failure.code.rawValue == 134140)
        #expect(failure.message.contains("attribute 'note' of entity 'Entry' changes type"))
        #expect(try Self.contents(of: schema) == before)
    }

    /// History recorded before a migration is still read after it: entities keep their numbers.
    @Test func historyRecordedBeforeAMigrationIsReadAfterIt() throws {
        let directory = TemporaryDirectory()
        let schema = try PostgresTestSchema()
        defer { schema.drop() }
        let url = URL(string: schema.url)!
        let bundle = try ModelBundle(in: directory, versions: [("Journal", Journal.entryV1), ("Journal 2", Journal.entryV2)], current: "Journal")
        let tracking: (NSPersistentStoreDescription) -> Void = { $0.setOption(true as NSNumber, forKey: NSPersistentHistoryTrackingKey) }
        do {
            let (container, error) = Journal.container(try bundle.model(), at: url, configure: tracking)
            #expect(error == nil)
            let entry = NSEntityDescription.insertNewObject(forEntityName: "Entry", into: container.viewContext)
            entry.setValue(Journal.start, forKey: "time")
            entry.setValue("kept", forKey: "note")
            try container.viewContext.save()
            try container.persistentStoreCoordinator.remove(container.persistentStoreCoordinator.persistentStores[0])
        }
        try bundle.makeCurrent("Journal 2")
        let (container, error) = Journal.container(try bundle.model(), at: url, configure: tracking)
        #expect(error == nil)
        let result = try container.viewContext.execute(NSPersistentHistoryChangeRequest.fetchHistory(after: nil as NSPersistentHistoryToken?))
        let transactions = try #require((result as? NSPersistentHistoryResult)?.result as? [NSPersistentHistoryTransaction])
        #expect(transactions.count == 1)
        let change = try #require(transactions.first?.changes?.first)
        #expect(change.changedObjectID.entity.name == "Entry")
        #expect(try container.viewContext.existingObject(with: change.changedObjectID).value(forKey: "text") as? String == "kept")
    }
}

private extension NSManagedObjectContext {
    /// The key of a saved object's permanent ID.
    func obtainedKey(of object: NSManagedObject) throws -> Int64 {
        try #require(object.objectID.primaryKey)
    }
}
