import Foundation
import CoreData

#if canImport(ObjectiveC)
@objc(Page)
#endif
public class Page: NSManagedObject {}

extension Page {
#if canImport(ObjectiveC)
    @NSManaged public var text: String?
    @NSManaged public var number: Int16
    @NSManaged public var notebook: Notebook?
#else
    private static let textKey = ManagedKey<String?>("text")
    public var text: String? {
        get { self[Page.textKey] }
        set { self[Page.textKey] = newValue }
    }
    private static let numberKey = ManagedKey<Int16>("number")
    public var number: Int16 {
        get { self[Page.numberKey] }
        set { self[Page.numberKey] = newValue }
    }
    private static let notebookKey = ManagedKey<Notebook?>("notebook")
    public var notebook: Notebook? {
        get { self[Page.notebookKey] }
        set { self[Page.notebookKey] = newValue }
    }
#endif

    static let byNumber = NSSortDescriptor(key: "number", ascending: true)
}

// MARK: Generated accessors for pages
extension Notebook {

#if canImport(ObjectiveC)
    @objc(insertObject:inPagesAtIndex:)
    @NSManaged public func insertIntoPages(_ value: Page, at idx: Int)
#else
    public func insertIntoPages(_ value: Page, at idx: Int) {
        mutableOrderedSetValue(forKey: "pages").insert(value, at: idx)
    }
#endif

#if canImport(ObjectiveC)
    @objc(removeObjectFromPagesAtIndex:)
    @NSManaged public func removeFromPages(at idx: Int)
#else
    public func removeFromPages(at idx: Int) {
        mutableOrderedSetValue(forKey: "pages").removeObject(at: idx)
    }
#endif

#if canImport(ObjectiveC)
    @objc(addPagesObject:)
    @NSManaged public func addToPages(_ value: Page)
#else
    public func addToPages(_ value: Page) {
        mutableOrderedSetValue(forKey: "pages").add(value)
    }
#endif

}

// MARK: Generated accessors for tags
extension Notebook {

#if canImport(ObjectiveC)
    @objc(addTagsObject:)
    @NSManaged public func addToTags(_ value: Tag)
#else
    public func addToTags(_ value: Tag) {
        mutableSetValue(forKey: "tags").add(value)
    }
#endif

#if canImport(ObjectiveC)
    @objc(removeTags:)
    @NSManaged public func removeFromTags(_ values: NSSet)
#else
    public func removeFromTags(_ values: NSSet) {
        let set = mutableSetValue(forKey: "tags")
        for case let value as NSManagedObject in values.allObjects { set.remove(value) }
    }
#endif

}
