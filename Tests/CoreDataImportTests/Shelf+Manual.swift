// The classes Xcode leaves to the developer: Shelf's code generation is "Manual/None" (the whole
// class is written by hand), Author's "Category/Extension" (the class is written by hand, its
// properties are generated in Generated/Author+CoreDataProperties.swift).
import Foundation
import CoreData

public final class Shelf: NSManagedObject {
    @Managed public var label: String?
    @Managed public var books: NSSet?
}

public final class Author: NSManagedObject {
    /// Hand-written beside the generated properties, as Xcode's Category/Extension setting intends.
    var bookCount: Int { books?.count ?? 0 }
}
