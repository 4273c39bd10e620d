import Foundation

/// The values of composite attributes: dictionaries with a key per element, each value of its
/// element's type; and their JSON form, which the SQLite store keeps in the composite's column
/// and SQL reads with `json_extract`.
///
/// ```swift
/// let value = try CompositeValue.normalized(["richter": 4.6], for: magnitude)   // ["richter": NSNumber(4.6)]
/// let json = try CompositeValue.json(of: value, for: magnitude)                 // {"richter":4.6}
/// let back = CompositeValue.value(fromJSON: json, for: magnitude)
/// ```
package enum CompositeValue {
    /// `value` as the composite holds it: a `[String: Any]` whose keys are element names and
    /// whose values are converted to their elements' types (as `value(forKey:)` gives an
    /// attribute's value: numbers as `NSNumber`); nil values are left out.
    package static func normalized(_ value: Any, for composite: NSCompositeAttributeDescription) throws(ValueConversionFailure) -> [String: Any] {
        guard let dictionary = dictionary(from: value) else {
            throw ValueConversionFailure(reason: "expected a dictionary of the elements of the composite '\(composite.name)', got \(type(of: value))")
        }
        var result: [String: Any] = [:]
        for (key, element) in dictionary {
            guard let attribute = composite.element(named: key) else {
                throw ValueConversionFailure(reason: "the composite '\(composite.name)' has no element '\(key)'")
            }
            if isNilOrNull(element) { continue }
            if let nested = attribute as? NSCompositeAttributeDescription {
                result[key] = try normalized(element, for: nested)
            } else {
                let primitive: PrimitiveValue
                do {
                    primitive = try PrimitiveValue(element, for: attribute.attributeType)
                } catch {
                    throw ValueConversionFailure(reason: "element '\(key)' of the composite '\(composite.name)': \(error.reason)")
                }
                // JSON has no infinity or NaN.
                let finite: Bool = switch primitive {
                case .double(let number): number.isFinite
                case .decimal(let number): !number.isNaN
                case .date(let date): date.timeIntervalSinceReferenceDate.isFinite
                default: true
                }
                if !finite {
                    throw ValueConversionFailure(reason: "element '\(key)' of the composite '\(composite.name)' cannot hold \(element), which JSON cannot hold")
                }
                result[key] = primitive.objectValue(for: attribute.attributeType)
            }
        }
        return result
    }

    /// `value` (a dictionary or an `NSDictionary`) as a `[String: Any]`, or nil.
    private static func dictionary(from value: Any) -> [String: Any]? {
        if let dictionary = value as? [String: Any] { return dictionary }
        if let dictionary = value as? NSDictionary {
            var result: [String: Any] = [:]
            for (key, element) in dictionary {
                guard let key = key as? String else { return nil }
                result[key] = element
            }
            return result
        }
        return nil
    }

    /// `value` with the element at `elementPath` set to `element` (removed when nil).
    package static func setting(_ element: Any?, at elementPath: ArraySlice<String>, in value: Any?) -> [String: Any] {
        var dictionary = value as? [String: Any] ?? [:]
        guard let key = elementPath.first else { return dictionary }
        if elementPath.count == 1 {
            dictionary[key] = isNilOrNull(element) ? nil : element
        } else {
            dictionary[key] = setting(element, at: elementPath.dropFirst(), in: dictionary[key])
        }
        return dictionary
    }

    /// Whether two composite values hold the same elements.
    package static func areEqual(_ lhs: [String: Any], _ rhs: [String: Any]) -> Bool {
        NSDictionary(dictionary: lhs).isEqual(to: rhs)
    }

    // MARK: JSON

    /// The JSON object text of a normalized value, keys sorted.
    package static func json(of value: [String: Any], for composite: NSCompositeAttributeDescription) throws -> String {
        let data = try JSONSerialization.data(withJSONObject: jsonObject(of: value, for: composite), options: [.sortedKeys])
        return String(decoding: data, as: UTF8.self)
    }

    private static func jsonObject(of value: [String: Any], for composite: NSCompositeAttributeDescription) -> [String: Any] {
        var object: [String: Any] = [:]
        for (key, element) in value {
            guard let attribute = composite.element(named: key) else { continue }
            if let nested = attribute as? NSCompositeAttributeDescription {
                object[key] = jsonObject(of: element as? [String: Any] ?? [:], for: nested)
            } else if let json = jsonValue(of: element, type: attribute.attributeType) {
                object[key] = json
            }
        }
        return object
    }

    /// An element's value as JSON holds it, and as SQL compares it with `json_extract`: numbers
    /// and Booleans as numbers, dates as seconds since 2001-01-01, binary data as Base64, UUIDs
    /// and URIs as strings.
    package static func jsonValue(of element: Any, type: NSAttributeType) -> Any? {
        guard let primitive = try? PrimitiveValue(element, for: type) else { return nil }
        switch primitive {
        case .null, .transformable, .externalData: return nil
        case .integer(let number): return NSNumber(value: number)
        case .double(let number): return number.isFinite ? NSNumber(value: number) : nil
        case .bool(let flag): return NSNumber(value: flag)
        case .string(let text): return text
        case .date(let date): return NSNumber(value: date.timeIntervalSinceReferenceDate)
        case .data(let data): return data.base64EncodedString()
        case .uuid(let uuid): return uuid.uuidString
        case .url(let url): return url.absoluteString
        case .decimal(let decimal): return NSNumber(value: decimal.nearestDouble)
        }
    }

    /// The value a composite's JSON text holds; nil when the text is not a JSON object.
    package static func value(fromJSON text: String, for composite: NSCompositeAttributeDescription) -> [String: Any]? {
        guard let object = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any] else { return nil }
        return value(fromJSONObject: object, for: composite)
    }

    private static func value(fromJSONObject object: [String: Any], for composite: NSCompositeAttributeDescription) -> [String: Any] {
        var value: [String: Any] = [:]
        for (key, json) in object {
            guard let attribute = composite.element(named: key) else { continue }
            if let nested = attribute as? NSCompositeAttributeDescription {
                if let object = json as? [String: Any] { value[key] = self.value(fromJSONObject: object, for: nested) }
            } else if let element = elementValue(fromJSON: json, type: attribute.attributeType) {
                value[key] = element
            }
        }
        return value
    }

    /// An element's value as SQL's `json_extract` gives it (a number, a string, or a nested
    /// composite's JSON text), as the element holds it.
    package static func elementValue(fromSQL value: Any?, element: NSAttributeDescription) -> Any? {
        switch value {
        case let text as String:
            if let composite = element as? NSCompositeAttributeDescription { return Self.value(fromJSON: text, for: composite) }
            return elementValue(fromJSON: text, type: element.attributeType)
        case let number as Int64: return elementValue(fromJSON: NSNumber(value: number), type: element.attributeType)
        case let number as Double: return elementValue(fromJSON: NSNumber(value: number), type: element.attributeType)
        default: return nil
        }
    }

    private static func elementValue(fromJSON json: Any, type: NSAttributeType) -> Any? {
        let converted: Any? =
            switch type {
            case .dateAttributeType: (json as? NSNumber).map { Date(timeIntervalSinceReferenceDate: $0.doubleValue) }
            case .binaryDataAttributeType: (json as? String).flatMap { Data(base64Encoded: $0) }
            // As a decimal attribute's REAL column is read: the shortest decimal of the double.
            case .decimalAttributeType: (json as? NSNumber).map { Decimal(string: "\($0.doubleValue)", locale: Locale(identifier: "en_US_POSIX")) ?? $0.decimalValue }
            case .booleanAttributeType: (json as? NSNumber).map(\.boolValue)
            default: json
            }
        guard let converted else { return nil }
        return (try? PrimitiveValue(converted, for: type))?.objectValue(for: type)
    }
}
