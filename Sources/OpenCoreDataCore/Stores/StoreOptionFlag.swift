import Foundation

/// How a store option that switches something on is read: `true`, `true as NSNumber` (what
/// `NSPersistentStoreDescription.setOption(_:forKey:)` takes), or a string such as `"YES"`.
package enum StoreOptionFlag {
    package static func isOn(_ value: Any?) -> Bool {
        if let value = value as? Bool { return value }
        if let value = value as? NSNumber { return value.boolValue }
        if let value = value as? String { return ["1", "yes", "true"].contains(value.lowercased()) }
        return false
    }
}

/// Options the coordinator passes to stores it makes itself.
package enum StoreCreationOption {
    /// The store must be made new where its URL says: a store on a server refuses a database
    /// that holds anything (a file store's caller checks that no file is there).
    package static let mustBeNew = "OCDStoreMustBeNew"
}
