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
