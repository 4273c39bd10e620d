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

    // Added by ocd port: calls the validate<Key> methods, as key-value coding does with selectors.
#if !canImport(ObjectiveC)
    public override func validateValue(_ value: AutoreleasingUnsafeMutablePointer<AnyObject?>, forKey key: String) throws {
        try super.validateValue(value, forKey: key)
        switch key.prefix(1).uppercased() + key.dropFirst() {
        case "Name": try validateName(value)
        default: break
        }
    }
#endif
}

extension Tag {

#if canImport(ObjectiveC)
    @objc
#endif
    public func validateName(_ value: AutoreleasingUnsafeMutablePointer<AnyObject?>) throws {
        guard let name = value.pointee as? String, !name.trimmingCharacters(in: .whitespaces).isEmpty else {
            throw NSError(domain: NSCocoaErrorDomain, code: NSValidationMissingMandatoryPropertyError,
                          userInfo: [NSValidationKeyErrorKey: "name", NSValidationObjectErrorKey: self])
        }
    }
}
