import Foundation

// `NSManagedObject` and `NSManagedObjectID` are not `NSObject` subclasses (see "Which classes
// are `NSObject`s" in Docs/Differences.md: on Linux, `NSObject`'s `Hashable` makes every set of
// objects several times slower to build). They conform to `NSObjectProtocol` instead, so that
// code calling `isEqual(_:)`, `hash`, `isProxy()` or `self()` on them, or holding them as
// `NSObjectProtocol`, compiles and behaves as with Core Data.

extension NSManagedObject: NSObjectProtocol {
    /// Whether `object` is this very object: managed objects are equal only to themselves, as
    /// in Core Data (which does not let subclasses override `isEqual(_:)`).
    ///
    /// ```swift
    /// let same = book.isEqual(fetchedBooks.first)
    /// ```
    public func isEqual(_ object: Any?) -> Bool {
        (object as? NSManagedObject) === self
    }

    /// A hash of the object's identity, consistent with `isEqual(_:)` and `hashValue`.
    public var hash: Int { hashValue }

    /// The object itself (`NSObjectProtocol`'s `self()`).
    public func `self`() -> Self { self }

    /// Always false: a managed object is never a proxy.
    public func isProxy() -> Bool { false }
}

extension NSManagedObjectID: NSObjectProtocol {
    /// Whether `object` is an ID of the same object: the same store, entity and row (or the
    /// same temporary ID), as `==` says.
    ///
    /// ```swift
    /// let same = book.objectID.isEqual(notification.userInfo?["id"])
    /// ```
    public func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? NSManagedObjectID else { return false }
        return other == self
    }

    /// A hash consistent with `isEqual(_:)`: equal IDs hash alike.
    public var hash: Int { hashValue }

    /// The ID itself (`NSObjectProtocol`'s `self()`).
    public func `self`() -> Self { self }

    /// Always false: an object ID is never a proxy.
    public func isProxy() -> Bool { false }
}
