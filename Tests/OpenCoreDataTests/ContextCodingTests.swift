import Foundation
import Testing
import OpenCoreData
@testable import OpenCoreDataCore

/// `NSManagedObjectContext`'s `NSCoding`: an archived context comes back as a new context of
/// the same concurrency type with the same settings, and no coordinator or objects.
@Suite struct ContextCodingTests {
    @Test func aContextComesBackWithItsSettings() throws {
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.name = "importer"
        context.transactionAuthor = "nightly import"
        context.mergePolicy = NSMergeByPropertyObjectTrumpMergePolicy
        context.stalenessInterval = 5
        context.retainsRegisteredObjects = true
        context.propagatesDeletesAtEndOfEvent = false
        context.shouldDeleteInaccessibleFaults = false
        context.automaticallyMergesChangesFromParent = true

        let decoded = try roundTrip(context)
        #expect(decoded !== context)
        #expect(decoded.concurrencyType == .privateQueueConcurrencyType)
        #expect(decoded.name == "importer")
        #expect(decoded.transactionAuthor == "nightly import")
        #expect((decoded.mergePolicy as? NSMergePolicy)?.mergeType == .mergeByPropertyObjectTrumpMergePolicyType)
        #expect(decoded.stalenessInterval == 5)
        #expect(decoded.retainsRegisteredObjects)
        #expect(!decoded.propagatesDeletesAtEndOfEvent)
        #expect(!decoded.shouldDeleteInaccessibleFaults)
        #expect(decoded.automaticallyMergesChangesFromParent)
        #expect(decoded.persistentStoreCoordinator == nil)

        // The defaults come back as defaults.
        let plain = try roundTrip(NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType))
        #expect(plain.concurrencyType == .mainQueueConcurrencyType)
        #expect(plain.name == nil && plain.transactionAuthor == nil)
        #expect((plain.mergePolicy as? NSMergePolicy)?.mergeType == .errorMergePolicyType)
        #expect(plain.stalenessInterval == -1)
        #expect(plain.propagatesDeletesAtEndOfEvent && plain.shouldDeleteInaccessibleFaults)
    }

    /// Given a coordinator, a decoded context works as the original would: its saves carry the
    /// archived transaction author into persistent history.
    @Test func aDecodedContextSavesWithItsSettings() throws {
        let original = NSManagedObjectContext(concurrencyType: .confinementConcurrencyType)
        original.transactionAuthor = "archived author"
        let context = try roundTrip(original)
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: TestModel.make())
        try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: TemporaryDirectory().file("Coded.sqlite"),
                                           options: [NSPersistentHistoryTrackingKey: true as NSNumber])
        context.persistentStoreCoordinator = coordinator
        NSEntityDescription.insertNewObject(forEntityName: "Club", into: context).setValue("Chess", forKey: "name")
        try context.save()
        let result = try #require(try context.execute(NSPersistentHistoryChangeRequest.fetchHistory(after: nil as NSPersistentHistoryToken?)) as? NSPersistentHistoryResult)
        let transactions = try #require(result.result as? [NSPersistentHistoryTransaction])
        #expect(transactions.map(\.author) == ["archived author"])
    }

    @Test func aCoderWithoutAContextGivesNil() throws {
        let archiver = NSKeyedArchiver(requiringSecureCoding: false)
        archiver.encode("not a context" as NSString, forKey: "something")
        archiver.finishEncoding()
        let unarchiver = try NSKeyedUnarchiver(forReadingFrom: archiver.encodedData)
        unarchiver.requiresSecureCoding = false
        unarchiver.decodingFailurePolicy = .setErrorAndReturn
        #expect(NSManagedObjectContext(coder: unarchiver) == nil)

        // A concurrency type or merge type that is not one is refused, not clamped to one.
        let negative = NSKeyedArchiver(requiringSecureCoding: false)
        NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType).encode(with: negative)
        negative.encode(-1, forKey: "OCDContextMergeType")
        negative.finishEncoding()
        let refusing = try NSKeyedUnarchiver(forReadingFrom: negative.encodedData)
        refusing.decodingFailurePolicy = .setErrorAndReturn
        #expect(NSManagedObjectContext(coder: refusing) == nil)
    }

    /// `context` through `NSKeyedArchiver` and `NSKeyedUnarchiver`, as an app archives it.
    private func roundTrip(_ context: NSManagedObjectContext) throws -> NSManagedObjectContext {
        let data = try NSKeyedArchiver.archivedData(withRootObject: context, requiringSecureCoding: false)
        let unarchiver = try NSKeyedUnarchiver(forReadingFrom: data)
        unarchiver.requiresSecureCoding = false
        unarchiver.decodingFailurePolicy = .setErrorAndReturn
        let decoded = unarchiver.decodeObject(forKey: NSKeyedArchiveRootObjectKey)
        #expect(unarchiver.error == nil)
        return try #require(decoded as? NSManagedObjectContext)
    }
}
