import Foundation
import OCDPostgres
import OCDSQL
import OpenCoreDataCore
import OpenCoreDataSQLite

/// The PostgreSQL store (`OCDPostgreSQLStoreType`): Core Data's layout in a PostgreSQL database,
/// which several app servers, workers and tools can share.
///
/// The store's URL is a `postgresql://` URL; everything libpq reads from it (host, port, user,
/// password, `sslmode`, `options=-c search_path=…` to keep the store in a schema of its own)
/// applies. The tables follow Core Data's layout (`PostgresSchemaDefinition`); saves are
/// transactions, sent as pipelined batches (a save of N rows takes a round trip per thousand
/// statements, not per row); each update and delete checks the row's `Z_OPT`, so that a row
/// another server changed since it was read is a conflict for the context's merge policy;
/// keys come from sequences, so that servers never hand out the same one.
///
/// ```swift
/// let url = URL(string: "postgresql://app@db.example.com/shop")!
/// let store = try coordinator.addPersistentStore(ofType: OCDPostgreSQLStoreType, configurationName: nil, at: url)
/// ```
///
/// Uniqueness constraints are checked before a save writes and kept by deferred exclusion
/// constraints; predicates that need Swift's string rules are answered in memory over a wider
/// fetch (see `PostgresDialect`).
///
/// Differences from the SQLite store, and what is not done yet, are in `Docs/Differences.md`
/// ("The PostgreSQL store"). In short: a writer connection used under the store's lock and a
/// pool of readers (`PostgresReaderPool`) that read in parallel; other servers' saves told to
/// the coordinator (`PostgresChangeListener`); persistent history in Core Data's tables
/// (`PostgresHistoryTables`); query generations as `REPEATABLE READ` snapshots
/// (`PostgresPinnedReader`); lightweight migrations in place (`PostgresLightweightMigration`).
final class PostgreSQLStore: NSPersistentStore, StoreSeam, @unchecked Sendable {
    // @unchecked Sendable: the writer connection, the reader pool, the metadata and the save's
    // state are used only under `lock` (the pool itself is shared by reads); `schema` is set while
    // the store loads, before any other thread can see the store, and only read afterwards.

    override var type: String { OCDPostgreSQLStoreType }

    /// The connection; nil once the store is unloaded.
    var connection: PostgresConnection?
    @exclusivity(unchecked) var schema: SQLiteSchema!
    /// The server and database, as messages name them (`database "shop" on db:5432`).
    private(set) var place = "the PostgreSQL store"
    /// Set when the application changed the metadata; written with the next save.
    var metadataNeedsWriting = false
    /// Whether a save's transaction is open on `connection`, between `prepareSave` and its
    /// commit or rollback.
    var savePrepared = false
    /// The connections reads use; set once the store is loaded, under `lock`.
    private var readers: PostgresReaderPool?
    /// Tells the coordinator of other connections' saves, when the store was asked to
    /// (`NSPersistentStoreRemoteChangeNotificationPostOptionKey`); set once, while the store loads.
    private(set) var changeListener: PostgresChangeListener?
    /// The history transaction of the save prepared on `connection`, if it records one; under `lock`.
    var preparedHistory: Int64?
    /// The reader whose snapshot a history request reads (`readingHistoryConsistently`); under `lock`.
    var historyReader: PostgresConnection?
    /// The query generations' connections, closed when the store is removed; under `lock`.
    private var pinnedReaders: [WeakPinnedReader] = []
    private struct WeakPinnedReader { weak var reader: PostgresPinnedReader? }
    /// How many `ZTOMBSTONE<n>` columns `ACHANGE` had when a save last counted them; under `lock`.
    var tombstoneColumnsSeen = 0

    /// The server process of the writer connection, whose saves the listener does not tell.
    var writerProcessID: Int32? { lock.withLock { connection?.backendProcessID } }

    deinit { changeListener?.stop() }

    /// The framework version written to new stores' metadata (`NSPersistenceFrameworkVersion`).
    static let frameworkVersion = 1

    // MARK: Loading

    func load(model: NSManagedObjectModel, entities: [NSEntityDescription]) throws {
        try lock.withLock {
            guard let url, ["postgresql", "postgres"].contains(url.scheme?.lowercased() ?? "") else {
                throw CoreDataError.store(.persistentStoreOpen,
                                          "A PostgreSQL store needs a postgresql:// URL, not \(url?.absoluteString ?? "none")", url: url)
            }
            if model.isInferredFromStore {
                throw CoreDataError.store(.persistentStoreOpen, "A model inferred from a store's tables cannot open a PostgreSQL store", url: url)
            }
            let connection = try Self.connect(to: url)
            place = connection.place
            try failing(.persistentStoreOpen) { try applyStatementTimeout(on: connection) }
            do {
                try connection.transaction {
                    // Two servers opening one empty database at once: the second waits, then finds
                    // the store the first made.
                    try connection.query("SELECT pg_advisory_xact_lock(hashtext(current_schema()))")
                    let kind = try PostgresStoreKind(of: connection)
                    if StoreOptionFlag.isOn(options?[StoreCreationOption.mustBeNew]), kind != .empty {
                        throw CoreDataError.store(.persistentStoreOpen, "Can't make a new store in \(place): it is not empty", url: url)
                    }
                    switch kind {
                    case .empty:
                        guard !isReadOnly else {
                            throw CoreDataError.store(.persistentStoreOpen, "The read-only store in \(place) does not exist", url: url)
                        }
                        schema = SQLiteSchema(entities: entities, storedNumbers: model.storedEntityNumbers)
                        try createStore(on: connection, model: model)
                        try prepareHistory(on: connection)
                    case .coreDataStore:
                        try readMetadata(from: connection)
                        // First: a store with history added without tracking is read-only, and
                        // then not migrated.
                        try prepareHistory(on: connection)
                        schema = try migratedIfAsked(to: model, entities: entities, on: connection)
                            ?? SQLiteSchema(entities: entities, storedNumbers: try storedNumbers(of: entities, on: connection))
                        try checkTables(on: connection)
                    case .otherDatabase(let tables):
                        throw CoreDataError.store(.persistentStoreInvalidType,
                                                  "The \(place) is not an OpenCoreData store: it has tables (\(tables.prefix(5).joined(separator: ", "))) but no Z_METADATA and Z_PRIMARYKEY",
                                                  url: url)
                    }
                }
            } catch let error as PostgresError {
                throw CoreDataError.store(.persistentStoreOpen, "The store in \(place) could not be opened: \(error)", url: url, underlying: error)
            }
            schema.prepareForReaders()
            self.connection = connection
            readers = readerPool(url: url)
            if StoreOptionFlag.isOn(options?[NSPersistentStoreRemoteChangeNotificationPostOptionKey]) {
                let lastTransaction = tracksHistory ? try historyBounds().last : nil
                let listener = try failing(.persistentStoreOpen) {
                    try PostgresChangeListener(url: url, storeID: identifier, store: self, coordinator: persistentStoreCoordinator,
                                               lastTransaction: lastTransaction)
                }
                listener.start()
                changeListener = listener
            }
        }
    }

    func unload() {
        changeListener?.stop()
        let (readers, pins) = lock.withLock {
            connection = nil
            defer {
                self.readers = nil
                pinnedReaders = []
            }
            return (self.readers, pinnedReaders.compactMap(\.reader))
        }
        readers?.close()
        // Outside the store's lock: a read through a pin takes the pin's lock, then the store's.
        for pin in pins { pin.close() }
    }

    /// A connection to the database `url` names, or 134080-style error naming the server.
    static func connect(to url: URL) throws -> PostgresConnection {
        do {
            return try PostgresConnection(url: url.absoluteString)
        } catch let error as PostgresError {
            throw CoreDataError.store(.persistentStoreOpen, error.description, url: url, underlying: error)
        }
    }

    /// `OCDPostgreSQLStatementTimeoutOption`: the longest a statement may run, in seconds (0: no
    /// limit), set on every session of the connection.
    private func applyStatementTimeout(on connection: PostgresConnection) throws {
        let option = options?[OCDPostgreSQLStatementTimeoutOption]
        guard option != nil else { return }
        guard let seconds = (option as? NSNumber)?.doubleValue ?? (option as? Double), seconds.isFinite, seconds >= 0,
              seconds * 1000 < Double(Int32.max) else {
            throw CoreDataError.store(.persistentStoreOpen,
                                      "OCDPostgreSQLStatementTimeoutOption must be a number of seconds from 0 (no limit) up, not \(option!)", url: url)
        }
        let milliseconds = seconds == 0 ? 0 : max(1, Int((seconds * 1000).rounded()))
        connection.sessionStatements = ["SET statement_timeout = \(milliseconds)"]
        try connection.execute("SET statement_timeout = \(milliseconds)")
    }

    /// Drops the store's tables and sequences — `Z_PRIMARYKEY`, `Z_METADATA`, `Z_MODELCACHE`,
    /// the table of each inheritance tree `Z_PRIMARYKEY` lists and its key sequence, and the
    /// join tables (`Z_<n>…`) — so that a new store can be made in their place. Other tables
    /// of the schema are left as they are; a database without `Z_METADATA` is not touched.
    func destroyFiles() throws -> Bool {
        guard let url, !isReadOnly else { return false }
        let connection = try Self.connect(to: url)
        try failing(.persistentStoreOperation) {
            try connection.transaction {
                guard try connection.tableExists("Z_METADATA") else { return }
                var tables: [String] = ["Z_METADATA", "Z_MODELCACHE"]
                var sequences: [String] = []
                if try connection.tableExists("Z_PRIMARYKEY") {
                    let roots = try connection.query("SELECT Z_NAME FROM Z_PRIMARYKEY WHERE (Z_SUPER = 0 OR Z_SUPER IS NULL) AND Z_ENT < 16000")
                    for row in 0..<roots.rowCount {
                        guard let name = roots.string(row, 0) else { continue }
                        let table = "Z" + SQLiteSchema.columnStem(name)
                        tables.append(table)
                        sequences.append(PostgresSchemaDefinition.sequence(ofTable: table))
                    }
                    tables.append("Z_PRIMARYKEY")
                    tables += PostgresHistoryTables.tables
                }
                let joins = try connection.query(#"SELECT tablename FROM pg_tables WHERE schemaname = current_schema() AND tablename ~ '^z_[0-9]+[a-z0-9_]*$'"#)
                tables += (0..<joins.rowCount).compactMap { joins.string($0, 0) }
                for table in tables { try connection.execute("DROP TABLE IF EXISTS \(table)") }
                for sequence in sequences { try connection.execute("DROP SEQUENCE IF EXISTS \(sequence)") }
            }
        }
        return true
    }

    /// The coordinator compares the version hashes of the store's metadata with the model's.
    var comparesItselfWithModel: Bool { false }
    /// The store is where its URL says, on a server: a new URL names another database.
    var movesWithItsURL: Bool { false }
    /// Keys are integers, which batched fetches page through.
    var answersKeyFetches: Bool { true }

    /// The Z_ENT of each entity the store lists in `Z_PRIMARYKEY`, when it lists every one of
    /// `entities` (else the model's own numbering, which `checkTables` then finds wanting).
    private func storedNumbers(of entities: [NSEntityDescription], on connection: PostgresConnection) throws -> [String: Int64]? {
        // History's entities (16001…) are not the model's.
        let result = try connection.query("SELECT Z_ENT, Z_NAME FROM Z_PRIMARYKEY WHERE Z_ENT < 16000")
        var numbers: [String: Int64] = [:]
        for row in 0..<result.rowCount {
            if let name = result.string(row, 1) { numbers[name] = result.int64(row, 0) }
        }
        let all = NSManagedObjectModel.withSubentities(entities)
        return all.allSatisfy({ numbers[$0.name ?? ""] != nil }) ? numbers : nil
    }

    // MARK: Migrating

    /// Migrates the store to `model` when its version hashes are not the model's and the options
    /// ask for a migration (`NSMigratePersistentStoresAutomaticallyOption` with
    /// `NSInferMappingModelAutomaticallyOption`): in place, as DDL in the transaction that opens
    /// the store (`PostgresLightweightMigration`), from the model the store was written with (a
    /// version of the model's file, or the store's own `Z_MODELCACHE`). Returns the migrated
    /// layout; nil when there is nothing to migrate (the coordinator then compares the hashes).
    /// A migration through a mapping model of the application's own is refused (134110): it
    /// would copy the store through an `NSMigrationManager` into a new one, which a server
    /// store has no place for yet.
    private func migratedIfAsked(to model: NSManagedObjectModel, entities: [NSEntityDescription],
                                 on connection: PostgresConnection) throws -> SQLiteSchema? {
        let planner = StoreMigrationPlanner(destination: model, configuration: configurationName, options: options, url: url)
        guard !isReadOnly, planner.isMigrationRequested, !StoreOptionFlag.isOn(options?[NSIgnorePersistentStoreVersioningOption]) else {
            return nil
        }
        let metadata = storedMetadata
        func hashDifferences(_ candidate: NSManagedObjectModel) -> [StoreDifference] {
            StoreDifference.versionHashDifferences(in: metadata, entities: Self.entities(of: candidate, configuration: configurationName),
                                                   exactHashesOnly: true)
        }
        guard !hashDifferences(model).isEmpty, let url else { return nil }
        let plan = try planner.plan(metadata: metadata, storedModel: { try PostgresStoreDatabase.storedModel(on: connection, url: url) },
                                    fits: { hashDifferences($0).isEmpty })
        guard case .inferred(let found, let mapping) = plan else {
            throw CoreDataError.store(.migration,
                                      "The store in \(place) could not be migrated: a migration through a mapping model of the application's own is not done for the PostgreSQL store (a lightweight migration is)",
                                      url: url)
        }
        let sourceEntities = Self.entities(of: found.model, configuration: configurationName)
        let source = SQLiteSchema(entities: sourceEntities, storedNumbers: try storedNumbers(of: sourceEntities, on: connection))
        let migration = PostgresLightweightMigration(
            connection: connection, source: source, destinationModel: model, destinationEntities: entities, mapping: mapping,
            storedNumbers: try allStoredNumbers(on: connection), place: place, url: url)
        do {
            let (migrated, destination) = try migration.run(metadata: metadata, uuid: identifier)
            storedMetadata = migrated
            return destination
        } catch let error as PostgresError where !error.isConnectionFailure {
            throw CoreDataError.store(.migration, "The store in \(place) could not be migrated: \(error)", url: url, underlying: error)
        }
    }

    /// The entities a store of `configuration` holds in `model`, with their sub-entities.
    private static func entities(of model: NSManagedObjectModel, configuration: String?) -> [NSEntityDescription] {
        NSManagedObjectModel.withSubentities(model.entities(forConfigurationName: configuration) ?? model.entities)
    }

    /// `Z_PRIMARYKEY`'s entities: name → `Z_ENT` (history's left out).
    private func allStoredNumbers(on connection: PostgresConnection) throws -> [String: Int64] {
        let result = try connection.query("SELECT Z_ENT, Z_NAME FROM Z_PRIMARYKEY WHERE Z_ENT < 16000")
        var numbers: [String: Int64] = [:]
        for row in 0..<result.rowCount { if let name = result.string(row, 1) { numbers[name] = result.int64(row, 0) } }
        return numbers
    }

    /// Refuses a store whose tables lack a table or column the model needs (134100), naming it.
    private func checkTables(on connection: PostgresConnection) throws {
        let result = try connection.query("""
            SELECT upper(table_name), upper(column_name) FROM information_schema.columns WHERE table_schema = current_schema()
            """)
        var columns: [String: Set<String>] = [:]
        for row in 0..<result.rowCount {
            columns[result.string(row, 0) ?? "", default: []].insert(result.string(row, 1) ?? "")
        }
        func missing(_ what: String) -> CocoaError {
            CoreDataError.store(.persistentStoreIncompatibleVersionHash,
                                "The store in \(place) does not fit the model: \(what)", url: url)
        }
        // PostgreSQL keeps the first 63 bytes of a longer name.
        func stored(_ name: String) -> String { PostgresSchemaDefinition.truncated(name).uppercased() }
        for table in schema.tables {
            guard let have = columns[stored(table.name)] else {
                throw missing("it has no table \(table.name) for entity \(table.root.name ?? "?")")
            }
            for column in ["Z_PK", "Z_ENT", "Z_OPT"] + table.columns.map(\.name) where !have.contains(stored(column)) {
                let owner = table.entities.first { mapping in
                    mapping.attributeColumns.contains(column) || mapping.toOneColumns.contains(column)
                }?.entity.name ?? table.root.name ?? "?"
                throw missing("its table \(table.name) has no column \(column) (entity \(owner))")
            }
        }
        for join in schema.distinctJoinTables where columns[stored(join.name)] == nil {
            throw missing("it has no join table \(join.name)")
        }
    }

    // MARK: Creating

    private func createStore(on connection: PostgresConnection, model: NSManagedObjectModel) throws {
        for statement in PostgresSchemaDefinition.creationStatements(for: schema) { try connection.execute(statement) }
        let rows = schema.orderedEntities.map { entity -> (sql: String, arguments: [SQLValue]) in
            let mapping = schema.mapping(for: entity)!
            return ("INSERT INTO Z_PRIMARYKEY (Z_ENT, Z_NAME, Z_SUPER, Z_MAX) VALUES (?, ?, ?, 0)",
                    [.integer(mapping.number), .text(entity.name ?? ""),
                     .integer(entity.superentity.flatMap { schema.mapping(for: $0)?.number } ?? 0)])
        }
        _ = try connection.runBatch(rows)
        var metadata = model.versionMetadata(for: schema.orderedEntities)
        metadata[NSStoreTypeKey] = OCDPostgreSQLStoreType
        metadata[NSStoreUUIDKey] = identifier
        metadata[StoreMetadataKey.frameworkVersion] = Self.frameworkVersion
        storedMetadata = metadata
        try writeMetadata(on: connection)
        if let cache = StoreModelCache.content(for: model) {
            try connection.run("INSERT INTO Z_MODELCACHE (Z_CONTENT) VALUES (?)", [.blob(cache)])
        }
    }

    // MARK: Metadata

    private func readMetadata(from connection: PostgresConnection) throws {
        var metadata = try PostgresMetadataTable.read(from: connection, place: place, url: url)
        if let problem = StoreMetadataValidation.problem(in: metadata) {
            throw CoreDataError.store(.persistentStoreInvalidType,
                                      "The store in \(place) has metadata (Z_METADATA) Core Data would not write: \(problem)", url: url)
        }
        if let uuid = metadata[NSStoreUUIDKey] as? String { identifier = uuid }
        metadata[NSStoreUUIDKey] = identifier
        storedMetadata = metadata
    }

    func writeMetadata(on connection: PostgresConnection) throws {
        if let problem = StoreMetadataValidation.problem(in: storedMetadata) {
            throw CoreDataError.store(.persistentStoreSave, "The metadata for the store in \(place) cannot be saved: \(problem)", url: url)
        }
        try PostgresMetadataTable.write(storedMetadata, uuid: identifier, on: connection, place: place, url: url)
    }

    override var metadata: [String: Any]! {
        get { super.metadata }
        set {
            lock.withLock {
                var updated = StoreMetadataValidation.keepingCoreDataKeys(of: storedMetadata, in: newValue ?? [:])
                updated[NSStoreUUIDKey] = identifier
                storedMetadata = updated
                metadataNeedsWriting = true
            }
        }
    }

    override class func metadataForPersistentStore(with url: URL) throws -> [String: Any] {
        let connection = try connect(to: url)
        do {
            return try PostgresMetadataTable.read(from: connection, place: connection.place, url: url)
        } catch let error as PostgresError {
            throw CoreDataError.store(.persistentStoreOpen, error.description, url: url, underlying: error)
        }
    }

    override class func setMetadata(_ metadata: [String: Any]?, forPersistentStoreAt url: URL) throws {
        let connection = try connect(to: url)
        do {
            try connection.transaction {
                let stored = try PostgresMetadataTable.read(from: connection, place: connection.place, url: url)
                var updated = StoreMetadataValidation.keepingCoreDataKeys(of: stored, in: metadata ?? [:])
                let uuid = (stored[NSStoreUUIDKey] as? String) ?? UUID().uuidString
                updated[NSStoreUUIDKey] = uuid
                try PostgresMetadataTable.write(updated, uuid: uuid, on: connection, place: connection.place, url: url)
            }
        } catch let error as PostgresError {
            throw CoreDataError.store(.persistentStoreSave, error.description, url: url, underlying: error)
        }
    }

    // MARK: The seam

    func execute(_ fetch: StoreFetch) throws -> StoreFetchResult { try reading(for: fetch.context) { try executeFetch(fetch, on: $0) } }

    func snapshot(for objectID: NSManagedObjectID, context: NSManagedObjectContext?) throws -> RowSnapshot? {
        try reading(for: context) { try readSnapshots(for: [objectID], on: $0).first }
    }

    func snapshots(for objectIDs: [NSManagedObjectID], context: NSManagedObjectContext?) throws -> [RowSnapshot] {
        try reading(for: context) { try readSnapshots(for: objectIDs, on: $0) }
    }

    func relatedSnapshots(of sources: [NSManagedObjectID], through relationship: NSRelationshipDescription,
                          context: NSManagedObjectContext?) throws -> [NSManagedObjectID: [RowSnapshot]] {
        try reading(for: context) { try readRelatedSnapshots(of: sources, through: relationship, on: $0) }
    }

    /// Keeps the database as it is now for a query generation: a connection of its own in a
    /// `REPEATABLE READ` transaction (`PostgresPinnedReader`).
    func pinCurrentGeneration() throws -> (any StoreGenerationPin)? {
        guard let url, lock.withLock({ readers }) != nil else { return nil }
        let place = self.place
        let pin = try failing(.persistentStoreOperation) {
            try PostgresPinnedReader(connect: {
                let connection = try PostgresConnection(url: url.absoluteString)
                try applyStatementTimeout(on: connection)
                return connection
            }, storeRemoved: { [weak self] in
                self?.lock.withLock({ self?.readers }) == nil
                    ? CoreDataError.make(.persistentStoreOperation, "The store in \(place) has been removed from its coordinator") : nil
            })
        }
        lock.withLock {
            pinnedReaders.removeAll { $0.reader == nil }
            pinnedReaders.append(WeakPinnedReader(reader: pin))
        }
        return pin
    }

    /// Runs a read of `context`: on its query generation's snapshot when it is pinned to one,
    /// else on one of the store's readers.
    private func reading<Result>(for context: NSManagedObjectContext?, _ body: (PostgresConnection) throws -> Result) throws -> Result {
        if let context, let pin = try context.generationPin(for: self) as? PostgresPinnedReader {
            return try failing(.persistentStoreOperation) { try pin.withConnection(body) }
        }
        return try reading(body)
    }

    func prepareSave(_ changes: SaveChanges) throws -> SaveOutcome { try writeChanges(changes) }
    func commitPreparedSave() throws { try commitChanges() }
    func rollbackPreparedSave() { rollbackChanges() }

    func newPermanentIDs(for objects: [NSManagedObject]) throws -> [NSManagedObjectID] {
        try lock.withLock {
            guard !isReadOnly else {
                throw CoreDataError.store(.persistentStoreSave, "The store in \(place) is read-only: it gives out no permanent IDs", url: url)
            }
            let connection = try liveConnection()
            return try failing(.persistentStoreSave) {
                try allocatePermanentIDs(for: objects.map { NSManagedObjectID(temporaryFor: $0.entity) }, on: connection)
            }
        }
    }

    /// Runs a read on one of the store's reader connections (`PostgresReaderPool`), outside the
    /// store's lock: reads run in parallel with each other and with a save being written, and
    /// see the last commit — never a save's uncommitted rows, and a failed read never ends a
    /// save's transaction. Names the store when it fails.
    func reading<Result>(_ body: (PostgresConnection) throws -> Result) throws -> Result {
        guard let readers = lock.withLock({ self.readers }) else {
            throw CoreDataError.make(.persistentStoreOperation, "The store in \(place) has been removed from its coordinator")
        }
        return try failing(.persistentStoreOperation) {
            do {
                return try readers.withConnection(body)
            } catch let error as PostgresError where error.isConnectionFailure {
                // An idle reader the server dropped (a restart, a failover) fails its next read:
                // a read changes nothing, so it runs once more, on a new connection.
                return try readers.withConnection(body)
            }
        }
    }

    /// The reader connections, opened as the writer was (with its statement timeout).
    private func readerPool(url: URL) -> PostgresReaderPool {
        let option = options?[NSPersistentStoreConnectionPoolMaxSizeKey]
        let size = (option as? NSNumber)?.intValue ?? (option as? Int) ?? (option as? String).flatMap { Int($0) }
        let place = self.place
        return PostgresReaderPool(capacity: size ?? PostgresReaderPool.defaultCapacity, connect: { [unowned self] in
            let reader = try PostgresConnection(url: url.absoluteString)
            try applyStatementTimeout(on: reader)
            return reader
        }, closedError: {
            CoreDataError.make(.persistentStoreOperation, "The store in \(place) has been removed from its coordinator")
        })
    }

    /// Runs `body`, turning a PostgreSQL error into a Core Data error of `code` naming the store.
    func failing<Result>(_ code: CocoaError.Code, _ body: () throws -> Result) throws -> Result {
        do {
            return try body()
        } catch let error as PostgresError {
            throw CoreDataError.store(code, error.description, url: url, underlying: error)
        }
    }

    /// The connection, connected again if the server dropped it (outside a save: a save whose
    /// connection broke fails, and the next one reconnects).
    func liveConnection() throws -> PostgresConnection {
        guard let connection else {
            throw CoreDataError.make(.persistentStoreOperation, "The store in \(place) has been removed from its coordinator")
        }
        if !connection.isOpen {
            try failing(.persistentStoreOperation) { try connection.reconnect() }
        }
        return connection
    }
}

/// What a database holds, as the PostgreSQL store finds it.
enum PostgresStoreKind: Equatable {
    case empty, coreDataStore
    case otherDatabase(tables: [String])

    init(of connection: PostgresConnection) throws {
        let result = try connection.query("SELECT upper(tablename) FROM pg_tables WHERE schemaname = current_schema() ORDER BY 1")
        let tables = (0..<result.rowCount).compactMap { result.string($0, 0) }
        if tables.isEmpty {
            self = .empty
        } else if tables.contains("Z_METADATA") && tables.contains("Z_PRIMARYKEY") {
            self = .coreDataStore
        } else {
            self = .otherDatabase(tables: tables)
        }
    }
}

/// The longest a statement of the PostgreSQL store may run, in seconds (an `NSNumber` or
/// `Double` in the options of `addPersistentStore`); a statement that runs longer fails with an
/// error naming it. An OpenCoreData option: Core Data has no server store.
public let OCDPostgreSQLStatementTimeoutOption = "OCDPostgreSQLStatementTimeoutOption"

/// How the coordinator, which cannot name this module, finds the PostgreSQL store (see
/// `BuiltInStores`).
extension BuiltInStores: ServerStoresProviding {
    package static var serverStoreClasses: [String: NSPersistentStore.Type] { [OCDPostgreSQLStoreType: PostgreSQLStore.self] }
}
