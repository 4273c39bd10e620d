import Foundation
import CoreData
import Testing

/// Files written as for Apple's SDK — `import Foundation` and `import CoreData`, the predicate
/// and sort classes named as types, extended and constructed, a persistence controller as
/// Xcode's template writes it — compile against the `CoreData` module and behave as Core Data
/// code does, through a SQLite store on disk.
@Suite struct XcodeStyleFileTests {
    private static func temporaryStore() throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("CoreDataImportTests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory.appendingPathComponent("Items.sqlite")
    }

    private static func insertItems(into context: NSManagedObjectContext) throws {
        for (name, score) in [("apple", 12), ("Apricot", 30), ("avocado", 3), ("banana", 50)] {
            let item = Item(context: context)
            item.name = name
            item.score = Int64(score)
            item.timestamp = Date(timeIntervalSinceReferenceDate: Double(score))
        }
        try context.save()
    }

    @Test func predicatesAndSortsOfTheFoundationNamedClassesFetchFromTheStore() throws {
        let url = try Self.temporaryStore()
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        let controller = PersistenceController(storeURL: url, model: PersistenceController.model())
        let context = controller.container.viewContext
        try Self.insertItems(into: context)

        let request = ItemQueries.request(matching: ItemQueries.goodItems(startingWith: "a"), sortedBy: [.byScoreDescending])
        let found: [Item] = try context.fetch(request)
        #expect(found.map(\.name) == ["Apricot", "apple"])

        let sorted = ItemQueries.request(matching: nil, sortedBy: [NSSortDescriptor(key: "name", ascending: true)])
        #expect(try context.fetch(sorted).compactMap(\.name) == ["Apricot", "apple", "avocado", "banana"])
    }

    @Test func whatWasSavedIsFetchedAgainAfterAReopen() throws {
        let url = try Self.temporaryStore()
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        let model = PersistenceController.model()
        do {
            let controller = PersistenceController(storeURL: url, model: model)
            try Self.insertItems(into: controller.container.viewContext)
        }
        let reopened = PersistenceController(storeURL: url, model: model)
        let context = reopened.container.viewContext
        let total = NSFetchRequest<NSDictionary>(entityName: "Item")
        total.resultType = .dictionaryResultType
        total.propertiesToFetch = [ItemQueries.total()]
        total.predicate = NSCompoundPredicate(notPredicateWithSubpredicate: .named(startingWith: "b"))
        let row = try #require(try context.fetch(total).first)
        #expect((row["total"] as? NSNumber)?.int64Value == 45)
        let typed: [Item] = try context.fetch(Item.fetchRequest())
        #expect(typed.count == 4)
    }

    @Test func performAndWaitIsAFunctionValueAndLoadingRecordsItsErrorInALocal() throws {
        let container = NSPersistentContainer(name: "Items", managedObjectModel: PersistenceController.model())
        let description = NSPersistentStoreDescription()
        description.type = "NoSuchStoreType"
        container.persistentStoreDescriptions = [description]
        var loadError: Error?
        container.loadPersistentStores { _, error in loadError = error }
        #expect((loadError as NSError?)?.code == NSPersistentStoreInvalidTypeError)

        let context = container.newBackgroundContext()
        let run: (() -> Void) -> Void = context.performAndWait
        var ran = false
        run { ran = true }
        #expect(ran)
    }

    @Test func aTransformerInAppleSampleStyleRegistersAndRoundTrips() throws {
        TagListTransformer.register()
        let transformer = try #require(ValueTransformer(forName: TagListTransformer.name))
        #expect(transformer is TagListTransformer)
        let data = try #require(transformer.reverseTransformedValue(["new", "sale"]) as? Data)
        #expect(transformer.transformedValue(data) as? [String] == ["new", "sale"])
        #expect(ValueTransformer.valueTransformerNames().contains(.secureUnarchiveFromDataTransformerName))
    }

    @Test func selfInitOfACoordinatorSubclassWorksInAClassMethod() {
        let coordinator = CountingCoordinator.make(model: PersistenceController.model())
        #expect(type(of: coordinator) == CountingCoordinator.self)
    }

    @Test func batchResultsSayWhatTheirResultIs() throws {
        let url = try Self.temporaryStore()
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        let controller = PersistenceController(storeURL: url, model: PersistenceController.model())
        let context = controller.container.viewContext
        try Self.insertItems(into: context)
        let delete = NSBatchDeleteRequest(fetchRequest: NSFetchRequest<NSFetchRequestResult>(entityName: "Item"))
        delete.resultType = .resultTypeCount
        let result = try #require(try context.execute(delete) as? NSBatchDeleteResult)
        #expect(result.resultType == .resultTypeCount)
        #expect(result.result as? Int == 4)
    }
}

/// A coordinator subclass with a factory, as libraries write them.
final class CountingCoordinator: NSPersistentStoreCoordinator, @unchecked Sendable {
    class func make(model: NSManagedObjectModel) -> Self {
        Self.init(managedObjectModel: model)
    }
}
