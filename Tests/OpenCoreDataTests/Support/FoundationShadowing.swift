import OpenCoreData

// A file that imports both Foundation and OpenCoreData sees two `NSPredicate` types (and two
// of each predicate and sort class); expressions pick OpenCoreData's, but type annotations are
// ambiguous. One typealias per name in the importing module settles it for the whole module —
// the same lines an application adds (see README, "Foundation's predicate classes").
typealias NSPredicate = OpenCoreData.NSPredicate
typealias NSComparisonPredicate = OpenCoreData.NSComparisonPredicate
typealias NSCompoundPredicate = OpenCoreData.NSCompoundPredicate
typealias NSExpression = OpenCoreData.NSExpression
typealias NSSortDescriptor = OpenCoreData.NSSortDescriptor
