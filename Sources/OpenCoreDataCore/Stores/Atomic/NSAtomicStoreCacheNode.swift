import Foundation

/// One object of an `NSAtomicStore`, as the store keeps it in memory: its ID and its property
/// values, by property name.
///
/// In the property cache an attribute's value is the value itself (a `String`, a number, a
/// `Date`, `Data`, …); a to-one relationship's is the destination's node; a to-many's is an
/// `NSSet` of nodes (`NSOrderedSet` for an ordered relationship). A store builds nodes in
/// `load()` and writes them in `save()`:
///
/// ```swift
/// let node = NSAtomicStoreCacheNode(objectID: objectID(for: noteEntity, withReferenceObject: "n1"))
/// node.setValue("Groceries", forKey: "title")
/// node.setValue(folderNode, forKey: "folder")
/// addCacheNodes([node])
/// ```
/// When a store reads nodes, a to-one may also be an `NSManagedObjectID`, and a to-many a Swift
/// `Set` or array of nodes or IDs.
///
/// Subclass it to keep more per object. Differences from Apple: `value(forKey:)` reads only the
/// property cache (there is no key-value coding of other properties on Linux).
open class NSAtomicStoreCacheNode: NSObject, @unchecked Sendable {
    // @unchecked Sendable: a node is read and changed only by its store, under the store's lock.

    /// The ID of the object the node holds.
    public let objectID: NSManagedObjectID

    /// The node's values by property name; nil until a value is set.
    open var propertyCache: NSMutableDictionary?

    /// A node for the object `moid` names, with no values yet.
    public init(objectID moid: NSManagedObjectID) {
        objectID = moid
        super.init()
    }

    /// The value of the property named `key` in the property cache, or nil.
    open func value(forKey key: String) -> Any? {
        propertyCache?.object(forKey: key)
    }

    /// Sets the value of the property named `key` in the property cache (made on first use); nil
    /// removes it.
    open func setValue(_ value: Any?, forKey key: String) {
        guard let value, !(value is NSNull) else {
            propertyCache?.removeObject(forKey: key)
            return
        }
        if propertyCache == nil { propertyCache = NSMutableDictionary() }
        propertyCache?.setObject(value, forKey: key as NSString)
    }

    open override var description: String {
        "<NSAtomicStoreCacheNode \(objectID.uriRepresentation().absoluteString)>"
    }
}
