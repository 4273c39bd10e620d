import OpenCoreDataCore

/// The type of the PostgreSQL store, for `addPersistentStore(ofType:configurationName:at:options:)`
/// and `NSPersistentStoreDescription.type`, with a `postgresql://` URL.
///
/// ```swift
/// let url = URL(string: "postgresql://app@db.example.com/shop")!
/// try coordinator.addPersistentStore(ofType: OCDPostgreSQLStoreType, configurationName: nil, at: url)
/// ```
/// Not in Apple's Core Data, which has no server store.
public let OCDPostgreSQLStoreType = "PostgreSQL"
