import Foundation

/// Gives `NSPersistentContainer` the class property `defaultDirectoryURL` beside the class
/// method `defaultDirectoryURL()`, as Apple's SDK has both: a Swift class cannot declare a
/// property and a method of one name, a protocol extension can add the property.
public protocol PersistentContainerDefaultDirectory {}

extension NSPersistentContainer: PersistentContainerDefaultDirectory {}

extension PersistentContainerDefaultDirectory where Self: NSPersistentContainer {
    /// Where stores live by default: what `defaultDirectoryURL()` answers (a subclass that
    /// overrides the method changes this too).
    ///
    /// ```swift
    /// let url = NSPersistentContainer.defaultDirectoryURL.appendingPathComponent("Notes.sqlite")
    /// ```
    public static var defaultDirectoryURL: URL { Self.defaultDirectoryURL() }
}
