/// A section of a fetched results controller: objects that share the value of the controller's
/// `sectionNameKeyPath`.
///
/// ```swift
/// for section in controller.sections ?? [] {
///     print(section.name, section.numberOfObjects)
/// }
/// ```
public protocol NSFetchedResultsSectionInfo {
    /// The section's name: the description of the value at `sectionNameKeyPath`, "" for nil
    /// (and for the one section of a controller without a `sectionNameKeyPath`).
    var name: String { get }
    /// The section's title in a section index (see `sectionIndexTitle(forSectionName:)`).
    var indexTitle: String? { get }
    /// How many objects the section holds.
    var numberOfObjects: Int { get }
    /// The section's objects, in order.
    var objects: [Any]? { get }
}
