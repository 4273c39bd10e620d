import Foundation
import OCDSQLite
import Testing
import OpenCoreData
@testable import OpenCoreDataCore
@testable import OpenCoreDataSQLite

/// The metadata stores write (Core Data's keys), and reading and writing it through the
/// coordinator's class methods, on our stores and on copies of Apple-written ones.
@Suite struct StoreMetadataTests {
    // MARK: What stores write

    @Test func sqliteStoreWritesCoreDataKeys() throws {
        let stack = try TestStack(.sqlite)
        let store = try #require(stack.coordinator.persistentStores.first)
        let (uuid, plist) = try Corpus.rawMetadata(ofStoreAt: stack.storeURL)
        #expect(uuid == store.identifier)
        #expect(plist[NSStoreUUIDKey] == nil)
        #expect(plist[NSStoreTypeKey] as? String == "SQLite")
        #expect(plist["NSPersistenceFrameworkVersion"] as? Int == SQLiteStore.frameworkVersion)
        #expect(plist["NSStoreModelVersionHashesVersion"] as? Int == 3)
        #expect(plist["_NSAutoVacuumLevel"] as? String == "2")
        #expect(plist["NSStoreModelVersionIdentifiers"] as? [String] == [])

        let hashes = try #require(VersionHashing.hashes(inMetadata: plist))
        // Every entity, sub-entities (Dog, Bird) and the abstract Animal included.
        #expect(hashes.keys.sorted() == ["Animal", "Bird", "Club", "Dog", "Person", "Pet", "Playlist", "Song"])
        #expect(hashes == stack.model.entityVersionHashesByName)
        #expect(hashes.values.allSatisfy { $0.count == 32 })
        // The digest and checksum agree with the hashes next to them.
        #expect(plist["NSStoreModelVersionHashesDigest"] as? String == VersionHashing.digest(of: hashes))
        #expect(Data(base64Encoded: plist["NSStoreModelVersionHashesDigest"] as? String ?? "")?.count == 64)
        #expect(plist["NSStoreModelVersionChecksumKey"] as? String == stack.model.versionChecksum)
        #expect(store.metadata[NSStoreModelVersionHashesKey] != nil)
    }

    @Test func versionIdentifiersAreWritten() throws {
        let model = TestModel.make()
        model.versionIdentifiers = ["2"]
        let stack = try TestStack(.sqlite, model: model)
        let (_, plist) = try Corpus.rawMetadata(ofStoreAt: stack.storeURL)
        #expect(plist[NSStoreModelVersionIdentifiersKey] as? [String] == ["2"])
    }

    /// A store of a configuration hashes the configuration's entities and their sub-entities.
    @Test(arguments: StoreKind.allCases)
    func configurationStoreHashesItsEntities(kind: StoreKind) throws {
        let model = TestModel.make()
        let entities = model.entitiesByName
        model.setEntities([entities["Animal"]!], forConfigurationName: "Animals")
        let directory = TemporaryDirectory()
        let schema = kind == .postgres ? try PostgresTestSchema() : nil
        defer { schema?.drop() }
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        let store = try coordinator.addPersistentStore(ofType: kind.type, configurationName: "Animals",
                                                       at: kind == .sqlite ? directory.file("Animals.sqlite") : schema.map { URL(string: $0.url)! })
        let metadata = try #require(store.metadata)
        let hashes = try #require(VersionHashing.hashes(inMetadata: metadata))
        #expect(hashes.keys.sorted() == ["Animal", "Bird", "Dog"])
        #expect(hashes["Dog"] == entities["Dog"]!.versionHash)
        #expect(metadata["NSStoreModelVersionHashesDigest"] as? String == VersionHashing.digest(of: hashes))
        #expect(model.isConfiguration(withName: "Animals", compatibleWithStoreMetadata: metadata))
        #expect(!model.isConfiguration(withName: nil, compatibleWithStoreMetadata: metadata))
    }

    /// Apple's deprecated `metadataForPersistentStore(with:)` names no type: the file's own type
    /// answers, with its UUID and hashes.
    @Test(arguments: [StoreKind.sqlite, .binary, .xml])
    func metadataIsReadWithoutNamingTheType(kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        let url = directory.file("Store.\(kind.rawValue)")
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: TestModel.make())
        let store = try coordinator.addPersistentStore(ofType: kind.type, configurationName: nil, at: url)
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        try context.performAndWait {
            _ = NSEntityDescription.insertNewObject(forEntityName: "Dog", into: context)
            try context.save()
        }
        try coordinator.remove(store)
        let metadata = try NSPersistentStoreCoordinator.metadataForPersistentStore(with: url)
        #expect(metadata[NSStoreTypeKey] as? String == kind.type)
        #expect(metadata[NSStoreUUIDKey] as? String == store.identifier)
        let typed = try NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: kind.type, at: url)
        #expect(NSDictionary(dictionary: metadata) == NSDictionary(dictionary: typed))
        #expect(VersionHashing.hashes(inMetadata: typed)?["Dog"] == coordinator.managedObjectModel.entitiesByName["Dog"]!.versionHash)
    }

    @Test func metadataOfAFileOfNoKnownTypeIsRefusedNamingItAndTheTypesTried() throws {
        let directory = TemporaryDirectory()
        let url = directory.file("notes.txt")
        try Data("not a store".utf8).write(to: url)
        let error = try #require(throws: CocoaError.self) { try NSPersistentStoreCoordinator.metadataForPersistentStore(with: url) }
        #expect(error.code.rawValue == NSPersistentStoreInvalidTypeError)
        #expect(error.localizedDescription.contains(url.path))
        #expect(error.localizedDescription.contains("SQLite, Binary, XML"))
        let missing = try #require(throws: CocoaError.self) {
            try NSPersistentStoreCoordinator.metadataForPersistentStore(with: directory.file("missing.sqlite"))
        }
        #expect(missing.code == .fileReadNoSuchFile)
        #expect(try Data(contentsOf: url) == Data("not a store".utf8))
    }

    @Test func inMemoryStoreCarriesTheHashes() throws {
        let stack = try TestStack(.inMemory)
        let metadata = try #require(stack.coordinator.persistentStores.first?.metadata)
        #expect(metadata[NSStoreTypeKey] as? String == NSInMemoryStoreType)
        #expect(VersionHashing.hashes(inMetadata: metadata) == stack.model.entityVersionHashesByName)
        #expect(metadata[NSStoreModelVersionChecksumKey] as? String == stack.model.versionChecksum)
        #expect(stack.model.isConfiguration(withName: nil, compatibleWithStoreMetadata: metadata))
    }

    // MARK: Reading metadata without opening the store

    @Test func metadataOfOurStore() throws {
        let stack = try TestStack(.sqlite)
        let identifier = try #require(stack.coordinator.persistentStores.first?.identifier)
        // While the store is open…
        let whileOpen = try NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: NSSQLiteStoreType, at: stack.storeURL)
        #expect(whileOpen[NSStoreUUIDKey] as? String == identifier)
        // …and once it is closed, when reading must leave the files exactly as they are.
        for store in stack.coordinator.persistentStores { try stack.coordinator.remove(store) }
        let before = try snapshot(of: stack.directory)

        let metadata = try NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: NSSQLiteStoreType, at: stack.storeURL)
        #expect(metadata[NSStoreUUIDKey] as? String == identifier)
        #expect(metadata[NSStoreTypeKey] as? String == NSSQLiteStoreType)
        #expect(VersionHashing.hashes(inMetadata: metadata) == stack.model.entityVersionHashesByName)
        #expect(stack.model.isConfiguration(withName: nil, compatibleWithStoreMetadata: metadata))
        let after = try snapshot(of: stack.directory)
        #expect(after == before, "reading metadata changed the store's files: \(Set(after.keys).union(before.keys).filter { after[$0] != before[$0] }.sorted())")

        // The same model with one attribute of another type is not compatible.
        let changed = TestModel.make()
        changed.entitiesByName["Pet"]!.attributesByName["weight"]!.attributeType = .floatAttributeType
        #expect(!changed.isConfiguration(withName: nil, compatibleWithStoreMetadata: metadata))
        // Nor is a model with an entity more.
        let bigger = TestModel.make()
        bigger.entities = bigger.entities + [NSEntityDescription(name: "Extra")]
        #expect(!bigger.isConfiguration(withName: nil, compatibleWithStoreMetadata: metadata))
    }

    /// A copy of the store Core Data wrote with CoreDataPlus's SampleModel (data in its WAL).
    @Test(.needsCorpus) func metadataOfACorpusStore() throws {
        let directory = TemporaryDirectory()
        let url = try Corpus.copyStore(VersionHashOracleTests.sampleModelStore, to: directory)
        let before = try snapshot(of: directory)

        let metadata = try NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: NSSQLiteStoreType, at: url)
        #expect(metadata[NSStoreUUIDKey] as? String == "753753D3-A961-4901-AB05-8CC48B1D3853")
        #expect(metadata[NSStoreTypeKey] as? String == "SQLite")
        #expect(metadata["NSPersistenceFrameworkVersion"] as? Int == 1044)
        #expect(metadata[NSStoreModelVersionIdentifiersKey] as? [String] == ["1"])
        let model = VersionHashOracleTests.sampleModel()
        #expect(model.isConfiguration(withName: nil, compatibleWithStoreMetadata: metadata))
        #expect(try snapshot(of: directory) == before, "reading metadata changed the store's files")

        let changed = VersionHashOracleTests.sampleModel()
        changed.entitiesByName["Car"]!.attributesByName["maker"]!.isOptional = false
        #expect(!changed.isConfiguration(withName: nil, compatibleWithStoreMetadata: metadata))
    }

    // MARK: Writing metadata without opening the store

    @Test func setMetadataRoundTrip() throws {
        let stack = try TestStack(.sqlite)
        let identifier = try #require(stack.coordinator.persistentStores.first?.identifier)
        for store in stack.coordinator.persistentStores { try stack.coordinator.remove(store) }

        var metadata = try NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: NSSQLiteStoreType, at: stack.storeURL)
        metadata["lastImport"] = "2024-01-01"
        metadata["importCount"] = 3
        try NSPersistentStoreCoordinator.setMetadata(metadata, forPersistentStoreOfType: NSSQLiteStoreType, at: stack.storeURL)

        let read = try NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: NSSQLiteStoreType, at: stack.storeURL)
        #expect(read["lastImport"] as? String == "2024-01-01")
        #expect(read["importCount"] as? Int == 3)
        #expect(read[NSStoreUUIDKey] as? String == identifier)
        #expect(stack.model.isConfiguration(withName: nil, compatibleWithStoreMetadata: read))
        let (uuid, plist) = try Corpus.rawMetadata(ofStoreAt: stack.storeURL)
        #expect(uuid == identifier)
        #expect(plist[NSStoreUUIDKey] == nil)

        // The store opens as before, with the new metadata.
        try stack.reopen()
        let store = try #require(stack.coordinator.persistentStores.first)
        #expect(store.identifier == identifier)
        #expect(store.metadata["lastImport"] as? String == "2024-01-01")
    }

    @Test func metadataOfEveryPropertyListTypeIsWrittenAsFoundationReadsIt() throws {
        let stack = try TestStack(.sqlite)
        for store in stack.coordinator.persistentStores { try stack.coordinator.remove(store) }
        var metadata = try NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: NSSQLiteStoreType, at: stack.storeURL)
        let date = Date(timeIntervalSinceReferenceDate: 123_456.5)
        metadata["flag"] = true
        metadata["flagObject"] = NSNumber(value: false)
        metadata["count"] = 42
        metadata["negative"] = Int64(-7)
        metadata["small"] = UInt8(200)
        metadata["negativeByte"] = NSNumber(value: Int8(-3))
        metadata["ratio"] = 0.25
        metadata["ratioObject"] = NSNumber(value: 1.5)
        metadata["when"] = date
        metadata["bytes"] = Data([0, 1, 2, 255])
        metadata["text"] = "café ☕"
        metadata["list"] = ["a", 1, false] as [Any]
        metadata["nested"] = ["inner": ["x": 1.0], "items": [Data([9])]] as [String: Any]
        try NSPersistentStoreCoordinator.setMetadata(metadata, forPersistentStoreOfType: NSSQLiteStoreType, at: stack.storeURL)

        // Read by Foundation's PropertyListSerialization, not by OpenCoreData's own reader.
        let (_, plist) = try Corpus.rawMetadata(ofStoreAt: stack.storeURL)
        #expect(plist["flag"] as? Bool == true)
        #expect(plist["flagObject"] as? Bool == false)
        #expect(plist["count"] as? Int == 42)
        #expect(plist["negative"] as? Int == -7)
        #expect(plist["small"] as? Int == 200)
        #expect(plist["negativeByte"] as? Int == -3)
        #expect(plist["ratio"] as? Double == 0.25)
        #expect(plist["ratioObject"] as? Double == 1.5)
        #expect(plist["when"] as? Date == date)
        #expect(plist["bytes"] as? Data == Data([0, 1, 2, 255]))
        #expect(plist["text"] as? String == "café ☕")
        let list = try #require(plist["list"] as? [Any])
        #expect(list.count == 3 && list[0] as? String == "a" && list[1] as? Int == 1 && list[2] as? Bool == false)
        let nested = try #require(plist["nested"] as? [String: Any])
        #expect((nested["inner"] as? [String: Any])?["x"] as? Double == 1.0)
        #expect(nested["items"] as? [Data] == [Data([9])])
        // The model's keys survive, and the store still fits its model.
        let read = try NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: NSSQLiteStoreType, at: stack.storeURL)
        #expect(stack.model.isConfiguration(withName: nil, compatibleWithStoreMetadata: read))
        #expect(read["when"] as? Date == date)
    }

    @Test func metadataAPropertyListCannotHoldIsRefusedNamingTheValue() throws {
        let stack = try TestStack(.sqlite)
        for store in stack.coordinator.persistentStores { try stack.coordinator.remove(store) }
        for value: Any in [Set([1, 2]), NSNull(), URL(fileURLWithPath: "/tmp"), UInt64.max] {
            let error = try #require(throws: CocoaError.self) {
                try NSPersistentStoreCoordinator.setMetadata(["value": value], forPersistentStoreOfType: NSSQLiteStoreType, at: stack.storeURL)
            }
            #expect(error.code == 134030)
        }
    }

    @Test(.needsCorpus) func setMetadataCanReplaceTheUUID() throws {
        let directory = TemporaryDirectory()
        let url = try Corpus.copyStore(VersionHashOracleTests.sampleModelStore, to: directory)
        var metadata = try NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: NSSQLiteStoreType, at: url)
        metadata[NSStoreUUIDKey] = "00000000-0000-0000-0000-000000000001"
        try NSPersistentStoreCoordinator.setMetadata(metadata, forPersistentStoreOfType: NSSQLiteStoreType, at: url)
        let read = try NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: NSSQLiteStoreType, at: url)
        #expect(read[NSStoreUUIDKey] as? String == "00000000-0000-0000-0000-000000000001")
        #expect(VersionHashing.hashes(inMetadata: read) == VersionHashOracleTests.sampleModel().entityVersionHashesByName)
    }

    // MARK: Bad inputs

    @Test func missingFile() throws {
        let directory = TemporaryDirectory()
        let url = directory.file("Missing.sqlite")
        let error = try #require(throws: CocoaError.self) {
            try NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: NSSQLiteStoreType, at: url)
        }
        #expect(error.code == 260)
        #expect(error.code == CocoaError.fileReadNoSuchFile.rawValue)
        #expect(error.message.contains(url.path))
        #expect(error.userInfo[NSFilePathErrorKey] as? String == url.path)
        let writeError = try #require(throws: CocoaError.self) {
            try NSPersistentStoreCoordinator.setMetadata([:], forPersistentStoreOfType: NSSQLiteStoreType, at: url)
        }
        #expect(writeError.code == 260)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.url.path).isEmpty, "a file was created")
    }

    @Test func fileThatIsNotSQLite() throws {
        let directory = TemporaryDirectory()
        let url = directory.file("Notes.sqlite")
        let text = Data(String(repeating: "This is not a database.\n", count: 100).utf8)
        try text.write(to: url)
        for write in [false, true] {
            let error = try #require(throws: CocoaError.self) {
                if write {
                    try NSPersistentStoreCoordinator.setMetadata([:], forPersistentStoreOfType: NSSQLiteStoreType, at: url)
                } else {
                    _ = try NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: NSSQLiteStoreType, at: url)
                }
            }
            #expect(error.code == 134000)
            #expect(error.message.contains("\(url.path) is not a SQLite database"))
        }
        #expect(try Data(contentsOf: url) == text)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.url.path) == ["Notes.sqlite"])
    }

    @Test func sqliteFileWithoutMetadataTable() throws {
        let directory = TemporaryDirectory()
        let url = directory.file("Other.sqlite")
        do {
            let connection = try SQLiteConnection(path: url.path)
            try connection.execute("CREATE TABLE notes (body TEXT)")
        }
        let error = try #require(throws: CocoaError.self) {
            try NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: NSSQLiteStoreType, at: url)
        }
        #expect(error.code == 134000)
        #expect(error.message == "The file \(url.path) is a SQLite database but not a Core Data store (it has no Z_METADATA table)")
    }

    @Test func metadataThatIsNotAPropertyList() throws {
        let stack = try TestStack(.sqlite)
        for store in stack.coordinator.persistentStores { try stack.coordinator.remove(store) }
        do {
            let connection = try SQLiteConnection(path: stack.storeURL.path)
            try connection.run("UPDATE Z_METADATA SET Z_PLIST = ?", [.blob(Data([0xff, 0x00, 0xfe, 0x01, 0x80]))])
        }
        let error = try #require(throws: CocoaError.self) {
            try NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: NSSQLiteStoreType, at: stack.storeURL)
        }
        #expect(error.code == 134000)
        #expect(error.message.hasPrefix("The store \(stack.storeURL.path) has metadata (Z_METADATA.Z_PLIST) that is not a property list"))
    }

    @Test func storeTypesWithoutFiles() throws {
        let stack = try TestStack(.sqlite)
        for type in [NSInMemoryStoreType, "NoSuchType"] {
            let error = try #require(throws: CocoaError.self) {
                try NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: type, at: stack.storeURL)
            }
            #expect(error.code == 134000)
            #expect(error.message.contains(stack.storeURL.path))
            #expect(error.message.contains("'\(type)'"))
        }
    }

    @Test func metadataThatCannotBeAPropertyList() throws {
        let stack = try TestStack(.sqlite)
        for store in stack.coordinator.persistentStores { try stack.coordinator.remove(store) }
        let before = try Corpus.rawMetadata(ofStoreAt: stack.storeURL).plist.keys.sorted()
        let error = try #require(throws: CocoaError.self) {
            try NSPersistentStoreCoordinator.setMetadata(["object": NSManagedObjectModel()], forPersistentStoreOfType: NSSQLiteStoreType,
                                                         at: stack.storeURL)
        }
        #expect(error.code == 134030)
        #expect(error.message.contains(stack.storeURL.path))
        #expect(try Corpus.rawMetadata(ofStoreAt: stack.storeURL).plist.keys.sorted() == before)
    }

    /// Every file in `directory` with its bytes.
    private func snapshot(of directory: TemporaryDirectory) throws -> [String: Data] {
        var files: [String: Data] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: directory.url.path) {
            files[name] = try Data(contentsOf: directory.file(name))
        }
        return files
    }
}
