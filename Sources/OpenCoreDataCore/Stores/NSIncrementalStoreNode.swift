import Foundation

/// The values of one object as an `NSIncrementalStore` returns them from
/// `newValuesForObject(with:with:)`: attribute values and to-one destinations (as
/// `NSManagedObjectID`s, or `NSNull` for none) by property name, and a version number that
/// changes with every save of the object.
///
/// ```swift
/// NSIncrementalStoreNode(objectID: objectID, withValues: ["name": "Ada", "owner": ownerID], version: 3)
/// ```
/// To-many relationships are not part of a node; the store returns them from
/// `newValue(forRelationship:forObjectWith:with:)`, which is also asked for a to-one the node
/// leaves out (a key holding `NSNull` means no destination). A missing attribute reads as nil.
open class NSIncrementalStoreNode: NSObject {
    /// The object the values belong to.
    open private(set) var objectID: NSManagedObjectID
    /// The version of the values (Core Data's optimistic-locking version).
    open private(set) var version: UInt64
    private var values: [String: Any]

    public init(objectID: NSManagedObjectID, withValues values: [String: Any], version: UInt64) {
        self.objectID = objectID
        self.values = values
        self.version = version
    }

    /// Replaces the values and the version.
    open func update(withValues values: [String: Any], version: UInt64) {
        self.values = values
        self.version = version
    }

    /// Whether the node holds a value (perhaps `NSNull`) for `prop`.
    func hasValue(for prop: NSPropertyDescription) -> Bool { values[prop.name] != nil }

    /// The value of `prop`; nil when the node has none (or holds `NSNull`).
    open func value(for prop: NSPropertyDescription) -> Any? {
        guard let value = values[prop.name], !(value is NSNull) else { return nil }
        return value
    }
}

@available(*, unavailable)
extension NSIncrementalStoreNode: Sendable {}
