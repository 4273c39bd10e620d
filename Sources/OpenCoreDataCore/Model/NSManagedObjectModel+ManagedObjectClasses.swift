extension NSManagedObjectModel {
    /// Makes `classes` findable by the class names models give their entities
    /// (`representedClassName="Item"` or `".Item"` as Xcode writes them), before any code names
    /// them.
    ///
    /// Rarely needed: a class is found on its own once code names it or another class of its
    /// module (`Item(context:)`, `NSFetchRequest<Item>`, `Item.entity()`, a `@Managed`
    /// relationship to it). Call this at launch when objects are fetched untyped
    /// (`NSFetchRequest<NSManagedObject>`) before any of that happens:
    /// ```swift
    /// NSManagedObjectModel.registerManagedObjectClasses([Item.self, Tag.self])
    /// ```
    ///
    /// Not in Apple's Core Data, where `@objc(Item)` puts the name in the Objective-C runtime.
    public static func registerManagedObjectClasses(_ classes: [NSManagedObject.Type]) {
        for objectClass in classes { ManagedObjectClassFinder.announce(objectClass) }
    }
}
