// Written as Xcode writes a class file (`import Foundation` and `import CoreData`), with
// `@Managed` where Apple's SDK has `@NSManaged`.
import Foundation
import CoreData

public final class Item: NSManagedObject {
    @Managed public var name: String?
    @Managed public var score: Int64
    @Managed public var timestamp: Date?
}

extension Item {
    @nonobjc public class func fetchRequest() -> NSFetchRequest<Item> {
        NSFetchRequest<Item>(entityName: "Item")
    }
}
