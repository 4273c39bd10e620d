import Foundation
import CoreData

extension APISignatures {
    static func coreDataDefines(_ check: inout Checks) {
        // OpenCoreData declares none of CoreDataDefines.h (every row of CoreDataDefines.md is `not yet`).
    }
}
