import OpenCoreDataCore

// Foundation declares classes of these names too, and this module imports both: its own
// declarations of the names decide, as OpenCoreDataCore's own declarations do there.
package typealias NSPredicate = OpenCoreDataCore.NSPredicate
package typealias NSComparisonPredicate = OpenCoreDataCore.NSComparisonPredicate
package typealias NSCompoundPredicate = OpenCoreDataCore.NSCompoundPredicate
package typealias NSExpression = OpenCoreDataCore.NSExpression
package typealias NSSortDescriptor = OpenCoreDataCore.NSSortDescriptor
