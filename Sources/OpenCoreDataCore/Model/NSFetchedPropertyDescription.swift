import Foundation

/// A fetched property: a weak, one-way relationship defined by a fetch request, as Xcode's
/// model editor creates them. Its predicate may use `$FETCH_SOURCE` (the object that owns the
/// property) and `$FETCHED_PROPERTY` (this description).
///
/// ```swift
/// let favourites = NSFetchedPropertyDescription(name: "favouriteColors")
/// let request = NSFetchRequest<NSFetchRequestResult>(entityName: "Palette")
/// request.predicate = try NSPredicate(validatingFormat: "owner == $FETCH_SOURCE")
/// favourites.fetchRequest = request
/// ```
///
/// Fetched properties are part of the model (they load from Xcode models and compiled models
/// and appear in `properties`), have no column in the store and take no part in the entity's
/// version hash. `value(forKey:)` on an object runs the request and returns the objects found
/// (an array), fetching again on every read.
open class NSFetchedPropertyDescription: NSPropertyDescription, @unchecked Sendable {
    // @unchecked Sendable: like every model description, edited only before the model is frozen.

    /// The request whose results are the property's value.
    public var fetchRequest: NSFetchRequest<NSFetchRequestResult>? {
        didSet { checkEditable("fetchRequest") }
    }

    override func emptyCopy() -> NSPropertyDescription { NSFetchedPropertyDescription(name: name) }

    override func copySettings(to copy: NSPropertyDescription) {
        super.copySettings(to: copy)
        (copy as? NSFetchedPropertyDescription)?.fetchRequest = fetchRequest?.copy(as: NSFetchRequestResult.self)
    }
}
