// Written for Apple's SDK, as an app's model classes are: ocd port makes it build on Linux too.
import Foundation
import CoreData

#if canImport(ObjectiveC)
@objc(Notebook)
#endif
public class Notebook: NSManagedObject {
#if canImport(ObjectiveC)
    @NSManaged public var title: String?
    @NSManaged public var pages: NSOrderedSet?
    @NSManaged public var tags: NSSet?
#else
    @Managed public var title: String?
    @Managed public var pages: NSOrderedSet?
    @Managed public var tags: NSSet?
#endif

    var summary: String {
        "\(title ?? "untitled"): \(pages?.count ?? 0) pages"
    }

    // Moved from an extension by ocd port: Swift on Linux cannot override there.
    public override func awakeFromInsert() {
        super.awakeFromInsert()
        title = "New notebook"
    }
}

extension Notebook {

    static func titled(_ title: String) -> NSPredicate {
        NSPredicate(format: "%K == %@", "title", title)
    }

    static let byTitle = NSSortDescriptor(key: "title", ascending: true, selector: Selector("localizedStandardCompare:"))
}
