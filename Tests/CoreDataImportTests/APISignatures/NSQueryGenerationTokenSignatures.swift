import Foundation
import CoreData

extension APISignatures {
    static func nsQueryGenerationToken(_ check: inout Checks) {
        check("NSQueryGenerationToken.copy(with:)") {
            let _: (NSQueryGenerationToken) -> (NSZone?) -> Any = NSQueryGenerationToken.copy(with:)
        }
        check("NSQueryGenerationToken") {
            let _: KeyPath<NSQueryGenerationToken, Int> = \.hashValue
            let _: KeyPath<NSQueryGenerationToken, String> = \.description
        }
        check("NSQueryGenerationToken.current") {
            let _: NSQueryGenerationToken = NSQueryGenerationToken.current
        }
    }
}
