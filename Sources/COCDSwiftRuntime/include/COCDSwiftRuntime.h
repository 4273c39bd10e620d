#ifndef COCD_SWIFT_RUNTIME_H
#define COCD_SWIFT_RUNTIME_H

/// The implementation of `NSManagedObject.validateValue(_:forKey:)` that instances of the class
/// whose metadata is `classMetadata` run (that class's override, or the one it inherits), found
/// through the Swift runtime as code calling a method of a class in another module finds it.
/// A save compares the answer for an
/// object's class with `NSManagedObject`'s own, to ask the method about each property only for
/// classes that override it (as UIKit looks at whether a view overrides `drawRect:`).
const void *ocd_validateValueImplementation(const void *classMetadata);

#endif
