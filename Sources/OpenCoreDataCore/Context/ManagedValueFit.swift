@_spi(Reflection) import Swift
import Foundation

/// Whether a `@Managed` property's declared type can hold its attribute's or relationship's
/// values: checked once, when the property is first used, so that `@Managed var age: String` on
/// an integer attribute stops with a message instead of reading "" forever.
///
/// Lenient where Core Data's accessors convert (any integer type for an integer or Boolean
/// attribute, `Double` for a decimal one, `NSNumber` for every number); types OpenCoreData cannot
/// judge (transformable values, `ManagedTransformable` types, `NSObject` subclasses in
/// transformable attributes) pass.
enum ManagedValueFit {
    /// Why `declared` cannot hold `property`'s values, or nil when it can.
    static func misfit(of declared: Any.Type, for property: NSPropertyDescription) -> String? {
        let type = unwrapped(declared)
        switch property {
        case let attribute as NSAttributeDescription:
            guard !accepts(type, attribute.attributeType) else { return nil }
            return "\(declared) cannot hold the values of \(attribute.attributeType.modelName) attribute '\(attribute.name)'"
        case let relationship as NSRelationshipDescription:
            guard !accepts(type, relationship) else { return nil }
            let kind = relationship.isToMany ? (relationship.isOrdered ? "ordered to-many" : "to-many") : "to-one"
            return "\(declared) cannot hold the \(kind) relationship '\(relationship.name)' "
                + "(declare \(relationship.isToMany ? "Set<…>, NSSet or NSOrderedSet" : "a managed object class"))"
        default:
            return nil
        }
    }

    /// Whether every `@Managed` property of `objectClass` (its own and inherited) names a property
    /// of `properties` that can hold its values: a class found by name alone must fit its entity,
    /// so that a model's `Tag` never becomes another program part's unrelated class `Tag`.
    static func classFits(_ objectClass: NSManagedObject.Type, properties: [String: NSPropertyDescription]) -> Bool {
        var fits = true
        // `.classType` (bit 0), spelled by value as in `ManagedPropertyResolver.storageField`.
        let classType = _EachFieldOptions(rawValue: 1 << 0)
        _ = _forEachField(of: objectClass, options: classType) { name, _, fieldType, _ in
            guard let storage = fieldType as? any ManagedStorage.Type else { return true }
            let field = String(cString: name)
            let propertyName = field.hasPrefix("_") ? String(field.dropFirst()) : field
            guard let property = properties[propertyName], misfit(of: storage.valueType, for: property) == nil else {
                fits = false
                return false
            }
            return true
        }
        return fits
    }

    private static func unwrapped(_ type: Any.Type) -> Any.Type {
        (type as? any OptionalType.Type)?.wrappedType ?? type
    }

    private static func accepts(_ type: Any.Type, _ attributeType: NSAttributeType) -> Bool {
        let integers: [Any.Type] = [Int.self, Int64.self, Int32.self, Int16.self, Bool.self]
        let numbers: [Any.Type] = [Double.self, Float.self, Decimal.self]
        let allowed: [Any.Type]
        switch attributeType {
        case .integer16AttributeType, .integer32AttributeType, .integer64AttributeType, .booleanAttributeType:
            allowed = integers + numbers + [NSNumber.self]
        case .doubleAttributeType, .floatAttributeType, .decimalAttributeType:
            allowed = numbers + integers + [NSNumber.self, NSDecimalNumber.self]
        case .stringAttributeType: allowed = [String.self, NSString.self]
        case .dateAttributeType: allowed = [Date.self, NSDate.self]
        case .binaryDataAttributeType: allowed = [Data.self, NSData.self]
        case .UUIDAttributeType: allowed = [UUID.self, NSUUID.self]
        case .URIAttributeType: allowed = [URL.self, NSURL.self]
        case .transformableAttributeType, .undefinedAttributeType, .compositeAttributeType, .objectIDAttributeType:
            return true
        }
        return allowed.contains { $0 == type }
    }

    private static func accepts(_ type: Any.Type, _ relationship: NSRelationshipDescription) -> Bool {
        if !relationship.isToMany { return type is NSManagedObject.Type }
        if type is NSSet.Type || type is NSOrderedSet.Type { return true }
        // A Set<Destination>.
        if type is any ManagedRelationshipValue.Type && !(type is NSManagedObject.Type) { return true }
        return relationship.isOrdered && type is any ManagedTransformable.Type   // an array of the objects
    }
}

/// Lets `ManagedValueFit` look through `Optional` without knowing its wrapped type.
private protocol OptionalType {
    static var wrappedType: Any.Type { get }
}

extension Optional: OptionalType {
    static var wrappedType: Any.Type { Wrapped.self }
}
