// `import CoreData` on platforms without Apple's framework: OpenCoreData under Core Data's
// module name, so that code written for Apple's SDK compiles unchanged. Everything is
// OpenCoreData's, including its own `NSPredicate`, `NSComparisonPredicate`,
// `NSCompoundPredicate`, `NSExpression` and `NSSortDescriptor`, which take precedence over
// Foundation's classes of the same names in a file that imports both modules.
@_exported import OpenCoreData
// As Apple's CoreData module does, `import CoreData` alone brings Foundation (`Date`, `URL`,
// `NSError`, `IndexSet`, …): Xcode's template files import nothing else.
@_exported import Foundation
