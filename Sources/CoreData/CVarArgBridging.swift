import Foundation
import OpenCoreData
import Synchronization

// `value as CVarArg`, as Core Data code writes predicate arguments on Apple's platforms
// (`NSPredicate(format: "id == %@", id as CVarArg)`), where Foundation makes these types
// `CVarArg`; Foundation on Linux makes only `NSString` and the numbers so. The predicate
// parser reads such an argument as the value it is. Passed to a C variadic function instead
// (`String(format: "%@", id as CVarArg)`), each stands for an object — itself, or its
// description as an `NSString` — kept alive until 4,096 later such arguments have been made,
// as an autorelease pool would keep it.

extension UUID: @retroactive CVarArg {
    public var _cVarArgEncoding: [Int] { CVarArgObjects.encoding(ofDescription: uuidString) }
}

extension Date: @retroactive CVarArg {
    public var _cVarArgEncoding: [Int] { CVarArgObjects.encoding(of: self as NSDate) }
}

extension URL: @retroactive CVarArg {
    public var _cVarArgEncoding: [Int] { CVarArgObjects.encoding(of: self as NSURL) }
}

extension Data: @retroactive CVarArg {
    public var _cVarArgEncoding: [Int] { CVarArgObjects.encoding(of: self as NSData) }
}

extension Decimal: @retroactive CVarArg {
    public var _cVarArgEncoding: [Int] { CVarArgObjects.encoding(of: NSDecimalNumber(decimal: self)) }
}

extension NSNumber: @retroactive CVarArg {
    public var _cVarArgEncoding: [Int] { CVarArgObjects.encoding(of: self) }
}

extension NSDate: @retroactive CVarArg {
    public var _cVarArgEncoding: [Int] { CVarArgObjects.encoding(of: self) }
}

extension NSData: @retroactive CVarArg {
    public var _cVarArgEncoding: [Int] { CVarArgObjects.encoding(of: self) }
}

extension NSURL: @retroactive CVarArg {
    public var _cVarArgEncoding: [Int] { CVarArgObjects.encoding(of: self) }
}

extension NSUUID: @retroactive CVarArg {
    public var _cVarArgEncoding: [Int] { CVarArgObjects.encoding(of: self) }
}

extension NSArray: @retroactive CVarArg {
    public var _cVarArgEncoding: [Int] { CVarArgObjects.encoding(of: self) }
}

extension NSDictionary: @retroactive CVarArg {
    public var _cVarArgEncoding: [Int] { CVarArgObjects.encoding(of: self) }
}

extension NSSet: @retroactive CVarArg {
    public var _cVarArgEncoding: [Int] { CVarArgObjects.encoding(of: self) }
}

extension NSOrderedSet: @retroactive CVarArg {
    public var _cVarArgEncoding: [Int] { CVarArgObjects.encoding(of: self) }
}

extension NSNull: @retroactive CVarArg {
    public var _cVarArgEncoding: [Int] { CVarArgObjects.encoding(of: self) }
}

extension NSManagedObject: CVarArg {
    public var _cVarArgEncoding: [Int] { CVarArgObjects.encoding(ofDescription: description) }
}

extension NSManagedObjectID: CVarArg {
    public var _cVarArgEncoding: [Int] { CVarArgObjects.encoding(ofDescription: description) }
}

/// The objects the encodings above point to, kept alive for the 4,096 encodings that follow.
private enum CVarArgObjects {
    /// The most recent objects, oldest replaced first.
    private final class Recent: @unchecked Sendable {
        // @unchecked Sendable: only touched inside `recent`'s lock.
        var objects: [AnyObject] = []
        var next = 0
    }

    private static let capacity = 4096
    private static let recent = Mutex(Recent())

    /// The encoding of a pointer to `object`, which is kept alive for a while.
    static func encoding(of object: AnyObject) -> [Int] {
        recent.withLock { recent in
            if recent.objects.count < capacity {
                recent.objects.append(object)
            } else {
                recent.objects[recent.next] = object
                recent.next = (recent.next + 1) % capacity
            }
        }
        return [Int(bitPattern: Unmanaged.passUnretained(object).toOpaque())]
    }

    static func encoding(ofDescription text: String) -> [Int] {
        encoding(of: NSString(string: text))
    }
}
