import Foundation
import OpenCoreData
import OpenCoreDataPostgres

/// W8 of WORKLOAD.md: open a 1,000,000-object store whose model gained one optional attribute
/// (lightweight migration), then open it again unchanged; against `ALTER TABLE … ADD COLUMN`
/// on the raw side, and against opening the raw database again.
///
/// The models come from a `.xcdatamodeld` of two versions written into the run's directory, as an
/// app ships them: migration finds the store's version among the bundle's. Filling the store and
/// loading the models are untimed.
enum MigrationWorkload {
    /// The number of items in the migrated store (fixed, as WORKLOAD.md says).
    static let rows = 1_000_000

    /// W8: the timed add of the store that must migrate.
    static func frameworkMigrate(directory: URL, n: Int) throws -> Double {
        let url = try fillOldStore(in: directory)
        let model = try newModel(in: directory)
        let (seconds, coordinator) = try timedAdd(of: url, model: model)
        try check(coordinator, expecting: rows)
        return seconds
    }

    /// W8r: the timed add of the same store once it is migrated.
    static func frameworkReopen(directory: URL, n: Int) throws -> Double {
        let url = try fillOldStore(in: directory)
        let model = try newModel(in: directory)
        let (_, migrating) = try timedAdd(of: url, model: model)
        try migrating.remove(migrating.persistentStores[0])
        let (seconds, coordinator) = try timedAdd(of: url, model: model)
        try check(coordinator, expecting: rows)
        return seconds
    }

    /// Adds the store at `url` with migration asked for, on a new coordinator; the add is timed.
    private static func timedAdd(of url: URL, model: NSManagedObjectModel) throws -> (Double, NSPersistentStoreCoordinator) {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        let seconds = try Stopwatch.time {
            try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url, options: migrationOptions)
        }
        return (seconds, coordinator)
    }

    /// W8 raw: open the database and add the column.
    static func rawMigrate(directory: URL, n: Int) throws -> Double {
        try fillRawStore(in: directory, n: rows)
        let seconds = try Stopwatch.time {
            let db = try RawDatabase.open(in: directory)
            try db.transaction { try db.execute("ALTER TABLE item ADD COLUMN tag TEXT") }
        }
        try checkRaw(directory)
        return seconds
    }

    /// W8r raw: open the database again and read its schema.
    static func rawReopen(directory: URL, n: Int) throws -> Double {
        try fillRawStore(in: directory, n: rows)
        do {
            let db = try RawDatabase.open(in: directory)
            try db.transaction { try db.execute("ALTER TABLE item ADD COLUMN tag TEXT") }
        }
        let seconds = try Stopwatch.time {
            let db = try RawDatabase.open(in: directory)
            _ = try db.queryText("SELECT sql FROM sqlite_master WHERE name = 'item'")
        }
        try checkRaw(directory)
        return seconds
    }

    /// W8b: the timed add of the store whose model renamed an attribute (`note` → `remark`,
    /// through its renaming identifier), which rebuilds the table.
    static func frameworkRebuild(directory: URL, n: Int) throws -> Double {
        let url = try fillOldStore(in: directory, current: "Items 3")
        let (seconds, coordinator) = try timedAdd(of: url, model: try newModel(in: directory))
        let context = NSManagedObjectContext(concurrencyType: .confinementConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        let noted = NSFetchRequest<NSManagedObject>(entityName: "Item")
        noted.predicate = NSPredicate(format: "remark != nil")
        let found = try context.count(for: noted)
        guard found == rows / 2 else { throw BenchCheckError(workload: "W8b", detail: "\(found) items with a remark, expected \(rows / 2)") }
        try coordinator.remove(coordinator.persistentStores[0])
        return seconds
    }

    /// W8b raw: the same table rebuilt by hand: a new table, `INSERT … SELECT`, the old one
    /// dropped, the new one renamed and indexed, in one transaction.
    static func rawRebuild(directory: URL, n: Int) throws -> Double {
        try fillRawStore(in: directory, n: rows)
        let seconds = try Stopwatch.time {
            let db = try RawDatabase.open(in: directory)
            try db.transaction {
                try db.execute("""
                    CREATE TABLE item_new(id INTEGER PRIMARY KEY, name TEXT, score INTEGER, price REAL,
                                          created REAL, flag INTEGER, remark TEXT);
                    INSERT INTO item_new(id, name, score, price, created, flag, remark)
                        SELECT id, name, score, price, created, flag, note FROM item;
                    DROP TABLE item;
                    ALTER TABLE item_new RENAME TO item;
                    CREATE INDEX item_score ON item(score);
                    """)
            }
        }
        let db = try RawDatabase.open(in: directory)
        let count = try db.queryText("SELECT count(*) FROM item WHERE remark IS NOT NULL")
        guard count == String(rows / 2) else { throw BenchCheckError(workload: "W8b", detail: "\(count ?? "nil") raw rows with a remark") }
        return seconds
    }

    /// The number of items W8c migrates through a mapping model.
    static let customRows = 100_000

    /// W8c: a store migrated through a mapping model written in code (`note` carried over as
    /// `remark` by an expression) into a new store, by `NSMigrationManager`: every object read,
    /// made again and saved through contexts.
    static func frameworkCustom(directory: URL, n: Int) throws -> Double {
        let url = try fillOldStore(in: directory, current: "Items 3", rows: customRows)
        let bundle = directory.appendingPathComponent("Items.xcdatamodeld")
        let source = try NSManagedObjectModel(validatingContentsOf: bundle.appendingPathComponent("Items.xcdatamodel"))
        let destination = try newModel(in: directory)
        let item = NSEntityMapping()
        item.name = "ItemToItem"
        item.mappingType = .customEntityMappingType
        item.sourceEntityName = "Item"
        item.destinationEntityName = "Item"
        item.attributeMappings = [("name", "name"), ("score", "score"), ("price", "price"), ("created", "created"),
                                  ("flag", "flag"), ("remark", "note")].map { name, sourceName in
            let property = NSPropertyMapping()
            property.name = name
            property.valueExpression = NSExpression(format: "$source.\(sourceName)")
            return property
        }
        let mapping = NSMappingModel()
        mapping.entityMappings = [item]
        let migrated = directory.appendingPathComponent("migrated.sqlite")
        let seconds = try Stopwatch.time {
            try NSMigrationManager(sourceModel: source, destinationModel: destination).migrateStore(
                from: url, sourceType: NSSQLiteStoreType, options: nil, with: mapping,
                toDestinationURL: migrated, destinationType: NSSQLiteStoreType, destinationOptions: nil)
        }
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: destination)
        try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: migrated)
        let context = NSManagedObjectContext(concurrencyType: .confinementConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        let noted = NSFetchRequest<NSManagedObject>(entityName: "Item")
        noted.predicate = NSPredicate(format: "remark != nil")
        let found = try context.count(for: noted)
        guard found == customRows / 2 else { throw BenchCheckError(workload: "W8c", detail: "\(found) items with a remark, expected \(customRows / 2)") }
        return seconds
    }

    /// W8c raw: the same rows copied into a new database file by `INSERT … SELECT`, the column
    /// renamed on the way, and indexed.
    static func rawCustom(directory: URL, n: Int) throws -> Double {
        try fillRawStore(in: directory, n: customRows)
        let migrated = directory.appendingPathComponent("migrated.sqlite").path
        let seconds = try Stopwatch.time {
            let db = try RawDatabase.open(in: directory)
            try db.execute("ATTACH DATABASE '\(migrated)' AS migrated")
            try db.transaction {
                try db.execute("""
                    CREATE TABLE migrated.item(id INTEGER PRIMARY KEY, name TEXT, score INTEGER, price REAL,
                                               created REAL, flag INTEGER, remark TEXT);
                    INSERT INTO migrated.item(id, name, score, price, created, flag, remark)
                        SELECT id, name, score, price, created, flag, note FROM main.item;
                    CREATE INDEX migrated.item_score ON item(score);
                    """)
            }
            try db.execute("DETACH DATABASE migrated")
        }
        let db = try RawDatabase(path: migrated)
        let count = try db.queryText("SELECT count(*) FROM item WHERE remark IS NOT NULL")
        guard count == String(customRows / 2) else { throw BenchCheckError(workload: "W8c", detail: "\(count ?? "nil") raw rows with a remark") }
        return seconds
    }

    // MARK: PostgreSQL

    /// W8p: the timed add of a PostgreSQL store of N items whose model gained an optional
    /// attribute (lightweight migration, in place: `ALTER TABLE … ADD COLUMN`).
    static func frameworkMigratePostgres(directory: URL, n: Int) throws -> Double {
        let bundle = try writeBundle(in: directory, current: "Items 2")
        let url = URL(string: try BenchPostgres.url(for: directory))!
        try fillWithVersion1(bundle: bundle, type: OCDPostgreSQLStoreType, at: url, rows: n)
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: try newModel(in: directory))
        let seconds = try Stopwatch.time {
            try coordinator.addPersistentStore(ofType: OCDPostgreSQLStoreType, configurationName: nil, at: url, options: migrationOptions)
        }
        let context = NSManagedObjectContext(concurrencyType: .confinementConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        let untagged = NSFetchRequest<NSManagedObject>(entityName: "Item")
        untagged.predicate = NSPredicate(format: "tag == nil")
        let found = try context.count(for: untagged)
        guard found == n else { throw BenchCheckError(workload: "W8p", detail: "\(found) items without a tag, expected \(n)") }
        try coordinator.remove(coordinator.persistentStores[0])
        return seconds
    }

    /// W8p raw: connect and add the column, in a transaction.
    static func rawMigratePostgres(directory: URL, n: Int) throws -> Double {
        let url = try BenchPostgres.url(for: directory)
        try RawPostgresWorkloads.fillItemStore(url: url, n: n)
        let seconds = try Stopwatch.time {
            let db = try RawPostgres(url: url)
            try db.execute("BEGIN")
            try db.execute("ALTER TABLE item ADD COLUMN tag text")
            try db.execute("COMMIT")
        }
        try RawPostgresWorkloads.expectCount(try RawPostgres(url: url), "SELECT count(*) FROM item WHERE tag IS NULL", n, "W8p")
        return seconds
    }

    // MARK: Setup

    static var migrationOptions: [String: Any] { [NSMigratePersistentStoresAutomaticallyOption: true,
                                                  NSInferMappingModelAutomaticallyOption: true] }

    /// Writes the two-version bundle, fills a store of `rows` items with version 1, closes it.
    /// (The store is filled once per program run and copied for each run: `FilledStores`.)
    private static func fillOldStore(in directory: URL, current: String = "Items 2", rows: Int = rows) throws -> URL {
        let bundle = try writeBundle(in: directory, current: current)
        try FilledStores.copy("framework-\(rows)", files: "framework.sqlite", into: directory) { template in
            try fillWithVersion1(bundle: bundle, type: NSSQLiteStoreType, at: template.appendingPathComponent("framework.sqlite"), rows: rows)
        }
        settleDisk()
        return directory.appendingPathComponent("framework.sqlite")
    }

    /// Fills the store of `type` at `url` with `rows` items through version 1 of `bundle`,
    /// then closes it.
    private static func fillWithVersion1(bundle: URL, type: String, at url: URL, rows: Int) throws {
        let oldModel = try NSManagedObjectModel(validatingContentsOf: bundle.appendingPathComponent("Items.xcdatamodel"))
        oldModel.entitiesByName["Item"]?.managedObjectClass = Item.self
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: oldModel)
        try coordinator.addPersistentStore(ofType: type, configurationName: nil, at: url)
        let context = NSManagedObjectContext(concurrencyType: .confinementConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        // In slices, as an app that filled its store over time, and to keep the setup's memory low.
        for start in stride(from: 0, to: rows, by: 100_000) {
            try FrameworkWorkloads.insertItems(start..<min(start + 100_000, rows), into: context)
            try context.save()
            context.reset()
        }
        try coordinator.remove(coordinator.persistentStores[0])
    }

    /// The raw side's store, filled as W1 fills it (once per program run, then copied), its
    /// pages written out as `settleDisk` says.
    private static func fillRawStore(in directory: URL, n: Int) throws {
        try FilledStores.copy("raw-\(n)", files: "raw.sqlite", into: directory) { template in
            try RawWorkloads.fillItemStore(in: template, n: n)
        }
        settleDisk()
    }

    /// Writes out the pages the untimed filling left for the kernel, so that writing them back
    /// does not fall into either side's timed part (it did, by chance, and made the runs of a
    /// 1,000,000-item store vary by a third).
    private static func settleDisk() {
        sync()
    }

    private static func newModel(in directory: URL) throws -> NSManagedObjectModel {
        let model = try NSManagedObjectModel(validatingContentsOf: directory.appendingPathComponent("Items.xcdatamodeld"))
        model.entitiesByName["Item"]?.managedObjectClass = Item.self
        return model
    }

    /// `Items.xcdatamodeld`: version "Items" is WORKLOAD.md's `Item`; "Items 2" adds an optional
    /// `tag`; "Items 3" renames `note` to `remark`. `current` is the current version.
    private static func writeBundle(in directory: URL, current: String) throws -> URL {
        let bundle = directory.appendingPathComponent("Items.xcdatamodeld")
        let attributes = """
            <attribute name="name" attributeType="String"/>
            <attribute name="score" attributeType="Integer 64" indexed="YES" usesScalarValueType="YES"/>
            <attribute name="price" attributeType="Double" usesScalarValueType="YES"/>
            <attribute name="created" attributeType="Date" usesScalarValueType="NO"/>
            <attribute name="flag" attributeType="Boolean" usesScalarValueType="YES"/>
            <attribute name="note" optional="YES" attributeType="String"/>
            """
        let renamed = attributes.replacingOccurrences(of: "<attribute name=\"note\" optional=\"YES\" attributeType=\"String\"/>",
                                                      with: "<attribute name=\"remark\" optional=\"YES\" attributeType=\"String\" elementID=\"note\"/>")
        for (version, body) in [("Items", attributes), ("Items 2", attributes + "<attribute name=\"tag\" optional=\"YES\" attributeType=\"String\"/>"),
                                ("Items 3", renamed)] {
            let folder = bundle.appendingPathComponent("\(version).xcdatamodel")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            let contents = """
                <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
                <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0" minimumToolsVersion="Automatic" sourceLanguage="Swift">
                <entity name="Item" representedClassName="Item" syncable="YES">\(body)</entity>
                </model>
                """
            try contents.write(to: folder.appendingPathComponent("contents"), atomically: true, encoding: .utf8)
        }
        try """
            <?xml version="1.0" encoding="UTF-8"?>
            <plist version="1.0"><dict><key>_XCCurrentVersionName</key><string>\(current).xcdatamodel</string></dict></plist>
            """.write(to: bundle.appendingPathComponent(".xccurrentversion"), atomically: true, encoding: .utf8)
        return bundle
    }

    // MARK: Checks

    private static func check(_ coordinator: NSPersistentStoreCoordinator, expecting count: Int) throws {
        let context = NSManagedObjectContext(concurrencyType: .confinementConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        let tagged = NSFetchRequest<NSManagedObject>(entityName: "Item")
        tagged.predicate = NSPredicate(format: "tag == nil")
        let found = try context.count(for: tagged)
        guard found == count else { throw BenchCheckError(workload: "W8", detail: "\(found) items without a tag, expected \(count)") }
        try coordinator.remove(coordinator.persistentStores[0])
    }

    private static func checkRaw(_ directory: URL) throws {
        let db = try RawDatabase.open(in: directory)
        let count = try db.queryText("SELECT count(*) FROM item WHERE tag IS NULL")
        guard count == String(rows) else { throw BenchCheckError(workload: "W8", detail: "\(count ?? "nil") raw rows without a tag") }
    }
}
