import Foundation

/// An attribute of an entity: a typed value stored with the object.
///
/// ```swift
/// let age = NSAttributeDescription(name: "age", type: .integer64AttributeType)
/// age.isOptional = false
/// age.defaultValue = 0
/// age.minValue = 0
/// ```
open class NSAttributeDescription: NSPropertyDescription, @unchecked Sendable {
    /// The attribute's type.
    public var attributeType: NSAttributeType = .undefinedAttributeType {
        didSet { checkEditable("attributeType") }
    }
    /// The value a new object starts with (for example `0`, `"untitled"`, a `Date`).
    public var defaultValue: Any? { didSet { checkEditable("defaultValue") } }
    /// Whether large binary data may be kept outside the database file.
    public var allowsExternalBinaryDataStorage = false { didSet { checkEditable("allowsExternalBinaryDataStorage") } }
    /// For transformable attributes: the name of the `ValueTransformer` that turns values into data.
    public var valueTransformerName: String? { didSet { checkEditable("valueTransformerName") } }
    /// The class name Core Data reports for values of this attribute (`NSString`, `NSNumber`, …).
    public var attributeValueClassName: String? { didSet { checkEditable("attributeValueClassName") } }
    /// Xcode's "Use Scalar Type" (`usesScalarValueType`), for generating classes; nil when the
    /// model file does not say. Changes nothing at run time.
    package var usesScalarValueType: Bool?
    /// Whether the value is kept in persistent history after the object is deleted.
    public var preservesValueInHistoryOnDeletion = false { didSet { checkEditable("preservesValueInHistoryOnDeletion") } }

    /// The smallest allowed value: a number for numeric attributes, a `Date` for dates, a length
    /// for strings and binary data. Checked at save (codes 1620, 1640, 1670).
    public var minValue: Any? { didSet { checkEditable("minValue") } }
    /// The largest allowed value, as `minValue`. Checked at save (codes 1610, 1630, 1660).
    public var maxValue: Any? { didSet { checkEditable("maxValue") } }
    /// A regular expression a string value must match as a whole. Checked at save (code 1680).
    public var regularExpression: String? { didSet { checkEditable("regularExpression") } }
    /// Whether CloudKit mirroring stores the value encrypted (Xcode's "Allows Cloud Encryption").
    ///
    /// Difference from Apple: Linux has no CloudKit and nothing is mirrored, so the setting is
    /// kept — read from Xcode models and copied — with no effect; compiled model archives leave
    /// it out.
    public var allowsCloudEncryption: Bool = false { didSet { checkEditable("allowsCloudEncryption") } }

    /// An attribute named `name` of type `type`.
    public init(name: String, type: NSAttributeType, optional: Bool = true, defaultValue: Any? = nil) {
        super.init(name: name)
        self.attributeType = type
        self.isOptional = optional
        self.defaultValue = defaultValue
    }

    public convenience init() { self.init(name: "", type: .undefinedAttributeType) }

    /// Decodes an attribute that `encode(with:)` archived (`NSCoding`); see
    /// `NSPropertyDescription.init(coder:)`.
    public required init?(coder: NSCoder) {
        super.init(coder: coder)
    }

    override func emptyCopy() -> NSPropertyDescription { NSAttributeDescription(name: name, type: attributeType) }

    override func copySettings(to copy: NSPropertyDescription) {
        super.copySettings(to: copy)
        guard let copy = copy as? NSAttributeDescription else { return }
        copy.attributeType = attributeType
        copy.defaultValue = defaultValue
        copy.allowsExternalBinaryDataStorage = allowsExternalBinaryDataStorage
        copy.valueTransformerName = valueTransformerName
        copy.attributeValueClassName = attributeValueClassName
        copy.usesScalarValueType = usesScalarValueType
        copy.preservesValueInHistoryOnDeletion = preservesValueInHistoryOnDeletion
        copy.minValue = minValue
        copy.maxValue = maxValue
        copy.regularExpression = regularExpression
        copy.allowsCloudEncryption = allowsCloudEncryption
    }

    /// The minimum, maximum and pattern as predicates, each with the code its failure reports.
    override var ruleValidationRules: [(predicate: NSPredicate, warning: Any)] {
        let measuresLength = [.stringAttributeType, .binaryDataAttributeType].contains(attributeType)
        let isDate = attributeType == .dateAttributeType
        let subject = measuresLength ? NSExpression(forKeyPath: "length") : NSExpression.expressionForEvaluatedObject()
        func bound(_ value: Any, _ type: NSComparisonPredicate.Operator) -> NSPredicate {
            NSComparisonPredicate(leftExpression: subject, rightExpression: NSExpression(forConstantValue: value),
                                  modifier: .direct, type: type, options: [])
        }
        var rules: [(predicate: NSPredicate, warning: Any)] = []
        if let minValue {
            let code = measuresLength ? NSValidationStringTooShortError : isDate ? NSValidationDateTooSoonError : NSValidationNumberTooSmallError
            rules.append((bound(minValue, .greaterThanOrEqualTo), code))
        }
        if let maxValue {
            let code = measuresLength ? NSValidationStringTooLongError : isDate ? NSValidationDateTooLateError : NSValidationNumberTooLargeError
            rules.append((bound(maxValue, .lessThanOrEqualTo), code))
        }
        if let regularExpression, attributeType == .stringAttributeType {
            rules.append((NSComparisonPredicate(leftExpression: .expressionForEvaluatedObject(),
                                                rightExpression: NSExpression(forConstantValue: regularExpression),
                                                modifier: .direct, type: .matches, options: []), NSValidationStringPatternMatchingError))
        }
        return rules
    }

    override func clearRuleValidation() {
        if minValue != nil { minValue = nil }
        if maxValue != nil { maxValue = nil }
        if regularExpression != nil { regularExpression = nil }
    }

    /// The default value converted once to storage form (at freeze).
    @exclusivity(unchecked) var defaultPrimitive: PrimitiveValue = .null
    /// Storage index among the attributes of an object of the entity. Set at freeze.
    @exclusivity(unchecked) package var attributeSlot = -1
}
