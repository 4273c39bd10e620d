import Foundation

extension NSManagedObject {
    // MARK: Values by key

    /// The value of the property `key`: attribute values as Core Data gives them (numbers as
    /// `NSNumber`), a to-one destination as an `NSManagedObject`, a to-many as a
    /// `Set<NSManagedObject>` (an `NSOrderedSet` when ordered).
    ///
    /// An unknown key returns nil. (Core Data raises `NSUnknownKeyException`, which Swift cannot
    /// catch; use `checkedValue(forKey:)` to get a thrown error instead.)
    public func value(forKey key: String) -> Any? {
        guard let property = entity.layout.propertiesByName[key] else { return nil }
        return value(of: property)
    }

    /// Like `value(forKey:)`, but an unknown key throws an error naming the entity and the key.
    public func checkedValue(forKey key: String) throws -> Any? {
        guard let property = entity.layout.propertiesByName[key] else { throw unknownKeyError(key) }
        return value(of: property)
    }

    /// Sets the property `key`, keeping inverse relationships in step and marking the object
    /// changed.
    ///
    /// A value of the wrong type, or an unknown key, leaves the object unchanged and is
    /// reported as a validation error (code 1550, naming entity and key) when the object is next
    /// validated or saved: Core Data raises an exception here, which Swift cannot catch. Use
    /// `setCheckedValue(_:forKey:)` to get the error at once.
    public func setValue(_ value: Any?, forKey key: String) {
        do {
            try setCheckedValue(value, forKey: key)
        } catch let error as CocoaError {
            refuse(CoreDataError.validationReason(of: error, object: self, key: key), forKey: key)
        } catch {
            refuse("\(error)", forKey: key)
        }
    }

    /// Sets the property `key`, throwing for an unknown key or a value of the wrong type.
    public func setCheckedValue(_ value: Any?, forKey key: String) throws {
        guard let property = entity.layout.propertiesByName[key] else { throw unknownKeyError(key) }
        try setCheckedValue(value, of: property)
    }

    /// Sets `property` (one of the entity's), as `setCheckedValue(_:forKey:)` does.
    func setCheckedValue(_ value: Any?, of property: NSPropertyDescription) throws {
        let key = property.name
        switch property {
        case let attribute as NSAttributeDescription:
            let primitive: PrimitiveValue
            do {
                primitive = try PrimitiveValue(value, for: attribute)
            } catch {
                throw CoreDataError.validation(.managedObjectValidation, object: self, key: key, value: value,
                                               "unacceptable value: \(error.reason)")
            }
            clearRefusal(of: attribute)
            setPrimitive(primitive, at: attribute.attributeSlot)
        case let relationship as NSRelationshipDescription:
            try setRelationship(relationship, value)
        default:
            break
        }
    }

    /// The value at a dotted key path, following to-one relationships (`"owner.name"`).
    public func value(forKeyPath keyPath: String) -> Any? {
        var current: Any? = self
        for key in keyPath.split(separator: ".") {
            switch current {
            case let object as NSManagedObject: current = object.value(forKey: String(key))
            case let dictionary as [String: Any]: current = dictionary[String(key)]
            default: return nil
            }
        }
        return current
    }

    /// Sets the value at a dotted key path (`"owner.name"`); an element of a composite
    /// attribute by its namespaced key path (`"magnitude.richter"`).
    public func setValue(_ value: Any?, forKeyPath keyPath: String) {
        let keys = keyPath.split(separator: ".").map(String.init)
        guard let last = keys.last else { return }
        var target: NSManagedObject = self
        for (index, key) in keys.dropLast().enumerated() {
            if target.entity.layout.propertiesByName[key] is NSCompositeAttributeDescription {
                let current = target.value(forKey: key)
                // Clearing an element of no value leaves no value, not an empty one.
                if isNilOrNull(value) && current == nil { return }
                target.setValue(CompositeValue.setting(value, at: keys[(index + 1)...], in: current), forKey: key)
                return
            }
            guard let next = target.value(forKey: key) as? NSManagedObject else { return }
            target = next
        }
        target.setValue(value, forKey: last)
    }

    // MARK: Primitive values

    /// The value of `key` without change notifications (the same as `value(forKey:)` here, as
    /// OpenCoreData has no key-value observing).
    public func primitiveValue(forKey key: String) -> Any? { value(forKey: key) }

    /// Sets `key` without marking the object changed and without maintaining inverses. Use it
    /// in `awakeFromInsert` and `willSave`, as in Core Data.
    public func setPrimitiveValue(_ value: Any?, forKey key: String) {
        guard let property = entity.layout.propertiesByName[key] else {
            refuse(unknownKeyError(key).localizedDescription, forKey: key)
            return
        }
        willAccess()
        switch property {
        case let attribute as NSAttributeDescription:
            guard let primitive = try? PrimitiveValue(value, for: attribute) else {
                refuse("unacceptable value \(value ?? "nil") for \(attribute.attributeType.modelName)", forKey: key)
                return
            }
            clearRefusal(of: attribute)
            contents.values[attribute.attributeSlot] = primitive
            noteChangedAttribute(attribute.attributeSlot)
        case let relationship as NSRelationshipDescription:
            do {
                try withTrackingSuspended { try setRelationship(relationship, value) }
            } catch {
                refuse(CoreDataError.validationReason(of: error, object: self, key: key), forKey: key)
            }
        default:
            break
        }
    }

    /// Records that a value for `key` was refused, to fail the next validation or save with
    /// `reason` (Core Data raises at the call), and marks the object changed so that the next
    /// save looks at it.
    func refuse(_ reason: String, forKey key: String) {
        contents.rejectedValues[key] = reason
        markUpdated()
    }

    // Core Data's change-notification brackets. OpenCoreData has no key-value observing, so they
    // only fire the fault where Core Data would.
    public func willAccessValue(forKey key: String?) { willAccess() }
    public func didAccessValue(forKey key: String?) {}
    public func willChangeValue(forKey key: String) { willAccess() }
    public func didChangeValue(forKey key: String) {}
    /// The bracket around a change to a to-many set (in an app's own `add…`/`remove…`
    /// accessors): fires the fault, as Core Data does before the change; there are no observers
    /// to tell.
    public func willChangeValue(forKey inKey: String, withSetMutation inMutationKind: NSKeyValueSetMutationKind, using inObjects: Set<AnyHashable>) {
        willAccess()
    }
    public func didChangeValue(forKey inKey: String, withSetMutation inMutationKind: NSKeyValueSetMutationKind, using inObjects: Set<AnyHashable>) {}

    // MARK: Slots (the fast path for typed accessors)

    /// The stored value of attribute slot `slot`.
    @inline(__always)
    func primitive(at slot: Int) -> PrimitiveValue {
        willAccess()
        return contents.values[slot]
    }

    /// Stores `value` in attribute slot `slot` and marks the object changed.
    @inline(__always)
    func setPrimitive(_ value: PrimitiveValue, at slot: Int) {
        willAccess()
        if let context, context.undoManager != nil { recordAttributeUndo(at: slot, in: context) }
        // Marked before the write: the event's first change keeps what the object held (`EventBase`).
        markUpdated()
        contents.values[slot] = value
        noteChangedAttribute(slot)
    }

    /// Forgets an earlier refusal of a value for `property`, now that the application gave it a
    /// whole value (`setValue`, a `@Managed` setter): the refused value never took
    /// effect, as Core Data would have raised instead of keeping it.
    @inline(__always)
    func clearRefusal(of property: NSPropertyDescription) {
        if !contents.rejectedValues.isEmpty { contents.rejectedValues[property.name] = nil }
    }

    /// Records, for undo, the value attribute slot `slot` has before it changes.
    @inline(never)
    private func recordAttributeUndo(at slot: Int, in context: NSManagedObjectContext) {
        guard context.recordsUndo(of: self) else { return }
        let old = contents.values[slot]
        context.recordUndo { undoing in
            // An object that left the context since (deleted and saved elsewhere) is left alone.
            guard self.context === undoing else { return }
            self.setPrimitive(old, at: slot)
            undoing.pendingSnapshotEvents.note(.undoUpdate, for: self)
        }
    }

    /// Records that attribute slot `slot` may now differ from the snapshot.
    @inline(__always)
    func noteChangedAttribute(_ slot: Int) {
        contents.changedAttributeMask |= 1 << UInt64(Swift.min(slot, 63))
    }

    /// Whether attribute slot `slot` may differ from the snapshot.
    @inline(__always)
    func mayHaveChangedAttribute(_ slot: Int) -> Bool {
        contents.changedAttributeMask & (1 << UInt64(Swift.min(slot, 63))) != 0
    }

    /// Marks the object as changed, telling its context once per change event: the first change
    /// makes it one of the context's updated objects, and every event it changes in announces it.
    /// Called before the change is made.
    @inline(__always)
    func markUpdated() {
        if contents.state.contains(.changedInEvent) || contents.state.contains(.trackingSuspended) { return }
        markUpdatedInNewEvent()
    }

    private func markUpdatedInNewEvent() {
        let firstChange = !contents.state.contains(.updated)
        contents.state.insert(.updated)
        guard let context else { return }
        if contents.state.contains(.deleted) {
            // A deleted object's changes are not told (`noteUpdated`): nothing to keep.
        } else if !firstChange || contents.state.contains(.inserted) {
            // Changed before this event: what it holds now is where the event's changes start.
            context.eventBases[ObjectIdentifier(self)] = EventBase(values: contents.values, relations: contents.relations)
        } else if !context.eventBases.isEmpty {
            context.eventBases[ObjectIdentifier(self)] = nil
        }
        if firstChange && !contents.state.contains(.inserted) {
            context.noteUpdated(self)
        } else {
            context.noteChangedAgain(self)
        }
    }

    // MARK: Helpers

    /// The value of `property` (one of the entity's), as `value(forKey:)` gives it.
    package func value(of property: NSPropertyDescription) -> Any? {
        switch property {
        case let attribute as NSAttributeDescription:
            return primitive(at: attribute.attributeSlot).objectValue(for: attribute.attributeType)
        case let relationship as NSRelationshipDescription:
            if !relationship.isToMany { return toOneDestination(relationship) }
            let storage = toManyMembers(relationship)
            if relationship.isOrdered { return NSOrderedSet(array: storage.orderedMembers) }
            return storage.members
        case let fetched as NSFetchedPropertyDescription:
            return fetchedValue(fetched)
        default:
            return nil
        }
    }

    /// A fetched property's value: the objects its fetch request finds, with `$FETCH_SOURCE`
    /// standing for this object and `$FETCHED_PROPERTY` for the property's description.
    /// Difference from Core Data: Core Data keeps the result until the object is refreshed;
    /// here every read fetches again, so the value is never stale.
    private func fetchedValue(_ property: NSFetchedPropertyDescription) -> [NSManagedObject] {
        guard let context, let template = property.fetchRequest else { return [] }
        let request = template.copy(as: NSFetchRequestResult.self)
        request.predicate = template.predicate?.withSubstitutionVariables(["FETCH_SOURCE": self, "FETCHED_PROPERTY": property])
        return ((try? context.fetch(request)) ?? []).compactMap { $0 as? NSManagedObject }
    }

    private func setRelationship(_ relationship: NSRelationshipDescription, _ value: Any?) throws {
        if !relationship.isToMany {
            guard isNilOrNull(value) || value is NSManagedObject else {
                throw CoreDataError.validation(.managedObjectValidation, object: self, key: relationship.name, value: value,
                                               "expected an object of entity \(relationship.destinationEntity?.name ?? "?"), got \(type(of: value!))")
            }
            let destination = value as? NSManagedObject
            try checkDestination(destination, of: relationship)
            // Before the set: a to-many that cannot be loaded records that while it is set.
            clearRefusal(of: relationship)
            setToOne(relationship, to: destination)
            return
        }
        let objects: [NSManagedObject]
        switch value {
        case nil, is NSNull: objects = []
        case let set as Set<NSManagedObject>: objects = Array(set)
        case let array as [NSManagedObject]: objects = array
        case let ordered as NSOrderedSet: objects = try managedMembers(ordered.array, of: relationship, value: value)
        case let set as NSSet: objects = try managedMembers(set.allObjects, of: relationship, value: value)
        default:
            throw CoreDataError.validation(.managedObjectValidation, object: self, key: relationship.name, value: value,
                                           "expected a set of objects, got \(type(of: value!))")
        }
        for object in objects { try checkDestination(object, of: relationship) }
        clearRefusal(of: relationship)
        replaceToMany(relationship, with: objects)
    }

    /// `members` as managed objects; a member of another kind refuses the whole value, as the
    /// set proxy refuses it.
    private func managedMembers(_ members: [Any], of relationship: NSRelationshipDescription, value: Any?) throws -> [NSManagedObject] {
        guard let stranger = members.first(where: { !($0 is NSManagedObject) }) else {
            return members.map { $0 as! NSManagedObject }
        }
        throw CoreDataError.validation(.managedObjectValidation, object: self, key: relationship.name, value: value,
                                       "a \(type(of: stranger)) can't be a member of the relationship, which holds \(relationship.destinationEntity?.name ?? "?") objects")
    }

    func checkDestination(_ object: NSManagedObject?, of relationship: NSRelationshipDescription) throws {
        guard let object else { return }
        if let destination = relationship.destinationEntity, !object.entity.isKindOf(entity: destination) {
            throw CoreDataError.validation(.managedObjectValidation, object: self, key: relationship.name, value: object,
                                           "expected an object of entity \(destination.name ?? "?"), got one of \(object.entity.name ?? "?")")
        }
        if let context, let other = object.context, other !== context {
            throw CoreDataError.validation(.managedObjectValidation, object: self, key: relationship.name, value: object,
                                           "the object belongs to another context")
        }
    }

    func unknownKeyError(_ key: String) -> CocoaError {
        CoreDataError.make(.managedObjectValidation,
                           "The entity \(entity.name ?? "?") is not key value coding-compliant for the key \"\(key)\"",
                           [NSValidationObjectErrorKey: self, NSValidationKeyErrorKey: key])
    }

    // MARK: Mutable relationship proxies

    /// A live, mutable view of a to-many relationship: adding and removing through it keeps
    /// inverses in step and marks the object changed. Adding does not load the relationship.
    public func mutableSetValue(forKey key: String) -> NSManagedObjectSet {
        NSManagedObjectSet(owner: self, relationship: toManyRelationship(key))
    }

    /// A live, mutable, ordered view of an ordered to-many relationship.
    public func mutableOrderedSetValue(forKey key: String) -> NSManagedObjectOrderedSet {
        NSManagedObjectOrderedSet(owner: self, relationship: toManyRelationship(key))
    }

    private func toManyRelationship(_ key: String) -> NSRelationshipDescription {
        guard let relationship = entity.layout.propertiesByName[key] as? NSRelationshipDescription, relationship.isToMany else {
            preconditionFailure("\(entity.name ?? "?").\(key) is not a to-many relationship")
        }
        return relationship
    }

    // MARK: Changes

    /// The persistent properties changed since the object was last fetched or saved, with their
    /// new values (to-many relationships as sets of objects).
    public func changedValues() -> [String: Any] {
        guard !isFault else { return [:] }
        var changes: [String: Any] = [:]
        let layout = entity.layout
        for attribute in layout.attributes where !attribute.isTransient {
            let current = contents.values[attribute.attributeSlot]
            let committed = contents.snapshot?.values[attribute.attributeSlot] ?? .null
            if current != committed || (contents.snapshot == nil && !current.isNull) {
                changes[attribute.name] = current.objectValue(for: attribute.attributeType) ?? NSNull()
            }
        }
        guard !contents.relations.isEmpty else { return changes }
        for relationship in layout.relationships where !relationship.isTransient {
            switch contents.relations[relationship.relationshipSlot] {
            case .unresolved: break
            case .toOne(let destination):
                if destination?.objectID != contents.snapshot?.toOne[relationship.relationshipSlot] ?? nil {
                    changes[relationship.name] = destination ?? NSNull()
                }
            case .toMany(let storage):
                if storage.hasChanges { changes[relationship.name] = storage.isLoaded ? storage.members : Set() }
            }
        }
        return changes
    }

    /// The last saved values of `keys` (all persistent properties when nil); nil values as `NSNull`.
    public func committedValues(forKeys keys: [String]?) -> [String: Any] {
        let layout = entity.layout
        let wanted = keys.map(Set.init)
        var result: [String: Any] = [:]
        for attribute in layout.attributes where !attribute.isTransient && (wanted?.contains(attribute.name) ?? true) {
            let value = contents.snapshot?.values[attribute.attributeSlot] ?? .null
            result[attribute.name] = value.objectValue(for: attribute.attributeType) ?? NSNull()
        }
        for relationship in layout.relationships where !relationship.isToMany && (wanted?.contains(relationship.name) ?? true) {
            if let id = contents.snapshot?.toOne[relationship.relationshipSlot], let context {
                result[relationship.name] = context.object(with: id)
            } else {
                result[relationship.name] = NSNull()
            }
        }
        return result
    }
}
