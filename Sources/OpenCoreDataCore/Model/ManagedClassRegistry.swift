import Foundation

/// The entities each managed object class was registered for (`managedObjectClass`), held
/// weakly, so that code with only a class in hand — a `#Predicate<Person>`, a
/// `NSSortDescriptor(keyPath: \Person.age)` — can find an entity of it and learn what its
/// `@Managed` key paths name.
///
/// A class may be registered with entities of several models (two stacks, a model being set up
/// while another is in use). Lookups prefer an entity whose model is already in use, so that
/// resolving a key path never freezes a model that is still being edited elsewhere.
enum ManagedClassRegistry {
    private struct Entry: @unchecked Sendable {
        // @unchecked Sendable: a weak reference, read and replaced under the registry's mutex.
        weak var anchor: EntityAnchor?
    }

    private static let entries = LockedState<[ObjectIdentifier: [Entry]]>([:])

    private struct ModelInUse: @unchecked Sendable {
        // @unchecked Sendable: a weak reference, read and replaced under the registry's mutex.
        weak var model: NSManagedObjectModel?
    }

    /// The models frozen so far, oldest first: where a class nobody registered is looked for by
    /// the class name its entity gives.
    private static let modelsInUse = LockedState<[ModelInUse]>([])

    /// Records that `model` is in use (frozen).
    static func modelIsInUse(_ model: NSManagedObjectModel) {
        modelsInUse.withLock { models in
            models.removeAll { $0.model == nil }
            models.append(ModelInUse(model: model))
        }
    }

    static func register(_ type: NSManagedObject.Type, for entity: NSEntityDescription) {
        let anchor = entity.anchor
        entries.withLock { entries in
            var list = (entries[ObjectIdentifier(type)] ?? []).filter { $0.anchor != nil && $0.anchor !== anchor }
            list.append(Entry(anchor: anchor))
            entries[ObjectIdentifier(type)] = list
        }
    }

    /// The entity `type` was most recently registered for among those whose model is in use,
    /// else the most recent one still alive.
    /// When the class was never registered: the entity of the most recent model in use that names
    /// it as its class (`representedClassName`), which is then registered.
    static func entity(for type: NSManagedObject.Type) -> NSEntityDescription? {
        let alive = entries.withLock { ($0[ObjectIdentifier(type)] ?? []).compactMap { $0.anchor?.entity } }
        if let entity = alive.last(where: { $0.managedObjectModel?.isFrozen ?? false }) ?? alive.last { return entity }
        let models = modelsInUse.withLock { $0.compactMap(\.model) }
        for model in models.reversed() {
            if let entity = model.entity(for: type) {
                register(type, for: entity)
                return entity
            }
        }
        return nil
    }

    /// The model property a key path of a managed object class names (`\Person.age` → `age`),
    /// found through the class's entity: its `@Managed` property is read once on a probe object in
    /// no context, and the answer is kept in the entity's property cache.
    static func propertyName(of keyPath: AnyKeyPath) -> String? {
        guard let type = Swift.type(of: keyPath).rootType as? NSManagedObject.Type, let entity = entity(for: type) else { return nil }
        if let property = entity.managedPropertyCache.property(equalTo: keyPath) { return property.description.name }
        let probe = entity.layout.objectClass.init(entity: entity, insertInto: nil)
        guard let property = ManagedPropertyProbe.property(readBy: { _ = $0[keyPath: keyPath] }, on: probe) else { return nil }
        entity.managedPropertyCache.add(property, for: keyPath)
        return property.description.name
    }
}
