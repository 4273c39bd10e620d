import Foundation

/// An attribute made of other attributes, its elements: its value is a dictionary with a key per
/// element (`["richter": 4.6, "depth": 10.0]`), and predicates, sort descriptors and key-value
/// coding reach the elements by namespaced key paths (`magnitude.richter`). Elements may be
/// composites themselves.
///
/// ```swift
/// let richter = NSAttributeDescription(name: "richter", type: .doubleAttributeType, optional: false)
/// let depth = NSAttributeDescription(name: "depth", type: .doubleAttributeType)
/// let magnitude = NSCompositeAttributeDescription()
/// magnitude.name = "magnitude"
/// magnitude.elements = [richter, depth]
/// quake.properties.append(magnitude)
///
/// quake.setValue(["richter": 4.6, "depth": 10.0], forKey: "magnitude")
/// quake.setValue(5.1, forKeyPath: "magnitude.richter")
/// request.predicate = NSPredicate(format: "magnitude.richter > 4.5")
/// ```
/// An element's value is converted to its type as an attribute's is (numbers come back as
/// `NSNumber`); a key that names no element is refused. At save each element is validated as
/// an attribute is: a required element must have a value, and its minimum, maximum and pattern
/// hold.
///
/// Differences from Core Data: Apple does not document how its SQLite store lays composites
/// out, and no store written by Core Data with one has been available to read. OpenCoreData's
/// SQLite store keeps a composite in one `VARCHAR` column as a JSON object (numbers, Booleans and
/// strings as JSON values, dates as seconds since 2001-01-01, binary data as Base64, UUIDs and
/// URIs as strings), which SQL reads with `json_extract`. A store that Core Data wrote with a
/// composite attribute is therefore not readable yet; nor are composites in compiled models
/// (`.mom`). Elements are attributes of the basic types (no transformable, object ID or derived
/// elements, none kept in external files, no infinite or NaN numbers). Uniqueness constraints
/// and fetch indexes cannot name an element yet.
///
/// The elements belong to the composite: once its model is in use they cannot be edited either.
open class NSCompositeAttributeDescription: NSAttributeDescription, @unchecked Sendable {
    // @unchecked Sendable: like every model description, edited only before the model is frozen.

    /// The attributes the composite is made of, in order.
    public var elements: [NSAttributeDescription] = [] {
        didSet {
            checkEditable("elements")
            for element in oldValue where element.containingComposite === self { element.containingComposite = nil }
            for element in elements { element.containingComposite = self }
        }
    }

    /// An empty composite attribute, named `""`: set its name and elements.
    public convenience init() {
        self.init(name: "", type: .compositeAttributeType)
    }

    /// The element named `name`, or nil.
    package func element(named name: String) -> NSAttributeDescription? {
        elements.first { $0.name == name }
    }

    override func emptyCopy() -> NSPropertyDescription { NSCompositeAttributeDescription(name: name, type: .compositeAttributeType) }

    override func copySettings(to copy: NSPropertyDescription) {
        super.copySettings(to: copy)
        (copy as? NSCompositeAttributeDescription)?.elements = copiedElements(around: [ObjectIdentifier(self)])
    }

    /// Copies of the elements; `around`: the composites being copied around them, so that one
    /// that contains itself (an invalid model) keeps that element as it is instead of copying
    /// forever.
    private func copiedElements(around: [ObjectIdentifier]) -> [NSAttributeDescription] {
        elements.map { element in
            guard let nested = element as? NSCompositeAttributeDescription else { return element.copy() as! NSAttributeDescription }
            if around.contains(ObjectIdentifier(nested)) { return nested }
            let copy = NSCompositeAttributeDescription(name: nested.name, type: nested.attributeType)
            nested.copySettingsWithoutElements(to: copy)
            copy.elements = nested.copiedElements(around: around + [ObjectIdentifier(nested)])
            return copy
        }
    }

    private func copySettingsWithoutElements(to copy: NSCompositeAttributeDescription) {
        super.copySettings(to: copy)
    }
}
