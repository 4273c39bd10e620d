import Foundation
import OCDSQLite
import Testing
import OpenCoreData
@testable import OpenCoreDataCore
@testable import OpenCoreDataSQLite

/// The SQLite store's file: what it refuses to open (and leaves untouched), and Core Data's
/// on-disk layout (COREDATA-FORMAT.md §2, §4).
@Suite struct StoreFileTests {
    /// The companion files SQLite may create next to `url`.
    private func companions(of url: URL) -> [String] {
        ["-wal", "-shm", "-journal"].map { url.path + $0 }.filter { FileManager.default.fileExists(atPath: $0) }
    }

    /// Opens a coordinator for `model` on `url` and returns the error it throws.
    private func openError(_ url: URL, model: NSManagedObjectModel = TestModel.make(), options: [AnyHashable: Any]? = nil,
                           sourceLocation: SourceLocation = #_sourceLocation) -> NSError? {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        let error = #expect(throws: (any Error).self, sourceLocation: sourceLocation) {
            try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url, options: options)
        }
        #expect(coordinator.persistentStores.isEmpty, sourceLocation: sourceLocation)
        return error.map { $0 as NSError }
    }

    /// A model with one more, unrelated entity (it sorts last, so the others keep their numbers).
    private func modelWithExtraEntity() -> NSManagedObjectModel {
        let model = TestModel.make()
        let zoo = NSEntityDescription(name: "Zoo")
        zoo.properties = [NSAttributeDescription(name: "city", type: .stringAttributeType)]
        model.entities = model.entities + [zoo]
        return model
    }

    // MARK: Files that are not stores

    @Test func aFileThatIsNotSQLiteIsRefusedAndLeftAlone() throws {
        let directory = TemporaryDirectory()
        let url = directory.file("Notes.sqlite")
        let bytes = Data(String(repeating: "These are my notes, not a database. ", count: 200).utf8)
        try bytes.write(to: url)

        let error = try #require(openError(url))
        #expect(error.domain == NSCocoaErrorDomain)
        #expect(error.localizedDescription.contains(url.path))
        #expect(try Data(contentsOf: url) == bytes)
        #expect(companions(of: url).isEmpty)
    }

    @Test func aSQLiteDatabaseWithoutCoreDataTablesIs134000() throws {
        let directory = TemporaryDirectory()
        let url = directory.file("Other.sqlite")
        do {
            var configuration = SQLiteConnection.Configuration()
            configuration.walMode = false
            let connection = try SQLiteConnection(path: url.path, configuration: configuration)
            try connection.execute("CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT)")
            try connection.run("INSERT INTO notes (body) VALUES (?)", [.text("keep me")])
        }
        let bytes = try Data(contentsOf: url)
        #expect(companions(of: url).isEmpty)

        let error = try #require(openError(url))
        #expect(error.domain == NSCocoaErrorDomain)
        #expect(error.code == 134000)
        #expect(error.localizedDescription.contains(url.path))
        #expect(try Data(contentsOf: url) == bytes)
        #expect(companions(of: url).isEmpty)
    }

    // MARK: Incompatible models

    @Test func aModelLackingAnEntityOfTheStoreIs134100() throws {
        let stack = try TestStack(.sqlite, model: modelWithExtraEntity())
        _ = stack.insert("Zoo", ["city": "Berlin"])
        try stack.context.save()
        let url = stack.storeURL
        for store in stack.coordinator.persistentStores { try stack.coordinator.remove(store) }
        let bytes = try Data(contentsOf: url)

        let error = try #require(openError(url, model: TestModel.make()))
        #expect(error.domain == NSCocoaErrorDomain)
        #expect(error.code == 134100)
        #expect(error.localizedDescription.contains("Zoo"))
        #expect(try Data(contentsOf: url) == bytes)
    }

    @Test func aModelWithAnEntityTheStoreLacksIs134100() throws {
        let stack = try TestStack(.sqlite)
        _ = stack.insert("Person", ["name": "Ada"])
        try stack.context.save()
        let url = stack.storeURL
        for store in stack.coordinator.persistentStores { try stack.coordinator.remove(store) }

        let error = try #require(openError(url, model: modelWithExtraEntity()))
        #expect(error.code == 134100)
        #expect(error.localizedDescription.contains("Zoo"))
    }

    @Test func aModelWithAnExtraAttributeIs134100() throws {
        let stack = try TestStack(.sqlite)
        _ = stack.insert("Person", ["name": "Ada"])
        try stack.context.save()
        let url = stack.storeURL
        for store in stack.coordinator.persistentStores { try stack.coordinator.remove(store) }
        let bytes = try Data(contentsOf: url)

        let model = TestModel.make()
        let person = try #require(model.entitiesByName["Person"])
        person.properties = person.properties + [NSAttributeDescription(name: "shoeSize", type: .integer16AttributeType)]
        let error = try #require(openError(url, model: model))
        #expect(error.code == 134100)
        #expect(error.localizedDescription.contains("Person"))
        #expect(try Data(contentsOf: url) == bytes)

        // The same file still opens with the model it was made with.
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: stack.model)
        try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url)
        let context = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        #expect(try context.count(for: NSFetchRequest<NSManagedObject>(entityName: "Person")) == 1)
    }

    @Test func aModelThatChangesAnAttributeTypeIs134100() throws {
        let stack = try TestStack(.sqlite)
        _ = stack.insert("Person", ["name": "Ada", "age": 3])
        try stack.context.save()
        let url = stack.storeURL
        for store in stack.coordinator.persistentStores { try stack.coordinator.remove(store) }

        let model = TestModel.make()
        let age = try #require(model.entitiesByName["Person"]?.attributesByName["age"])
        age.attributeType = .stringAttributeType
        age.defaultValue = nil
        age.minValue = nil
        age.maxValue = nil
        let error = try #require(openError(url, model: model))
        #expect(error.code == 134100)
        #expect(error.localizedDescription.contains("Person"))
    }

    // MARK: Layout

    @Test func theStoreUsesWriteAheadLogging() throws {
        let stack = try TestStack(.sqlite)
        let connection = try #require(stack.sqliteConnection)
        #expect(try connection.scalar("PRAGMA journal_mode").stringValue?.lowercased() == "wal")
    }

    @Test func primaryKeyTableNumbersEntitiesRootsFirstThenSubentities() throws {
        let stack = try TestStack(.sqlite)
        let connection = try SQLiteConnection(path: stack.storeURL.path)
        let rows = try connection.rows("SELECT Z_ENT, Z_NAME, Z_SUPER, Z_MAX FROM Z_PRIMARYKEY ORDER BY Z_ENT")
        let table = rows.map { "\($0[0].int64Value ?? -1) \($0[1].stringValue ?? "?") \($0[2].int64Value ?? -1)" }
        // Roots by name (Animal, Club, Person, Pet, Playlist, Song), each followed by its
        // sub-entities by name (Bird, Dog); Z_SUPER is the parent's number or 0.
        #expect(table == ["1 Animal 0", "2 Bird 1", "3 Dog 1", "4 Club 0", "5 Person 0", "6 Pet 0", "7 Playlist 0", "8 Song 0"])
        #expect(rows.allSatisfy { $0[3].int64Value == 0 })
    }

    @Test func entityNumbersSortRootsCaseInsensitively() throws {
        let alpha = NSEntityDescription(name: "alpha")
        let omega = NSEntityDescription(name: "Omega")
        let beta = NSEntityDescription(name: "Beta")
        let zeta = NSEntityDescription(name: "Zeta")
        let gamma = NSEntityDescription(name: "gamma")
        alpha.properties = [NSAttributeDescription(name: "a", type: .integer64AttributeType)]
        alpha.subentities = [omega]
        beta.subentities = [gamma]
        let model = NSManagedObjectModel()
        model.entities = [zeta, beta, gamma, alpha, omega]
        let stack = try TestStack(.sqlite, model: model)

        let connection = try SQLiteConnection(path: stack.storeURL.path)
        let rows = try connection.rows("SELECT Z_ENT, Z_NAME, Z_SUPER FROM Z_PRIMARYKEY ORDER BY Z_ENT")
        // COREDATA-FORMAT.md §2: roots case-insensitively (alpha < Beta < Zeta), depth first.
        #expect(rows.map { "\($0[0].int64Value ?? -1) \($0[1].stringValue ?? "?") \($0[2].int64Value ?? -1)" }
            == ["1 alpha 0", "2 Omega 1", "3 Beta 0", "4 gamma 3", "5 Zeta 0"])
    }

    @Test func metadataRowHoldsABinaryPlistWithTheStoreType() throws {
        let stack = try TestStack(.sqlite)
        let store = try #require(stack.coordinator.persistentStores.first)
        let connection = try SQLiteConnection(path: stack.storeURL.path)
        let rows = try connection.rows("SELECT Z_VERSION, Z_UUID, Z_PLIST FROM Z_METADATA")
        #expect(rows.count == 1)
        let row = try #require(rows.first)
        #expect(row[0].int64Value == 1)
        #expect(row[1].stringValue == store.identifier)
        let data = try #require(row[2].dataValue)
        #expect(data.starts(with: Data("bplist00".utf8)))
        var format = PropertyListSerialization.PropertyListFormat.xml
        let plist = try #require(try PropertyListSerialization.propertyList(from: data, format: &format) as? [String: Any])
        #expect(format == .binary)
        #expect(plist[NSStoreTypeKey] as? String == "SQLite")
        #expect(store.metadata[NSStoreTypeKey] as? String == "SQLite")
        #expect(store.type == NSSQLiteStoreType)
    }

    @Test func entityTablesHaveCoreDataColumns() throws {
        let stack = try TestStack(.sqlite)
        let connection = try SQLiteConnection(path: stack.storeURL.path)
        func columns(_ table: String) throws -> [String: String] {
            var result: [String: String] = [:]
            for row in try connection.rows("SELECT name, type FROM pragma_table_info(?)", [.text(table)]) {
                result[row[0].stringValue ?? ""] = row[1].stringValue?.uppercased()
            }
            return result
        }
        let tables = Set(try connection.rows("SELECT name FROM sqlite_master WHERE type = 'table'").compactMap { $0[0].stringValue })
        #expect(tables.isSuperset(of: ["Z_PRIMARYKEY", "Z_METADATA", "ZPERSON", "ZPET", "ZANIMAL", "ZCLUB", "ZPLAYLIST", "ZSONG"]))
        // Sub-entities share their root's table.
        #expect(!tables.contains("ZDOG") && !tables.contains("ZBIRD"))

        let person = try columns("ZPERSON")
        for column in ["Z_PK", "Z_ENT", "Z_OPT"] { #expect(person[column] == "INTEGER", "\(column)") }
        #expect(person["ZNAME"] == "VARCHAR")
        #expect(person["ZAGE"] == "INTEGER")
        #expect(person["ZACTIVE"] == "INTEGER")
        #expect(person["ZBORN"] == "TIMESTAMP")
        #expect(person["ZHEIGHT"] == "FLOAT")
        #expect(person["ZPHOTO"] == "BLOB")
        #expect(person["ZWEBSITE"] == "VARCHAR")
        #expect(person["ZNICKNAME"] == nil)  // transient
        #expect(person["ZPETS"] == nil)  // to-many: no column on the source side
        let pet = try columns("ZPET")
        #expect(pet["ZOWNER"] == "INTEGER")
        #expect(pet["ZNAME"] == "VARCHAR")
        let animal = try columns("ZANIMAL")
        for column in ["Z_PK", "Z_ENT", "Z_OPT", "ZLEGS", "ZBREED", "ZWINGSPAN"] { #expect(animal[column] != nil, "\(column)") }
    }

    @Test func rowsCarryKeysEntityNumbersVersionsAndDatesAsReferenceSeconds() throws {
        let stack = try TestStack(.sqlite)
        let born = Date(timeIntervalSinceReferenceDate: 123_456_789.5)
        let ada = stack.insert("Person", ["name": "Ada", "born": born, "age": 36])
        _ = stack.insert("Pet", ["name": "Rex", "owner": ada])
        try stack.context.save()

        let connection = try SQLiteConnection(path: stack.storeURL.path)
        let row = try #require(try connection.rows("SELECT Z_PK, Z_ENT, Z_OPT, ZNAME, ZAGE, ZBORN, typeof(ZBORN) FROM ZPERSON").first)
        #expect(row[0].int64Value == 1)
        #expect(row[1].int64Value == 5)  // Person's Z_ENT
        #expect(row[2].int64Value == 1)  // Z_OPT starts at 1
        #expect(row[3].stringValue == "Ada")
        #expect(row[4].int64Value == 36)
        // Dates: REAL seconds since 2001-01-01 (COREDATA-FORMAT.md §2).
        #expect(row[5] == .real(123_456_789.5))
        #expect(row[6].stringValue == "real")
        let pet = try #require(try connection.rows("SELECT Z_ENT, Z_OPT, ZOWNER FROM ZPET").first)
        #expect(pet == [.integer(6), .integer(1), .integer(1)])

        // Z_OPT goes up by one per saved update.
        ada.setValue(37, forKey: "age")
        try stack.context.save()
        #expect(try connection.scalar("SELECT Z_OPT FROM ZPERSON WHERE Z_PK = 1") == .integer(2))
        ada.setValue("Ada L.", forKey: "name")
        try stack.context.save()
        #expect(try connection.scalar("SELECT Z_OPT FROM ZPERSON WHERE Z_PK = 1") == .integer(3))
        // An unchanged save doesn't bump it.
        try stack.context.save()
        #expect(try connection.scalar("SELECT Z_OPT FROM ZPERSON WHERE Z_PK = 1") == .integer(3))

        try stack.reopen()
        let fetched = try #require(try stack.fetch("Person").first)
        #expect(fetched.value(forKey: "born") as? Date == born)
        #expect(fetched.value(forKey: "name") as? String == "Ada L.")
    }

    @Test func primaryKeysAreAllocatedPerInheritanceTreeFromTheRootsZMax() throws {
        let stack = try TestStack(.sqlite)
        _ = stack.insert("Dog", ["breed": "Collie"])
        _ = stack.insert("Bird", ["wingspan": 0.3])
        _ = stack.insert("Dog", ["breed": "Pug"])
        _ = stack.insert("Person", ["name": "Ada"])
        try stack.context.save()

        let connection = try SQLiteConnection(path: stack.storeURL.path)
        let max = Dictionary(uniqueKeysWithValues: try connection.rows("SELECT Z_NAME, Z_MAX FROM Z_PRIMARYKEY").map {
            ($0[0].stringValue ?? "?", $0[1].int64Value ?? -1)
        })
        #expect(max["Animal"] == 3)
        #expect(max["Dog"] == 0)
        #expect(max["Bird"] == 0)
        #expect(max["Person"] == 1)
        #expect(max["Pet"] == 0)
        let animals = try connection.rows("SELECT Z_PK, Z_ENT FROM ZANIMAL ORDER BY Z_PK")
        #expect(animals.map { $0[0].int64Value ?? -1 } == [1, 2, 3])
        #expect(animals.map { $0[1].int64Value ?? -1 }.sorted() == [2, 3, 3])  // Bird 2, Dog 3

        // Keys keep counting after a reopen.
        try stack.reopen()
        let bird = stack.insert("Bird", ["wingspan": 1.0])
        try stack.context.save()
        #expect(bird.objectID.uriRepresentation().lastPathComponent == "p4")
        #expect(try connection.scalar("SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_NAME = 'Animal'") == .integer(4))
    }

    @Test func attributeValuesUseCoreDataStorageClasses() throws {
        let stack = try TestStack(.sqlite)
        let uuid = UUID()
        _ = stack.insert("Person", [
            "name": "Ada", "active": false, "height": 1.5, "small": Int16(-7), "id": uuid,
            "website": URL(string: "https://example.com/ada")!, "photo": Data([1, 2, 3]),
        ])
        try stack.context.save()

        let connection = try SQLiteConnection(path: stack.storeURL.path)
        let row = try #require(try connection.rows("SELECT ZACTIVE, ZHEIGHT, ZSMALL, ZID, ZWEBSITE, ZPHOTO, ZEMAIL FROM ZPERSON").first)
        // COREDATA-FORMAT.md §2: Boolean and integers as INTEGER, Double as REAL, UUID as its 16
        // raw bytes, URI as the absolute string, binary data as a BLOB, nil as NULL.
        #expect(row[0] == .integer(0))
        #expect(row[1] == .real(1.5))
        #expect(row[2] == .integer(-7))
        let bytes = withUnsafeBytes(of: uuid.uuid) { Data($0) }
        #expect(row[3] == .blob(bytes))
        #expect(row[4] == .text("https://example.com/ada"))
        #expect(row[5] == .blob(Data([1, 2, 3])))
        #expect(row[6] == .null)
    }

    @Test func orderedToManyKeepsOrderKeysInTheMembersRows() throws {
        let stack = try TestStack(.sqlite)
        let list = stack.insert("Playlist", ["title": "Mix"])
        let songs = list.mutableOrderedSetValue(forKey: "songs")
        for title in ["a", "b", "c"] { songs.add(stack.insert("Song", ["title": title])) }
        try stack.context.save()

        let connection = try SQLiteConnection(path: stack.storeURL.path)
        // COREDATA-FORMAT.md §2: the order key is Z_FOK_<INVERSE> in the destination row.
        let rows = try connection.rows("SELECT ZTITLE, ZPLAYLIST FROM ZSONG ORDER BY Z_FOK_PLAYLIST")
        #expect(rows.map { $0[0].stringValue } == ["a", "b", "c"])
        #expect(rows.allSatisfy { $0[1] == .integer(1) })
    }

    @Test func manyToManyMembershipsLiveInAJoinTable() throws {
        let stack = try TestStack(.sqlite)
        let ada = stack.insert("Person", ["name": "Ada"])
        let bob = stack.insert("Person", ["name": "Bob"])
        let chess = stack.insert("Club", ["name": "Chess"])
        let go = stack.insert("Club", ["name": "Go"])
        chess.setValue(Set([ada, bob]), forKey: "members")
        go.setValue(Set([ada]), forKey: "members")
        try stack.context.save()

        let connection = try SQLiteConnection(path: stack.storeURL.path)
        // COREDATA-FORMAT.md §2: one join table; each column Z_<entity><RELATIONSHIP> holds the
        // keys reached through that relationship (Club is entity 4, Person 5).
        let tables = try connection.rows("SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'Z\\_%' ESCAPE '\\'")
            .compactMap { $0[0].stringValue }.filter { !["Z_PRIMARYKEY", "Z_METADATA", "Z_MODELCACHE"].contains($0) }
        #expect(tables.count == 1)
        let join = try #require(tables.first)
        let pairs = try connection.rows("SELECT Z_5CLUBS, Z_4MEMBERS FROM \(join)")
            .map { "\($0[0].int64Value ?? -1)-\($0[1].int64Value ?? -1)" }.sorted()
        func pk(_ object: NSManagedObject) -> String { String(object.objectID.uriRepresentation().lastPathComponent.dropFirst()) }
        #expect(pairs == ["\(pk(chess))-\(pk(ada))", "\(pk(chess))-\(pk(bob))", "\(pk(go))-\(pk(ada))"].sorted())
    }

    // MARK: Read-only stores

    @Test func aReadOnlyStoreReadsButRefusesToSave() throws {
        let stack = try TestStack(.sqlite)
        _ = stack.insert("Person", ["name": "Ada"])
        try stack.context.save()
        let url = stack.storeURL
        for store in stack.coordinator.persistentStores { try stack.coordinator.remove(store) }

        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: stack.model)
        let store = try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url,
                                                       options: [NSReadOnlyPersistentStoreOption: true])
        #expect(store.isReadOnly)
        let context = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        let people = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Person"))
        #expect(people.map { $0.value(forKey: "name") as? String } == ["Ada"])

        people[0].setValue("Changed", forKey: "name")
        NSEntityDescription.insertNewObject(forEntityName: "Person", into: context).setValue("New", forKey: "name")
        let error = #expect(throws: (any Error).self) { try context.save() }
        #expect((error as? NSError)?.domain == NSCocoaErrorDomain)
        #expect(context.hasChanges)

        let reader = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
        reader.persistentStoreCoordinator = coordinator
        #expect(try reader.fetch(NSFetchRequest<NSManagedObject>(entityName: "Person")).map { $0.value(forKey: "name") as? String } == ["Ada"])
    }

    @Test func aReadOnlyStoreThatDoesNotExistIsNotCreated() throws {
        let directory = TemporaryDirectory()
        let url = directory.file("Missing.sqlite")
        _ = openError(url, options: [NSReadOnlyPersistentStoreOption: true])
        #expect(!FileManager.default.fileExists(atPath: url.path))
    }
}

@Suite struct StoreOptionTests {
    @Test func pragmasAndTimeoutFromTheStoreDescriptionReachTheConnection() throws {
        let directory = TemporaryDirectory()
        let description = NSPersistentStoreDescription(url: directory.file("P.sqlite"))
        description.setValue(NSNumber(value: 123), forPragmaNamed: "cache_size")
        description.setValue("MEMORY" as NSString, forPragmaNamed: "temp_store")
        let container = NSPersistentContainer(name: "P", managedObjectModel: TestModel.make())
        container.persistentStoreDescriptions = [description]
        let errors = LockedBox<[Error]>([])
        container.loadPersistentStores { _, error in if let error { errors.mutate { $0.append(error) } } }
        #expect(errors.value.isEmpty)
        let store = try #require(container.persistentStoreCoordinator.persistentStores.first as? SQLiteStore)
        let connection = try #require(store.connection)
        #expect(try connection.scalar("PRAGMA cache_size") == .integer(123))
        #expect(try connection.scalar("PRAGMA temp_store") == .integer(2))
    }

    @Test func connectionsGetAnEightMebibytePageCacheUnlessThePragmasSayOtherwise() throws {
        let directory = TemporaryDirectory()
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: TestModel.make())
        let store = try #require(try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil,
                                                                     at: directory.file("C.sqlite"), options: nil) as? SQLiteStore)
        // A negative cache_size is in KiB.
        #expect(try #require(store.connection).scalar("PRAGMA cache_size") == .integer(-8192))
        #expect(try store.withReader { try $0.connection.scalar("PRAGMA cache_size") } == .integer(-8192))

        let small = try #require(try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil,
                                                                     at: directory.file("D.sqlite"),
                                                                     options: [NSSQLitePragmasOption: ["cache_size": -1024]]) as? SQLiteStore)
        #expect(try #require(small.connection).scalar("PRAGMA cache_size") == .integer(-1024))
        #expect(try small.withReader { try $0.connection.scalar("PRAGMA cache_size") } == .integer(-1024))
    }

    @Test func aPragmaThatIsNotAnIdentifierIsRefused() throws {
        let directory = TemporaryDirectory()
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: TestModel.make())
        let error = #expect(throws: CocoaError.self) {
            try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: directory.file("Q.sqlite"),
                                               options: [NSSQLitePragmasOption: ["cache_size": "1; DROP TABLE Z_METADATA"]])
        }
        #expect(error?.message.contains("cache_size") == true)
    }

    /// A store whose rows were mostly deleted, closed: what it holds and how many free pages.
    private static func storeWithFreePages(in directory: TemporaryDirectory) throws -> URL {
        let url = directory.file("Tidy.sqlite")
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: TestModel.make())
        try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url)
        let context = NSManagedObjectContext(concurrencyType: .confinementConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        let people = (0..<2000).map { index in
            let person = NSEntityDescription.insertNewObject(forEntityName: "Person", into: context)
            person.setValue("\(index) " + String(repeating: "x", count: 400), forKey: "name")
            return person
        }
        try context.save()
        people.dropFirst(10).forEach(context.delete)
        try context.save()
        try coordinator.remove(coordinator.persistentStores[0])
        return url
    }

    private static func add(_ url: URL, options: [String: Any]?) throws -> (NSPersistentStoreCoordinator, SQLiteStore) {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: TestModel.make())
        let store = try #require(try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url, options: options) as? SQLiteStore)
        return (coordinator, store)
    }

    @Test func theManualVacuumOptionGivesBackTheFreePagesAndKeepsTheRows() throws {
        let directory = TemporaryDirectory()
        let url = try Self.storeWithFreePages(in: directory)
        do {
            let (coordinator, store) = try Self.add(url, options: nil)
            #expect(try #require(store.connection).scalar("PRAGMA freelist_count").int64Value ?? 0 > 100)
            try coordinator.remove(store)
        }
        let (coordinator, store) = try Self.add(url, options: [NSSQLiteManualVacuumOption: true])
        #expect(try #require(store.connection).scalar("PRAGMA freelist_count") == .integer(0))
        let context = NSManagedObjectContext(concurrencyType: .confinementConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        #expect(try context.count(for: NSFetchRequest<NSManagedObject>(entityName: "Person")) == 10)
    }

    @Test func theAnalyzeOptionGathersStatisticsForTheQueryPlanner() throws {
        let directory = TemporaryDirectory()
        let url = try Self.storeWithFreePages(in: directory)
        let statistics = "SELECT count(*) FROM sqlite_master WHERE name = 'sqlite_stat1'"
        do {
            let (coordinator, store) = try Self.add(url, options: nil)
            #expect(try #require(store.connection).scalar(statistics) == .integer(0))
            try coordinator.remove(store)
        }
        let (_, store) = try Self.add(url, options: [NSSQLiteAnalyzeOption: NSNumber(value: true)])
        #expect(try #require(store.connection).scalar(statistics) == .integer(1))
        #expect(try #require(store.connection).scalar("SELECT count(*) FROM sqlite_stat1").int64Value ?? 0 > 0)
    }

    @Test func aReadOnlyStoreIsNeitherVacuumedNorAnalyzed() throws {
        let directory = TemporaryDirectory()
        let url = try Self.storeWithFreePages(in: directory)
        let (_, store) = try Self.add(url, options: [NSReadOnlyPersistentStoreOption: true, NSSQLiteManualVacuumOption: true, NSSQLiteAnalyzeOption: true])
        #expect(try #require(store.connection).scalar("PRAGMA freelist_count").int64Value ?? 0 > 100)
        #expect(try #require(store.connection).scalar("SELECT count(*) FROM sqlite_master WHERE name = 'sqlite_stat1'") == .integer(0))
    }

    @Test func theConnectionPoolSizeBoundsTheReaders() throws {
        let directory = TemporaryDirectory()
        let url = directory.file("Pool.sqlite")
        #expect(try Self.add(url, options: [NSPersistentStoreConnectionPoolMaxSizeKey: 2]).1.readers?.capacity == 2)
        #expect(try Self.add(url, options: [NSPersistentStoreConnectionPoolMaxSizeKey: NSNumber(value: 0)]).1.readers?.capacity == 1)
        #expect(try Self.add(url, options: nil).1.readers?.capacity == SQLiteReaderPool.defaultCapacity)
    }
}

/// A store numbers its entities as its writer did: OpenCoreData follows the store's
/// `Z_PRIMARYKEY` rather than refusing a store numbered in another order.
@Suite struct StoredEntityNumberTests {
    @Test func aStoreNumberedInAnotherOrderIsReadWithItsOwnNumbers() throws {
        let stack = try TestStack(.sqlite)
        let list = stack.insert("Playlist", ["title": "Mix"])
        for title in ["b", "a", "c"] {
            list.mutableOrderedSetValue(forKey: "songs").add(stack.insert("Song", ["title": title]))
        }
        try stack.context.save()
        let connection = try #require(stack.sqliteConnection)
        let playlist = try #require(try connection.scalar("SELECT Z_ENT FROM Z_PRIMARYKEY WHERE Z_NAME = 'Playlist'").int64Value)
        let song = try #require(try connection.scalar("SELECT Z_ENT FROM Z_PRIMARYKEY WHERE Z_NAME = 'Song'").int64Value)
        // Swap the two numbers everywhere they appear.
        try connection.execute("""
            UPDATE Z_PRIMARYKEY SET Z_ENT = -1 WHERE Z_ENT = \(playlist);
            UPDATE Z_PRIMARYKEY SET Z_ENT = \(playlist) WHERE Z_ENT = \(song);
            UPDATE Z_PRIMARYKEY SET Z_ENT = \(song) WHERE Z_ENT = -1;
            UPDATE ZPLAYLIST SET Z_ENT = \(song);
            UPDATE ZSONG SET Z_ENT = \(playlist);
            """)
        try stack.reopen()
        let reread = try #require(try stack.fetch("Playlist").first)
        #expect(orderedMembers(reread, "songs").map { $0.value(forKey: "title") as? String } == ["b", "a", "c"])
        #expect(try stack.storedCount("Song") == 3)
        // Writing keeps the store's numbers.
        _ = stack.insert("Song", ["title": "d"])
        try stack.context.save()
        let reopened = try #require(stack.sqliteConnection)
        #expect(try reopened.scalar("SELECT COUNT(*) FROM ZSONG WHERE Z_ENT = \(playlist)").int64Value == 4)
    }
}
