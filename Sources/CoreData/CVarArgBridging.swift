import Foundation
import OpenCoreData
import OpenCoreDataCore

// `value as CVarArg`, as Core Data code writes predicate arguments on Apple's platforms
// (`NSPredicate(format: "id == %@", id as CVarArg)`), where Foundation makes these types
// `CVarArg`; Foundation on Linux makes only `NSString` and the numbers so. The predicate
// parser reads such an argument as the value it is. Passed as a C variable argument instead
// (`withVaList`, `String(format: "%@", id as CVarArg)`), each is an `NSString` of its
// description, kept alive by `withVaList` for its closure (`_CVarArgObject`, as Foundation's
// `String` is), which `NSPredicate(format:arguments:)` reads back as the value itself
// (`CVarArgValues`). `_cVarArgEncoding` is what `CVarArg` requires; on Linux `withVaList`
// asks `_cVarArgObject` instead, and keeps that string alive for its closure.

extension UUID: @retroactive CVarArg, @retroactive _CVarArgObject {
    public var _cVarArgObject: CVarArg { CVarArgValues.object(for: self) }
    public var _cVarArgEncoding: [Int] { _cVarArgObject._cVarArgEncoding }
}

extension Date: @retroactive CVarArg, @retroactive _CVarArgObject {
    public var _cVarArgObject: CVarArg { CVarArgValues.object(for: self) }
    public var _cVarArgEncoding: [Int] { _cVarArgObject._cVarArgEncoding }
}

extension URL: @retroactive CVarArg, @retroactive _CVarArgObject {
    public var _cVarArgObject: CVarArg { CVarArgValues.object(for: self) }
    public var _cVarArgEncoding: [Int] { _cVarArgObject._cVarArgEncoding }
}

extension Data: @retroactive CVarArg, @retroactive _CVarArgObject {
    public var _cVarArgObject: CVarArg { CVarArgValues.object(for: self) }
    public var _cVarArgEncoding: [Int] { _cVarArgObject._cVarArgEncoding }
}

extension Decimal: @retroactive CVarArg, @retroactive _CVarArgObject {
    public var _cVarArgObject: CVarArg { CVarArgValues.object(for: self) }
    public var _cVarArgEncoding: [Int] { _cVarArgObject._cVarArgEncoding }
}

extension NSNumber: @retroactive CVarArg, @retroactive _CVarArgObject {
    public var _cVarArgObject: CVarArg { CVarArgValues.object(for: self) }
    public var _cVarArgEncoding: [Int] { _cVarArgObject._cVarArgEncoding }
}

extension NSDate: @retroactive CVarArg, @retroactive _CVarArgObject {
    public var _cVarArgObject: CVarArg { CVarArgValues.object(for: self) }
    public var _cVarArgEncoding: [Int] { _cVarArgObject._cVarArgEncoding }
}

extension NSData: @retroactive CVarArg, @retroactive _CVarArgObject {
    public var _cVarArgObject: CVarArg { CVarArgValues.object(for: self) }
    public var _cVarArgEncoding: [Int] { _cVarArgObject._cVarArgEncoding }
}

extension NSURL: @retroactive CVarArg, @retroactive _CVarArgObject {
    public var _cVarArgObject: CVarArg { CVarArgValues.object(for: self) }
    public var _cVarArgEncoding: [Int] { _cVarArgObject._cVarArgEncoding }
}

extension NSUUID: @retroactive CVarArg, @retroactive _CVarArgObject {
    public var _cVarArgObject: CVarArg { CVarArgValues.object(for: self) }
    public var _cVarArgEncoding: [Int] { _cVarArgObject._cVarArgEncoding }
}

extension NSArray: @retroactive CVarArg, @retroactive _CVarArgObject {
    public var _cVarArgObject: CVarArg { CVarArgValues.object(for: self) }
    public var _cVarArgEncoding: [Int] { _cVarArgObject._cVarArgEncoding }
}

extension NSDictionary: @retroactive CVarArg, @retroactive _CVarArgObject {
    public var _cVarArgObject: CVarArg { CVarArgValues.object(for: self) }
    public var _cVarArgEncoding: [Int] { _cVarArgObject._cVarArgEncoding }
}

extension NSSet: @retroactive CVarArg, @retroactive _CVarArgObject {
    public var _cVarArgObject: CVarArg { CVarArgValues.object(for: self) }
    public var _cVarArgEncoding: [Int] { _cVarArgObject._cVarArgEncoding }
}

extension NSOrderedSet: @retroactive CVarArg, @retroactive _CVarArgObject {
    public var _cVarArgObject: CVarArg { CVarArgValues.object(for: self) }
    public var _cVarArgEncoding: [Int] { _cVarArgObject._cVarArgEncoding }
}

extension NSNull: @retroactive CVarArg, @retroactive _CVarArgObject {
    public var _cVarArgObject: CVarArg { CVarArgValues.object(for: self) }
    public var _cVarArgEncoding: [Int] { _cVarArgObject._cVarArgEncoding }
}

extension NSManagedObject: CVarArg, _CVarArgObject {
    public var _cVarArgObject: CVarArg { CVarArgValues.object(for: self) }
    public var _cVarArgEncoding: [Int] { _cVarArgObject._cVarArgEncoding }
}

extension NSManagedObjectID: CVarArg, _CVarArgObject {
    public var _cVarArgObject: CVarArg { CVarArgValues.object(for: self) }
    public var _cVarArgEncoding: [Int] { _cVarArgObject._cVarArgEncoding }
}
