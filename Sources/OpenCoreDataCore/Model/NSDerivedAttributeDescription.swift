import Foundation

/// An attribute whose value the store computes from other values of the object or of related
/// objects (`derivationExpression`, for example `pages.@count` or `now()`), as Core Data's
/// `NSDerivedAttributeDescription` does.
///
/// Difference from Core Data: Core Data keeps derived values up to date with SQL triggers it
/// installs in the store. OpenCoreData reads derived values from the store, keeps Apple's
/// triggers working in stores written by Core Data, and stores a value set on the object, but
/// does not yet install triggers of its own, so in a store it creates a derived attribute holds
/// what was last saved into it.
open class NSDerivedAttributeDescription: NSAttributeDescription, @unchecked Sendable {
    // @unchecked Sendable: like every model description, edited only before the model is frozen.

    /// The expression the value is derived from.
    public var derivationExpression: NSExpression? {
        didSet { checkEditable("derivationExpression") }
    }

    /// The expression as the model file wrote it. Kept when `derivationExpression` is nil
    /// because the expression uses syntax the parser does not support yet (functions such as
    /// `now()` or `canonical:`).
    public var derivationExpressionFormat: String?

    override func emptyCopy() -> NSPropertyDescription { NSDerivedAttributeDescription(name: name, type: attributeType) }

    override func copySettings(to copy: NSPropertyDescription) {
        super.copySettings(to: copy)
        guard let copy = copy as? NSDerivedAttributeDescription else { return }
        copy.derivationExpression = derivationExpression
        copy.derivationExpressionFormat = derivationExpressionFormat
    }
}
