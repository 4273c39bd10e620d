/// What reflection (`Mirror`, `dump`, a debugger, a test framework printing a failed
/// expectation) shows of contexts and objects: a few meaningful values, not their stored fields.
///
/// Their fields include unowned references (an object's context, the registry's objects, unowned
/// by design so that either can go away first) and locks: a mirror copies each field it shows,
/// and copying a reference to an object that has already gone away crashes.
extension NSManagedObjectContext: CustomReflectable {
    public var customMirror: Mirror {
        Mirror(self, children: ["name": name as Any, "concurrencyType": concurrencyType], displayStyle: .class)
    }
}

extension NSManagedObject: CustomReflectable {
    public var customMirror: Mirror {
        let id: NSManagedObjectID? = storedObjectID ?? contents.snapshot?.objectID
        return Mirror(self, children: ["entity": entity.name as Any, "objectID": id as Any], displayStyle: .class)
    }
}
