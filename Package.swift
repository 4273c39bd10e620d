// swift-tools-version:6.2
import PackageDescription

let package = Package(
    name: "OpenCoreData",
    products: [
        // What applications import: the object graph with every store.
        .library(name: "OpenCoreData", targets: ["OpenCoreData"]),
        // The PostgreSQL store, a product of its own: applications on the SQLite store never link libpq.
        .library(name: "OpenCoreDataPostgres", targets: ["OpenCoreDataPostgres"]),
        .executable(name: "ocd", targets: ["ocd"]),
        .executable(name: "ocd-bench", targets: ["ocd-bench"]),
        .executable(name: "ocd-crashtest", targets: ["ocd-crashtest"]),
        .executable(name: "ocd-mainqueue", targets: ["ocd-mainqueue"]),
    ],
    targets: [
        // The system SQLite (Debian: libsqlite3-dev).
        .systemLibrary(name: "CSQLite", path: "Sources/CSQLite", providers: [.apt(["libsqlite3-dev"])]),
        // The system libpq, PostgreSQL's client library (Debian: libpq-dev).
        .systemLibrary(name: "CLibPQ", path: "Sources/CLibPQ", providers: [.apt(["libpq-dev"])]),
        // The system zlib (Debian: zlib1g-dev), to inflate the model cache of Core Data's stores.
        .systemLibrary(name: "CZlib", path: "Sources/CZlib", providers: [.apt(["zlib1g-dev"])]),
        // Which CPU a thread runs on (Linux's scheduling calls Swift's Glibc module does not show).
        .target(name: "COCDThreads"),
        // Reading a C variable argument list (`NSPredicate(format:arguments:)`), which Swift cannot.
        .target(name: "COCDVarArgs"),
        // Asking the Swift runtime which implementation of a method a class runs (whether a
        // managed object class overrides `validateValue(_:forKey:)`).
        .target(name: "COCDSwiftRuntime"),
        // SQL as data: statement fragments with their bound values, shared by the SQL engines' layers.
        .target(name: "OCDSQL"),
        // The SQLite layer: connections, statements, transactions. Knows nothing of Core Data.
        .target(name: "OCDSQLite", dependencies: ["CSQLite", "OCDSQL"]),
        // The PostgreSQL layer: connections, statements, transactions over libpq. Knows nothing of Core Data.
        .target(name: "OCDPostgres", dependencies: ["CLibPQ", "OCDSQL"]),
        // The object graph: model, predicates, contexts, the coordinator, the store seam, the
        // in-memory store and NSIncrementalStore. Knows no SQL.
        .target(name: "OpenCoreDataCore", dependencies: ["CZlib", "COCDThreads", "COCDVarArgs", "COCDSwiftRuntime"]),
        // The SQLite store in Core Data's file layout, on the SQLite layer.
        .target(name: "OpenCoreDataSQLite", dependencies: ["OpenCoreDataCore", "OCDSQLite"]),
        // The PostgreSQL store: Core Data's layout in a PostgreSQL database, on the PostgreSQL layer.
        // It shares the SQLite store's layout and predicate compiler, rendered by its own dialect.
        .target(name: "OpenCoreDataPostgres", dependencies: ["OpenCoreDataCore", "OpenCoreDataSQLite", "OCDPostgres"]),
        // The binary and XML stores: atomic stores in files of their own formats.
        .target(name: "OpenCoreDataFileStores", dependencies: ["OpenCoreDataCore", "CZlib"]),
        // The umbrella module applications and `ocd` import.
        .target(name: "OpenCoreData", dependencies: ["OpenCoreDataCore", "OpenCoreDataSQLite", "OpenCoreDataFileStores"]),
        .executableTarget(name: "ocd", dependencies: ["OpenCoreData", "OpenCoreDataCore", "OpenCoreDataSQLite", "OpenCoreDataPostgres"]),
        .executableTarget(name: "ocd-bench", dependencies: ["OpenCoreData", "OpenCoreDataPostgres", "OCDSQLite", "CSQLite", "CLibPQ"]),
        // Kills writer processes at random moments and checks the store each time.
        .executableTarget(name: "ocd-crashtest", dependencies: ["OpenCoreData", "OCDSQLite"]),
        // A program built like a server (an async main) using a main-queue context; run by the tests.
        .executableTarget(name: "ocd-mainqueue", dependencies: ["OpenCoreData"]),
        .testTarget(name: "OCDSQLiteTests", dependencies: ["OCDSQLite"]),
        .testTarget(name: "OCDPostgresTests", dependencies: ["OCDPostgres"]),
        .testTarget(name: "OpenCoreDataTests", dependencies: ["OpenCoreData", "OpenCoreDataCore", "OpenCoreDataSQLite", "OpenCoreDataFileStores",
                                                              "OpenCoreDataPostgres", "OCDSQLite", "OCDPostgres"],
                    resources: [.copy("Resources/Journal.xcdatamodeld")]),
    ],
    swiftLanguageModes: [.v6]
)

// `import CoreData` where Apple's framework does not exist: a module of that name that is
// OpenCoreData, so Core Data code written for Apple's SDK compiles unchanged. On Apple's
// platforms the name is the system framework's, and applications import OpenCoreData.
#if !canImport(Darwin)
package.products.append(.library(name: "CoreData", targets: ["CoreData"]))
package.targets.append(.target(name: "CoreData", dependencies: ["OpenCoreData", "OpenCoreDataCore"]))
// Xcode's Core Data app template as a command, built through `import CoreData`: `swift run ItemsApp`.
package.targets.append(.executableTarget(name: "ItemsApp", dependencies: ["CoreData"], path: "Examples/ItemsApp",
                                         resources: [.copy("ItemsApp.xcdatamodeld")]))
// Files written as for Apple's SDK (`import Foundation` and `import CoreData`), compiled and run.
package.targets.append(.testTarget(name: "CoreDataImportTests", dependencies: ["CoreData"],
                                    resources: [.copy("Library.xcdatamodeld"), .copy("PortSamples")]))
#endif
