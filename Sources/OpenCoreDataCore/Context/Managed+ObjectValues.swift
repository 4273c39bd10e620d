import Foundation

// MARK: Foundation objects

/// `@Managed` with Foundation's classes, the types Xcode gives `@NSManaged` properties when
/// "Use Scalar Type" is off and for to-many relationships:
/// ```swift
/// final class Book: NSManagedObject {
///     @Managed var pageCount: NSNumber?        // an integer attribute
///     @Managed var price: NSDecimalNumber?     // a decimal attribute
///     @Managed var authors: NSSet?             // a to-many relationship
///     @Managed var chapters: NSOrderedSet?     // an ordered to-many relationship
///     @Managed var cover: CoverImage?          // an NSObject subclass in a transformable attribute
/// }
/// ```
/// Each read converts the stored value (a to-many's members become a new `NSSet`); the scalar
/// forms (`Int64`, `Decimal`, `Set<Author>`) read the slot directly and are faster. A value of a
/// type the attribute cannot hold is rejected as `setValue(_:forKey:)` rejects it: the object is
/// left unchanged and the next save fails with a validation error naming the property.
extension NSObject: ManagedValue {
    public static func _managedValue(of object: NSManagedObject, property: ManagedProperty) -> Self {
        let value = object.value(of: property.description)
        guard let converted = ManagedObjectValues.foundationObject(from: value, as: self) as? Self else {
            preconditionFailure(ManagedObjectValues.mismatch(value, expected: self, property: property, in: object))
        }
        return converted
    }

    public static func _setManagedValue(_ value: NSObject, of object: NSManagedObject, property: ManagedProperty) {
        object._setManagedObjectValue(ManagedObjectValues.swiftValue(of: value), property)
    }
}

// MARK: Values of transformable attributes

/// A type whose values a transformable attribute holds, usable as a `@Managed` property:
/// arrays and dictionaries are, and any type of yours is with one line.
/// ```swift
/// struct Settings: Codable { var theme: String }
/// extension Settings: ManagedTransformable {}
///
/// final class Profile: NSManagedObject {
///     @Managed var settings: Settings?      // a transformable attribute
///     @Managed var tags: [String]?
/// }
/// ```
/// The attribute's `valueTransformerName` names the `ValueTransformer` that turns the value into
/// data for the store, as in Core Data (a Swift struct needs one of yours: Foundation's keyed
/// archiver cannot encode it).
///
/// Not in Apple's Core Data, where `@NSManaged` accepts any type Objective-C can represent.
public protocol ManagedTransformable: ManagedValue {}

extension ManagedTransformable {
    public static func _managedValue(of object: NSManagedObject, property: ManagedProperty) -> Self {
        let value = object.value(of: property.description)
        if let value = value as? Self { return value }
        // An ordered to-many read as an array of its objects.
        if let ordered = value as? NSOrderedSet, let array = ordered.array as? Self { return array }
        preconditionFailure(ManagedObjectValues.mismatch(value, expected: self, property: property, in: object))
    }

    public static func _setManagedValue(_ value: Self, of object: NSManagedObject, property: ManagedProperty) {
        object._setManagedObjectValue(value, property)
    }
}

extension Array: ManagedValue, ManagedTransformable {}
extension Dictionary: ManagedValue, ManagedTransformable {}

// MARK: Conversions

/// Turns stored values into the Foundation objects `@Managed` properties ask for, and back.
enum ManagedObjectValues {
    /// `value` (as `value(forKey:)` gives it) as an instance of `type`, when it can be one.
    static func foundationObject(from value: Any?, as type: NSObject.Type) -> NSObject? {
        guard let value else { return nil }
        if let object = value as? NSObject, object.isKind(of: type) { return object }
        let converted: NSObject? =
            switch value {
            case let members as Set<NSManagedObject>: NSSet(array: Array(members))
            case let objects as [NSManagedObject]: NSArray(array: objects)
            case let decimal as Decimal: NSDecimalNumber(decimal: decimal)
            case let number as NSNumber where type is NSDecimalNumber.Type: NSDecimalNumber(decimal: number.decimalValue)
            case let string as String: NSString(string: string)
            case let date as Date: NSDate(timeIntervalSinceReferenceDate: date.timeIntervalSinceReferenceDate)
            case let data as Data: NSData(data: data)
            case let url as URL: NSURL(string: url.absoluteString)
            case let uuid as UUID: NSUUID(uuidString: uuid.uuidString)
            default: nil
            }
        guard let converted, converted.isKind(of: type) else { return nil }
        return converted
    }

    /// The Swift value an attribute stores for a Foundation object (`NSString` → `String`, …);
    /// numbers, sets and other objects as they are.
    static func swiftValue(of object: NSObject) -> Any {
        switch object {
        case let string as NSString: string as String
        case let date as NSDate: Date(timeIntervalSinceReferenceDate: date.timeIntervalSinceReferenceDate)
        case let data as NSData: Data(referencing: data)
        case let url as NSURL: (url.absoluteURL as URL?) ?? object
        case let uuid as NSUUID: UUID(uuidString: uuid.uuidString) ?? object
        default: object
        }
    }

    static func mismatch(_ value: Any?, expected: Any.Type, property: ManagedProperty, in object: NSManagedObject) -> String {
        let owner = "@Managed var \(property.description.name) of \(type(of: object))"
        guard let value else { return "\(owner): the value is nil; declare the property optional" }
        return "\(owner): the stored value is a \(type(of: value)), not a \(expected)"
    }
}

extension NSManagedObject {
    /// Sets `property` to `value` as `setValue(_:forKey:)` does: a value the property cannot
    /// hold leaves the object unchanged and fails the next save, naming the property.
    func _setManagedObjectValue(_ value: Any?, _ property: ManagedProperty) {
        do {
            try setCheckedValue(value, of: property.description)
        } catch {
            refuse(CoreDataError.validationReason(of: error, object: self, key: property.description.name), forKey: property.description.name)
        }
    }
}
