import OpenCoreDataCore

// Foundation declares classes of these names too, and this module imports both: its own
// declarations of the names decide, as OpenCoreDataCore's own declarations do there.
typealias NSPredicate = OpenCoreDataCore.NSPredicate
typealias NSComparisonPredicate = OpenCoreDataCore.NSComparisonPredicate
typealias NSCompoundPredicate = OpenCoreDataCore.NSCompoundPredicate
typealias NSExpression = OpenCoreDataCore.NSExpression
typealias NSSortDescriptor = OpenCoreDataCore.NSSortDescriptor
