import Foundation

/// One object whose row changed (or was deleted) in the store since the saving context read
/// it: what a save reports, for each such object, under `NSPersistentStoreSaveConflictsErrorKey`
/// of its 133020 error, and what merge policies resolve.
///
/// ```swift
/// catch let error as CocoaError where error.code == .managedObjectMerge {
///     for case let conflict as NSMergeConflict in error.userInfo[NSPersistentStoreSaveConflictsErrorKey] as? [Any] ?? [] {
///         print(conflict.sourceObject.objectID, conflict.oldVersionNumber, "→", conflict.newVersionNumber)
///     }
/// }
/// ```
/// Snapshots map property names to values: attributes as the object reads them, to-ones as
/// `NSManagedObjectID`s, `NSNull` for no value; to-manys are left out.
open class NSMergeConflict: NSObject {
    /// The object the context tried to save.
    open private(set) var sourceObject: NSManagedObject
    /// The object's values as the context was about to save them.
    open private(set) var objectSnapshot: [String: Any]?
    /// The values the context last read from the store for the object.
    open private(set) var cachedSnapshot: [String: Any]?
    /// The values the store has now; nil when the row was deleted.
    open private(set) var persistedSnapshot: [String: Any]?
    /// The row's version in the store now (0 when it was deleted).
    open private(set) var newVersionNumber: Int
    /// The version the context last read.
    open private(set) var oldVersionNumber: Int

    public init(source srcObject: NSManagedObject, newVersion newvers: Int, oldVersion oldvers: Int,
                cachedSnapshot cachesnap: [String: Any]?, persistedSnapshot persnap: [String: Any]?) {
        sourceObject = srcObject
        newVersionNumber = newvers
        oldVersionNumber = oldvers
        cachedSnapshot = cachesnap
        persistedSnapshot = persnap
        objectSnapshot = Self.values(of: srcObject)
    }

    /// The object's current values, as a snapshot.
    static func values(of object: NSManagedObject) -> [String: Any] {
        var values: [String: Any] = [:]
        for property in object.entity.layout.properties where !property.isTransient {
            if let relationship = property as? NSRelationshipDescription {
                guard !relationship.isToMany else { continue }
                values[property.name] = (object.value(forKey: property.name) as? NSManagedObject)?.objectID ?? NSNull()
            } else if property is NSAttributeDescription {
                values[property.name] = object.value(forKey: property.name) ?? NSNull()
            }
        }
        return values
    }

    /// A stored row's values, as a snapshot.
    static func values(of snapshot: RowSnapshot) -> [String: Any] {
        var values: [String: Any] = [:]
        let layout = snapshot.entity.layout
        for attribute in layout.attributes where !attribute.isTransient {
            values[attribute.name] = snapshot.values[attribute.attributeSlot].objectValue(for: attribute.attributeType) ?? NSNull()
        }
        for relationship in layout.relationships where !relationship.isToMany && !relationship.isTransient {
            values[relationship.name] = snapshot.toOne[relationship.relationshipSlot] ?? NSNull()
        }
        return values
    }
}

@available(*, unavailable)
extension NSMergeConflict: Sendable {}
