import Foundation

/// Copies every object of one store into another through contexts — the way Core Data moves a
/// store to another location or type: the objects of each entity are read from the source, made
/// anew in the destination with the same attribute values, then given the same relationships
/// (to-manys in their order), and saved in one save. Works between stores of any types, stores
/// of your own included.
struct StoreCopy {
    let source: NSPersistentStore
    let destination: NSPersistentStore
    /// Told the number of objects copied so far and the total, as the copy goes.
    var progress: ((Int, Int) -> Void)?

    func run() throws {
        guard let sourceCoordinator = source.persistentStoreCoordinator, let destinationCoordinator = destination.persistentStoreCoordinator else {
            throw CoreDataError.make(.persistentStoreOperation, "A store is copied between stores that are added to coordinators")
        }
        let reading = NSManagedObjectContext(concurrencyType: .confinementConcurrencyType)
        reading.persistentStoreCoordinator = sourceCoordinator
        let writing = NSManagedObjectContext(concurrencyType: .confinementConcurrencyType)
        writing.persistentStoreCoordinator = destinationCoordinator
        writing.undoManager = nil

        let model = sourceCoordinator.managedObjectModel
        let entities = (model.entities(forConfigurationName: source.configurationName) ?? model.entities).filter { !$0.isAbstract }
        var pairs: [(source: NSManagedObject, copy: NSManagedObject)] = []
        var copies: [NSManagedObjectID: NSManagedObject] = [:]
        let total = try entities.reduce(0) { $0 + (try reading.count(for: request(for: $1, prefetching: false))) }
        for entity in entities {
            for object in try reading.fetch(request(for: entity, prefetching: true)) {
                let copy = NSManagedObject(entity: entity, insertInto: writing)
                writing.assign(copy, to: destination)
                for attribute in entity.layout.attributes where !attribute.isTransient {
                    // A value kept in a file is read now: one that can't be read stops the copy,
                    // naming the file, instead of arriving as nil.
                    copy.setPrimitive(try object.primitive(at: attribute.attributeSlot).readingExternalData(), at: attribute.attributeSlot)
                }
                copies[object.objectID] = copy
                pairs.append((object, copy))
                if pairs.count % 10_000 == 0 { progress?(pairs.count, total) }
            }
        }
        // To-ones first: setting one adds its object to the inverse to-many, which an ordered
        // to-many then gets in its own order.
        for toMany in [false, true] {
            for (object, copy) in pairs {
                for relationship in object.entity.layout.relationships where !relationship.isTransient && relationship.isToMany == toMany {
                    try copyRelationship(relationship, of: object, to: copy, copies: copies)
                }
            }
        }
        try writing.save()
        progress?(pairs.count, total)
    }

    /// Every object of exactly `entity` in the source store (subentities are fetched on their
    /// own), with its to-manys loaded in the same fetch when `prefetching`.
    private func request(for entity: NSEntityDescription, prefetching: Bool) -> NSFetchRequest<NSManagedObject> {
        let request = NSFetchRequest<NSManagedObject>(entityName: entity.name ?? "")
        request.includesSubentities = false
        request.affectedStores = [source]
        request.returnsObjectsAsFaults = false
        if prefetching {
            request.relationshipKeyPathsForPrefetching = entity.layout.relationships.filter { $0.isToMany && !$0.isTransient }.map(\.name)
        }
        return request
    }

    private func copyRelationship(_ relationship: NSRelationshipDescription, of object: NSManagedObject, to copy: NSManagedObject,
                                  copies: [NSManagedObjectID: NSManagedObject]) throws {
        func copied(_ member: Any) throws -> NSManagedObject {
            guard let member = member as? NSManagedObject, let copied = copies[member.objectID] else {
                throw CoreDataError.make(.persistentStoreOperation, "\(object.entity.name ?? "?").\(relationship.name) of \(object.objectID) "
                                         + "refers to an object outside the store being copied")
            }
            return copied
        }
        let value = object.value(forKey: relationship.name)
        if !relationship.isToMany {
            guard let destination = value else { return }
            copy.setValue(try copied(destination), forKey: relationship.name)
        } else if relationship.isOrdered {
            let members = (value as? NSOrderedSet)?.array ?? []
            guard !members.isEmpty else { return }
            copy.setValue(NSOrderedSet(array: try members.map(copied)), forKey: relationship.name)
        } else if relationship.inverseRelationship.map({ !$0.isToMany }) != true {
            // A one-to-many is set from its members' to-ones; the rest from here.
            let members = (value as? Set<NSManagedObject>) ?? []
            guard !members.isEmpty else { return }
            copy.setValue(Set(try members.map(copied)), forKey: relationship.name)
        }
    }
}
