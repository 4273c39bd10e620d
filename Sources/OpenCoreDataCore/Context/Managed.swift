@_spi(Reflection) import Swift
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
    // One byte, so that each wrapper has its own offset in the object: the offset identifies the
    // property (see `ManagedPropertyCache`).
    private let marker: UInt8 = 0

    public init() {}

    @available(*, unavailable, message: "@Managed can only be used on properties of NSManagedObject subclasses")
    public var wrappedValue: Value {
        get { preconditionFailure("@Managed can only be used on properties of NSManagedObject subclasses") }
        set { preconditionFailure("@Managed can only be used on properties of NSManagedObject subclasses") }
    }

    // Always inlined into the synthesized accessor, where the storage key path is a literal
    // (see `property(of:storage:)`).
    @inlinable @inline(__always)
    public static subscript<Object: NSManagedObject>(
        _enclosingInstance object: Object,
        wrapped wrappedKeyPath: ReferenceWritableKeyPath<Object, Value>,
        storage storageKeyPath: ReferenceWritableKeyPath<Object, Managed<Value>>
    ) -> Value {
        get {
            Value._managedValue(of: object, property: property(of: object, storage: storageKeyPath))
        }
        set {
            Value._setManagedValue(newValue, of: object, property: property(of: object, storage: storageKeyPath))
        }
    }

    /// The model property behind the wrapper at `storage` in `object`.
    ///
    /// The wrapper's offset in the object identifies it. In a synthesized accessor the storage key
    /// path is a literal, so the optimizer turns the projection below into a constant and no key
    /// path object is made at all.
    @inlinable @inline(__always)
    static func property<Object: NSManagedObject>(
        of object: Object, storage: ReferenceWritableKeyPath<Object, Managed<Value>>
    ) -> ManagedProperty {
        let base = UnsafeRawPointer(Unmanaged.passUnretained(object).toOpaque())
        let offset = withUnsafeMutablePointer(to: &object[keyPath: storage]) { UnsafeRawPointer($0) - base }
        return ManagedPropertyResolver.property(atOffset: offset, in: object)
    }
}

/// The storage type of `@Managed` properties, as reflection finds it among an object's fields.
protocol ManagedStorage {
    /// The class of a relationship's destination objects, when the property is a relationship.
    static var destinationClass: NSManagedObject.Type? { get }
    /// The declared type of the property.
    static var valueType: Any.Type { get }
}

extension Managed: ManagedStorage {
    static var valueType: Any.Type { Value.self }

    static var destinationClass: NSManagedObject.Type? {
        (Value.self as? any ManagedRelationshipValue.Type)?.destinationClass
    }
}

/// A relationship's value type (`Person`, `Person?`, `Set<Person>`), which names the class of
/// its destination objects.
protocol ManagedRelationshipValue {
    static var destinationClass: NSManagedObject.Type { get }
}

extension NSManagedObject: ManagedRelationshipValue {
    static var destinationClass: NSManagedObject.Type { self }
}

extension Optional: ManagedRelationshipValue where Wrapped: NSManagedObject {
    static var destinationClass: NSManagedObject.Type { Wrapped.self }
}

extension Set: ManagedRelationshipValue where Element: NSManagedObject {
    static var destinationClass: NSManagedObject.Type { Element.self }
}

/// A modeled property as `@Managed` sees it. Opaque: only OpenCoreData reads it.
public struct ManagedProperty: Sendable {
    // unowned(unsafe): the model keeps its properties alive for as long as objects use them, and
    // copying this value on every property access must not touch reference counts.
    unowned(unsafe) let description: NSPropertyDescription
    /// The attribute or relationship slot.
    let slot: Int
    /// Whether the property is an attribute (not a relationship): decided once, not by a cast
    /// on every access.
    let isAttribute: Bool
    /// Whether the property is a relationship (a fetched property is neither).
    let isRelationship: Bool

    /// The relationship, when the property is one (without a dynamic cast).
    var relationship: NSRelationshipDescription? {
        isRelationship ? unsafeDowncast(description, to: NSRelationshipDescription.self) : nil
    }
}

/// A type a `@Managed` property can have: Swift's scalar, string, date, data, UUID and URL types
/// (and optionals of them) for attributes, a managed object class (or an optional one) for
/// to-one relationships, `Set<Object>` for to-many ones.
public protocol ManagedValue {
    static func _managedValue(of object: NSManagedObject, property: ManagedProperty) -> Self
    static func _setManagedValue(_ value: Self, of object: NSManagedObject, property: ManagedProperty)
}

/// Finds the model property behind a `@Managed` property: by the wrapper's field name the
/// first time per entity and class, then from the entity's `ManagedPropertyCache`.
@usableFromInline
enum ManagedPropertyResolver {
    /// The property of the wrapper at byte `offset` in `object`.
    @usableFromInline
    static func property(atOffset offset: Int, in object: NSManagedObject) -> ManagedProperty {
        let property = object.entity.managedPropertyCache.property(atOffset: offset, in: object)
            ?? resolveSlowly(offset: offset, in: object)
        if object.contents.state.contains(.probe) { ManagedPropertyProbe.record(property, for: object) }
        return property
    }

    private static func resolveSlowly(offset: Int, in object: NSManagedObject) -> ManagedProperty {
        guard let field = storageField(atOffset: offset, in: type(of: object)) else {
            preconditionFailure("@Managed property of \(type(of: object)) at offset \(offset) not found among the class's stored properties")
        }
        // A relationship names its destination's class: announce it before any destination
        // object is made, so that those are made of it (see `ManagedObjectClassFinder`).
        if let destinationClass = field.type.destinationClass { ManagedObjectClassFinder.announce(destinationClass) }
        // The wrapper's storage is the property's name with an underscore in front.
        let name = field.name.hasPrefix("_") ? String(field.name.dropFirst()) : field.name
        let resolved = property(named: name, valueType: field.type.valueType, in: object, declaredAs: "@Managed var \(name)")
        object.entity.managedPropertyCache.add(resolved, offset: offset, objectClass: type(of: object))
        return resolved
    }

    /// The property `name` of `object`'s entity, checked to hold values of `valueType`; stops
    /// the program with a message naming the class, the declaration and the entity when there
    /// is none or it cannot.
    static func property(named name: String, valueType: Any.Type, in object: NSManagedObject, declaredAs declaration: String) -> ManagedProperty {
        let owner = "\(declaration) of \(type(of: object))"
        guard let property = object.entity.layout.propertiesByName[name] else {
            preconditionFailure("\(owner): entity '\(object.entity.name ?? "?")' has no property named '\(name)'")
        }
        if let misfit = ManagedValueFit.misfit(of: valueType, for: property) {
            preconditionFailure("\(owner): \(misfit)")
        }
        let attribute = property as? NSAttributeDescription
        let slot = attribute?.attributeSlot ?? (property as? NSRelationshipDescription)?.relationshipSlot ?? -1
        return ManagedProperty(description: property, slot: slot, isAttribute: attribute != nil,
                               isRelationship: property is NSRelationshipDescription)
    }

    /// The name and type of the `@Managed` storage at byte `offset` in instances of `objectClass`
    /// (its own or inherited), from the runtime's reflection metadata.
    static func storageField(atOffset offset: Int, in objectClass: AnyClass) -> (name: String, type: any ManagedStorage.Type)? {
        var found: (name: String, type: any ManagedStorage.Type)?
        // `.classType` (bit 0), spelled by value: the option set's members are mutable statics,
        // which strict concurrency does not let us read.
        let classType = _EachFieldOptions(rawValue: 1 << 0)
        _ = _forEachField(of: objectClass, options: classType) { name, fieldOffset, fieldType, _ in
            // Only a wrapper's storage names a property.
            guard fieldOffset == offset, let storage = fieldType as? any ManagedStorage.Type else { return true }
            found = (String(cString: name), storage)
            return false
        }
        return found
    }
}

/// Records which property a probe object's `@Managed` accessor used, so that a key path of a
/// managed object class (`\Person.age`, from a `#Predicate` or `NSSortDescriptor(keyPath:)`) can
/// be turned into a property by applying it to a probe (see `ManagedClassRegistry`).
enum ManagedPropertyProbe {
    private static let recorded = Mutex<[ObjectIdentifier: ManagedProperty]>([:])

    static func record(_ property: ManagedProperty, for probe: NSManagedObject) {
        recorded.withLock { $0[ObjectIdentifier(probe)] = property }
    }

    /// The property `read` touches on `probe`, if it reads a `@Managed` property.
    static func property(readBy read: (NSManagedObject) -> Void, on probe: NSManagedObject) -> ManagedProperty? {
        probe.contents.state.insert(.probe)
        defer { probe.contents.state.remove(.probe) }
        read(probe)
        return recorded.withLock { $0.removeValue(forKey: ObjectIdentifier(probe)) }
    }
}

/// An entity's map from `@Managed` wrappers to properties, read without a lock.
///
/// A wrapper is found by its object's class and its offset in the object, which the compiler
/// knows: a lookup is an atomic load, a class comparison and an array index. Each entry also
/// keeps the wrapped key path (`\Person.age`) it was first resolved for, so that code holding
/// only a key path (`#Predicate`, `NSSortDescriptor(keyPath:)`) can find the property too.
///
/// Writers publish a new, larger table with compare-and-exchange. Replaced tables are kept
/// (never freed), because a reader may still be using one; there are at most a few per
/// property, so the cost is bounded and small.
@usableFromInline
///
/// A noncopyable struct stored in its entity, so that reaching it from an object is two loads
/// and no reference counting.
struct ManagedPropertyCache: ~Copyable, @unchecked Sendable {
    // @unchecked Sendable: `current` is only read and written atomically, and tables are
    // immutable once published (UnsafeRawPointer is not Sendable, hence the annotation).
    private final class Table: @unchecked Sendable {
        // @unchecked Sendable: immutable once published.
        /// The properties of one class by wrapper offset; the first class is looked at first.
        let classes: [(objectClass: ObjectIdentifier, byOffset: [ManagedProperty?])]
        let keyPaths: [AnyKeyPath]
        let properties: [ManagedProperty]

        init(classes: [(objectClass: ObjectIdentifier, byOffset: [ManagedProperty?])], keyPaths: [AnyKeyPath],
             properties: [ManagedProperty]) {
            self.classes = classes
            self.keyPaths = keyPaths
            self.properties = properties
        }

        func property(atOffset offset: Int, objectClass: ObjectIdentifier) -> ManagedProperty? {
            for entry in classes where entry.objectClass == objectClass {
                return offset >= 0 && offset < entry.byOffset.count ? entry.byOffset[offset] : nil
            }
            return nil
        }

        func adding(_ property: ManagedProperty, offset: Int, objectClass: ObjectIdentifier) -> Table {
            var classes = classes
            let index = classes.firstIndex { $0.objectClass == objectClass } ?? {
                classes.append((objectClass, []))
                return classes.count - 1
            }()
            if offset >= classes[index].byOffset.count {
                classes[index].byOffset += Array(repeating: nil, count: offset + 1 - classes[index].byOffset.count)
            }
            classes[index].byOffset[offset] = property
            return Table(classes: classes, keyPaths: keyPaths, properties: properties)
        }

        func adding(_ property: ManagedProperty, for keyPath: AnyKeyPath) -> Table {
            Table(classes: classes, keyPaths: keyPaths + [keyPath], properties: properties + [property])
        }
    }

    /// Wrapper offsets beyond this are not cached (an object's stored properties lie well within
    /// it; this only guards the table's size).
    private static let maximumOffset = 1 << 16
    private let current = Atomic<UnsafeRawPointer?>(nil)

    /// The property of the wrapper at `offset` in `object`, if it was resolved before.
    func property(atOffset offset: Int, in object: NSManagedObject) -> ManagedProperty? {
        guard let raw = current.load(ordering: .acquiring) else { return nil }
        let objectClass = ObjectIdentifier(type(of: object))
        // The table is never freed (see above), so reading it needs no retain.
        return Unmanaged<Table>.fromOpaque(raw)._withUnsafeGuaranteedRef { $0.property(atOffset: offset, objectClass: objectClass) }
    }

    /// The property of a key path equal to `keyPath`: for key paths made elsewhere, such as in a
    /// `#Predicate`.
    func property(equalTo keyPath: AnyKeyPath) -> ManagedProperty? {
        guard let raw = current.load(ordering: .acquiring) else { return nil }
        return Unmanaged<Table>.fromOpaque(raw)._withUnsafeGuaranteedRef { table in
            zip(table.keyPaths, table.properties).first { $0.0 == keyPath }?.1
        }
    }

    func add(_ property: ManagedProperty, offset: Int, objectClass: AnyClass) {
        guard offset >= 0 && offset < Self.maximumOffset else { return }
        let identity = ObjectIdentifier(objectClass)
        publish { table in
            table.property(atOffset: offset, objectClass: identity) != nil ? nil
                : table.adding(property, offset: offset, objectClass: identity)
        }
    }

    /// The property `ManagedKey` number `number` names, if it was resolved before.
    func property(forKeyNumber number: Int) -> ManagedProperty? {
        guard let raw = current.load(ordering: .acquiring) else { return nil }
        return Unmanaged<Table>.fromOpaque(raw)._withUnsafeGuaranteedRef {
            $0.property(atOffset: number, objectClass: ObjectIdentifier(ManagedKeyNumbers.self))
        }
    }

    /// Remembers the property `ManagedKey` number `number` names; keys are numbered from 0, so
    /// they share one table row, kept after the classes' (see `Table.classes`).
    func add(_ property: ManagedProperty, forKeyNumber number: Int) {
        guard number >= 0 && number < Self.maximumOffset else { return }
        let identity = ObjectIdentifier(ManagedKeyNumbers.self)
        publish { table in
            table.property(atOffset: number, objectClass: identity) != nil ? nil
                : table.adding(property, offset: number, objectClass: identity)
        }
    }

    /// Remembers the property a key path of the entity's class names (see `ManagedPropertyProbe`).
    func add(_ property: ManagedProperty, for keyPath: AnyKeyPath) {
        publish { table in table.keyPaths.contains(keyPath) ? nil : table.adding(property, for: keyPath) }
    }

    /// Replaces the table with `change(current)`, unless that is nil.
    private func publish(_ change: (Table) -> Table?) {
        while true {
            let old = current.load(ordering: .acquiring)
            let oldTable = old.map { Unmanaged<Table>.fromOpaque($0).takeUnretainedValue() } ?? Table(classes: [], keyPaths: [], properties: [])
            guard let table = change(oldTable) else { return }
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
        object.clearRefusal(of: property)
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
        switch primitive {
        case .data(let value): self = value
        case .externalData(let value):
            guard let data = value.dataIfReadable else { return nil }
            self = data
        default: return nil
        }
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
    // Inlinable, so that the caller's code is specialized for its wrapped type: unspecialized,
    // every access looks up `Optional<Wrapped>`'s type metadata.
    @inlinable
    public static func _managedValue(of object: NSManagedObject, property: ManagedProperty) -> Self {
        switch object._managedOptionalState(property) {
        case .null: return nil
        case .destination(let destination): return destination as? Wrapped
        case .value: return Wrapped._managedValue(of: object, property: property)
        }
    }

    @inlinable
    public static func _setManagedValue(_ value: Self, of object: NSManagedObject, property: ManagedProperty) {
        if let value {
            Wrapped._setManagedValue(value, of: object, property: property)
        } else {
            object._setManagedNil(property)
        }
    }
}

/// What an optional `@Managed` property holds, as far as the object can tell without its type.
@usableFromInline
enum _ManagedOptionalState {
    /// No value, or no destination.
    case null
    /// A to-one relationship's destination.
    case destination(NSManagedObject)
    /// A value, read by the wrapped type.
    case value
}

extension NSManagedObject {
    @usableFromInline
    func _managedOptionalState(_ property: ManagedProperty) -> _ManagedOptionalState {
        if property.isAttribute {
            switch primitive(at: property.slot) {
            case .null: return .null
            // A file that can't be read is a missing value, as `value(forKey:)` gives it.
            case .externalData(let value): return value.dataIfReadable == nil ? .null : .value
            default: return .value
            }
        }
        if let relationship = property.relationship, !relationship.isToMany {
            return toOneDestination(relationship).map { .destination($0) } ?? .null
        }
        return .value
    }

    /// Forgets an earlier refusal of a value for `property` (see `clearRefusal(of:)` taking a
    /// description). The description is read only when there is a refusal: reading it makes a
    /// strong reference, a retain and a release on every set.
    @inline(__always)
    func clearRefusal(of property: ManagedProperty) {
        if !contents.rejectedValues.isEmpty { clearRefusal(of: property.description) }
    }

    /// Whether `destination` may be set through a `@Managed` property of `relationship`: its
    /// class is the property's type, so what is left to check is its context. One of another
    /// context is refused as `setValue(_:forKey:)` refuses it (Core Data raises): the property
    /// keeps its value and the next save fails naming it.
    @inline(__always)
    func acceptsManagedDestination(_ destination: NSManagedObject, of relationship: NSRelationshipDescription) -> Bool {
        if !destination.belongsToAnotherContext(than: self) { return true }
        return refuseManagedDestination(destination, of: relationship)
    }

    /// Records the refusal of `destination`, of another context; false.
    @inline(never)
    private func refuseManagedDestination(_ destination: NSManagedObject, of relationship: NSRelationshipDescription) -> Bool {
        do {
            try checkDestination(destination, of: relationship)
        } catch {
            refuse(CoreDataError.validationReason(of: error, object: self, key: relationship.name), forKey: relationship.name)
        }
        return false
    }

    @usableFromInline
    func _setManagedNil(_ property: ManagedProperty) {
        clearRefusal(of: property)
        if let relationship = property.relationship {
            if relationship.isToMany { replaceToMany(relationship, with: []) } else { setToOne(relationship, to: nil) }
        } else {
            setPrimitive(.null, at: property.slot)
        }
    }
}

// MARK: Relationship values

extension NSManagedObject: ManagedValue {
    public static func _managedValue(of object: NSManagedObject, property: ManagedProperty) -> Self {
        guard let relationship = property.relationship,
              let destination = object.toOneDestination(relationship) as? Self else {
            preconditionFailure("\(object.entity.name ?? "?").\(property.description.name) has no destination; declare it optional")
        }
        return destination
    }

    public static func _setManagedValue(_ value: NSManagedObject, of object: NSManagedObject, property: ManagedProperty) {
        guard let relationship = property.relationship, object.acceptsManagedDestination(value, of: relationship) else { return }
        object.clearRefusal(of: relationship)
        object.setToOne(relationship, to: value)
    }
}

extension Set: ManagedValue where Element: NSManagedObject {
    // Inlinable, so that the caller's code builds the set of its own element type: generic set
    // code, unspecialized, looks up type metadata on every insertion.
    @inlinable
    public static func _managedValue(of object: NSManagedObject, property: ManagedProperty) -> Self {
        let members = object._managedToManyMembers(property)
        var result = Set<Element>(minimumCapacity: members.count)
        for member in members {
            if let member = member as? Element { result.insert(member) }
        }
        return result
    }

    @inlinable
    public static func _setManagedValue(_ value: Self, of object: NSManagedObject, property: ManagedProperty) {
        var members: [NSManagedObject] = []
        members.reserveCapacity(value.count)
        for member in value { members.append(member) }
        object._setManagedToManyMembers(members, property)
    }
}

extension NSManagedObject {
    /// The members of the to-many relationship `property` (empty for anything else).
    @usableFromInline
    func _managedToManyMembers(_ property: ManagedProperty) -> Set<NSManagedObject> {
        guard let relationship = property.relationship else { return [] }
        return toManyMembers(relationship).members
    }

    /// Replaces the members of the to-many relationship `property`.
    @usableFromInline
    func _setManagedToManyMembers(_ members: [NSManagedObject], _ property: ManagedProperty) {
        guard let relationship = property.relationship,
              members.allSatisfy({ acceptsManagedDestination($0, of: relationship) }) else { return }
        clearRefusal(of: relationship)
        replaceToMany(relationship, with: members)
    }
}
