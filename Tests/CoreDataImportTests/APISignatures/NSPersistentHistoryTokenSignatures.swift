import Foundation
import CoreData

extension APISignatures {
    static func nsPersistentHistoryToken(_ check: inout Checks) {
        check("NSPersistentHistoryToken.copy(with:)") {
            let _: (NSPersistentHistoryToken) -> (NSZone?) -> Any = NSPersistentHistoryToken.copy(with:)
        }
        check("NSPersistentHistoryToken") {
            let _: (NSPersistentHistoryToken) -> NSObject = { $0 }
            let _: (NSPersistentHistoryToken) -> any NSSecureCoding = { $0 }
        }
        check("NSPersistentHistoryToken.supportsSecureCoding") {
            let _: Bool = NSPersistentHistoryToken.supportsSecureCoding
        }
        check("NSPersistentHistoryToken.init(coder:)") {
            let _: (NSCoder) -> NSPersistentHistoryToken? = NSPersistentHistoryToken.init(coder:)
        }
        check("NSPersistentHistoryToken.encode(with:)") {
            let _: (NSPersistentHistoryToken) -> (NSCoder) -> Void = NSPersistentHistoryToken.encode(with:)
        }
    }
}
