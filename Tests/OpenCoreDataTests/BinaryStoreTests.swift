import Foundation
import Testing
import OpenCoreData
@testable import OpenCoreDataCore

/// The binary store's file (`Docs/BinaryStoreFormat.md`): what it keeps across reopening, its
/// metadata read and written without loading the objects, and the clear error — with the file
/// left as it was — for every way a file can be wrong. The shared behaviour of every store runs
/// on it in `StoreBehaviourTests`.
@Suite struct BinaryStoreTests {
    /// A binary store with people and pets, closed again; its file's bytes.
    private func writtenStore() throws -> (stack: TestStack, bytes: Data) {
        let stack = try TestStack(.binary)
        let ada = stack.insert("Person", ["name": "Ada", "age": 40, "balance": Decimal(string: "0.1")!])
        stack.insert("Pet", ["name": "Rex", "owner": ada])
        try stack.context.save()
        for store in stack.coordinator.persistentStores { try stack.coordinator.remove(store) }
        return (stack, try Data(contentsOf: stack.storeURL))
    }

    private func open(_ url: URL) throws {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: TestModel.make())
        try coordinator.addPersistentStore(ofType: NSBinaryStoreType, configurationName: nil, at: url)
    }

    @Test func theFileBeginsWithItsMagicAndFormatVersion() throws {
        let (_, bytes) = try writtenStore()
        #expect(Array(bytes.prefix(8)) == Array("OCDBIN".utf8) + [0x1A, 0x0A])
        #expect(Array(bytes[8..<12]) == [1, 0, 0, 0])
    }

    @Test func keysAreNeverHandedOutTwiceEvenWhenEveryObjectWasDeleted() throws {
        let stack = try TestStack(.binary)
        let first = stack.insert("Person", ["name": "Ada"])
        try stack.context.save()
        let firstURI = first.objectID.uriRepresentation()
        stack.context.delete(first)
        try stack.context.save()
        try stack.reopen()
        let second = stack.insert("Person", ["name": "Bo"])
        try stack.context.save()
        #expect(second.objectID.uriRepresentation() != firstURI)
    }

    @Test func metadataIsReadAndWrittenWithoutLoadingTheObjects() throws {
        let (stack, _) = try writtenStore()
        var metadata = try NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: NSBinaryStoreType, at: stack.storeURL)
        #expect(metadata[NSStoreTypeKey] as? String == NSBinaryStoreType)
        let uuid = try #require(metadata[NSStoreUUIDKey] as? String)
        #expect((metadata[NSStoreModelVersionHashesKey] as? [String: Any])?["Person"] != nil)

        metadata["lastImport"] = "yesterday"
        metadata[NSStoreModelVersionHashesKey] = nil
        try NSPersistentStoreCoordinator.setMetadata(metadata, forPersistentStoreOfType: NSBinaryStoreType, at: stack.storeURL)
        let reread = try NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: NSBinaryStoreType, at: stack.storeURL)
        #expect(reread["lastImport"] as? String == "yesterday")
        #expect(reread[NSStoreUUIDKey] as? String == uuid)
        // Core Data's keys are kept when the new metadata leaves them out, so the store still opens.
        #expect((reread[NSStoreModelVersionHashesKey] as? [String: Any])?["Person"] != nil)
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: TestModel.make())
        let store = try coordinator.addPersistentStore(ofType: NSBinaryStoreType, configurationName: nil, at: stack.storeURL)
        #expect(store.identifier == uuid)
        #expect(store.metadata["lastImport"] as? String == "yesterday")
        let context = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        let people = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Person"))
        #expect(people.first?.value(forKey: "balance") as? Decimal == Decimal(string: "0.1"))
    }

    @Test func aSaveKeepsTheFilesPermissionsAndTheSymbolicLinkToIt() throws {
        let (stack, _) = try writtenStore()
        try FileManager.default.setAttributes([.posixPermissions: 0o660], ofItemAtPath: stack.storeURL.path)
        let link = stack.directory.file("Link.ocdbin")
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: stack.storeURL)
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: TestModel.make())
        try coordinator.addPersistentStore(ofType: NSBinaryStoreType, configurationName: nil, at: link)
        let context = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        NSEntityDescription.insertNewObject(forEntityName: "Pet", into: context).setValue("Max", forKey: "name")
        try context.save()
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link.path) == stack.storeURL.path)
        #expect(try FileManager.default.attributesOfItem(atPath: stack.storeURL.path)[.posixPermissions] as? Int == 0o660)
        let reread = NSPersistentStoreCoordinator(managedObjectModel: TestModel.make())
        try reread.addPersistentStore(ofType: NSBinaryStoreType, configurationName: nil, at: stack.storeURL)
        let rereadContext = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
        rereadContext.persistentStoreCoordinator = reread
        #expect(try rereadContext.count(for: NSFetchRequest<NSManagedObject>(entityName: "Pet")) == 2)
    }

    @Test(arguments: [StoreKind.binary, .xml])
    func aDecimalThatIsNotANumberComesBack(kind: StoreKind) throws {
        let stack = try TestStack(kind)
        stack.insert("Person", ["name": "Ada", "balance": Decimal.nan])
        try stack.context.save()
        try stack.reopen()
        let ada = try #require(try stack.context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Person")).first)
        #expect((ada.value(forKey: "balance") as? Decimal)?.isNaN == true)
    }

    @Test func aReadOnlyStoreRefusesSavesAndKeepsItsFile() throws {
        let (stack, bytes) = try writtenStore()
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: TestModel.make())
        try coordinator.addPersistentStore(ofType: NSBinaryStoreType, configurationName: nil, at: stack.storeURL,
                                           options: [NSReadOnlyPersistentStoreOption: true])
        let context = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        let ada = try #require(try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Person")).first)
        ada.setValue(41, forKey: "age")
        let error = try #require(throws: CocoaError.self) { try context.save() }
        #expect(error.message.contains("is read-only"))
        #expect(try Data(contentsOf: stack.storeURL) == bytes)
    }

    @Test func aFileThatIsNotABinaryStoreIsRefusedAndLeftAsItIs() throws {
        let directory = TemporaryDirectory()
        let url = directory.file("Notes.txt")
        try Data("just some notes, long enough to hold a header".utf8).write(to: url)
        let error = try #require(throws: CocoaError.self) { try open(url) }
        #expect(error.code == .persistentStoreInvalidType)
        #expect(error.message.contains("\(url.path) is not a binary store"))
        #expect(try Data(contentsOf: url) == Data("just some notes, long enough to hold a header".utf8))
    }

    /// Each damage: what is done to the file, and what the error says.
    @Test(arguments: [
        ("truncated", "truncated or damaged"),
        ("a flipped bit", "its checksum does not match"),
        ("a newer format version", "its format version is 2"),
        ("a huge body length", "more than 2^64"),
    ])
    func aDamagedFileIsRefusedNamingItAndWhatIsWrong(damage: String, reason: String) throws {
        let (stack, bytes) = try writtenStore()
        var damaged = bytes
        switch damage {
        case "truncated": damaged = damaged.prefix(damaged.count - 10)
        case "a flipped bit": damaged[damaged.count - 20] ^= 0x04
        case "a huge body length": for offset in 16..<24 { damaged[offset] = 0xFF }
        default: damaged[8] = 2
        }
        try damaged.write(to: stack.storeURL)
        let error = try #require(throws: CocoaError.self) { try open(stack.storeURL) }
        #expect(error.code == .fileReadCorruptFile)
        #expect(error.message.contains(stack.storeURL.path))
        #expect(error.message.contains(reason))
        #expect(try Data(contentsOf: stack.storeURL) == damaged)
    }

    @Test func aFileWhoseObjectsDoNotHoldTogetherIsRefused() throws {
        // Written by hand, as a damaged or foreign writer would, with a valid checksum: one pet
        // whose owner, Person 5, the file does not hold.
        try expectRefused(reason: "refers to the object Person 5, which it does not hold") { body in
            body.varint(2)                                                        // entities
            body.string("Person"); body.varint(0); body.varint(0)
            body.string("Pet"); body.varint(0); body.varint(1); body.string("owner")
            body.varint(0)                                                        // last keys
            body.varint(0)                                                        // Person rows
            body.varint(1); body.varint(1); body.varint(1); body.varint(1); body.varint(5)  // Pet 1, version 1, owner: entity 1 (Person), key 5
        }
    }

    @Test func aValueOfAnotherTypeThanItsAttributesIsRefused() throws {
        // Person 1 whose age (Integer 64) is a string.
        try expectRefused(reason: "the Integer 64 attribute Person.age has a value of type tag 5") { body in
            body.varint(1)                                                        // entities
            body.string("Person"); body.varint(1); body.string("age"); body.varint(0)
            body.varint(0)                                                        // last keys
            body.varint(1); body.varint(1); body.varint(1)                        // Person 1, version 1
            body.bytes.append(5); body.string("forty")                            // tag 5: a string
        }
    }

    @Test func aRelationshipToAnObjectOfAnotherEntityIsRefused() throws {
        // Pet 1 whose owner is Pet 1: owner leads to Person.
        try expectRefused(reason: "Pet.owner refers to an object of Pet, not of Person") { body in
            body.varint(1)                                                        // entities
            body.string("Pet"); body.varint(0); body.varint(1); body.string("owner")
            body.varint(0)                                                        // last keys
            body.varint(1); body.varint(1); body.varint(1); body.varint(1); body.varint(1)  // Pet 1, version 1, owner: entity 1 (Pet), key 1
        }
    }

    /// The body of a binary store file, written by hand.
    private struct Body {
        var bytes: [UInt8] = []
        mutating func varint(_ value: UInt64) {
            var value = value
            while value >= 0x80 { bytes.append(UInt8(truncatingIfNeeded: value) | 0x80); value >>= 7 }
            bytes.append(UInt8(value))
        }
        mutating func string(_ text: String) { varint(UInt64(text.utf8.count)); bytes += Array(text.utf8) }
    }

    /// Writes a store whose body is what `write` writes (entities, last keys, rows), then no
    /// memberships, as a damaged or foreign writer would: with a valid header and checksum.
    /// Expects it refused for `reason`, and left as it was.
    private func expectRefused(reason: String, _ write: (inout Body) -> Void) throws {
        var written = Body()
        write(&written)
        written.varint(0)                                                         // memberships
        let body = written.bytes
        let metadata = try PropertyListSerialization.data(fromPropertyList: [NSStoreUUIDKey: UUID().uuidString, NSStoreTypeKey: NSBinaryStoreType],
                                                          format: .binary, options: 0)
        var file = Array("OCDBIN".utf8) + [0x1A, 0x0A]
        withUnsafeBytes(of: UInt32(1).littleEndian) { file += $0 }
        withUnsafeBytes(of: UInt32(metadata.count).littleEndian) { file += $0 }
        withUnsafeBytes(of: UInt64(body.count).littleEndian) { file += $0 }
        file += metadata
        file += body
        withUnsafeBytes(of: Self.crc32(file).littleEndian) { file += $0 }
        let directory = TemporaryDirectory()
        let url = directory.file("Foreign.ocdbin")
        try Data(file).write(to: url)
        let error = try #require(throws: CocoaError.self) { try open(url) }
        #expect(error.code == .fileReadCorruptFile)
        #expect(error.message.contains(reason))
        #expect(try Data(contentsOf: url) == Data(file))
    }

    /// The CRC-32 (zlib's polynomial) of `bytes`.
    private static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return ~crc
    }
}
