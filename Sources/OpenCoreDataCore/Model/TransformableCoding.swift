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
            guard let data = transformer.transformedValue(value) as? Data else {
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
        if let name = attribute.valueTransformerName, !name.isEmpty, !isDefaultTransformer(name) {
            return ValueTransformer.valueTransformer(forName: NSValueTransformerName(rawValue: name))?.reverseTransformedValue(data)
        }
        if data.starts(with: Array("bplist00".utf8)),
           let object = try? NSKeyedUnarchiver.unarchiveTopLevelObjectWithData(data) {
            return object
        }
        return data
    }

    private static func isDefaultTransformer(_ name: String) -> Bool {
        name == "NSSecureUnarchiveFromData" || name == "NSSecureUnarchiveFromDataTransformer" || name == "NSKeyedUnarchiveFromData"
    }
}

package struct TransformableCodingError: Error, CustomStringConvertible {
    package let attribute: NSAttributeDescription
    package let reason: String
    package var description: String { "\(attribute.entity?.name ?? "?").\(attribute.name): \(reason)" }
}
