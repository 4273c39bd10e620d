import Foundation
import Synchronization

/// Declares a modeled property on an `NSManagedObject` subclass: OpenCoreData's replacement for
/// `@NSManaged`, one word per property.
///
/// ```swift
/// final class Person: NSManagedObject {
///     @Managed var name: String
///     @Managed var age: Int64
///     @Managed var email: String?
///     @Managed var pets: Set<Pet>
///     @Managed var employer: Company?
/// }
/// entity.managedObjectClass = Person.self
/// ```
/// The property's name must be the name of an attribute or relationship of the object's entity.
/// Reads and writes go straight to the object's storage slot (no key lookup, no boxing), with
/// the same faulting, change tracking and inverse maintenance as `value(forKey:)`.
///
/// Non-optional scalars read 0 (or false) when the stored value is nil, as Core Data's scalar
/// accessors do; non-optional strings, dates and data read an empty value.
@propertyWrapper
public struct Managed<Value: ManagedValue>: Sendable {
    // One byte, so that each wrapper has its own offset in the object: the storage key path's
    // description, which names the property, is found from that offset.
    private let marker: UInt8 = 0

    public init() {}

    @available(*, unavailable, message: "@Managed can only be used on properties of NSManagedObject subclasses")
    public var wrappedValue: Value {
        get { preconditionFailure("@Managed can only be used on properties of NSManagedObject subclasses") }
        set { preconditionFailure("@Managed can only be used on properties of NSManagedObject subclasses") }
    }

    @inlinable
    public static subscript<Object: NSManagedObject>(
        _enclosingInstance object: Object,
        wrapped wrappedKeyPath: ReferenceWritableKeyPath<Object, Value>,
        storage storageKeyPath: ReferenceWritableKeyPath<Object, Managed<Value>>
    ) -> Value {
        // The wrapped key path (`\Person.age`) identifies the property; the storage key path's
        // description (`\Person._age`) names it.
        get {
            Value._managedValue(of: object, property: ManagedPropertyResolver.resolve(wrappedKeyPath, named: storageKeyPath, in: object))
        }
        set {
            Value._setManagedValue(newValue, of: object,
                                   property: ManagedPropertyResolver.resolve(wrappedKeyPath, named: storageKeyPath, in: object))
        }
    }
}

/// A modeled property as `@Managed` sees it. Opaque: only OpenCoreData reads it.
public struct ManagedProperty: Sendable {
    // unowned(unsafe): the model keeps its properties alive for as long as objects use them, and
    // copying this value on every property access must not touch reference counts.
    unowned(unsafe) let description: NSPropertyDescription
    let slot: Int
}

/// A type a `@Managed` property can have: Swift's scalar, string, date, data, UUID and URL types
/// (and optionals of them) for attributes, a managed object class (or an optional one) for
/// to-one relationships, `Set<Object>` for to-many ones.
public protocol ManagedValue {
    static func _managedValue(of object: NSManagedObject, property: ManagedProperty) -> Self
    static func _setManagedValue(_ value: Self, of object: NSManagedObject, property: ManagedProperty)
}

/// Finds the model property behind a `@Managed` property: by name the first time per entity,
/// then from the entity's `ManagedPropertyCache`.
@usableFromInline
enum ManagedPropertyResolver {
    // Inlinable so that, in the caller, the storage key path (needed only the first time) is
    // made only on the slow path.
    @inlinable
    static func resolve(_ keyPath: AnyKeyPath, named storageKeyPath: @autoclosure () -> AnyKeyPath,
                        in object: NSManagedObject) -> ManagedProperty {
        // unowned(unsafe): the entity, and so its cache, outlives every access to its objects.
        unowned(unsafe) let cache = object.entity.managedPropertyCache
        if let property = cache.property(for: keyPath) { return property }
        return resolveSlowly(keyPath, named: storageKeyPath(), in: object, cache: cache)
    }

    @usableFromInline
    static func resolveSlowly(_ keyPath: AnyKeyPath, named storageKeyPath: AnyKeyPath, in object: NSManagedObject,
                                      cache: ManagedPropertyCache) -> ManagedProperty {
        let name = propertyName(ofStorage: storageKeyPath)
        guard let property = object.entity.layout.propertiesByName[name] else {
            preconditionFailure("@Managed var \(name) of \(type(of: object)): entity '\(object.entity.name ?? "?")' has no property named '\(name)'")
        }
        let slot = (property as? NSAttributeDescription)?.attributeSlot ?? (property as? NSRelationshipDescription)?.relationshipSlot ?? -1
        let resolved = ManagedProperty(description: property, slot: slot)
        cache.add(resolved, for: keyPath)
        return resolved
    }

    /// `\Person._age` → `age`.
    static func propertyName(ofStorage keyPath: AnyKeyPath) -> String {
        var name = String(describing: keyPath).split(separator: ".").last.map(String.init) ?? ""
        if name.hasPrefix("_") { name.removeFirst() }
        return name
    }
}

/// An entity's map from `@Managed` key paths to properties, read without a lock.
///
/// Readers load the current table with one atomic load and scan it comparing key path
/// identities; writers publish a new, longer table with compare-and-exchange. Replaced tables
/// are kept (never freed), because a reader may still be scanning one; there are at most a few
/// per property, so the cost is bounded and small. Each entry keeps its key path alive, so the
/// identity it is found by can never be taken by another key path.
@usableFromInline
final class ManagedPropertyCache: @unchecked Sendable {
    // @unchecked Sendable: `current` is only read and written atomically, and tables are
    // immutable once published (UnsafeRawPointer is not Sendable, hence the annotation).
    private final class Table: @unchecked Sendable {
        // @unchecked Sendable: immutable once published.
        let keyPaths: [AnyKeyPath]
        /// The key paths' identities with their properties, scanned without touching reference
        /// counts (`ManagedProperty` holds its description unowned).
        let entries: [(identity: ObjectIdentifier, property: ManagedProperty)]
        let properties: [ManagedProperty]
        init(keyPaths: [AnyKeyPath], properties: [ManagedProperty]) {
            self.keyPaths = keyPaths
            self.entries = zip(keyPaths, properties).map { (ObjectIdentifier($0), $1) }
            self.properties = properties
        }
    }

    /// A bound, in case a platform made a new key path object per access (the runtime caches key
    /// path literals, so one entry per declaration is the norm): beyond it, lookups go by name.
    private static let capacity = 512
    private let current = Atomic<UnsafeRawPointer?>(nil)

    @usableFromInline
    func property(for keyPath: AnyKeyPath) -> ManagedProperty? {
        guard let raw = current.load(ordering: .acquiring) else { return nil }
        let identity = ObjectIdentifier(keyPath)
        // The table is never freed (see above), so reading it needs no retain.
        return Unmanaged<Table>.fromOpaque(raw)._withUnsafeGuaranteedRef { table in
            table.entries.withUnsafeBufferPointer { entries in
                for entry in entries where entry.identity == identity { return entry.property }
                return nil
            }
        }
    }

    /// The property of a key path equal to `keyPath` (not necessarily the same object): for
    /// key paths made elsewhere, such as in a `#Predicate`.
    func property(equalTo keyPath: AnyKeyPath) -> ManagedProperty? {
        if let property = property(for: keyPath) { return property }
        guard let raw = current.load(ordering: .acquiring) else { return nil }
        return Unmanaged<Table>.fromOpaque(raw)._withUnsafeGuaranteedRef { table in
            zip(table.keyPaths, table.properties).first { $0.0 == keyPath }?.1
        }
    }

    func add(_ property: ManagedProperty, for keyPath: AnyKeyPath) {
        while true {
            let old = current.load(ordering: .acquiring)
            let oldTable = old.map { Unmanaged<Table>.fromOpaque($0).takeUnretainedValue() }
            if let oldTable, oldTable.keyPaths.count >= Self.capacity || oldTable.keyPaths.contains(where: { $0 === keyPath }) { return }
            let table = Table(keyPaths: (oldTable?.keyPaths ?? []) + [keyPath], properties: (oldTable?.properties ?? []) + [property])
            let new = UnsafeRawPointer(Unmanaged.passRetained(table).toOpaque())
            if current.compareExchange(expected: old, desired: new, ordering: .acquiringAndReleasing).exchanged { return }
            Unmanaged<Table>.fromOpaque(new).release()
        }
    }
}

// MARK: Attribute values

/// A value stored directly in an attribute slot.
protocol ManagedAttributeValue: ManagedValue {
    init?(primitive: PrimitiveValue)
    /// The value when the slot is nil (0, false, "", …), for non-optional properties.
    static var emptyValue: Self { get }
    var primitive: PrimitiveValue { get }
}

extension ManagedAttributeValue {
    public static func _managedValue(of object: NSManagedObject, property: ManagedProperty) -> Self {
        Self(primitive: object.primitive(at: property.slot)) ?? emptyValue
    }

    public static func _setManagedValue(_ value: Self, of object: NSManagedObject, property: ManagedProperty) {
        object.setPrimitive(value.primitive, at: property.slot)
    }
}

extension Int64: ManagedValue, ManagedAttributeValue {
    init?(primitive: PrimitiveValue) {
        switch primitive {
        case .integer(let value): self = value
        case .bool(let value): self = value ? 1 : 0
        case .double(let value): self = Int64(value)
        default: return nil
        }
    }
    static var emptyValue: Int64 { 0 }
    var primitive: PrimitiveValue { .integer(self) }
}

extension Int: ManagedValue, ManagedAttributeValue {
    init?(primitive: PrimitiveValue) { guard let value = Int64(primitive: primitive) else { return nil }; self = Int(value) }
    static var emptyValue: Int { 0 }
    var primitive: PrimitiveValue { .integer(Int64(self)) }
}

extension Int32: ManagedValue, ManagedAttributeValue {
    init?(primitive: PrimitiveValue) { guard let value = Int64(primitive: primitive) else { return nil }; self = Int32(truncatingIfNeeded: value) }
    static var emptyValue: Int32 { 0 }
    var primitive: PrimitiveValue { .integer(Int64(self)) }
}

extension Int16: ManagedValue, ManagedAttributeValue {
    init?(primitive: PrimitiveValue) { guard let value = Int64(primitive: primitive) else { return nil }; self = Int16(truncatingIfNeeded: value) }
    static var emptyValue: Int16 { 0 }
    var primitive: PrimitiveValue { .integer(Int64(self)) }
}

extension Double: ManagedValue, ManagedAttributeValue {
    init?(primitive: PrimitiveValue) {
        switch primitive {
        case .double(let value): self = value
        case .integer(let value): self = Double(value)
        default: return nil
        }
    }
    static var emptyValue: Double { 0 }
    var primitive: PrimitiveValue { .double(self) }
}

extension Float: ManagedValue, ManagedAttributeValue {
    init?(primitive: PrimitiveValue) { guard let value = Double(primitive: primitive) else { return nil }; self = Float(value) }
    static var emptyValue: Float { 0 }
    var primitive: PrimitiveValue { .double(Double(self)) }
}

extension Bool: ManagedValue, ManagedAttributeValue {
    init?(primitive: PrimitiveValue) {
        switch primitive {
        case .bool(let value): self = value
        case .integer(let value): self = value != 0
        default: return nil
        }
    }
    static var emptyValue: Bool { false }
    var primitive: PrimitiveValue { .bool(self) }
}

extension String: ManagedValue, ManagedAttributeValue {
    init?(primitive: PrimitiveValue) {
        guard case .string(let value) = primitive else { return nil }
        self = value
    }
    static var emptyValue: String { "" }
    var primitive: PrimitiveValue { .string(self) }
}

extension Date: ManagedValue, ManagedAttributeValue {
    init?(primitive: PrimitiveValue) {
        guard case .date(let value) = primitive else { return nil }
        self = value
    }
    static var emptyValue: Date { Date(timeIntervalSinceReferenceDate: 0) }
    var primitive: PrimitiveValue { .date(self) }
}

extension Data: ManagedValue, ManagedAttributeValue {
    init?(primitive: PrimitiveValue) {
        guard case .data(let value) = primitive else { return nil }
        self = value
    }
    static var emptyValue: Data { Data() }
    var primitive: PrimitiveValue { .data(self) }
}

extension UUID: ManagedValue, ManagedAttributeValue {
    init?(primitive: PrimitiveValue) {
        guard case .uuid(let value) = primitive else { return nil }
        self = value
    }
    static var emptyValue: UUID { UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)) }
    var primitive: PrimitiveValue { .uuid(self) }
}

extension URL: ManagedValue, ManagedAttributeValue {
    init?(primitive: PrimitiveValue) {
        guard case .url(let value) = primitive else { return nil }
        self = value
    }
    static var emptyValue: URL { URL(string: "about:blank")! }
    var primitive: PrimitiveValue { .url(self) }
}

extension Decimal: ManagedValue, ManagedAttributeValue {
    init?(primitive: PrimitiveValue) {
        switch primitive {
        case .decimal(let value): self = value
        case .double(let value): self = Decimal(value)
        case .integer(let value): self = Decimal(value)
        default: return nil
        }
    }
    static var emptyValue: Decimal { 0 }
    var primitive: PrimitiveValue { .decimal(self) }
}

extension Optional: ManagedValue where Wrapped: ManagedValue {
    public static func _managedValue(of object: NSManagedObject, property: ManagedProperty) -> Self {
        if property.description is NSAttributeDescription {
            if object.primitive(at: property.slot).isNull { return nil }
        } else if let relationship = property.description as? NSRelationshipDescription, !relationship.isToMany {
            guard let destination = object.toOneDestination(relationship) else { return nil }
            return destination as? Wrapped
        }
        return Wrapped._managedValue(of: object, property: property)
    }

    public static func _setManagedValue(_ value: Self, of object: NSManagedObject, property: ManagedProperty) {
        if let value {
            Wrapped._setManagedValue(value, of: object, property: property)
        } else if let relationship = property.description as? NSRelationshipDescription {
            object.setToOne(relationship, to: nil)
        } else {
            object.setPrimitive(.null, at: property.slot)
        }
    }
}

// MARK: Relationship values

extension NSManagedObject: ManagedValue {
    public static func _managedValue(of object: NSManagedObject, property: ManagedProperty) -> Self {
        guard let relationship = property.description as? NSRelationshipDescription,
              let destination = object.toOneDestination(relationship) as? Self else {
            preconditionFailure("\(object.entity.name ?? "?").\(property.description.name) has no destination; declare it optional")
        }
        return destination
    }

    public static func _setManagedValue(_ value: NSManagedObject, of object: NSManagedObject, property: ManagedProperty) {
        guard let relationship = property.description as? NSRelationshipDescription else { return }
        object.setToOne(relationship, to: value)
    }
}

extension Set: ManagedValue where Element: NSManagedObject {
    public static func _managedValue(of object: NSManagedObject, property: ManagedProperty) -> Self {
        guard let relationship = property.description as? NSRelationshipDescription else { return [] }
        var result = Set<Element>()
        for member in object.toManyMembers(relationship).members {
            if let member = member as? Element { result.insert(member) }
        }
        return result
    }

    public static func _setManagedValue(_ value: Self, of object: NSManagedObject, property: ManagedProperty) {
        guard let relationship = property.description as? NSRelationshipDescription else { return }
        object.replaceToMany(relationship, with: Array(value))
    }
}
