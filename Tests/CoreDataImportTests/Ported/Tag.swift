import Foundation
import CoreData

#if canImport(ObjectiveC)
@objc(Tag)
#endif
public class Tag: NSManagedObject {
#if canImport(ObjectiveC)
    @NSManaged public var name: String?
    @NSManaged public var notebooks: NSSet?
#else
    @Managed public var name: String?
    @Managed public var notebooks: NSSet?
#endif

    // Moved from an extension by ocd port: Swift on Linux cannot override there.
    override public func willSave() {
        super.willSave()
        if let name, name != name.lowercased() { self.name = name.lowercased() }
    }
}

extension Tag {
}
