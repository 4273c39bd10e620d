import Foundation
import CoreData

extension APISignatures {
    static func nsManagedObjectModelReference(_ check: inout Checks) {
        check("NSManagedObjectModelReference") {
            let _: NSObject = NSManagedObjectModelReference(model: NSManagedObjectModel(), versionChecksum: "x")
        }
        check("NSManagedObjectModelReference.resolvedModel") {
            let _: KeyPath<NSManagedObjectModelReference, NSManagedObjectModel> = \.resolvedModel
        }
        check("NSManagedObjectModelReference.versionChecksum") {
            let _: KeyPath<NSManagedObjectModelReference, String> = \.versionChecksum
        }
        check("NSManagedObjectModelReference.init(model:versionChecksum:)") {
            let _: (NSManagedObjectModel, String) -> NSManagedObjectModelReference = NSManagedObjectModelReference.init(model:versionChecksum:)
        }
        check("NSManagedObjectModelReference.init(fileURL:versionChecksum:)") {
            let _: (URL, String) -> NSManagedObjectModelReference = NSManagedObjectModelReference.init(fileURL:versionChecksum:)
        }
        check("NSManagedObjectModelReference.init(entityVersionHashes:in:versionChecksum:)") {
            let _: ([AnyHashable: Any], Bundle?, String) -> NSManagedObjectModelReference = NSManagedObjectModelReference.init(entityVersionHashes:in:versionChecksum:)
        }
        check("NSManagedObjectModelReference.init(name:in:versionChecksum:)") {
            let _: (String, Bundle?, String) -> NSManagedObjectModelReference = NSManagedObjectModelReference.init(name:in:versionChecksum:)
        }
    }
}
