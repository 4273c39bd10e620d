import Foundation
import CoreData

/// A transformable attribute's transformer as Apple's sample code and Xcode projects write it:
/// a subclass of `NSSecureUnarchiveFromDataTransformer` that lists its classes and registers
/// itself under its class name.
final class TagListTransformer: NSSecureUnarchiveFromDataTransformer {
    static let name = NSValueTransformerName(rawValue: String(describing: TagListTransformer.self))

    override static var allowedTopLevelClasses: [AnyClass] {
        [NSArray.self, NSString.self]
    }

    public static func register() {
        let transformer = TagListTransformer()
        ValueTransformer.setValueTransformer(transformer, forName: name)
    }
}
