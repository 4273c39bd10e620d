// The module applications import: the object graph and its stores (OpenCoreDataCore) and the
// SQLite store (OpenCoreDataSQLite), under one name, as Core Data is one framework.
@_exported import OpenCoreDataCore
@_exported import OpenCoreDataSQLite
@_exported import OpenCoreDataFileStores
