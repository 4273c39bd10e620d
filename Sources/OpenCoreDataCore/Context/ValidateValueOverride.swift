import COCDSwiftRuntime

/// Whether a managed object class overrides `validateValue(_:forKey:)`.
///
/// Core Data's `validateForInsert()` and `validateForUpdate()` ask that method about every
/// property. Asking it costs a call per property of every saved object, which a class that does
/// not override it does not need (the base implementation would only check the model's rules,
/// which one pass checks for all properties at once): measured at 3% of inserting and of
/// updating 200,000 objects (ocd-bench W1, W4). So a save asks only objects whose class overrides it, found by comparing the
/// implementation the Swift runtime finds for the class with `NSManagedObject`'s own.
enum ValidateValueOverride {
    // An address as an integer, which is `Sendable`: the code it points at lives as long as
    // the process.
    private static let baseImplementation = implementation(for: NSManagedObject.self)

    /// Whether instances of `objectClass` run an implementation other than `NSManagedObject`'s.
    static func isOverridden(by objectClass: NSManagedObject.Type) -> Bool {
        implementation(for: objectClass) != baseImplementation
    }

    private static func implementation(for objectClass: NSManagedObject.Type) -> UInt {
        UInt(bitPattern: ocd_validateValueImplementation(metadata(of: objectClass)))
    }

    /// A class's metadata: what a Swift class's metatype value is.
    private static func metadata(of objectClass: AnyClass) -> UnsafeRawPointer {
        unsafeBitCast(objectClass, to: UnsafeRawPointer.self)
    }
}
