import Foundation
import Testing
import OpenCoreData
@testable import OpenCoreDataCore
@testable import OpenCoreDataSQLite
import OCDSQLite

/// External binary data in the SQLite store (`allowsExternalBinaryDataStorage`,
/// Docs/ExternalBinaryData.md): values above 128 KiB live in files of the store's
/// `.<Name>_SUPPORT/_EXTERNAL_DATA/` folder and the column holds `0x02`, the file name and a NUL;
/// smaller ones stay in the row after a `0x01`. Files come and go only with the saves that make
/// them final.
@Suite struct ExternalBinaryDataTests {
    /// Photos with an external-storage image and a plain thumbnail; albums that cascade to them.
    static func model() -> NSManagedObjectModel {
        let photo = NSEntityDescription(name: "Photo")
        let name = NSAttributeDescription(name: "name", type: .stringAttributeType)
        let image = NSAttributeDescription(name: "image", type: .binaryDataAttributeType)
        image.allowsExternalBinaryDataStorage = true
        let thumbnail = NSAttributeDescription(name: "thumbnail", type: .binaryDataAttributeType)
        let album = NSEntityDescription(name: "Album")
        let title = NSAttributeDescription(name: "title", type: .stringAttributeType)
        let photos = NSRelationshipDescription(name: "photos", destination: photo, toMany: true, deleteRule: .cascadeDeleteRule)
        let owner = NSRelationshipDescription(name: "album", destination: album)
        photos.inverseRelationship = owner
        owner.inverseRelationship = photos
        photo.properties = [name, image, thumbnail, owner]
        album.properties = [title, photos]
        let model = NSManagedObjectModel()
        model.entities = [album, photo]
        return model
    }

    /// `count` bytes that differ from any other call's.
    static func bytes(_ count: Int, seed: UInt8 = 7) -> Data {
        Data((0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ Int(seed)) })
    }

    static let large = 200 * 1024

    private func stack() throws -> TestStack { try TestStack(.sqlite, model: Self.model()) }

    private func folder(_ stack: TestStack) -> URL {
        stack.directory.url.appendingPathComponent(".Test_SUPPORT/_EXTERNAL_DATA")
    }

    private func files(_ stack: TestStack) -> Set<String> {
        Set((try? FileManager.default.contentsOfDirectory(atPath: folder(stack).path)) ?? [])
    }

    /// The raw `ZIMAGE` column of the photo named `name`, as SQLite holds it.
    private func column(_ stack: TestStack, _ name: String) throws -> Data? {
        let connection = try SQLiteConnection(path: stack.storeURL.path)
        return try connection.rows("SELECT ZIMAGE FROM ZPHOTO WHERE ZNAME = ?", [.text(name)]).first?.first?.dataValue
    }

    private func photo(_ stack: TestStack, _ name: String) throws -> NSManagedObject {
        try #require(try stack.fetch("Photo", NSComparisonPredicate(key: "name", .equalTo, name)).first)
    }

    @Test func aSmallValueStaysInTheRowAfterTheInlineMarker() throws {
        let stack = try stack()
        let data = Self.bytes(1000)
        stack.insert("Photo", ["name": "small", "image": data, "thumbnail": data])
        try stack.context.save()
        #expect(try column(stack, "small") == Data([0x01]) + data)
        #expect(files(stack).isEmpty)
        // A plain binary attribute has no marker.
        let connection = try SQLiteConnection(path: stack.storeURL.path)
        #expect(try connection.scalar("SELECT ZTHUMBNAIL FROM ZPHOTO").dataValue == data)
        try stack.reopen()
        #expect(try photo(stack, "small").value(forKey: "image") as? Data == data)
    }

    @Test func aLargeValueGoesToAFileTheColumnNames() throws {
        let stack = try stack()
        let data = Self.bytes(Self.large)
        stack.insert("Photo", ["name": "large", "image": data])
        try stack.context.save()
        let stored = try #require(try column(stack, "large"))
        #expect(stored.first == 0x02 && stored.last == 0x00)
        let name = try #require(String(bytes: stored.dropFirst().dropLast(), encoding: .utf8))
        #expect(UUID(uuidString: name) != nil)
        #expect(files(stack) == [name])
        #expect(try Data(contentsOf: folder(stack).appendingPathComponent(name)) == data)
        try stack.reopen()
        let read = try #require(try photo(stack, "large").value(forKey: "image") as? Data)
        #expect(read == data)
        #expect(read.startIndex == 0)
    }

    @Test func theThresholdIs128KiBAndAValueOfExactlyThatStaysInTheRow() throws {
        let stack = try stack()
        stack.insert("Photo", ["name": "at", "image": Self.bytes(0x20000)])
        stack.insert("Photo", ["name": "above", "image": Self.bytes(0x20001)])
        try stack.context.save()
        #expect(try column(stack, "at")?.first == 0x01)
        #expect(try column(stack, "above")?.first == 0x02)
        #expect(files(stack).count == 1)
    }

    @Test func anEmptyValueAndNilRoundTrip() throws {
        let stack = try stack()
        stack.insert("Photo", ["name": "empty", "image": Data()])
        stack.insert("Photo", ["name": "none"])
        try stack.context.save()
        #expect(try column(stack, "empty") == Data([0x01]))
        #expect(try column(stack, "none") == nil)
        try stack.reopen()
        #expect(try photo(stack, "empty").value(forKey: "image") as? Data == Data())
        #expect(try photo(stack, "none").value(forKey: "image") == nil)
    }

    @Test func replacingAValueDeletesItsOldFileOnceTheSaveIsFinal() throws {
        let stack = try stack()
        let object = stack.insert("Photo", ["name": "p", "image": Self.bytes(Self.large)])
        try stack.context.save()
        let first = files(stack)
        object.setValue(Self.bytes(Self.large, seed: 9), forKey: "image")
        try stack.context.save()
        let second = files(stack)
        #expect(second.count == 1 && second.isDisjoint(with: first))
        object.setValue(Self.bytes(10), forKey: "image")
        try stack.context.save()
        #expect(files(stack).isEmpty)
        try stack.reopen()
        #expect(try photo(stack, "p").value(forKey: "image") as? Data == Self.bytes(10))
    }

    @Test func aQueryGenerationKeepsReadingAValueAnotherContextReplaced() throws {
        let stack = try stack()
        stack.insert("Photo", ["name": "p", "image": Self.bytes(Self.large)])
        try stack.context.save()
        let original = files(stack)

        // A context pinned to the store as it is now, with the photo not loaded yet.
        let pinned = stack.newContext()
        try pinned.setQueryGenerationFrom(.current)
        #expect(pinned.queryGenerationToken != nil)             // begins the generation now
        // Another context replaces the image and saves: its old file is given up.
        let writer = stack.newContext()
        try photoIn(writer).setValue(Self.bytes(Self.large, seed: 9), forKey: "image")
        try writer.save()
        #expect(files(stack).isSuperset(of: original))          // still needed by the generation

        #expect(try photoIn(pinned).value(forKey: "image") as? Data == Self.bytes(Self.large))
        // Once the generation is let go, the old file goes with the next end of a read.
        try pinned.setQueryGenerationFrom(nil)
        pinned.reset()
        _ = try photoIn(writer).value(forKey: "image")
        #expect(files(stack).isDisjoint(with: original))
        #expect(files(stack).count == 1)
    }

    /// The photo named "p", fetched in `context`.
    private func photoIn(_ context: NSManagedObjectContext) throws -> NSManagedObject {
        let request = NSFetchRequest<NSManagedObject>(entityName: "Photo")
        request.predicate = NSComparisonPredicate(key: "name", .equalTo, "p")
        return try #require(try context.fetch(request).first)
    }

    @Test func deletingObjectsDeletesTheirFilesWithCascades() throws {
        let stack = try stack()
        let album = stack.insert("Album", ["title": "Trip"])
        for index in 0..<3 {
            stack.insert("Photo", ["name": "p\(index)", "image": Self.bytes(Self.large, seed: UInt8(index)), "album": album])
        }
        let kept = stack.insert("Photo", ["name": "kept", "image": Self.bytes(Self.large, seed: 42)])
        try stack.context.save()
        #expect(files(stack).count == 4)
        stack.context.delete(album)
        try stack.context.save()
        #expect(files(stack).count == 1)
        stack.context.delete(kept)
        try stack.context.save()
        #expect(files(stack).isEmpty)
    }

    @Test func aFailedSaveRemovesTheFilesItWroteAndKeepsTheOldOnes() throws {
        let stack = try stack()
        let object = stack.insert("Photo", ["name": "p", "image": Self.bytes(Self.large)])
        try stack.context.save()
        let before = files(stack)
        // Another context changes the row: this context's save meets an optimistic locking
        // failure under the default (error) merge policy.
        let other = stack.newContext()
        let elsewhere = try other.existingObject(with: object.objectID)
        elsewhere.setValue("renamed", forKey: "name")
        try other.save()
        object.setValue(Self.bytes(Self.large, seed: 3), forKey: "image")
        stack.insert("Photo", ["name": "new", "image": Self.bytes(Self.large, seed: 4)])
        #expect(throws: (any Error).self) { try stack.context.save() }
        #expect(files(stack) == before)
        // The context kept its changes; once it takes the store's, the save goes through.
        stack.context.mergePolicy = NSMergeByPropertyObjectTrumpMergePolicy
        try stack.context.save()
        let after = files(stack)
        #expect(after.count == 2 && after.isDisjoint(with: before))
        try stack.reopen()
        #expect(try photo(stack, "renamed").value(forKey: "image") as? Data == Self.bytes(Self.large, seed: 3))
        #expect(try photo(stack, "new").value(forKey: "image") as? Data == Self.bytes(Self.large, seed: 4))
    }

    @Test func aSaveSettledByAMergePolicyLeavesOnlyTheFilesItsRowsName() throws {
        let stack = try stack()
        let object = stack.insert("Photo", ["name": "p", "image": Self.bytes(Self.large)])
        try stack.context.save()
        let other = stack.newContext()
        let elsewhere = try other.existingObject(with: object.objectID)
        elsewhere.setValue(Self.bytes(Self.large, seed: 5), forKey: "image")
        try other.save()
        // Both changed the image: the store's value wins, and this save's file goes.
        stack.context.mergePolicy = NSMergeByPropertyStoreTrumpMergePolicy
        object.setValue(Self.bytes(Self.large, seed: 6), forKey: "image")
        object.setValue("mine", forKey: "name")
        try stack.context.save()
        let stored = try #require(try column(stack, "mine"))
        let name = try #require(ExternalDataColumn.referencedName(in: stored))
        #expect(files(stack) == [name])
        #expect(try Data(contentsOf: folder(stack).appendingPathComponent(name)) == Self.bytes(Self.large, seed: 5))
    }

    /// A missing file stops neither the fetch nor a delete: the value reads as nil (logged), and
    /// what must copy the value — moving the store — fails naming the file.
    @Test func aMissingFileReadsAsNilAndStopsOnlyWhatMustCopyIt() throws {
        let stack = try stack()
        stack.insert("Photo", ["name": "p", "image": Self.bytes(Self.large)])
        stack.insert("Photo", ["name": "q", "image": Self.bytes(Self.large, seed: 2)])
        try stack.context.save()
        try stack.reopen()
        let name = try #require(try column(stack, "p").flatMap(ExternalDataColumn.referencedName(in:)))
        try FileManager.default.removeItem(at: folder(stack).appendingPathComponent(name))
        let photo = try photo(stack, "p")
        #expect(photo.value(forKey: "image") == nil)
        #expect(try self.photo(stack, "q").value(forKey: "image") as? Data == Self.bytes(Self.large, seed: 2))

        let store = try #require(stack.coordinator.persistentStores.first)
        do {
            _ = try stack.coordinator.migratePersistentStore(store, to: stack.directory.file("Moved.binary"), options: nil,
                                                             withType: NSBinaryStoreType)
            Issue.record("moving the store should have failed")
        } catch let error as CocoaError {
            #expect(error.code == .fileReadNoSuchFile)
            #expect(error.localizedDescription.contains(name))
            #expect(error.localizedDescription.contains("Photo.image"))
            #expect(error.userInfo[NSFilePathErrorKey] as? String == folder(stack).appendingPathComponent(name).path)
        }
        #expect(stack.coordinator.persistentStores.first === store)
        // The store is left as it was: the row still names the file.
        #expect(try column(stack, "p").flatMap(ExternalDataColumn.referencedName(in:)) == name)

        stack.context.delete(photo)
        try stack.context.save()
        try stack.reopen()
        #expect(try stack.fetch("Photo").count == 1)
    }

    /// A fetch opens no file: only the values read are mapped, at their first read.
    @Test func aFetchReadsNoFileUntilItsValueIsUsed() throws {
        let stack = try stack()
        for index in 0..<3 { stack.insert("Photo", ["name": "p\(index)", "image": Self.bytes(Self.large, seed: UInt8(index))]) }
        try stack.context.save()
        try stack.reopen()
        let photos = try stack.fetch("Photo", sortedBy: "name")
        // Every file can go now without the objects noticing, except when their values are read.
        let names = try (0..<3).map { try #require(try column(stack, "p\($0)").flatMap(ExternalDataColumn.referencedName(in:))) }
        #expect(photos[0].value(forKey: "image") as? Data == Self.bytes(Self.large, seed: 0))
        for name in names { try FileManager.default.removeItem(at: folder(stack).appendingPathComponent(name)) }
        // Read before the files went: still there (mapped).
        #expect(photos[0].value(forKey: "image") as? Data == Self.bytes(Self.large, seed: 0))
        // Not read before: gone, read as nil.
        #expect(photos[1].value(forKey: "image") == nil)
        #expect(photos[2].value(forKey: "image") == nil)
    }

    /// An object that holds a value it has not read yet keeps it when another context's save
    /// replaces the value and deletes the file: the store reads the value before the file goes.
    @Test func aValueNotReadYetSurvivesASaveThatDeletesItsFile() throws {
        let stack = try stack()
        stack.insert("Photo", ["name": "p", "image": Self.bytes(Self.large)])
        try stack.context.save()
        try stack.reopen()
        let held = try photo(stack, "p")
        _ = held.value(forKey: "name")
        let other = stack.newContext()
        let elsewhere = try other.existingObject(with: held.objectID)
        elsewhere.setValue(Self.bytes(Self.large, seed: 9), forKey: "image")
        try other.save()
        #expect(files(stack).count == 1)
        #expect(held.value(forKey: "image") as? Data == Self.bytes(Self.large))
        stack.context.refresh(held, mergeChanges: false)
        #expect(held.value(forKey: "image") as? Data == Self.bytes(Self.large, seed: 9))
    }

    /// Core Data on Apple's systems writes the same layout: a row written as it does (UUID file
    /// name, NUL-terminated) reads here, and so does an inline value.
    @Test func readsColumnsInCoreDataLayout() throws {
        let stack = try stack()
        stack.insert("Photo", ["name": "apple"])
        stack.insert("Photo", ["name": "inline"])
        try stack.context.save()
        let name = "4F8D3C2A-9B1E-4E6F-8A7D-0C5B3E2F1A9D"
        let data = Self.bytes(300_000, seed: 11)
        try FileManager.default.createDirectory(at: folder(stack), withIntermediateDirectories: true)
        try data.write(to: folder(stack).appendingPathComponent(name))
        let connection = try SQLiteConnection(path: stack.storeURL.path)
        try connection.run("UPDATE ZPHOTO SET ZIMAGE = ? WHERE ZNAME = 'apple'", [.blob(Data([0x02]) + Data(name.utf8) + Data([0x00]))])
        try connection.run("UPDATE ZPHOTO SET ZIMAGE = ? WHERE ZNAME = 'inline'", [.blob(Data([0x01, 0xCA, 0xFE]))])
        try stack.reopen()
        #expect(try photo(stack, "apple").value(forKey: "image") as? Data == data)
        #expect(try photo(stack, "inline").value(forKey: "image") as? Data == Data([0xCA, 0xFE]))
    }

    @Test func aColumnWithoutAKnownMarkerIsAnError() throws {
        let stack = try stack()
        stack.insert("Photo", ["name": "odd"])
        try stack.context.save()
        let connection = try SQLiteConnection(path: stack.storeURL.path)
        try connection.run("UPDATE ZPHOTO SET ZIMAGE = ?", [.blob(Data([0x07, 1, 2]))])
        try stack.reopen()
        #expect(throws: CocoaError.self) { _ = try stack.fetch("Photo") }
        try connection.run("UPDATE ZPHOTO SET ZIMAGE = ?", [.blob(Data([0x02]) + Data("../Test.sqlite".utf8) + Data([0]))])
        try stack.reopen()
        #expect(throws: CocoaError.self) { _ = try stack.fetch("Photo") }
    }

    /// A reference names a file inside the folder, in UTF-8, up to the NUL; anything else is
    /// no file name.
    @Test(arguments: [
        ("B5B4C9A4-4A4B-4B7E-9D2E-1F0A3C1D2E3F", true), ("...", true), ("é", true),
        ("", false), (".", false), ("..", false), ("../Test.sqlite", false), ("a/b", false),
    ])
    func aReferenceNamesAFileInsideTheFolder(name: String, isFileName: Bool) throws {
        let column = Data([0x02]) + Data(name.utf8) + Data([0, 0x41])
        #expect(ExternalDataColumn.referencedName(in: column) == (isFileName ? name : nil))
    }

    @Test func aReferenceThatIsNotUTF8NamesNoFile() {
        #expect(ExternalDataColumn.referencedName(in: Data([0x02, 0xFF, 0xFE, 0])) == nil)
    }

    @Test func predicatesCompareTheAttributeOnlyWithNil() throws {
        let stack = try stack()
        stack.insert("Photo", ["name": "with", "image": Self.bytes(Self.large)])
        stack.insert("Photo", ["name": "without"])
        try stack.context.save()
        #expect(strings(try stack.fetch("Photo", NSPredicate(format: "image != nil"))) == ["with"])
        #expect(strings(try stack.fetch("Photo", NSPredicate(format: "image == nil"))) == ["without"])
        #expect(throws: (any Error).self) { _ = try stack.fetch("Photo", NSPredicate(format: "image == %@", Self.bytes(4) as NSData)) }
        #expect(throws: (any Error).self) { _ = try stack.fetch("Photo", sortedBy: "image") }
    }

    @Test func dictionaryResultsCarryTheValue() throws {
        let stack = try stack()
        stack.insert("Photo", ["name": "p", "image": Self.bytes(Self.large)])
        try stack.context.save()
        let request = NSFetchRequest<NSFetchRequestResult>(entityName: "Photo")
        request.resultType = .dictionaryResultType
        request.propertiesToFetch = ["name", "image"]
        let rows = try #require(try stack.context.fetch(request) as? [[String: Any]])
        #expect(rows.first?["image"] as? Data == Self.bytes(Self.large))
    }

    @Test func batchRequestsWriteAndDeleteFilesPerRow() throws {
        let stack = try stack()
        for index in 0..<2 { stack.insert("Photo", ["name": "p\(index)", "image": Self.bytes(Self.large, seed: UInt8(index))]) }
        try stack.context.save()
        let original = files(stack)
        let update = NSBatchUpdateRequest(entityName: "Photo")
        update.propertiesToUpdate = ["image": Self.bytes(Self.large, seed: 99)]
        _ = try stack.context.execute(update)
        let updated = files(stack)
        // Each row has a file of its own, so that deleting one object deletes only its file.
        #expect(updated.count == 2 && updated.isDisjoint(with: original))
        try stack.reopen()
        #expect(try stack.fetch("Photo").allSatisfy { $0.value(forKey: "image") as? Data == Self.bytes(Self.large, seed: 99) })
        _ = try stack.context.execute(NSBatchDeleteRequest(fetchRequest: NSFetchRequest(entityName: "Photo")))
        #expect(files(stack).isEmpty)
    }

    @Test func destroyingTheStoreDeletesItsFiles() throws {
        let stack = try stack()
        stack.insert("Photo", ["name": "p", "image": Self.bytes(Self.large)])
        try stack.context.save()
        #expect(!files(stack).isEmpty)
        try stack.coordinator.destroyPersistentStore(at: stack.storeURL, ofType: NSSQLiteStoreType)
        #expect(!FileManager.default.fileExists(atPath: stack.directory.url.appendingPathComponent(".Test_SUPPORT").path))
    }

    @Test func historyKeepsADeletedObjectsValueInItsTombstone() throws {
        let model = Self.model()
        let image = try #require(model.entitiesByName["Photo"]?.attributesByName["image"])
        image.preservesValueInHistoryOnDeletion = true
        let directory = TemporaryDirectory()
        let url = directory.file("History.sqlite")
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url,
                                           options: [NSPersistentHistoryTrackingKey: true])
        let context = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        let photo = NSEntityDescription.insertNewObject(forEntityName: "Photo", into: context)
        photo.setValue(Self.bytes(Self.large), forKey: "image")
        try context.save()
        context.delete(photo)
        try context.save()
        let folder = directory.url.appendingPathComponent(".History_SUPPORT/_EXTERNAL_DATA")
        #expect(((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []).isEmpty)
        let result = try #require(try context.execute(NSPersistentHistoryChangeRequest.fetchHistory(after: nil as NSPersistentHistoryToken?)) as? NSPersistentHistoryResult)
        let transactions = try #require(result.result as? [NSPersistentHistoryTransaction])
        let deletion = try #require(transactions.flatMap { $0.changes ?? [] }.first { $0.changeType == .delete })
        #expect(deletion.tombstone?["image"] as? Data == Self.bytes(Self.large))
    }

    @Test(arguments: [NSBinaryStoreType, NSXMLStoreType, NSSQLiteStoreType])
    func movingToAnotherStoreTypeAndBackKeepsTheValues(type: String) throws {
        let stack = try stack()
        stack.insert("Photo", ["name": "large", "image": Self.bytes(Self.large)])
        stack.insert("Photo", ["name": "small", "image": Self.bytes(100)])
        try stack.context.save()
        let store = try #require(stack.coordinator.persistentStores.first)
        let moved = try stack.coordinator.migratePersistentStore(store, to: stack.directory.file("Moved.store"), options: nil, withType: type)
        let back = try stack.coordinator.migratePersistentStore(moved, to: stack.directory.file("Back.sqlite"), options: nil,
                                                               withType: NSSQLiteStoreType)
        let context = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
        context.persistentStoreCoordinator = stack.coordinator
        let request = NSFetchRequest<NSManagedObject>(entityName: "Photo")
        let photos = Dictionary(uniqueKeysWithValues: try context.fetch(request).map { ($0.value(forKey: "name") as! String, $0) })
        #expect(photos["large"]?.value(forKey: "image") as? Data == Self.bytes(Self.large))
        #expect(photos["small"]?.value(forKey: "image") as? Data == Self.bytes(100))
        let backFolder = stack.directory.url.appendingPathComponent(".Back_SUPPORT/_EXTERNAL_DATA")
        #expect(try FileManager.default.contentsOfDirectory(atPath: backFolder.path).count == 1)
        _ = back
    }

    // MARK: Migrations and copies

    /// `model()` with the image allowing external storage or not.
    static func model(imageExternal: Bool) -> NSManagedObjectModel {
        let model = model()
        model.entitiesByName["Photo"]?.attributesByName["image"]?.allowsExternalBinaryDataStorage = imageExternal
        return model
    }

    private static var migrating: [AnyHashable: Any] {
        [NSMigratePersistentStoresAutomaticallyOption: true, NSInferMappingModelAutomaticallyOption: true]
    }

    /// Opens the store at `url` with `model`, migrating it; the context and the store.
    private static func open(_ url: URL, _ model: NSManagedObjectModel) throws -> NSManagedObjectContext {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url, options: migrating)
        let context = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        return context
    }

    private static func images(_ context: NSManagedObjectContext) throws -> [String: Data] {
        let photos = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Photo"))
        return Dictionary(uniqueKeysWithValues: photos.map { ($0.value(forKey: "name") as! String, $0.value(forKey: "image") as? Data ?? Data()) })
    }

    /// Core Data's folder is named after the store file without its extension, beside it; the
    /// names `URL` has its own rules for keep them.
    @Test(arguments: [("/a/Gallery.sqlite", "/a/.Gallery_SUPPORT/_EXTERNAL_DATA"),
                      ("/a/b.c/Gallery.v2.sqlite", "/a/b.c/.Gallery.v2_SUPPORT/_EXTERNAL_DATA"),
                      ("/a/Gallery", "/a/.Gallery_SUPPORT/_EXTERNAL_DATA"),
                      ("/a/.Gallery", "/a/..Gallery_SUPPORT/_EXTERNAL_DATA"),
                      ("/a/Gallery.", "/a/.Gallery._SUPPORT/_EXTERNAL_DATA"),
                      ("/a/Gallery.my store", "/a/.\(URL(fileURLWithPath: "/a/Gallery.my store").deletingPathExtension().lastPathComponent)_SUPPORT/_EXTERNAL_DATA")])
    func theFolderIsNamedAfterTheStoreFile(store: String, folder: String) {
        #expect(ExternalDataFolder.url(of: URL(fileURLWithPath: store)).path == folder)
    }

    @Test func aLightweightMigrationRewritesTheColumnWhenExternalStorageIsAllowedOrNoLonger() throws {
        let directory = TemporaryDirectory()
        let url = directory.file("Gallery.sqlite")
        let folder = ExternalDataFolder.url(of: url)
        let plain = try Self.open(url, Self.model(imageExternal: false))
        for (name, count) in [("small", 10), ("large", Self.large)] {
            let photo = NSEntityDescription.insertNewObject(forEntityName: "Photo", into: plain)
            photo.setValue(name, forKey: "name")
            photo.setValue(Self.bytes(count), forKey: "image")
        }
        try plain.save()
        let expected = ["small": Self.bytes(10), "large": Self.bytes(Self.large)]

        // Allowed now: every value gets the marker; the large one stays in its row until it changes.
        let external = try Self.open(url, Self.model(imageExternal: true))
        #expect(try Self.images(external) == expected)
        let raw = try SQLiteConnection(path: url.path)
        #expect(try raw.scalar("SELECT ZIMAGE FROM ZPHOTO WHERE ZNAME = 'small'").dataValue == Data([0x01]) + Self.bytes(10))
        let large = try #require(try external.fetch(NSFetchRequest<NSManagedObject>(entityName: "Photo")).first { $0.value(forKey: "name") as? String == "large" })
        large.setValue(Self.bytes(Self.large, seed: 1), forKey: "image")
        try external.save()
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).count == 1)

        // No longer allowed: the file's bytes move into the row, and the file goes.
        let back = try Self.open(url, Self.model(imageExternal: false))
        #expect(try Self.images(back) == ["small": Self.bytes(10), "large": Self.bytes(Self.large, seed: 1)])
        #expect(try raw.scalar("SELECT ZIMAGE FROM ZPHOTO WHERE ZNAME = 'large'").dataValue == Self.bytes(Self.large, seed: 1))
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).isEmpty)
    }

    @Test func withoutMigrationAStoreWrittenWithoutExternalStorageIsRefusedNamingTheAttribute() throws {
        let directory = TemporaryDirectory()
        let url = directory.file("Gallery.sqlite")
        _ = try Self.open(url, Self.model(imageExternal: false))
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: Self.model(imageExternal: true))
        do {
            try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url)
            Issue.record("the store should have been refused")
        } catch let error as CocoaError {
            #expect(error.code == .persistentStoreIncompatibleVersionHash)
            #expect(error.localizedDescription.contains("attribute 'image' of entity 'Photo' allows external storage in the model but not in the store"))
        }
    }

    @Test func aMigrationThroughAMappingModelBringsTheFilesIntoTheStoresFolder() throws {
        let directory = TemporaryDirectory()
        let photo = """
            <entity name="Photo" representedClassName="Photo" syncable="YES">
                <attribute name="name" optional="YES" attributeType="String"/>
                <attribute name="image" optional="YES" attributeType="Binary" allowsExternalBinaryDataStorage="YES"/>
            """
        let bundle = try ModelBundle(in: directory, name: "Gallery", versions: [
            ("Gallery", photo + "</entity>"),
            ("Gallery 2", photo + "<attribute name=\"caption\" optional=\"YES\" attributeType=\"String\"/></entity>"),
        ], current: "Gallery")
        let url = directory.file("Gallery.sqlite")
        let first = try Self.open(url, try bundle.model())
        let object = NSEntityDescription.insertNewObject(forEntityName: "Photo", into: first)
        object.setValue("large", forKey: "name")
        object.setValue(Self.bytes(Self.large), forKey: "image")
        try first.save()
        let folder = ExternalDataFolder.url(of: url)
        let before = Set(try FileManager.default.contentsOfDirectory(atPath: folder.path))
        let mapping = directory.file("Gallery1to2.xcmappingmodel")
        try FileManager.default.createDirectory(at: mapping, withIntermediateDirectories: true)
        try """
            <?xml version="1.0" standalone="yes"?>
            <database>
            <object type="XDDEVATTRIBUTEMAPPING" id="z10"><attribute name="name" type="string">name</attribute><attribute name="autogenerateexpression" type="bool">1</attribute><relationship name="entitymapping" type="1/1" destination="XDDEVENTITYMAPPING" idrefs="z2"></relationship></object>
            <object type="XDDEVATTRIBUTEMAPPING" id="z11"><attribute name="name" type="string">image</attribute><attribute name="autogenerateexpression" type="bool">1</attribute><relationship name="entitymapping" type="1/1" destination="XDDEVENTITYMAPPING" idrefs="z2"></relationship></object>
            <object type="XDDEVENTITYMAPPING" id="z2"><attribute name="sourcename" type="string">Photo</attribute><attribute name="destinationname" type="string">Photo</attribute><attribute name="mappingnumber" type="int16">1</attribute><relationship name="attributemappings" type="0/0" destination="XDDEVATTRIBUTEMAPPING" idrefs="z10 z11"></relationship></object>
            <object type="XDDEVMAPPINGMODEL" id="z1"><attribute name="sourcemodelpath" type="string">Gallery.xcdatamodeld/Gallery.xcdatamodel</attribute><attribute name="destinationmodelpath" type="string">Gallery.xcdatamodeld/Gallery 2.xcdatamodel</attribute><relationship name="entitymappings" type="0/0" destination="XDDEVENTITYMAPPING" idrefs="z2"></relationship></object>
            </database>
            """.write(to: mapping.appendingPathComponent("xcmapping.xml"), atomically: true, encoding: .utf8)
        try bundle.makeCurrent("Gallery 2")
        let second = try Self.open(url, try bundle.model())
        #expect(try Self.images(second) == ["large": Self.bytes(Self.large)])
        // The value was written anew by the migration: its new file is in the store's folder,
        // the old one is gone, and nothing of the migrated copy is left beside the store.
        let after = Set(try FileManager.default.contentsOfDirectory(atPath: folder.path))
        #expect(after.count == 1 && after.isDisjoint(with: before))
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: directory.url.path).filter { $0.contains("migrating") }
        #expect(leftovers == [".Gallery-migrating.lock"])
    }

    @Test func replacingAStoreCopiesItsFiles() throws {
        let stack = try stack()
        stack.insert("Photo", ["name": "large", "image": Self.bytes(Self.large)])
        try stack.context.save()
        let copy = stack.directory.file("Copy.sqlite")
        try stack.coordinator.replacePersistentStore(at: copy, destinationOptions: nil, withPersistentStoreFrom: stack.storeURL,
                                                     sourceOptions: nil, ofType: NSSQLiteStoreType)
        let context = try Self.open(copy, Self.model())
        #expect(try Self.images(context) == ["large": Self.bytes(Self.large)])
        #expect(try FileManager.default.contentsOfDirectory(atPath: ExternalDataFolder.url(of: copy).path) == Array(files(stack)))
    }

    @Test func aCopyTakesExactlyTheFilesItsRowsName() throws {
        let stack = try stack()
        stack.insert("Photo", ["name": "large", "image": Self.bytes(Self.large)])
        try stack.context.save()
        let named = files(stack)
        // A file no row names (as a killed save leaves one) stays behind.
        try Data([1, 2, 3]).write(to: folder(stack).appendingPathComponent("8F0C6A2E-0000-4000-8000-000000000000"))
        let copy = stack.directory.file("Copy.sqlite")
        try stack.coordinator.replacePersistentStore(at: copy, destinationOptions: nil, withPersistentStoreFrom: stack.storeURL,
                                                     sourceOptions: nil, ofType: NSSQLiteStoreType)
        #expect(Set(try FileManager.default.contentsOfDirectory(atPath: ExternalDataFolder.url(of: copy).path)) == named)
        let connection = try SQLiteConnection(path: copy.path)
        #expect(try SQLiteStoreFiles.externalDataNames(in: connection) == named)
    }

    // MARK: Uniqueness constraints

    /// `model()` with photos unique by `constraint`.
    static func constrainedModel(_ constraint: [String] = ["image"]) -> NSManagedObjectModel {
        let model = model()
        let photo = model.entitiesByName["Photo"]!
        photo.uniquenessConstraints = [constraint]
        return model
    }

    private func constrainedStack(_ constraint: [String] = ["image"]) throws -> TestStack {
        try TestStack(.sqlite, model: Self.constrainedModel(constraint))
    }

    /// Two values kept in files are two file names to a unique index: the store compares them by
    /// content, and a new object with a saved object's image conflicts with it.
    @Test func aConstraintOnAValueKeptInAFileComparesContents() throws {
        let stack = try constrainedStack()
        let saved = stack.insert("Photo", ["name": "saved", "image": Self.bytes(Self.large)])
        try stack.context.save()
        let duplicate = stack.insert("Photo", ["name": "copy", "image": Self.bytes(Self.large)])
        let error = try #require(throws: CocoaError.self) { try stack.context.save() }
        #expect(error.code == .managedObjectConstraintMerge)
        let conflicts = try #require(error.userInfo[NSPersistentStoreSaveConflictsErrorKey] as? [NSConstraintConflict])
        #expect(conflicts.count == 1)
        #expect(conflicts.first?.constraint == ["image"])
        #expect(conflicts.first?.databaseObject === saved)
        #expect(conflicts.first?.conflictingObjects.map(ObjectIdentifier.init) == [ObjectIdentifier(duplicate)])
        // Nothing was written: the failed save's file is gone, the saved one stays.
        #expect(files(stack).count == 1)
        // A different value of the same size is no conflict.
        duplicate.setValue(Self.bytes(Self.large, seed: 8), forKey: "image")
        try stack.context.save()
        #expect(files(stack).count == 2)
    }

    /// New objects of one save that share a file-kept value make one conflict, with no database
    /// object; a changed object that takes a saved one's value conflicts with it.
    @Test func newAndChangedObjectsSharingAValueKeptInAFileConflict() throws {
        let stack = try constrainedStack()
        let first = stack.insert("Photo", ["name": "a", "image": Self.bytes(Self.large, seed: 1)])
        let second = stack.insert("Photo", ["name": "b", "image": Self.bytes(Self.large, seed: 1)])
        let third = stack.insert("Photo", ["name": "c", "image": Self.bytes(Self.large, seed: 1)])
        let error = try #require(throws: CocoaError.self) { try stack.context.save() }
        let conflicts = try #require(error.userInfo[NSPersistentStoreSaveConflictsErrorKey] as? [NSConstraintConflict])
        #expect(conflicts.count == 1)
        #expect(conflicts.first?.databaseObject == nil)
        #expect(Set(conflicts.first?.conflictingObjects.map(ObjectIdentifier.init) ?? [])
            == [ObjectIdentifier(first), ObjectIdentifier(second), ObjectIdentifier(third)])
        #expect(files(stack).isEmpty)

        second.setValue(Self.bytes(Self.large, seed: 2), forKey: "image")
        third.setValue(Self.bytes(Self.large, seed: 3), forKey: "image")
        try stack.context.save()
        third.setValue(Self.bytes(Self.large, seed: 1), forKey: "image")
        let changed = try #require(throws: CocoaError.self) { try stack.context.save() }
        let changedConflicts = try #require(changed.userInfo[NSPersistentStoreSaveConflictsErrorKey] as? [NSConstraintConflict])
        #expect(changedConflicts.count == 1)
        #expect(changedConflicts.first?.databaseObject === first)
        #expect(changedConflicts.first?.conflictingObjects.first === third)
    }

    /// A merge policy settles a clash on a file-kept value as on any other: with the object's
    /// values trumping, the new object's values go onto the saved one, and one file is left.
    @Test func aMergePolicySettlesAClashOnAValueKeptInAFile() throws {
        let stack = try constrainedStack()
        stack.insert("Photo", ["name": "saved", "image": Self.bytes(Self.large)])
        try stack.context.save()
        try stack.reopen()
        stack.context.mergePolicy = NSMergeByPropertyObjectTrumpMergePolicy
        stack.insert("Photo", ["name": "imported", "image": Self.bytes(Self.large)])
        try stack.context.save()
        try stack.reopen()
        let photos = try stack.fetch("Photo")
        #expect(photos.map { $0.value(forKey: "name") as? String } == ["imported"])
        #expect(photos.first?.value(forKey: "image") as? Data == Self.bytes(Self.large))
        #expect(files(stack).count == 1)
    }

    /// A value small enough for the row is compared by the unique index, and the conflict names
    /// the saved object that holds it (the holder is found by the column as the store writes it).
    @Test func aConflictOnAValueInTheRowNamesTheSavedHolder() throws {
        let stack = try constrainedStack()
        let saved = stack.insert("Photo", ["name": "saved", "image": Self.bytes(1000)])
        try stack.context.save()
        let duplicate = stack.insert("Photo", ["name": "copy", "image": Self.bytes(1000)])
        let error = try #require(throws: CocoaError.self) { try stack.context.save() }
        let conflicts = try #require(error.userInfo[NSPersistentStoreSaveConflictsErrorKey] as? [NSConstraintConflict])
        #expect(conflicts.count == 1)
        #expect(conflicts.first?.databaseObject === saved)
        #expect(conflicts.first?.conflictingObjects.first === duplicate)
        #expect(conflicts.first?.constraintValues["image"] as? Data == Self.bytes(1000))
    }

    /// A batch insert compares file-kept values by content too: a row with a saved image
    /// updates that object instead of adding one.
    @Test func aBatchInsertUpdatesTheObjectWithTheSameFileKeptValue() throws {
        let stack = try constrainedStack()
        stack.insert("Photo", ["name": "saved", "image": Self.bytes(Self.large)])
        try stack.context.save()
        let request = NSBatchInsertRequest(entityName: "Photo", objects: [
            ["name": "imported", "image": Self.bytes(Self.large)],
            ["name": "new", "image": Self.bytes(Self.large, seed: 4)],
        ])
        try stack.context.execute(request)
        try stack.reopen()
        #expect(Set(try stack.fetch("Photo").compactMap { $0.value(forKey: "name") as? String }) == ["imported", "new"])
        #expect(files(stack).count == 2)
    }

    /// A saved object that the same save changes in another property still holds its value: a
    /// new object with that value conflicts with it.
    @Test func aNewObjectConflictsWithASavedObjectTheSaveChangesElsewhere() throws {
        let stack = try constrainedStack()
        let saved = stack.insert("Photo", ["name": "saved", "image": Self.bytes(Self.large)])
        try stack.context.save()
        saved.setValue("renamed", forKey: "name")
        let duplicate = stack.insert("Photo", ["name": "copy", "image": Self.bytes(Self.large)])
        let error = try #require(throws: CocoaError.self) { try stack.context.save() }
        let conflicts = try #require(error.userInfo[NSPersistentStoreSaveConflictsErrorKey] as? [NSConstraintConflict])
        #expect(conflicts.count == 1)
        #expect(conflicts.first?.conflictingObjects.contains { $0 === duplicate } == true)
        try stack.reopen()
        #expect(try stack.storedStrings("Photo") == ["saved"])
    }

    /// A constraint on a name and a file-kept image: the pair must be unique, not each value;
    /// changing only the name compares the pair without needing the image's file.
    @Test func aConstraintWithAFileKeptValueAndAnotherComparesThePair() throws {
        let stack = try constrainedStack(["name", "image"])
        let first = stack.insert("Photo", ["name": "a", "image": Self.bytes(Self.large)])
        stack.insert("Photo", ["name": "b", "image": Self.bytes(Self.large)])
        try stack.context.save()
        let clash = stack.insert("Photo", ["name": "a", "image": Self.bytes(Self.large)])
        let error = try #require(throws: CocoaError.self) { try stack.context.save() }
        let conflicts = try #require(error.userInfo[NSPersistentStoreSaveConflictsErrorKey] as? [NSConstraintConflict])
        #expect(conflicts.first?.databaseObject === first)
        #expect(conflicts.first?.conflictingObjects.first === clash)
        stack.context.delete(clash)
        try stack.context.save()

        // The image's file is gone: renaming the object still saves, and so does a clash-free
        // rename of the other.
        try stack.reopen()
        let name = try #require(try column(stack, "a").flatMap(ExternalDataColumn.referencedName(in:)))
        try FileManager.default.removeItem(at: folder(stack).appendingPathComponent(name))
        try photo(stack, "a").setValue("c", forKey: "name")
        try stack.context.save()
        try stack.reopen()
        #expect(try stack.storedStrings("Photo") == ["b", "c"])
    }

    /// A batch update that copies a file-kept value reads the file: a missing one stops it,
    /// naming the file, instead of copying nil.
    @Test func aBatchUpdateCopyingAMissingFileFailsNamingIt() throws {
        let stack = try stack()
        stack.insert("Photo", ["name": "p", "image": Self.bytes(Self.large)])
        try stack.context.save()
        let name = try #require(files(stack).first)
        try FileManager.default.removeItem(at: folder(stack).appendingPathComponent(name))
        let request = NSBatchUpdateRequest(entityName: "Photo")
        request.propertiesToUpdate = ["thumbnail": NSExpression(forKeyPath: "image")]
        let error = try #require(throws: CocoaError.self) { try stack.context.execute(request) }
        #expect(error.code == .fileReadNoSuchFile)
        #expect(error.localizedDescription.contains(name))
    }

    /// Two coordinators of this process on one store share what keeps files: a value one of
    /// them read into an object but has not used yet survives the other's save replacing it.
    @Test func aValueNotReadYetSurvivesAnotherCoordinatorsSave() throws {
        let stack = try stack()
        stack.insert("Photo", ["name": "p", "image": Self.bytes(Self.large)])
        try stack.context.save()
        let other = NSPersistentStoreCoordinator(managedObjectModel: stack.model)
        try other.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: stack.storeURL)
        let otherContext = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
        otherContext.persistentStoreCoordinator = other
        let held = try #require(try otherContext.fetch(NSFetchRequest<NSManagedObject>(entityName: "Photo")).first)
        _ = held.value(forKey: "name")
        try photo(stack, "p").setValue(Self.bytes(Self.large, seed: 9), forKey: "image")
        try stack.context.save()
        #expect(files(stack).count == 1)
        #expect(held.value(forKey: "image") as? Data == Self.bytes(Self.large))
    }

    /// Stores opened at two spellings of one path share their external data folder's record of
    /// retired files, and name the folder's files alike (standard and absolute).
    @Test func twoSpellingsOfOneStorePathShareTheFolder() {
        let directory = TemporaryDirectory()
        let plain = ExternalDataFolder(store: directory.file("Store.sqlite"))
        let dotted = ExternalDataFolder(store: directory.url.appendingPathComponent("./sub/../Store.sqlite"))
        defer { plain.storeDidClose(); dotted.storeDidClose() }
        #expect(plain.retired === dotted.retired)
        #expect(plain.url.standardizedFileURL.path == dotted.url.standardizedFileURL.path)
    }
}
