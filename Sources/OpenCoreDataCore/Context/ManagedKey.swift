import Synchronization

/// A modeled property for a computed property: the form of `@Managed` that can live in an
/// extension, as Xcode's `+CoreDataProperties.swift` files put `@NSManaged` properties there.
///
/// ```swift
/// extension Item {
///     static let nameKey = ManagedKey<String?>("name")
///     public var name: String? {
///         get { self[Item.nameKey] }
///         set { self[Item.nameKey] = newValue }
///     }
/// }
/// ```
/// A property wrapper needs stored space in the object, which an extension cannot add; a key is
/// a static (which an extension can have) and the computed property reads through it. The key
/// finds its attribute or relationship once per entity and then, like `@Managed`, reads and
/// writes the object's slot directly: an atomic load and an array index, no lookup by name.
/// Every value type `@Managed` takes works here too, and key paths of such properties work in
/// `#Predicate` and `NSSortDescriptor(keyPath:)`.
///
/// Not in Apple's Core Data, where `@NSManaged` in an extension is enough.
public final class ManagedKey<Value: ManagedValue>: Sendable {
    /// The attribute's or relationship's name in the model.
    public let name: String
    /// This key's number among all keys: where entities cache what it names.
    @usableFromInline let number: Int

    public init(_ name: String) {
        self.name = name
        number = ManagedKeyNumbers.counter.add(1, ordering: .relaxed).oldValue
    }

    /// The property this key names in `object`'s entity.
    @usableFromInline
    func property(in object: NSManagedObject) -> ManagedProperty {
        let property = object.entity.managedPropertyCache.property(forKeyNumber: number) ?? resolve(in: object)
        if object.contents.state.contains(.probe) { ManagedPropertyProbe.record(property, for: object) }
        return property
    }

    private func resolve(in object: NSManagedObject) -> ManagedProperty {
        let property = ManagedPropertyResolver.property(named: name, valueType: Value.self, in: object, declaredAs: "ManagedKey<\(Value.self)>(\"\(name)\")")
        object.entity.managedPropertyCache.add(property, forKeyNumber: number)
        return property
    }
}

/// The numbers given to `ManagedKey`s, one per key made.
enum ManagedKeyNumbers {
    static let counter = Atomic<Int>(0)
}

extension NSManagedObject {
    /// The value of the modeled property `key` names (see `ManagedKey`).
    @inlinable
    public subscript<Value>(key: ManagedKey<Value>) -> Value {
        get { Value._managedValue(of: self, property: key.property(in: self)) }
        set { Value._setManagedValue(newValue, of: self, property: key.property(in: self)) }
    }
}
