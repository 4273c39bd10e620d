import Foundation
import Testing
import OCDSQLite
import OpenCoreData
@testable import OpenCoreDataCore
@testable import OpenCoreDataSQLite

/// Stores written by Apple's Core Data (the corpus), opened with the Xcode models that wrote
/// them: every object must come back with every value and relationship exactly as the rows
/// say, read here with plain SQL.
@Suite struct AppleStoreTests {
    /// A corpus store and the model version that wrote it.
    struct Pair: CustomStringConvertible, Sendable {
        let store: String
        let model: String
        var description: String { (store as NSString).lastPathComponent }
        var storeURL: URL { Corpus.url("stores/\(store)") }
        var modelURL: URL { Corpus.url("models/\(model)") }
    }

    static let bookmarks = "duckduckgo__BrowserServicesKit/Sources__Bookmarks__BookmarksModel.xcdatamodeld"
    static let sampleModel = "alemar11__CoreDataPlus/Tests__Resources__SampleModel__SampleModel.xcdatamodeld"
    static let pairs: [Pair] = [
        Pair(store: "duckduckgo__BrowserServicesKit/Tests__BookmarksTests__Resources__Bookmarks_V1.sqlite",
             model: "\(bookmarks)/BookmarksModel.xcdatamodel"),
        Pair(store: "duckduckgo__BrowserServicesKit/Tests__BookmarksTests__Resources__Bookmarks_V2.sqlite",
             model: "\(bookmarks)/BookmarksModel 2.xcdatamodel"),
        Pair(store: "duckduckgo__BrowserServicesKit/Tests__BookmarksTests__Resources__Bookmarks_V3.sqlite",
             model: "\(bookmarks)/BookmarksModel 3.xcdatamodel"),
        Pair(store: "duckduckgo__BrowserServicesKit/Tests__BookmarksTests__Resources__Bookmarks_V4.sqlite",
             model: "\(bookmarks)/BookmarksModel 4.xcdatamodel"),
        Pair(store: "duckduckgo__BrowserServicesKit/Tests__BookmarksTests__Resources__Bookmarks_V5.sqlite",
             model: "\(bookmarks)/BookmarksModel 5.xcdatamodel"),
        Pair(store: "duckduckgo__BrowserServicesKit/Tests__DDGSyncTests__Resources__SyncMetadata_V3.sqlite",
             model: "duckduckgo__BrowserServicesKit/Sources__DDGSync__SyncMetadata.xcdatamodeld/SyncMetadata 3.xcdatamodel"),
        Pair(store: "alemar11__CoreDataPlus/Tests__Resources__SampleModel__Fixtures__SampleModel_V1.sqlite",
             model: "\(sampleModel)/SampleModel.xcdatamodel"),
        Pair(store: "alemar11__CoreDataPlus/Tests__Resources__SampleModel__Fixtures__SampleModel_V2.sqlite",
             model: "\(sampleModel)/SampleModel2.xcdatamodel"),
    ]

    /// CoreDataPlus's `ColorTransformer` is app code; a user of the store registers their own.
    /// This stand-in passes the archived bytes through, so the test can compare them.
    static let registerTransformers: Void = {
        ValueTransformer.setValueTransformer(PassThroughTransformer(), forName: NSValueTransformerName("ColorTransformer"))
    }()

    @Test(.needsCorpus, arguments: pairs)
    func everyObjectComesBackAsStored(_ pair: Pair) throws {
        let directory = TemporaryDirectory()
        let storeURL = try Corpus.copyStore(at: pair.storeURL, to: directory)
        try Self.checkEveryObject(inStoreAt: storeURL, model: try NSManagedObjectModel(validatingContentsOf: pair.modelURL))
    }

    /// Every corpus store, including CoreDataPlus's SampleModel2 stores whose model was built in
    /// code (UUID, URI, Decimal, Transformable, derived attributes, persistent history): read with
    /// the model the store carries.
    static let storeFiles = Corpus.files(under: "stores", suffix: ".sqlite")

    @Test(.needsCorpus, arguments: storeFiles)
    func everyObjectComesBackAsStoredThroughTheStoresOwnModel(_ store: URL) throws {
        let directory = TemporaryDirectory()
        let storeURL = try Corpus.copyStore(at: store, to: directory)
        let stored = try NSPersistentStoreCoordinator.storedModelForPersistentStore(ofType: NSSQLiteStoreType, at: storeURL)
        #expect(stored.source == .modelCache)
        try Self.checkEveryObject(inStoreAt: storeURL, model: stored.model)
    }

    @Test(.needsCorpus) func theSampleModel2StoresAreCovered() {
        #expect(Self.storeFiles.count == 10)
    }

    /// Opens the store read-only with `model` and compares every object with its row.
    static func checkEveryObject(inStoreAt storeURL: URL, model: NSManagedObjectModel) throws {
        _ = Self.registerTransformers
        let raw = try SQLiteConnection(path: storeURL.path)
        let numbers = Dictionary(uniqueKeysWithValues: try raw.rows("SELECT Z_NAME, Z_ENT FROM Z_PRIMARYKEY").map {
            ($0[0].stringValue!, $0[1].int64Value!)
        })
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        _ = try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: storeURL,
                                               options: [NSReadOnlyPersistentStoreOption: true])
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        var checkedObjects = 0
        try context.performAndWait {
            for entity in model.entities where !entity.isAbstract {
                let name = entity.name!
                let table = "Z" + entity.rootEntity.name!.uppercased()
                let number = try #require(Self.number(of: entity, in: numbers), "\(name) is not in Z_PRIMARYKEY")
                let rows = try Self.rowsByKey(raw, "SELECT * FROM \(table) WHERE Z_ENT = \(number)")
                let request = NSFetchRequest<NSManagedObject>(entityName: name)
                request.includesSubentities = false
                let objects = try context.fetch(request)
                #expect(objects.count == rows.count, "\(name)")
                for object in objects {
                    let key = Self.primaryKey(of: object)
                    let row = try #require(rows[key], "\(name) p\(key) is not a row of \(table)")
                    try Self.check(object, against: row, raw: raw, numbers: numbers)
                    checkedObjects += 1
                }
            }
        }
        #expect(checkedObjects > 0)
    }

    /// Apple's own hashes (COREDATA-FORMAT.md §6): the store's metadata against the hashes of
    /// the Xcode model that wrote it, loaded from its XML.
    @Test(.needsCorpus, arguments: pairs)
    func theStoresVersionHashesAreTheModelsHashes(_ pair: Pair) throws {
        let directory = TemporaryDirectory()
        let (_, metadata) = try Corpus.rawMetadata(ofStoreAt: try Corpus.copyStore(at: pair.storeURL, to: directory))
        let model = try NSManagedObjectModel(validatingContentsOf: pair.modelURL)
        let stored = try #require(metadata["NSStoreModelVersionHashes"] as? [String: Data])
        #expect(model.entityVersionHashesByName == stored)
        #expect(model.isConfiguration(withName: nil, compatibleWithStoreMetadata: metadata))
        if let checksum = metadata["NSStoreModelVersionChecksumKey"] as? String {
            #expect(model.versionChecksum == checksum)
        }
    }

    /// momc's hashes in `VersionInfo.plist` against every version of the bundle it compiled.
    @Test(.needsCorpus) func momcsHashesAreTheHashesOfEveryXcodeVersion() throws {
        let info = Corpus.url(
            "compiled/alemar11__CoreDataPlus/Tests__Resources__SampleModel__Fixtures__SampleModel.momd/VersionInfo.plist")
        let plist = try #require(try PropertyListSerialization.propertyList(from: Data(contentsOf: info), format: nil) as? [String: Any])
        let versions = try #require(plist["NSManagedObjectModel_VersionHashes"] as? [String: [String: Data]])
        #expect(versions.count == 3)
        for (version, hashes) in versions {
            let model = try NSManagedObjectModel(validatingContentsOf: Corpus.url("models/\(Self.sampleModel)/\(version).xcdatamodel"))
            #expect(model.entityVersionHashesByName == hashes, "\(version)")
        }
    }

    @Test(.needsCorpus) func writingToAnAppleStoreKeepsItsLayout() throws {
        let pair = Self.pairs[3]  // Bookmarks_V4: ordered one-to-many and ordered many-to-many
        let directory = TemporaryDirectory()
        let storeURL = try Corpus.copyStore(at: pair.storeURL, to: directory)
        let raw = try SQLiteConnection(path: storeURL.path)
        let uuidBefore = try raw.scalar("SELECT Z_UUID FROM Z_METADATA").stringValue
        let metadataBefore = try Self.metadata(raw)

        let model = try NSManagedObjectModel(validatingContentsOf: pair.modelURL)
        let stack = try Self.openStack(model: model, at: storeURL)
        try stack.performAndWait {
            let bookmarks = try stack.fetch(NSFetchRequest<NSManagedObject>(entityName: "BookmarkEntity"))
            let byUUID = Dictionary(uniqueKeysWithValues: bookmarks.map { ($0.value(forKey: "uuid") as! String, $0) })
            let added = NSEntityDescription.insertNewObject(forEntityName: "BookmarkEntity", into: stack)
            added.setValue(false, forKey: "isFolder")
            added.setValue("added", forKey: "uuid")
            added.setValue("https://example.com", forKey: "url")
            byUUID["bookmarks_root"]!.mutableOrderedSetValue(forKey: "children").insert(added, at: 0)
            byUUID["favorites_root"]!.mutableOrderedSetValue(forKey: "favorites").add(added)
            byUUID["1"]!.setValue("Renamed", forKey: "title")
            stack.delete(byUUID["33"]!)
            try stack.save()
        }

        // Core Data's bookkeeping, read with plain SQL.
        #expect(try raw.scalar("SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT = 1").int64Value == 11)
        #expect(try raw.scalar("SELECT Z_OPT FROM ZBOOKMARKENTITY WHERE ZUUID = '1'").int64Value == 2)
        #expect(try raw.scalar("SELECT Z_OPT FROM ZBOOKMARKENTITY WHERE ZUUID = 'added'").int64Value == 1)
        #expect(try raw.scalar("SELECT COUNT(*) FROM ZBOOKMARKENTITY WHERE ZUUID = '33'").int64Value == 0)
        #expect(try raw.scalar("SELECT COUNT(*) FROM Z_1FAVORITES WHERE Z_1FAVORITES = 10").int64Value == 0)
        #expect(try raw.scalar("SELECT Z_1FAVORITEFOLDERS FROM Z_1FAVORITES WHERE Z_1FAVORITES = 11").int64Value == 3)
        #expect(try raw.scalar("SELECT Z_UUID FROM Z_METADATA").stringValue == uuidBefore)
        let metadataAfter = try Self.metadata(raw)
        for key in ["NSStoreModelVersionHashes", "NSStoreModelVersionHashesVersion", "NSPersistenceFrameworkVersion",
                    "NSStoreModelVersionIdentifiers", "NSStoreType", "_NSAutoVacuumLevel"] {
            #expect((metadataAfter[key] as? NSObject) == (metadataBefore[key] as? NSObject), "\(key)")
        }

        // Reopened, every object matches its row again, and the orders are as edited.
        let reopened = try Self.openStack(model: try NSManagedObjectModel(validatingContentsOf: pair.modelURL), at: storeURL)
        let numbers = ["BookmarkEntity": Int64(1)]
        let rows = try Self.rowsByKey(raw, "SELECT * FROM ZBOOKMARKENTITY")
        try reopened.performAndWait {
            let bookmarks = try reopened.fetch(NSFetchRequest<NSManagedObject>(entityName: "BookmarkEntity"))
            #expect(bookmarks.count == 10)
            for bookmark in bookmarks {
                try Self.check(bookmark, against: try #require(rows[Self.primaryKey(of: bookmark)]), raw: raw, numbers: numbers)
            }
            let root = try #require(bookmarks.first { $0.value(forKey: "uuid") as? String == "bookmarks_root" })
            let children = (root.value(forKey: "children") as! NSOrderedSet).array.map { ($0 as! NSManagedObject).value(forKey: "uuid") as! String }
            #expect(children == ["added", "1", "2", "3", "4", "5"])
            let favoritesRoot = try #require(bookmarks.first { $0.value(forKey: "uuid") as? String == "favorites_root" })
            let favorites = (favoritesRoot.value(forKey: "favorites") as! NSOrderedSet).array.map { ($0 as! NSManagedObject).value(forKey: "uuid") as! String }
            #expect(favorites == ["5", "4", "32", "2", "added"])
        }
    }

    /// CoreDataPlus's SampleModel2 store counts a book's pages with Core Data's derived-attribute
    /// triggers, which call SQL functions Core Data registers; writing pages through OpenCoreData
    /// must keep them working (COREDATA-FORMAT.md §2).
    @Test(.needsCorpus) func derivedAttributeTriggersKeepWorkingWhenWeWrite() throws {
        for name in ["ContentTransformer", "CoverTransformer"] {
            ValueTransformer.setValueTransformer(PassThroughTransformer(), forName: NSValueTransformerName(name))
        }
        let directory = TemporaryDirectory()
        let storeURL = try Corpus.copyStore("stores/alemar11__CoreDataPlus/Tests__Resources__SampleModel2__Fixtures__SampleModel2_V1.sqlite",
                                            to: directory)
        let raw = try SQLiteConnection(path: storeURL.path)
        let book: Int64 = 1
        let pagesBefore = try raw.scalar("SELECT ZPAGESCOUNT FROM ZBOOK WHERE Z_PK = 1").int64Value
        #expect(pagesBefore == 99)
        let maxPageBefore = try #require(try raw.scalar("SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_NAME = 'Page'").int64Value)

        let stored = try NSPersistentStoreCoordinator.storedModelForPersistentStore(ofType: NSSQLiteStoreType, at: storeURL)
        // The store carries Core Data's history: it is written with tracking on.
        let context = try Self.openStack(model: stored.model, at: storeURL, tracksHistory: true)
        try context.performAndWait {
            let request = NSFetchRequest<NSManagedObject>(entityName: "Book")
            request.includesSubentities = false
            let owner = try #require(try context.fetch(request).first { Self.primaryKey(of: $0) == book })
            #expect(owner.value(forKey: "pagesCount") as? Int64 == 99)
            let page = NSEntityDescription.insertNewObject(forEntityName: "Page", into: context)
            page.setValue(Int32(1000), forKey: "number")
            page.setValue(Data([1, 2, 3]), forKey: "content")
            page.setValue(owner, forKey: "book")
            try context.save()
        }
        #expect(try raw.scalar("SELECT ZPAGESCOUNT FROM ZBOOK WHERE Z_PK = 1").int64Value == 100)
        #expect(try raw.scalar("SELECT COUNT(*) FROM ZPAGE WHERE ZBOOK = 1").int64Value == 100)
        #expect(try raw.scalar("SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_NAME = 'Page'").int64Value == maxPageBefore + 1)
        // The save continues Core Data's history: transaction 2 after its 1, inserting the page.
        #expect(try raw.scalar("SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT = 16002").int64Value == 2)
        #expect(try raw.rows("SELECT ZCHANGETYPE, ZENTITY, ZENTITYPK FROM ACHANGE WHERE ZTRANSACTIONID = 2 AND ZENTITY = 4")
                == [[0, 4, .integer(maxPageBefore + 1)]])

        try context.performAndWait {
            let request = NSFetchRequest<NSManagedObject>(entityName: "Page")
            request.predicate = NSComparisonPredicate(key: "number", .equalTo, 1000)
            for page in try context.fetch(request) { context.delete(page) }
            try context.save()
        }
        #expect(try raw.scalar("SELECT ZPAGESCOUNT FROM ZBOOK WHERE Z_PK = 1").int64Value == 99)

        let reopened = try Self.openStack(
            model: try NSPersistentStoreCoordinator.storedModelForPersistentStore(ofType: NSSQLiteStoreType, at: storeURL).model, at: storeURL)
        try reopened.performAndWait {
            let request = NSFetchRequest<NSManagedObject>(entityName: "Book")
            request.includesSubentities = false
            let owner = try #require(try reopened.fetch(request).first { Self.primaryKey(of: $0) == book })
            #expect(owner.value(forKey: "pagesCount") as? Int64 == 99)
            #expect((owner.value(forKey: "pages") as? Set<NSManagedObject>)?.count == 99)
        }
    }

    // MARK: Comparing

    static func check(_ object: NSManagedObject, against row: [String: SQLiteValue], raw: SQLiteConnection,
                      numbers: [String: Int64]) throws {
        let entity = object.entity
        let label = "\(entity.name!) p\(primaryKey(of: object))"
        for attribute in entity.attributesByName.values where !attribute.isTransient {
            let stored = row["Z" + attribute.name.uppercased()] ?? .null
            let value = object.value(forKey: attribute.name)
            if attribute.attributeType == .transformableAttributeType, value == nil, let archive = stored.dataValue,
               let className = appClassName(inArchive: archive) {
                // An archive of the app's own class (CoreDataPlus's `Cover`) cannot be decoded
                // without the app, as on an Apple device without it: the value reads as nil.
                #expect(NSClassFromString(className) == nil, "\(label).\(attribute.name)")
                continue
            }
            #expect(matches(value, stored, type: attribute.attributeType), "\(label).\(attribute.name): \(String(describing: value)) vs \(stored)")
        }
        for relationship in entity.relationshipsByName.values where !relationship.isTransient {
            let destination = relationship.destinationEntity!
            let destinationTable = "Z" + destination.rootEntity.name!.uppercased()
            if !relationship.isToMany {
                let stored = row["Z" + relationship.name.uppercased()]?.int64Value
                let value = (object.value(forKey: relationship.name) as? NSManagedObject).map(primaryKey(of:))
                #expect(value == stored, "\(label).\(relationship.name)")
                continue
            }
            let members: [NSManagedObject] = relationship.isOrdered
                ? ((object.value(forKey: relationship.name) as? NSOrderedSet)?.array as? [NSManagedObject] ?? [])
                : Array(object.value(forKey: relationship.name) as? Set<NSManagedObject> ?? [])
            let keys = members.map(primaryKey(of:))
            let expected: [Int64]
            let inverse = try #require(relationship.inverseRelationship, "\(label).\(relationship.name) has no inverse")
            let pk = SQLiteValue.integer(primaryKey(of: object))
            if !inverse.isToMany {
                let foreignKey = "Z" + inverse.name.uppercased()
                let order = relationship.isOrdered ? " ORDER BY Z_FOK_\(inverse.name.uppercased())" : ""
                expected = try raw.rows("SELECT Z_PK FROM \(destinationTable) WHERE \(foreignKey) = ?\(order)", [pk]).map { $0[0].int64Value! }
            } else {
                // Many-to-many: the join table has a column per side, Z_<entity number><RELATIONSHIP>.
                let mine = "Z_\(number(of: entity, in: numbers)!)\(relationship.name.uppercased())"
                let theirs = "Z_\(number(of: inverse.entity!, in: numbers)!)\(inverse.name.uppercased())"
                let joinTable = try #require(try joinTable(raw, columns: [mine, theirs]), "\(label).\(relationship.name): no join table")
                let order = relationship.isOrdered ? " ORDER BY Z_FOK_\(mine.dropFirst(2))" : ""
                expected = try raw.rows("SELECT \(mine) FROM \(joinTable) WHERE \(theirs) = ?\(order)", [pk]).map { $0[0].int64Value! }
            }
            if relationship.isOrdered {
                #expect(keys == expected, "\(label).\(relationship.name)")
            } else {
                #expect(keys.sorted() == expected.sorted(), "\(label).\(relationship.name)")
            }
        }
    }

    /// The first class an `NSKeyedArchiver` archive names that Foundation does not have.
    static func appClassName(inArchive data: Data) -> String? {
        guard let plist = try? PropertyListSerialization.propertyList(from: data, format: nil) as? [String: Any],
              let objects = plist["$objects"] as? [Any] else { return nil }
        for case let object as [String: Any] in objects {
            if let name = object["$classname"] as? String, !name.hasPrefix("NS") { return name }
        }
        return nil
    }

    /// Whether an object's value is what the column holds, in Core Data's encodings.
    static func matches(_ value: Any?, _ stored: SQLiteValue, type: NSAttributeType) -> Bool {
        if case .null = stored { return value == nil }
        guard let value else { return false }
        switch type {
        case .integer16AttributeType, .integer32AttributeType, .integer64AttributeType, .booleanAttributeType:
            return (value as? NSNumber)?.int64Value == stored.int64Value
        case .doubleAttributeType, .decimalAttributeType:
            // A decimal is stored as the REAL nearest to it.
            let number = (value as? Decimal).flatMap { Double($0.description) } ?? (value as? NSNumber)?.doubleValue
            return number == stored.doubleValue
        case .floatAttributeType:
            return (value as? NSNumber)?.floatValue == stored.doubleValue.map(Float.init)
        case .dateAttributeType:
            return (value as? Date)?.timeIntervalSinceReferenceDate == stored.doubleValue
        case .stringAttributeType:
            return value as? String == stored.stringValue
        case .URIAttributeType:
            return (value as? URL)?.absoluteString == stored.stringValue
        case .UUIDAttributeType:
            guard let uuid = value as? UUID, let data = stored.dataValue else { return false }
            return withUnsafeBytes(of: uuid.uuid) { Data($0) } == data
        default:
            return value as? Data == stored.dataValue
        }
    }

    // MARK: Helpers

    /// A context on the store at `url`. A store whose history Core Data tracked is opened with
    /// tracking (without it, it opens read-only, as with Core Data).
    static func openStack(model: NSManagedObjectModel, at url: URL, tracksHistory: Bool = false) throws -> NSManagedObjectContext {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        _ = try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url,
                                               options: tracksHistory ? [NSPersistentHistoryTrackingKey: true] : nil)
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        return context
    }

    static func metadata(_ connection: SQLiteConnection) throws -> [String: Any] {
        let data = try #require(try connection.scalar("SELECT Z_PLIST FROM Z_METADATA").dataValue)
        return try #require(try PropertyListSerialization.propertyList(from: data, format: nil) as? [String: Any])
    }

    /// An entity's `Z_ENT`; a renamed entity keeps its old name in Z_PRIMARYKEY.
    static func number(of entity: NSEntityDescription, in numbers: [String: Int64]) -> Int64? {
        numbers[entity.name!] ?? entity.renamingIdentifier.flatMap { numbers[$0] }
    }

    static func primaryKey(of object: NSManagedObject) -> Int64 {
        Int64(object.objectID.uriRepresentation().lastPathComponent.dropFirst())!
    }

    static func rowsByKey(_ connection: SQLiteConnection, _ sql: String) throws -> [Int64: [String: SQLiteValue]] {
        let statement = try connection.prepare(sql)
        var result: [Int64: [String: SQLiteValue]] = [:]
        let names = (0..<statement.columnCount).map { statement.columnName(at: $0) }
        while try statement.step() {
            var row: [String: SQLiteValue] = [:]
            for (index, name) in names.enumerated() { row[name] = statement.value(at: index) }
            result[row["Z_PK"]!.int64Value!] = row
        }
        return result
    }

    static func joinTable(_ connection: SQLiteConnection, columns: [String]) throws -> String? {
        for row in try connection.rows("SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'Z\\_%' ESCAPE '\\'") {
            let name = row[0].stringValue!
            let tableColumns = Set(try connection.rows("SELECT name FROM pragma_table_info(?)", [.text(name)]).map { $0[0].stringValue! })
            if Set(columns).isSubset(of: tableColumns) { return name }
        }
        return nil
    }
}

/// Hands archived bytes through unchanged, in both directions.
final class PassThroughTransformer: ValueTransformer, @unchecked Sendable {
    override class func allowsReverseTransformation() -> Bool { true }
    override func transformedValue(_ value: Any?) -> Any? { value }
    override func reverseTransformedValue(_ value: Any?) -> Any? { value }
}

/// Damaged store files: a clear error naming the file, never a crash, never a changed file.
@Suite struct DamagedStoreTests {
    @Test(.needsCorpus, arguments: [4096, 8192, 20000])
    func aTruncatedStoreIsAnErrorNamingTheFile(keptBytes: Int) throws {
        let directory = TemporaryDirectory()
        let pair = AppleStoreTests.pairs[6]   // SampleModel_V1.sqlite, no -wal
        let full = try Data(contentsOf: pair.storeURL)
        let url = directory.file("Truncated.sqlite")
        try full.prefix(keptBytes).write(to: url)
        let model = try NSManagedObjectModel(validatingContentsOf: pair.modelURL)
        let error = try #require(throws: CocoaError.self) {
            let context = try AppleStoreTests.openStack(model: model, at: url)
            try context.performAndWait {
                for entity in model.entities { _ = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: entity.name!)) }
            }
        }
        let message = (error.userInfo[NSLocalizedDescriptionKey] as? String) ?? ""
        #expect(message.contains(url.path) || (error.userInfo[NSURLErrorKey] as? URL)?.path == url.path, "\(message)")
        #expect(try Data(contentsOf: url) == full.prefix(keptBytes))
    }
}

/// The `Z<n>_` column that says which entity a to-one points to is named after a number whose
/// meaning is known from one store: a store that numbers it otherwise is read with its own name.
@Suite struct EntityColumnNamingTests {
    @Test(.needsCorpus) func aStoresOwnEntityColumnNameIsAdopted() throws {
        let directory = TemporaryDirectory()
        let url = try Corpus.copyStore("stores/alemar11__CoreDataPlus/Tests__Resources__SampleModel2__Fixtures__SampleModel2_V1.sqlite",
                                       to: directory)
        let stored = try NSPersistentStoreCoordinator.storedModelForPersistentStore(ofType: NSSQLiteStoreType, at: url)
        let raw = try SQLiteConnection(path: url.path)
        try raw.execute("ALTER TABLE ZPAGE RENAME COLUMN Z1_BOOK TO Z7_BOOK")
        // Every page still reads, with its book.
        try AppleStoreTests.checkEveryObject(inStoreAt: url, model: stored.model)
        // And a new page written through OpenCoreData fills the store's column.
        for name in ["ContentTransformer", "CoverTransformer"] {
            ValueTransformer.setValueTransformer(PassThroughTransformer(), forName: NSValueTransformerName(name))
        }
        let model = try NSPersistentStoreCoordinator.storedModelForPersistentStore(ofType: NSSQLiteStoreType, at: url).model
        let context = try AppleStoreTests.openStack(model: model, at: url, tracksHistory: true)
        try context.performAndWait {
            let request = NSFetchRequest<NSManagedObject>(entityName: "Book")
            request.includesSubentities = false
            let book = try #require(try context.fetch(request).first)
            let page = NSEntityDescription.insertNewObject(forEntityName: "Page", into: context)
            page.setValue(Int32(5000), forKey: "number")
            page.setValue(Data([1]), forKey: "content")
            page.setValue(book, forKey: "book")
            try context.save()
        }
        #expect(try raw.scalar("SELECT Z7_BOOK FROM ZPAGE WHERE ZNUMBER = 5000").int64Value == 1)
    }
}

extension EntityColumnNamingTests {
    /// Which relationship names a many-to-many's join table is known from one ordered store: a
    /// store whose table is named after the other side is read and written through that table.
    @Test(.needsCorpus) func aStoresOwnJoinTableNameIsAdopted() throws {
        let directory = TemporaryDirectory()
        let pair = AppleStoreTests.pairs[3]   // Bookmarks_V4: favorites ⟷ favoriteFolders
        let url = try Corpus.copyStore(at: pair.storeURL, to: directory)
        let raw = try SQLiteConnection(path: url.path)
        try raw.execute("ALTER TABLE Z_1FAVORITES RENAME TO Z_1FAVORITEFOLDERS")
        let model = try NSManagedObjectModel(validatingContentsOf: pair.modelURL)
        try AppleStoreTests.checkEveryObject(inStoreAt: url, model: model)
        let context = try AppleStoreTests.openStack(model: try NSManagedObjectModel(validatingContentsOf: pair.modelURL), at: url)
        try context.performAndWait {
            let bookmarks = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "BookmarkEntity"))
            let root = try #require(bookmarks.first { $0.value(forKey: "uuid") as? String == "favorites_root" })
            let plain = try #require(bookmarks.first { $0.value(forKey: "uuid") as? String == "3" })
            root.mutableOrderedSetValue(forKey: "favorites").add(plain)
            try context.save()
        }
        #expect(try raw.scalar("SELECT COUNT(*) FROM Z_1FAVORITEFOLDERS").int64Value == 6)
    }
}
