import Foundation
import OpenCoreData
import OpenCoreDataCore

// `value as CVarArg`, as Core Data code writes predicate arguments on Apple's platforms
// (`NSPredicate(format: "id == %@", id as CVarArg)`), where Foundation makes these types
// `CVarArg`; Foundation on Linux makes only `NSString` and the numbers so. The predicate
// parser reads such an argument as the value it is. Passed as a C variable argument instead
// (`withVaList`, `String(format: "%@", id as CVarArg)`), each is an `NSString` of its
// description, which `NSPredicate(format:arguments:)` reads back as the value itself
// (`CVarArgValues`).

extension UUID: @retroactive CVarArg {
    public var _cVarArgEncoding: [Int] { CVarArgValues.encoding(of: self) }
}

extension Date: @retroactive CVarArg {
    public var _cVarArgEncoding: [Int] { CVarArgValues.encoding(of: self) }
}

extension URL: @retroactive CVarArg {
    public var _cVarArgEncoding: [Int] { CVarArgValues.encoding(of: self) }
}

extension Data: @retroactive CVarArg {
    public var _cVarArgEncoding: [Int] { CVarArgValues.encoding(of: self) }
}

extension Decimal: @retroactive CVarArg {
    public var _cVarArgEncoding: [Int] { CVarArgValues.encoding(of: self) }
}

extension NSNumber: @retroactive CVarArg {
    public var _cVarArgEncoding: [Int] { CVarArgValues.encoding(of: self) }
}

extension NSDate: @retroactive CVarArg {
    public var _cVarArgEncoding: [Int] { CVarArgValues.encoding(of: self) }
}

extension NSData: @retroactive CVarArg {
    public var _cVarArgEncoding: [Int] { CVarArgValues.encoding(of: self) }
}

extension NSURL: @retroactive CVarArg {
    public var _cVarArgEncoding: [Int] { CVarArgValues.encoding(of: self) }
}

extension NSUUID: @retroactive CVarArg {
    public var _cVarArgEncoding: [Int] { CVarArgValues.encoding(of: self) }
}

extension NSArray: @retroactive CVarArg {
    public var _cVarArgEncoding: [Int] { CVarArgValues.encoding(of: self) }
}

extension NSDictionary: @retroactive CVarArg {
    public var _cVarArgEncoding: [Int] { CVarArgValues.encoding(of: self) }
}

extension NSSet: @retroactive CVarArg {
    public var _cVarArgEncoding: [Int] { CVarArgValues.encoding(of: self) }
}

extension NSOrderedSet: @retroactive CVarArg {
    public var _cVarArgEncoding: [Int] { CVarArgValues.encoding(of: self) }
}

extension NSNull: @retroactive CVarArg {
    public var _cVarArgEncoding: [Int] { CVarArgValues.encoding(of: self) }
}

extension NSManagedObject: CVarArg {
    public var _cVarArgEncoding: [Int] { CVarArgValues.encoding(of: self) }
}

extension NSManagedObjectID: CVarArg {
    public var _cVarArgEncoding: [Int] { CVarArgValues.encoding(of: self) }
}
