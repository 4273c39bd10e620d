import Foundation
import Testing
@testable import OpenCoreDataCore

/// Which classes a save asks about each property through `validateValue(_:forKey:)`: those that
/// override it, themselves or through a superclass — found through the Swift runtime.
@Suite struct ValidateValueOverrideDetectionTests {
    class Overriding: NSManagedObject {
        override func validateValue(_ value: AutoreleasingUnsafeMutablePointer<AnyObject?>, forKey key: String) throws {
            try super.validateValue(value, forKey: key)
        }
    }
    final class Inheriting: Overriding {}
    class Plain: NSManagedObject {
        override func validateForInsert() throws { try super.validateForInsert() }
    }
    final class PlainLeaf: Plain {}
    final class Generic<Value>: NSManagedObject {
        override func validateValue(_ value: AutoreleasingUnsafeMutablePointer<AnyObject?>, forKey key: String) throws {}
    }

    @Test func classesThatOverrideItOrInheritAnOverrideAreFound() {
        #expect(ValidateValueOverride.isOverridden(by: Overriding.self))
        #expect(ValidateValueOverride.isOverridden(by: Inheriting.self))
        #expect(ValidateValueOverride.isOverridden(by: Generic<Int>.self))
    }

    @Test func classesThatDoNotAreNot() {
        #expect(!ValidateValueOverride.isOverridden(by: NSManagedObject.self))
        #expect(!ValidateValueOverride.isOverridden(by: Plain.self))
        #expect(!ValidateValueOverride.isOverridden(by: PlainLeaf.self))
    }
}
