import Foundation

/// A pointer to a value that the function it is handed to may read and replace: what Core Data's
/// `validateValue(_:forKey:)` takes, so that an override written for Apple's SDK compiles and is
/// called by saves here too.
///
/// ```swift
/// override func validateValue(_ value: AutoreleasingUnsafeMutablePointer<AnyObject?>, forKey key: String) throws {
///     if key == "email", let email = value.pointee as? String, !email.contains("@") {
///         throw CocoaError(.validationStringPatternMatching)
///     }
///     try super.validateValue(value, forKey: key)
/// }
/// ```
/// Differences from Swift's: the standard library declares this type only where there is an
/// Objective-C runtime, so on Linux OpenCoreData declares it. It points at memory
/// (`init(_:)` from an `UnsafeMutablePointer`, as `&value` passes it on Apple's platforms, where
/// the compiler converts `&value` itself) or, when a save validates an object, at the value one
/// of the object's properties holds: reading `pointee` gives that value as an object
/// (`NSString`, `NSNumber`, …), and assigning it sets the property, as a validation method
/// that coerces a value does with Core Data. It has none of the pointer arithmetic of Swift's.
public struct AutoreleasingUnsafeMutablePointer<Pointee> {
    enum Target {
        case memory(UnsafeMutablePointer<Pointee>)
        /// A property of an object being validated, by its index in the object's entity layout's
        /// `properties`. Unretained, as Apple's pointer does not retain what it points at: the
        /// object is the receiver of the call the pointer is made for, and the pointer, like
        /// Apple's, must not outlive that call.
        case property(Unmanaged<NSManagedObject>, index: Int)
    }

    let target: Target

    /// A pointer to the value `pointer` points at.
    public init(_ pointer: UnsafeMutablePointer<Pointee>) {
        target = .memory(pointer)
    }

    /// A pointer to the value `pointer` points at, or nil when it is nil.
    public init?(_ pointer: UnsafeMutablePointer<Pointee>?) {
        guard let pointer else { return nil }
        self.init(pointer)
    }

    /// The value pointed at; assigning replaces it (for a property being validated, sets it).
    public var pointee: Pointee {
        get {
            switch target {
            case .memory(let pointer):
                return pointer.pointee
            case .property(let object, let index):
                // A property target exists only for `Pointee == AnyObject?` (see its initializer).
                return object.takeUnretainedValue().validatedValue(at: index) as! Pointee
            }
        }
        nonmutating set {
            switch target {
            case .memory(let pointer):
                pointer.pointee = newValue
            case .property(let object, let index):
                object.takeUnretainedValue().replaceValidatedValue(at: index, with: unsafeBitCast(newValue, to: AnyObject?.self))  // Pointee is AnyObject? here
            }
        }
    }

    /// The index of the property of `object` this points at, when it points at one of
    /// `object`'s own properties (a save validating it).
    func propertyIndex(of object: NSManagedObject) -> Int? {
        guard case .property(let owner, let index) = target,
              owner.toOpaque() == Unmanaged.passUnretained(object).toOpaque() else { return nil }
        return index
    }
}

extension AutoreleasingUnsafeMutablePointer where Pointee == AnyObject? {
    /// A pointer to the value of the property at `index` in `object`'s entity layout's
    /// `properties`, for the object's own validation.
    init(property index: Int, of object: NSManagedObject) {
        target = .property(Unmanaged.passUnretained(object), index: index)
    }
}
