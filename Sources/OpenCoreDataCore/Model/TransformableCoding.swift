import Foundation

/// Turns transformable values into data and back: through the attribute's named
/// `ValueTransformer` when it has one, else with `NSKeyedArchiver` (Core Data's default
/// `NSSecureUnarchiveFromData` transformer writes keyed archives too). `Data` values are stored
/// as they are.
package enum TransformableCoding {
    package static func encode(_ value: Any, for attribute: NSAttributeDescription) throws -> Data {
        if let composite = attribute as? NSCompositeAttributeDescription {
            // A composite's value as JSON (`CompositeValue`), in the file stores too.
            do {
                return Data(try CompositeValue.json(of: try CompositeValue.normalized(value, for: composite), for: composite).utf8)
            } catch {
                throw TransformableCodingError(attribute: attribute, reason: "the value can't be stored: \(error)")
            }
        }
        if let name = attribute.valueTransformerName, !name.isEmpty, !isDefaultTransformer(name) {
            guard let transformer = ValueTransformer.valueTransformer(forName: NSValueTransformerName(rawValue: name)) else {
                throw TransformableCodingError(attribute: attribute, reason: "no ValueTransformer is registered under the name '\(name)'")
            }
            // Foundation's unarchive-from-data transformers run backwards for an attribute.
            let transformed = transformer is any UnarchivingTransformer
                ? transformer.reverseTransformedValue(value) : transformer.transformedValue(value)
            guard let data = transformed as? Data else {
                throw TransformableCodingError(attribute: attribute, reason: "the transformer '\(name)' did not produce Data")
            }
            return data
        }
        if let data = value as? Data { return data }
        do {
            return try NSKeyedArchiver.archivedData(withRootObject: value, requiringSecureCoding: false)
        } catch {
            throw TransformableCodingError(attribute: attribute, reason: "the value \(type(of: value)) can't be archived: \(error)")
        }
    }

    package static func decode(_ data: Data, for attribute: NSAttributeDescription) -> Any? {
        if let composite = attribute as? NSCompositeAttributeDescription {
            return CompositeValue.value(fromJSON: String(decoding: data, as: UTF8.self), for: composite)
        }
        if let name = transformerName(of: attribute) {
            guard let transformer = ValueTransformer.valueTransformer(forName: name) else { return nil }
            return transformer is any UnarchivingTransformer
                ? transformer.transformedValue(data) : transformer.reverseTransformedValue(data)
        }
        if SecureUnarchiving.isKeyedArchive(data), let object = try? NSKeyedUnarchiver.unarchiveTopLevelObjectWithData(data) {
            return object
        }
        return data
    }

    /// Decodes as `decode(_:for:)` does, but a keyed archive that no transformer of the app's own
    /// reads may hold only Foundation's property-list classes, the attribute's
    /// `attributeValueClassName` and `allowedClasses`; one that holds another class throws,
    /// naming the attribute. What a store that decodes securely (the binary store) uses.
    package static func decodeSecurely(_ data: Data, for attribute: NSAttributeDescription,
                                       allowing allowedClasses: [AnyClass]) throws -> Any? {
        guard !(attribute is NSCompositeAttributeDescription), transformerName(of: attribute) == nil else {
            return decode(data, for: attribute)
        }
        var classes = SecureUnarchiving.propertyListClasses + allowedClasses
        if let name = attribute.attributeValueClassName, let valueClass = NSClassFromString(name) { classes.append(valueClass) }
        do {
            guard let object = try SecureUnarchiving.object(from: data, topLevel: classes, nested: classes) else {
                throw TransformableCodingError(attribute: attribute, reason: "the stored archive holds no value")
            }
            return object
        } catch let error as TransformableCodingError {
            throw error
        } catch is SecureUnarchiving.NotAnArchive {
            return data
        } catch {
            throw TransformableCodingError(attribute: attribute, reason: "the stored value can't be decoded securely "
                + "(\(error)); name its class in NSBinaryStoreSecureDecodingClasses")
        }
    }

    /// The name of the app's own transformer the attribute uses; nil for none and for Core
    /// Data's default names.
    private static func transformerName(of attribute: NSAttributeDescription) -> NSValueTransformerName? {
        guard let name = attribute.valueTransformerName, !name.isEmpty, !isDefaultTransformer(name) else { return nil }
        return NSValueTransformerName(rawValue: name)
    }

    private static func isDefaultTransformer(_ name: String) -> Bool {
        name == "NSSecureUnarchiveFromData" || name == "NSSecureUnarchiveFromDataTransformer" || name == "NSKeyedUnarchiveFromData"
            || name == "NSUnarchiveFromData"
    }
}

package struct TransformableCodingError: Error, CustomStringConvertible {
    package let attribute: NSAttributeDescription
    package let reason: String
    package var description: String { "\(attribute.entity?.name ?? "?").\(attribute.name): \(reason)" }
}
