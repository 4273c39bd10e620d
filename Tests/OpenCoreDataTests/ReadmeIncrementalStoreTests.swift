import Foundation
import Testing
import OpenCoreData
@testable import OpenCoreDataCore
@testable import OpenCoreDataSQLite

// The README's `DictionaryStore`, word for word, so that the example stays true.
/// The smallest complete store of one's own: rows of one entity's attributes, in memory.
final class DictionaryStore: NSIncrementalStore, @unchecked Sendable {
    // @unchecked Sendable: the coordinator calls a store's methods one at a time.
    static let type = "Dictionary"
    private var rows: [String: [String: Any]] = [:]          // reference object → attribute values
    private var versions: [String: UInt64] = [:]

    override func loadMetadata() throws {
        metadata = [NSStoreTypeKey: Self.type, NSStoreUUIDKey: UUID().uuidString]
    }

    override func execute(_ request: NSPersistentStoreRequest, with context: NSManagedObjectContext?) throws -> Any {
        if let fetch = request as? NSFetchRequest<NSFetchRequestResult> {
            var objects = rows.keys.sorted().map { context!.object(with: newObjectID(for: fetch.entity!, referenceObject: $0)) }
            if let predicate = fetch.predicate { objects = objects.filter { predicate.evaluate(with: $0) } }
            for sort in (fetch.sortDescriptors ?? []).reversed() {   // stable sorts, last key first
                objects = objects.enumerated().sorted { left, right in
                    let order = sort.compare(left.element, to: right.element)
                    return order == .orderedSame ? left.offset < right.offset : order == .orderedAscending
                }.map(\.element)
            }
            objects = Array(objects.dropFirst(fetch.fetchOffset).prefix(fetch.fetchLimit > 0 ? fetch.fetchLimit : .max))
            switch fetch.resultType {
            case .countResultType: return [objects.count]
            case .managedObjectIDResultType: return objects.map(\.objectID)
            default: return objects
            }
        }
        let save = request as! NSSaveChangesRequest              // all of it, or throw
        for object in (save.insertedObjects ?? []).union(save.updatedObjects ?? []) {
            let key = referenceObject(for: object.objectID) as! String
            rows[key] = object.entity.attributesByName.keys.reduce(into: [:]) { $0[$1] = object.value(forKey: $1) }
            versions[key, default: 0] += 1
        }
        for object in save.deletedObjects ?? [] { rows[referenceObject(for: object.objectID) as! String] = nil }
        return [Any]()
    }

    override func newValuesForObject(with objectID: NSManagedObjectID, with context: NSManagedObjectContext) throws
        -> NSIncrementalStoreNode {
        let key = referenceObject(for: objectID) as! String
        guard let values = rows[key] else { throw CocoaError(.managedObjectReferentialIntegrity) }
        return NSIncrementalStoreNode(objectID: objectID, withValues: values, version: versions[key] ?? 1)
    }
}

/// The README's incremental store example works as the README says.
@Suite struct ReadmeIncrementalStoreTests {
    @Test func theDictionaryStoreServesAContext() throws {
        let note = NSEntityDescription(name: "Note")
        note.properties = [NSAttributeDescription(name: "title", type: .stringAttributeType),
                           NSAttributeDescription(name: "stars", type: .integer64AttributeType, defaultValue: 0)]
        let model = NSManagedObjectModel()
        model.entities = [note]
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        NSPersistentStoreCoordinator.registerStoreClass(DictionaryStore.self, forStoreType: DictionaryStore.type)
        try coordinator.addPersistentStore(ofType: DictionaryStore.type, configurationName: nil, at: URL(fileURLWithPath: "/dev/null"))
        let context = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        for (title, stars) in [("tea", 3), ("bread", 5), ("soup", 4)] {
            let object = NSEntityDescription.insertNewObject(forEntityName: "Note", into: context)
            object.setValue(title, forKey: "title")
            object.setValue(stars, forKey: "stars")
        }
        try context.save()

        let other = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
        other.persistentStoreCoordinator = coordinator
        let request = NSFetchRequest<NSManagedObject>(entityName: "Note")
        request.predicate = NSPredicate(format: "stars >= %d", 4)
        request.sortDescriptors = [NSSortDescriptor(key: "stars", ascending: false)]
        #expect(try other.fetch(request).map { $0.value(forKey: "title") as? String } == ["bread", "soup"])
        #expect(try other.count(for: NSFetchRequest<NSManagedObject>(entityName: "Note")) == 3)
        let bread = try #require(try other.fetch(request).first)
        other.delete(bread)
        try other.save()
        #expect(try context.count(for: NSFetchRequest<NSManagedObject>(entityName: "Note")) == 2)
    }
}
