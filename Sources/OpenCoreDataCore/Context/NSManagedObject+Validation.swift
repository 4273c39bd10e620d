import Foundation

extension NSManagedObject {
    /// What the object's `validateValue(_:forKey:)` throws for each of its attributes and
    /// relationships (asked first, since an override may replace a value), then every rule of
    /// the model the object's current values break (codes 1550–1690): what Core Data's
    /// `validateForInsert()` and `validateForUpdate()` check.
    func propertyValidationErrors() -> [Error] {
        willAccess()
        if !contents.rejectedValues.isEmpty, let reason = contents.rejectedValues[ObjectContents.unreadableKey] {
            // The nil values of an unreadable object break other rules only as a consequence.
            return [CoreDataError.validation(.managedObjectValidation, object: self, key: nil, reason)]
        }
        var errors: [Error] = []
        let layout = entity.layout
        let asksOverride = layout.overridesValidateValue(type(of: self))
        // First, as a value an override replaces may be refused (a value of the wrong type).
        if asksOverride { askValidateValue(about: layout, into: &errors) }
        if !contents.rejectedValues.isEmpty {
            for (key, reason) in contents.rejectedValues.sorted(by: { $0.key < $1.key }) {
                errors.append(CoreDataError.validation(.managedObjectValidation, object: self, key: key, reason))
            }
        }
        // The override's `super` calls checked the model's rules property by property.
        if asksOverride { return errors }
        // The model's rules, for every property in one pass (this runs for every saved object).
        for (index, check) in layout.attributeChecks.enumerated() {
            // The common case, a present value without range or pattern rules, costs one check.
            if contents.values[check.slot].isNull ? check.isOptional : !check.hasValueRules { continue }
            errors.append(contentsOf: validationErrors(of: layout.attributesToValidate[index], value: contents.values[check.slot]))
        }
        for relationship in layout.relationshipsToValidate {
            errors.append(contentsOf: validationErrors(of: relationship))
        }
        return errors
    }

    /// The model's rules for the current value of the property at `index` in the layout's
    /// `properties`: what the base `validateValue(_:forKey:)` checks for a save.
    func checkOwnValue(ofPropertyAt index: Int) throws {
        let layout = entity.layout
        var errors: [Error] = []
        switch layout.properties[index] {
        case let attribute as NSAttributeDescription:
            let value = contents.values[attribute.attributeSlot]
            if value.isNull ? !attribute.isOptional : attribute.hasValueRules {
                errors = validationErrors(of: attribute, value: value)
            }
        case let relationship as NSRelationshipDescription where layout.relationshipsToValidate.contains { $0 === relationship }:
            errors = validationErrors(of: relationship)
        default:
            break
        }
        if let error = CoreDataError.combine(errors) { throw error }
    }

    /// Asks `validateValue(_:forKey:)` about each attribute and relationship, in the order of
    /// the entity's properties, with a pointer to the property's value: for classes that
    /// override it (see `ValidateValueOverride`). The base implementation checks the model's
    /// rules for that property; the override reads the value as an object and may replace it.
    private func askValidateValue(about layout: EntityLayout, into errors: inout [Error]) {
        // Only classes that override the method get here, so the list is read as it is.
        for (index, property) in layout.properties.enumerated() where !(property is NSFetchedPropertyDescription) {
            let name = property.name
            let wasRejected = !contents.rejectedValues.isEmpty && contents.rejectedValues[name] != nil
            do {
                try validateValue(AutoreleasingUnsafeMutablePointer(property: index, of: self), forKey: name)
            } catch {
                errors += CoreDataError.individualErrors(in: error)
            }
            // A replacement the property refused is reported by this save, and not kept: the
            // object still holds its value, which a later save judges afresh.
            if !wasRejected, !contents.rejectedValues.isEmpty, let reason = contents.rejectedValues.removeValue(forKey: name) {
                errors.append(CoreDataError.validation(.managedObjectValidation, object: self, key: name, reason))
            }
        }
    }

    /// The value of the property at `index` in the layout's `properties`, as an object
    /// (`NSString`, `NSNumber`, a set of objects, …), for a validation method to read.
    func validatedValue(at index: Int) -> AnyObject? {
        value(of: entity.layout.properties[index]).map { $0 as AnyObject }
    }

    /// Sets the property at `index` to what a validation method replaced its value with; a
    /// value the property cannot hold is kept as a refusal for the save to report.
    func replaceValidatedValue(at index: Int, with value: AnyObject?) {
        let property = entity.layout.properties[index]
        if let attribute = property as? NSAttributeDescription {
            do {
                _ = try PrimitiveValue(value, for: attribute)
            } catch {
                contents.rejectedValues[property.name] = "unacceptable value: \(error.reason)"
                return
            }
        }
        setValue(value, forKey: property.name)
    }

    /// `key`: the key the errors name (a composite's element is named by its key path).
    private func validationErrors(of attribute: NSAttributeDescription, value: PrimitiveValue, key: String? = nil) -> [Error] {
        let key = key ?? attribute.name
        if value.isNull {
            if attribute.isOptional { return [] }
            return [CoreDataError.validation(.validationMissingMandatoryProperty, object: self, key: key,
                                             "the attribute is required but has no value")]
        }
        var errors: [Error] = []
        switch value {
        case .integer, .double, .decimal:
            let number = value.numericValue
            if let min = Self.numericBound(attribute.minValue), number < min {
                errors.append(CoreDataError.validation(.validationNumberTooSmall, object: self, key: key, value: number,
                                                       "\(number) is less than the minimum \(min)"))
            }
            if let max = Self.numericBound(attribute.maxValue), number > max {
                errors.append(CoreDataError.validation(.validationNumberTooLarge, object: self, key: key, value: number,
                                                       "\(number) is greater than the maximum \(max)"))
            }
        case .date(let date):
            if let min = attribute.minValue as? Date, date < min {
                errors.append(CoreDataError.validation(.validationDateTooSoon, object: self, key: key, value: date,
                                                       "\(date) is earlier than \(min)"))
            }
            if let max = attribute.maxValue as? Date, date > max {
                errors.append(CoreDataError.validation(.validationDateTooLate, object: self, key: key, value: date,
                                                       "\(date) is later than \(max)"))
            }
        case .string(let string):
            errors.append(contentsOf: lengthErrors(of: attribute, length: string.count, value: string, key: key))
            if let pattern = attribute.regularExpression, !string.matchesWhole(pattern: pattern) {
                errors.append(CoreDataError.validation(.validationStringPatternMatching, object: self, key: key, value: string,
                                                       "\"\(string)\" does not match the pattern \(pattern)"))
            }
        case .data(let data):
            errors.append(contentsOf: lengthErrors(of: attribute, length: data.count, value: data, key: key))
        case .externalData(let external):
            // Read only when there is a length to check; a file that can't be read is not
            // judged (the value was not changed: a changed value is `.data`).
            if attribute.minValue != nil || attribute.maxValue != nil, let data = external.dataIfReadable {
                errors.append(contentsOf: lengthErrors(of: attribute, length: data.count, value: data, key: key))
            }
        case .transformable(let box):
            if let composite = attribute as? NSCompositeAttributeDescription {
                errors.append(contentsOf: elementErrors(of: composite, value: box.value as? [String: Any] ?? [:], key: key))
            }
        default:
            break
        }
        if !attribute.customValidationRules.isEmpty, let judged = value.objectValue(for: attribute.attributeType) {
            errors.append(contentsOf: customRuleErrors(of: attribute, value: judged, key: key))
        }
        return errors
    }

    /// What the elements of a composite's value break, each error naming the element's key
    /// path (`magnitude.richter`).
    private func elementErrors(of composite: NSCompositeAttributeDescription, value: [String: Any], key: String) -> [Error] {
        composite.elements.flatMap { element -> [Error] in
            let elementValue = (try? PrimitiveValue(value[element.name], for: element)) ?? .null
            if elementValue.isNull ? element.isOptional : !element.hasValueRules { return [] }
            return validationErrors(of: element, value: elementValue, key: key + "." + element.name)
        }
    }

    /// The rules of `setValidationPredicates(_:withValidationWarnings:)` that `value` (the
    /// predicates' `SELF`) breaks: each an `NSManagedObjectValidationError` reporting its warning.
    private func customRuleErrors(of property: NSPropertyDescription, value: Any, key: String? = nil) -> [Error] {
        var errors: [Error] = []
        for (predicate, warning) in property.customValidationRules where !predicate.evaluate(with: value) {
            // A warning string is an error string of the model's, localized by its dictionary.
            let text = (warning as? String).flatMap { $0.isEmpty ? nil : ModelLocalization.errorString($0, in: entity.managedObjectModel) }
            let message = text ?? "\(Self.describe(value)) does not satisfy the validation predicate \(predicate.predicateFormat)"
            // A warning that is a number is the error code to report (as in Xcode's model files).
            let code = (warning as? Int).map(CocoaError.Code.init(rawValue:)) ?? .managedObjectValidation
            var info = CoreDataError.validation(code, object: self, key: key ?? property.name, value: value, message).userInfo
            info[NSValidationPredicateErrorKey] = predicate
            // Core Data reports the warning itself as the error's description.
            if let text { info[NSLocalizedDescriptionKey] = text }
            errors.append(CocoaError(code, userInfo: info))
        }
        return errors
    }

    private static func describe(_ value: Any) -> String {
        switch value {
        case let string as String: "\"\(string)\""
        case let object as NSManagedObject: "\(object.entity.name ?? "an object") \(object.objectID.uriRepresentation().absoluteString)"
        case let set as Set<NSManagedObject>: "a set of \(set.count) objects"
        default: "\(value)"
        }
    }

    /// A numeric minimum or maximum as a Double, whichever number type the model gave it in.
    private static func numericBound(_ bound: Any?) -> Double? {
        switch bound {
        case let number as NSNumber: number.doubleValue
        case let number as Double: number
        case let number as Int: Double(number)
        case let number as Decimal: number.nearestDouble
        default: nil
        }
    }

    private func lengthErrors(of attribute: NSAttributeDescription, length: Int, value: Any, key: String) -> [Error] {
        var errors: [Error] = []
        if let min = (attribute.minValue as? NSNumber)?.intValue ?? (attribute.minValue as? Int), length < min {
            errors.append(CoreDataError.validation(.validationStringTooShort, object: self, key: key, value: value,
                                                   "the length \(length) is less than the minimum \(min)"))
        }
        if let max = (attribute.maxValue as? NSNumber)?.intValue ?? (attribute.maxValue as? Int), length > max {
            errors.append(CoreDataError.validation(.validationStringTooLong, object: self, key: key, value: value,
                                                   "the length \(length) is greater than the maximum \(max)"))
        }
        return errors
    }

    private func validationErrors(of relationship: NSRelationshipDescription) -> [Error] {
        var errors: [Error]
        if !relationship.isToMany {
            errors = toOneErrors(relationship, hasDestination: toOneDestinationID(relationship) != nil)
        } else {
            errors = relationship.hasCountRules ? countErrors(relationship, count: toManyMembers(relationship).members.count) : []
        }
        // The predicates' `SELF` is what `value(forKey:)` gives: the destination, or the set
        // (an ordered set for an ordered relationship).
        guard !relationship.customValidationRules.isEmpty, let current = value(of: relationship) else { return errors }
        return errors + customRuleErrors(of: relationship, value: current)
    }

    private func toOneErrors(_ relationship: NSRelationshipDescription, hasDestination: Bool) -> [Error] {
        if relationship.isOptional || hasDestination { return [] }
        return [CoreDataError.validation(.validationMissingMandatoryProperty, object: self, key: relationship.name,
                                         "the relationship is required but has no destination")]
    }

    private func countErrors(_ relationship: NSRelationshipDescription, count: Int) -> [Error] {
        let key = relationship.name
        let minimum = max(relationship.minCount, relationship.isOptional ? 0 : 1)
        let maximum = relationship.maxCount
        // An optional relationship's counts apply only when it holds something (Apple's
        // documentation of `minCount`/`maxCount`).
        if count == 0 && relationship.isOptional { return [] }
        if count < minimum {
            return [CoreDataError.validation(.validationRelationshipLacksMinimumCount, object: self, key: key,
                                             "has \(count) objects, fewer than the minimum \(minimum)")]
        }
        if maximum > 1 && count > maximum {
            return [CoreDataError.validation(.validationRelationshipExceedsMaximumCount, object: self, key: key,
                                             "has \(count) objects, more than the maximum \(maximum)")]
        }
        return []
    }

    /// Checks `value` for `key` without setting it: the model's rules, as a save would check
    /// them — its type, whether a value is required, range, length and pattern for an
    /// attribute; the destination's type and the count rules for a relationship. Throws the
    /// error a save would report (one error, or 1560 listing several); an unknown key is 1550.
    ///
    /// ```swift
    /// var age: Any? = 200
    /// try person.validateValue(&age, forKey: "age")   // throws 1610 when the maximum is 150
    /// ```
    /// This is the form to call. For a class that overrides `validateValue(_:forKey:)`, it calls
    /// that with a pointer to the value as an object, so the override judges it too (and the
    /// model's rules are checked by its `super` call), and `value` becomes what the override
    /// replaced it with when that is a `Value`.
    /// Differences from Core Data: Core Data's takes an `AutoreleasingUnsafeMutablePointer`,
    /// which Swift on Linux makes of `&value` only for its own pointer types; this one takes the
    /// value `inout`, so the call reads the same.
    public func validateValue<Value>(_ value: inout Value?, forKey key: String) throws {
        // Without an override, the value itself is checked: boxed, a transformable value would
        // reach the model's predicates and the error as its box.
        guard entity.layout.overridesValidateValue(type(of: self)) else {
            return try checkModelRules(for: value, forKey: key)
        }
        let original: AnyObject? = value.map { $0 as AnyObject }
        var object = original
        try withUnsafeMutablePointer(to: &object) { pointer in
            try validateValue(AutoreleasingUnsafeMutablePointer(pointer), forKey: key)
        }
        guard object !== original else { return }
        if object == nil {
            value = nil
        } else if let replaced = object as? Value {
            value = replaced
        }
    }

    /// The model's rules for `key` applied to `candidate`, a value not (yet) the object's: what
    /// `validateValue(_:forKey:)` checks for a value a caller hands it.
    func checkModelRules(for candidate: Any?, forKey key: String) throws {
        guard let property = entity.layout.propertiesByName[key] else { throw unknownKeyError(key) }
        var errors: [Error] = []
        switch property {
        case let attribute as NSAttributeDescription:
            do {
                errors = validationErrors(of: attribute, value: try PrimitiveValue(candidate, for: attribute))
            } catch {
                errors = [CoreDataError.validation(.managedObjectValidation, object: self, key: key, value: candidate, error.reason)]
            }
        case let relationship as NSRelationshipDescription where relationship.isToMany:
            let isCollection = isNilOrNull(candidate) || ValueComparison.isCollection(candidate)
            let members = isNilOrNull(candidate) ? [] : ValueComparison.elements(of: candidate)
            if !isCollection || members.contains(where: { !($0 is NSManagedObject) }) {
                errors = [CoreDataError.validation(.managedObjectValidation, object: self, key: key, value: candidate,
                                                   "expected a collection of objects of entity \(relationship.destinationEntity?.name ?? "?")")]
            } else {
                errors = countErrors(relationship, count: members.count)
                if let candidate, !isNilOrNull(candidate) { errors += customRuleErrors(of: relationship, value: candidate) }
            }
        case let relationship as NSRelationshipDescription:
            if !isNilOrNull(candidate) && !(candidate is NSManagedObject) {
                errors = [CoreDataError.validation(.managedObjectValidation, object: self, key: key, value: candidate,
                                                   "expected an object of entity \(relationship.destinationEntity?.name ?? "?")")]
            } else {
                errors = toOneErrors(relationship, hasDestination: !isNilOrNull(candidate))
                if let candidate, !isNilOrNull(candidate) { errors += customRuleErrors(of: relationship, value: candidate) }
            }
        default:
            break
        }
        if let error = CoreDataError.combine(errors) { throw error }
    }

    func deleteValidationErrors() -> [Error] {
        var errors: [Error] = []
        for relationship in entity.layout.relationships where relationship.deleteRule == .denyDeleteRule {
            let hasDestination: Bool
            if relationship.isToMany {
                hasDestination = toManyMembers(relationship).members.contains { !$0.isDeleted }
            } else {
                hasDestination = toOneDestination(relationship).map { !$0.isDeleted } ?? false
            }
            if hasDestination {
                errors.append(CoreDataError.validation(.validationRelationshipDeniedDelete, object: self, key: relationship.name,
                                                       "the object can't be deleted while '\(relationship.name)' has a destination (deny rule)"))
            }
        }
        return errors
    }
}

extension NSRelationshipDescription {
    /// Whether a to-many's member count has rules: a minimum or a maximum.
    var hasCountRules: Bool { max(minCount, isOptional ? 0 : 1) > 0 || maxCount > 1 }
}

extension NSAttributeDescription {
    /// Whether values must be checked against a minimum, a maximum, a pattern or predicates.
    var hasValueRules: Bool { hasValueRules(around: []) }

    /// `around`: the composites this attribute is an element of, so that one that contains
    /// itself (an invalid model, which validation reports) is not searched forever.
    private func hasValueRules(around: [ObjectIdentifier]) -> Bool {
        if minValue != nil || maxValue != nil || regularExpression != nil || !customValidationRules.isEmpty { return true }
        guard let composite = self as? NSCompositeAttributeDescription, !around.contains(ObjectIdentifier(self)) else { return false }
        return composite.elements.contains { !$0.isOptional || $0.hasValueRules(around: around + [ObjectIdentifier(self)]) }
    }
}

extension PrimitiveValue {
    /// The value as a Double, for range checks.
    var numericValue: Double {
        switch self {
        case .integer(let value): Double(value)
        case .double(let value): value
        case .bool(let value): value ? 1 : 0
        case .decimal(let value): value.nearestDouble
        default: 0
        }
    }
}

extension String {
    /// Whether the whole string matches the regular expression `pattern`.
    func matchesWhole(pattern: String) -> Bool {
        guard let expression = try? NSRegularExpression(pattern: "^(?:\(pattern))$") else { return false }
        return expression.firstMatch(in: self, range: NSRange(startIndex..., in: self)) != nil
    }
}
