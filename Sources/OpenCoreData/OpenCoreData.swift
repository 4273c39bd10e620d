// The module applications import: the object graph and its stores (OpenCoreDataCore) and the
// SQLite store (OpenCoreDataSQLite), under one name, as Core Data is one framework.
@_exported import OpenCoreDataCore
@_exported import OpenCoreDataSQLite
@_exported import OpenCoreDataFileStores

// Foundation on Linux declares classes of these five names too, with the initialisers and
// properties Core Data code uses marked unavailable. Re-exported by a scoped import, a name
// takes precedence over the one a whole-module import brings, so a file that imports both
// Foundation and this module (or `CoreData`) names OpenCoreData's classes, as a type, in an
// extension or in an initialiser call, without a typealias of its own.
@_exported import class OpenCoreDataCore.NSPredicate
@_exported import class OpenCoreDataCore.NSComparisonPredicate
@_exported import class OpenCoreDataCore.NSCompoundPredicate
@_exported import class OpenCoreDataCore.NSExpression
@_exported import class OpenCoreDataCore.NSSortDescriptor
