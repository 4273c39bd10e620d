import Foundation

/// An object of the model: an instance of an entity, living in a context.
///
/// ```swift
/// let entry = NSEntityDescription.insertNewObject(forEntityName: "Entry", into: context)
/// entry.setValue(42, forKey: "age")
/// let age = entry.value(forKey: "age") as? Int
/// ```
/// Subclass it per entity (register the class with `entity.managedObjectClass = Entry.self`)
/// to add typed properties and to override the life-cycle hooks (`awakeFromInsert`,
/// `willSave`, …). Objects belong to their context's thread and are not `Sendable`; pass
/// `objectID`s between threads instead.
open class NSManagedObject: NSFetchRequestResult, Hashable, CustomStringConvertible {
    /// The object's entity.
    public let entity: NSEntityDescription

    /// The context the object is registered in; nil once it has been deleted and saved, or
    /// when it was created without a context.
    public var managedObjectContext: NSManagedObjectContext? { context }

    // The context keeps unowned references to its registered objects, and objects to their
    // context: each side clears the other when it goes away (see `deinit` here and in the
    // context), which avoids a weak-reference side table per object. Debug builds (and so the
    // tests) keep a checked unowned reference, so that a use after the context is gone stops the
    // program at once; release builds an unchecked one, which costs no reference counting.
    //
    // `@exclusivity(unchecked)`: objects are confined to their context's queue, so these hot
    // fields are never accessed concurrently; the dynamic exclusivity check cost more than the
    // rest of a property read. `final`: read directly, not through an overridable accessor that
    // would copy the whole value (a snapshot, for one of its fields).
    #if DEBUG
    @exclusivity(unchecked) private final unowned var checkedContext: NSManagedObjectContext?
    /// The identity of `checkedContext`, which can be compared while that context deinitializes
    /// (reading a checked unowned reference to it then stops the program).
    @exclusivity(unchecked) private final var contextIdentity: ObjectIdentifier?
    final var context: NSManagedObjectContext? {
        get { checkedContext }
        set {
            checkedContext = newValue
            contextIdentity = newValue.map(ObjectIdentifier.init)
        }
    }

    /// Whether the object is registered in `context`; safe to ask while `context` deinitializes.
    final func belongs(to context: NSManagedObjectContext) -> Bool {
        contextIdentity == ObjectIdentifier(context)
    }
    #else
    @exclusivity(unchecked) final unowned(unsafe) var context: NSManagedObjectContext?

    /// Whether the object is registered in `context`; safe to ask while `context` deinitializes.
    @inline(__always)
    final func belongs(to context: NSManagedObjectContext) -> Bool {
        self.context === context
    }
    #endif

    /// Whether this object and `object` are each in a context, and not the same one. It runs
    /// for every relationship set through `@Managed`: in release builds the two references are
    /// compared as addresses (an optional class reference is one word, nil being 0), which
    /// measured 16M fewer retain and release instructions on W6 than comparing them as objects.
    @inline(__always)
    final func belongsToAnotherContext(than object: NSManagedObject) -> Bool {
        #if DEBUG
        guard let own = context, let theirs = object.context else { return false }
        return own !== theirs
        #else
        let own = unsafeBitCast(context, to: UInt.self), theirs = unsafeBitCast(object.context, to: UInt.self)
        return own != 0 && theirs != 0 && own != theirs
        #endif
    }
    /// The ID the object has made so far: set for new objects once asked (temporary, then
    /// permanent) and for faults made from an ID. A fetched object that nobody asked for its ID
    /// has none here; its snapshot says which row it is (see `objectID`).
    @exclusivity(unchecked) final var storedObjectID: NSManagedObjectID?
    /// The object's flags, values, relationships and saved state, as one value. Changed as a
    /// whole only through the transitions of `ObjectContents` (new, fault, filled, inaccessible,
    /// unreadable, committed, leaving the context, back in it), each saying what it keeps.
    /// Read and written as `contents.field` everywhere: forwarding accessors for the fields
    /// were not inlined in release builds and cost 10% of reading a fetched object (ocd-bench
    /// W2's read phase).
    @exclusivity(unchecked) final var contents: ObjectContents = .detached

    /// Creates an object of `entity` and inserts it into `context` (if any).
    public required init(entity: NSEntityDescription, insertInto context: NSManagedObjectContext?) {
        self.entity = entity
        if let context {
            becomeNew()
            context.insert(self)
        }
        // An object in no context gets its default values on first use (`willAccess`), so that
        // faults, which contexts create through this initializer, pay nothing for them.
    }

    /// Creates an object of the entity this class is registered for, inserted into `context`.
    /// `required`, so that generic code can make objects of a class it is given
    /// (`Entity(context: context)` for `Entity: NSManagedObject`), as on Apple's platforms.
    public required convenience init(context: NSManagedObjectContext) {
        guard let entity = context.model?.entity(for: Self.self) else {
            preconditionFailure("No entity of the context's model has class \(String(reflecting: Self.self)): no entity names it (representedClassName \"\(Self.self)\" or \"\(String(reflecting: Self.self))\"), or several do")
        }
        self.init(entity: entity, insertInto: context)
    }

    deinit {
        guard let context else { return }
        if let location = rowLocation { context.forget(location, object: self) }
    }

    /// The entity description of the entity this class is registered for, found through `context`.
    public class func entity(in context: NSManagedObjectContext) -> NSEntityDescription? {
        context.model?.entity(for: self)
    }

    /// The entity this class is registered for (`entity.managedObjectClass = Person.self`),
    /// preferring a model that is in use when several registered it.
    ///
    /// Stops the program when no entity is registered for the class, as Core Data's does when
    /// no loaded model names the class; `entity(in:)` answers nil instead.
    open class func entity() -> NSEntityDescription {
        guard let entity = ManagedClassRegistry.entity(for: self) else {
            preconditionFailure("No entity of a model in use has class \(String(reflecting: self)): no entity names it (representedClassName \"\(self)\" or \"\(String(reflecting: self))\"), or several do")
        }
        return entity
    }

    /// A fetch request for the entity this class is registered for (see `entity()`).
    ///
    /// As in Apple's SDK, this one is the disfavoured overload: where a subclass declares its
    /// typed `fetchRequest()` (as Xcode generates it), `Person.fetchRequest()` is the typed one.
    /// ```swift
    /// let request = Person.fetchRequest()        // NSFetchRequest<Person>
    /// ```
    @_disfavoredOverload
    open class func fetchRequest() -> NSFetchRequest<NSFetchRequestResult> {
        NSFetchRequest<NSFetchRequestResult>(entityName: entity().name ?? "")
    }

    /// Whether a change to a property the model does not describe (a stored property of your
    /// own subclass) leaves the object and its context unchanged: true.
    ///
    /// ```swift
    /// final class Note: NSManagedObject {
    ///     var isExpanded = false          // setting it does not make the note a change to save
    /// }
    /// ```
    ///
    /// Difference from Core Data: Core Data observes unmodeled properties through key-value
    /// observing when a subclass overrides this to answer false; Swift on Linux has no
    /// key-value observing, so such changes are never seen, and an override has no effect.
    open class var contextShouldIgnoreUnmodeledPropertyChanges: Bool { true }

    /// The object's ID: temporary until it is saved, permanent afterwards.
    ///
    /// Read it on the object's context's queue, like every other property: a fetched object
    /// makes its ID on the first request (see `storedObjectID`). The ID itself is `Sendable`;
    /// pass it to other threads.
    public var objectID: NSManagedObjectID {
        if let storedObjectID { return storedObjectID }
        // A fetched object makes its ID on first request, from its snapshot; a new one gets a
        // temporary ID.
        let id = contents.snapshot?.objectID ?? NSManagedObjectID(temporaryFor: entity)
        storedObjectID = id
        return id
    }

    /// The object's ID when it has one already (a permanent ID, or a temporary one it was asked
    /// for), without making a temporary one.
    final var existingObjectID: NSManagedObjectID? {
        storedObjectID ?? (hasSnapshot ? objectID : nil)
    }

    /// Where the object's row is, when it has a permanent ID (made or not yet made).
    final var rowLocation: RowLocation? {
        if let storedObjectID { return storedObjectID.rowLocation }
        return contents.snapshot?.rowLocation
    }

    /// Makes the object's ID before its snapshot is replaced by none, the snapshot being where a
    /// fetched object's identity is until then.
    final func keepIdentityOfSnapshot() {
        if storedObjectID == nil && hasSnapshot { _ = objectID }
    }

    // MARK: State

    /// True from insertion until the save that writes the object.
    public var isInserted: Bool { contents.state.contains(.inserted) }
    /// True when some property changed since the last save.
    public var isUpdated: Bool { contents.state.contains(.updated) && !contents.state.contains(.inserted) && !contents.state.contains(.deleted) }
    /// True when the object is marked for deletion in the next save, or when it was a fault
    /// whose row had disappeared from the store (Core Data's `shouldDeleteInaccessibleFaults`).
    public var isDeleted: Bool { contents.state.contains(.deleted) || contents.state.contains(.inaccessible) }
    /// True when the object's values have not been loaded yet.
    public var isFault: Bool { contents.state.contains(.fault) }
    /// `isInserted || isUpdated || isDeleted`.
    public var hasChanges: Bool { isInserted || isUpdated || isDeleted }
    /// True when a persistent property differs from its last saved value.
    public var hasPersistentChangedValues: Bool { !changedValues().isEmpty }
    /// How many properties are loaded… Core Data's `faultingState`: 0 when fully realized.
    public var faultingState: Int { isFault ? 1 : 0 }

    /// Makes the object a fresh insert: default values, loaded empty relationships.
    func becomeNew() {
        keepIdentityOfSnapshot()
        contents.enterNew(defaults: entity.layout.defaultValues)
    }

    // MARK: Life-cycle hooks

    /// Called once, when the object is first inserted into a context. Set initial values here
    /// with primitive setters so they do not count as changes.
    open func awakeFromInsert() {}
    /// Called when the object's values are first loaded from the store.
    open func awakeFromFetch() {}
    /// Called for every inserted, updated and deleted object at the start of a save.
    open func willSave() {}
    /// Called for every saved object after the save.
    open func didSave() {}
    /// Called before the delete rules of a deleted object run; its relationships are intact.
    open func prepareForDeletion() {}
    /// Called before the object turns into a fault.
    open func willTurnIntoFault() {}
    /// Called after the object turned into a fault.
    open func didTurnIntoFault() {}
    /// Called when the object's values were reset wholesale — by an undo, `rollback()`, a
    /// refresh that kept it realized, or a merge policy — with what did it. Recompute values
    /// derived from its properties here; set values with primitive setters, which record no
    /// change. An undo's events come at the end of the event the undo ran in
    /// (`processPendingChanges()`, which `undo()` and `redo()` call), one call per object with
    /// every event it had; the others come at once.
    open func awake(fromSnapshotEvents flags: NSSnapshotEventType) {}

    // MARK: Validation

    /// Checks the object's values against the model before it is first saved.
    /// Throws the single error, or `NSValidationMultipleErrorsError` (1560) listing several.
    open func validateForInsert() throws {
        if let error = CoreDataError.combine(propertyValidationErrors()) { throw error }
    }

    /// Checks the object's values against the model before its changes are saved.
    open func validateForUpdate() throws {
        if let error = CoreDataError.combine(propertyValidationErrors()) { throw error }
    }

    /// Validates the value `value` points at for the property `key`: the model's rules for it,
    /// as `validateValue(_:forKey:)` with an `inout` value describes them. Saves call this for
    /// every attribute and relationship of each inserted and updated object whose class
    /// overrides it (from `validateForInsert()` and `validateForUpdate()`), so an override
    /// judges, and may replace, what is saved.
    ///
    /// ```swift
    /// override func validateValue(_ value: AutoreleasingUnsafeMutablePointer<AnyObject?>, forKey key: String) throws {
    ///     if key == "name", (value.pointee as? String)?.isEmpty != false {
    ///         value.pointee = "Untitled" as NSString
    ///     }
    ///     try super.validateValue(value, forKey: key)
    /// }
    /// ```
    /// As with Core Data, the base implementation checks the model's rules for `key`, so an
    /// override that calls `super` first sees those errors (and may catch them), and one that
    /// does not call it skips them. Differences from Core Data: no `validate<Key>(_:)` methods
    /// are looked for (Linux has no selectors to find them by name); override this method and
    /// switch on `key` instead (`ocd port` writes that override). A value an override replaces
    /// during a save is set on the object at once; objects that change because of it (the
    /// other side of a replaced relationship) are not validated or saved again in that save.
    // Declared in the class body, not in an extension: Swift overrides only what a class declares.
    open func validateValue(_ value: AutoreleasingUnsafeMutablePointer<AnyObject?>, forKey key: String) throws {
        if let index = value.propertyIndex(of: self) {
            // The object's own value, during a save: checked where it lives, without boxing it.
            try checkOwnValue(ofPropertyAt: index)
        } else {
            try checkModelRules(for: value.pointee, forKey: key)
        }
    }

    /// Checks that the object may be deleted: no deny-rule relationship still has a destination.
    open func validateForDelete() throws {
        if let error = CoreDataError.combine(deleteValidationErrors()) { throw error }
    }

    // MARK: Identity

    public static func == (lhs: NSManagedObject, rhs: NSManagedObject) -> Bool { lhs === rhs }
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
    /// What sets and dictionaries hash an object by: its identity, mixed without a `Hasher`
    /// (see `WordHash`). Not part of Apple's API; the standard library's own hook.
    public func _rawHashValue(seed: Int) -> Int {
        WordHash.hash(UInt64(UInt(bitPattern: ObjectIdentifier(self))), seed: seed)
    }

    open var description: String {
        let name = entity.name ?? "?"
        if isFault { return "<\(name): \(objectID.uriRepresentation().absoluteString); data: <fault>>" }
        let fields = entity.layout.attributes.map { attribute in
            "\(attribute.name) = \(contents.values[attribute.attributeSlot].displayText)"
        }
        return "<\(name): \(objectID.uriRepresentation().absoluteString); data: {\(fields.joined(separator: ", "))}>"
    }
}

@available(*, unavailable)
extension NSManagedObject: Sendable {}

extension NSEntityDescription {
    /// The entity's storage layout, freezing the model on first use. (Not inlinable: that would
    /// expose `frozenLayout`, and every access to it, in this module too, would then be checked
    /// for exclusivity at run time.)
    package var layout: EntityLayout {
        if let frozenLayout { return frozenLayout }
        managedObjectModel?.freeze()
        if frozenLayout == nil { freezeLayout() }
        return frozenLayout!
    }
}

extension PrimitiveValue {
    var displayText: String {
        switch self {
        case .null: "nil"
        case .integer(let value): "\(value)"
        case .double(let value): "\(value)"
        case .bool(let value): value ? "1" : "0"
        case .string(let value): "\"\(value)\""
        case .date(let value): "\(value)"
        case .data(let value): "<\(value.count) bytes>"
        case .externalData(let value): "<external data \((value.location as NSString).lastPathComponent)>"
        case .uuid(let value): value.uuidString
        case .url(let value): value.absoluteString
        case .decimal(let value): "\(value)"
        case .transformable(let box): "\(box.value)"
        }
    }
}
