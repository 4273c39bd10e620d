import Foundation
import CoreData

extension APISignatures {
    static func nsQueryGenerationToken(_ check: inout Checks) {
        check("NSQueryGenerationToken.copy(with:)") {
            let _: (NSQueryGenerationToken) -> (NSZone?) -> Any = NSQueryGenerationToken.copy(with:)
        }
        check("NSQueryGenerationToken") {
            let _: NSObject = NSQueryGenerationToken.current
            let _: any NSSecureCoding.Type = NSQueryGenerationToken.self
            let _: any NSCopying.Type = NSQueryGenerationToken.self
        }
        check("NSQueryGenerationToken.supportsSecureCoding") {
            let _: Bool = NSQueryGenerationToken.supportsSecureCoding
        }
        check("NSQueryGenerationToken.init(coder:)") {
            let _: (NSCoder) -> NSQueryGenerationToken? = NSQueryGenerationToken.init(coder:)
        }
        check("NSQueryGenerationToken.encode(with:)") {
            let _: (NSQueryGenerationToken) -> (NSCoder) -> Void = NSQueryGenerationToken.encode(with:)
        }
        check("NSQueryGenerationToken.current") {
            let _: NSQueryGenerationToken = NSQueryGenerationToken.current
        }
    }
}
