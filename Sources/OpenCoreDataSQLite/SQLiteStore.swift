import Foundation
import OCDSQLite
import Synchronization
import OpenCoreDataCore

/// The SQLite store (`NSSQLiteStoreType`), in Core Data's own file layout: a store written by
/// Core Data on an Apple device opens here with the same model, and the other way round.
///
/// One writer connection, used under the store's lock, and a pool of reader connections that
/// fetch and fire faults while a save holds the writer (`SQLiteReaderPool`): under WAL a fetch
/// never waits for a save. WAL journal, `synchronous=NORMAL`.
final class SQLiteStore: NSPersistentStore, StoreSeam, @unchecked Sendable {
    // @unchecked Sendable: the writer connection and the metadata are used only under `lock`;
    // `schema` and `readers` are set while the store loads, before any other thread can see the
    // store, and only read afterwards; each reader is used by one thread at a time.

    override var type: String { NSSQLiteStoreType }

    /// The writer connection.
    var connection: SQLiteConnection?
    // `@exclusivity(unchecked)`: read for every row and every saved object; written only while
    // the store loads.
    @exclusivity(unchecked) var schema: SQLiteSchema!
    /// The reader connections; set once the store is loaded.
    @exclusivity(unchecked) var readers: SQLiteReaderPool?
    /// The writer connection with the fetch statements made for it, to read on under `lock`.
    @exclusivity(unchecked) private var writerAsReader: SQLiteReader?
    /// Whether the file is in WAL mode, where query generations can pin a reader; set at load.
    @exclusivity(unchecked) private var keepsGenerations = false
    /// Where values of external-storage attributes too large for a row are kept; set at load.
    @exclusivity(unchecked) var externalData: ExternalDataFolder!
    /// Posts remote change notifications, when the store was asked to; set at load.
    var remoteChangeWatcher: SQLiteRemoteChangeWatcher?
    /// The history transaction the save being written recorded, and those of the tries a
    /// held save made final so far (see `committingHistory`); under `lock`.
    var historyOfTry: Int64?
    var historyOfHold: [Int64] = []

    override class func metadataForPersistentStore(with url: URL) throws -> [String: Any] {
        try SQLiteStoreFile.metadata(at: url)
    }

    override class func setMetadata(_ metadata: [String: Any]?, forPersistentStoreAt url: URL) throws {
        try SQLiteStoreFile.setMetadata(metadata ?? [:], at: url)
    }

    /// The framework version written to new stores' metadata (`NSPersistenceFrameworkVersion`).
    static let frameworkVersion = 1

    /// The database file of a store opened at `/dev/null` (see `SQLiteNullDeviceStoreFile`).
    private(set) var nullDeviceFile: URL?

    func load(model: NSManagedObjectModel, entities: [NSEntityDescription]) throws {
        guard let givenURL = url else { throw CoreDataError.make(.persistentStoreOpen, "A SQLite store needs a file URL") }
        if SQLiteNullDeviceStoreFile.isNullDevice(givenURL) {
            let file = try SQLiteNullDeviceStoreFile.makeFile()
            nullDeviceFile = file
            do { try load(model: model, entities: entities, at: file) } catch {
                SQLiteNullDeviceStoreFile.remove(file)
                throw error
            }
            return
        }
        try load(model: model, entities: entities, at: givenURL)
    }

    private func load(model: NSManagedObjectModel, entities: [NSEntityDescription], at url: URL) throws {
        lock.lock()
        defer { lock.unlock() }
        if model.isInferredFromStore && !isReadOnly {
            throw CoreDataError.store(.persistentStoreOpen,
                                      "The model of \(url.path) was inferred from the store's tables and can only read it: open the store with NSReadOnlyPersistentStoreOption",
                                      url: url)
        }
        externalData = ExternalDataFolder(store: url)
        let path = url.path
        let exists = FileManager.default.fileExists(atPath: path)
        if !exists && isReadOnly {
            throw CoreDataError.store(.persistentStoreOpen, "The read-only store \(path) does not exist", url: url)
        }
        if !exists {
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        }
        var configuration = SQLiteConnection.Configuration()
        configuration.readOnly = isReadOnly
        configuration.cacheSizeKiB = SQLiteStoreDefaults.pageCacheKiB
        if isReadOnly, (options?[OCDSQLiteReadImmutableOption] as? Bool) == true {
            // Nothing is created beside a closed store (see the option's documentation).
            configuration.immutable = SQLiteStoreFile.isWALDatabaseWithoutLog(path)
        }
        if let seconds = (options?[NSPersistentStoreTimeoutOption] as? NSNumber)?.doubleValue
            ?? (options?[NSPersistentStoreTimeoutOption] as? Double) {
            configuration.busyTimeoutMilliseconds = Int32(clamping: Int((seconds * 1000).rounded()))
        }
        // WAL is switched on only once the file is known to be a Core Data store, so that any
        // other file is left exactly as it was.
        configuration.walMode = false
        let connection: SQLiteConnection
        do {
            connection = try SQLiteConnection(path: path, configuration: configuration)
        } catch {
            throw exists ? SQLiteStoreFileError.unopenable(url, underlying: error)
                : CoreDataError.store(.persistentStoreOpen, "The store \(path) could not be created", url: url, underlying: error)
        }
        do {
            switch try StoreFileKind(of: connection) {
            case .empty:
                guard !isReadOnly else {
                    throw SQLiteStoreFileError.emptyFile(url)
                        ?? CoreDataError.store(.persistentStoreOpen, "The read-only store \(path) is empty", url: url)
                }
                try connection.execute("PRAGMA journal_mode=WAL")
                // An existing store's layout is fitted to its entity numbers instead (`fitSchema`).
                schema = SQLiteSchema(entities: entities, storedNumbers: model.storedEntityNumbers)
                try createStore(on: connection, model: model)
            case .coreDataStore:
                if !isReadOnly { try connection.execute("PRAGMA journal_mode=WAL") }
                try readMetadata(from: connection)
                // Decided before anything is migrated: such a store is not written at all.
                try refuseWritesWithoutTracking(on: connection)
                // A store whose hashes are the model's but whose tables differ is damaged or laid
                // out in a way OpenCoreData does not know: there is nothing to migrate from.
                var planner = StoreMigrationPlanner(destination: model, configuration: configurationName, options: options, url: url)
                let mayMigrate = !isReadOnly && !model.isInferredFromStore && planner.isMigrationRequested && !ignoresVersioning
                    && !model.isConfiguration(withName: configurationName, compatibleWithStoreMetadata: storedMetadata)
                if mayMigrate {
                    // While the store is compared with the model, the source model is looked for
                    // and the new model cache archived (stopped when the tables fit the model
                    // after all, as those of a store whose hashes cannot be reproduced do).
                    // A model whose hashes are all Apple's differs from a store of other hashes:
                    // only a store of hashes OpenCoreData cannot reproduce may fit it after all.
                    let surelyMigrates = entities.allSatisfy(\.hasExactVersionHash)
                    planner.prefetch = MigrationPrefetch(sourceSearch: planner.sourceModelSearch(metadata: storedMetadata),
                                                         storeWorkFirst: surelyMigrates) {
                        StoreModelCache.content(for: model)
                    }
                }
                var comparison: StoreComparison
                let unchanged: StoreTablesSnapshot
                do {
                    // Read once for the comparisons before any migration: nothing changes them.
                    unchanged = try StoreTablesSnapshot(connection: connection, url: url, metadata: storedMetadata)
                    comparison = try fitSchema(of: model, entities: entities, on: connection, url: url, unchanged: unchanged)
                } catch {
                    planner.prefetch?.cancel()
                    throw error
                }
                if comparison.isCompatible { planner.prefetch?.cancel() }
                if !comparison.isCompatible, mayMigrate {
                    // Functions Core Data's triggers call fire while the tables change.
                    try registerFunctions(on: connection)
                    writerHasFunctions = true
                    // The migration leaves the store's metadata and the schema that fits it.
                    (schema, comparison) = try migrate(on: connection, to: model, entities: entities, planner: planner, url: url,
                                                       unchanged: unchanged)
                }
                if let error = comparison.incompatibilityError(url: url) { throw error }
                for adoption in comparison.adoptions { adoption.apply(to: schema) }
                if ignoresVersioning { adoptModelVersion(of: model) }
            case .otherDatabase:
                throw CoreDataError.store(.persistentStoreInvalidType,
                                          "The file \(path) is a SQLite database but not a Core Data store (it has no Z_METADATA and Z_PRIMARYKEY tables)",
                                          url: url)
            }
            try prepareHistory(on: connection)
            if !writerHasFunctions { try registerFunctions(on: connection) }
            try applyPragmas(on: connection)
            try tidyFile(on: connection)
            schema.prepareForReaders()
            readers = readerPool(path: path, configuration: configuration)
            let journalMode = try connection.scalar("PRAGMA journal_mode").stringValue?.lowercased()
            keepsGenerations = !configuration.immutable && journalMode == "wal"
        } catch let error as CocoaError {
            throw error
        } catch let request as MappedMigrationRequest {
            throw request
        } catch let error as SQLiteError where SQLiteStoreFileError.isDamage(error) {
            throw SQLiteStoreFileError.unopenable(url, underlying: error)
        } catch {
            throw CoreDataError.store(.persistentStoreOpen, "The store \(path) could not be opened", url: url, underlying: error)
        }
        self.connection = connection
        writerAsReader = SQLiteReader(connection: connection)
        try startWatchingRemoteChanges(url: url)
    }

    /// Lays out `schema` for `entities` as the store numbers them and compares the store with
    /// it (the store's own names are adopted only once it fits).
    private func fitSchema(of model: NSManagedObjectModel, entities: [NSEntityDescription],
                           on connection: SQLiteConnection, url: URL, unchanged: StoreTablesSnapshot) throws -> StoreComparison {
        let (fitted, comparison) = try Self.fittedSchema(for: entities, of: model, metadata: model.isInferredFromStore ? [:] : storedMetadata,
                                                         on: connection, url: url, unchanged: unchanged,
                                                         comparingHashes: !ignoresVersioning)
        schema = fitted
        return comparison
    }

    /// The layout of `entities` under the store's own entity numbers, and how the store
    /// compares with it. A model inferred from the tables passes no metadata: it has no hashes
    /// of its own to compare.
    /// `laidOut`, a schema already made (a migration's destination), is taken when it is the
    /// same layout.
    /// `unchanged`, what was read of the store's tables already, when they have not changed
    /// since; nil: they are read now.
    /// `comparingHashes` false leaves the version hashes out (`NSIgnorePersistentStoreVersioningOption`).
    static func fittedSchema(for entities: [NSEntityDescription], of model: NSManagedObjectModel, metadata: [String: Any],
                             on connection: SQLiteConnection, url: URL, laidOut: SQLiteSchema? = nil,
                             unchanged: StoreTablesSnapshot? = nil, comparingHashes: Bool = true) throws -> (SQLiteSchema, StoreComparison) {
        // The store's own entity numbers, whatever order its writer numbered them in: the rows'
        // Z_ENT, the Z<n>_ columns and the join tables follow them.
        let tables = try unchanged ?? StoreTablesSnapshot(connection: connection, url: url, metadata: metadata)
        let stored = tables.numbers
        let found = Self.numbers(of: entities, in: stored)
        let numbers = found.isEmpty ? model.storedEntityNumbers : found
        let schema = laidOut.flatMap { $0.isLayout(of: entities, storedNumbers: numbers) ? $0 : nil }
            ?? SQLiteSchema(entities: entities, storedNumbers: numbers)
        let comparison = try StoreCompatibility(schema: schema, tables: tables, connection: connection, url: url)
            .compare(metadata: metadata, comparingHashes: comparingHashes)
        return (schema, comparison)
    }

    /// Migrates the store to `model` as `planner` plans it: an inferred mapping in place, in SQL
    /// (`SQLiteLightweightMigration`), from the model the store was written with
    /// (`SourceModelSearch`); a mapping model of the application's own is handed back to the
    /// coordinator, which performs it through an NSMigrationManager into a new file.
    /// Returns the schema of `entities` in the migrated store, and how the store compares with
    /// it (it fits: a migration that would leave differences is not committed).
    private func migrate(on connection: SQLiteConnection, to model: NSManagedObjectModel, entities: [NSEntityDescription],
                         planner: StoreMigrationPlanner, url: URL,
                         unchanged: StoreTablesSnapshot) throws -> (SQLiteSchema, StoreComparison) {
        let metadata = storedMetadata
        let plan = try planner.plan(metadata: metadata, storedModel: Self.storedModel(on: connection, url: url),
                                    fits: Self.fits(configuration: configurationName, metadata: metadata, on: connection, url: url,
                                                    unchanged: unchanged))
        guard case .inferred(let found, let mapping) = plan else {
            throw MappedMigrationRequest(source: plan.source.model, mapping: plan.mapping, sourceMetadata: metadata)
        }
        let sourceEntities = Self.entities(of: found.model, configuration: configurationName)
        let (source, comparison) = try Self.fittedSchema(for: sourceEntities, of: found.model, metadata: metadata, on: connection, url: url,
                                                         unchanged: unchanged)
        for adoption in comparison.adoptions { adoption.apply(to: source) }
        var migration = SQLiteLightweightMigration(
            connection: connection, source: source, destinationModel: model, destinationEntities: entities, mapping: mapping,
            storedNumbers: unchanged.numbers, url: url)
        migration.progress = options?[OCDMigrationProgressOption] as? Progress
        migration.prefetch = planner.prefetch
        // The layout the store was compared with: the model's, under the store's numbers.
        migration.laidOut = schema
        migration.defersCleanup = StoreOptionFlag.isOn(options?[NSPersistentStoreDeferredLightweightMigrationOptionKey])
        var fitted: (SQLiteSchema, StoreComparison)?
        // External data files that no migrated row names any more go once it is committed.
        var committed = false
        defer { committed ? externalData.commitTry(held: false) : externalData.undoTry() }
        do {
            storedMetadata = try migration.run(metadata: metadata, uuid: identifier) { migrated, destination in
                // Checked before the commit: a migration that leaves a store the model does not
                // open is not committed.
                fitted = try Self.fittedSchema(for: entities, of: model, metadata: migrated, on: connection, url: url, laidOut: destination)
                if let error = fitted?.1.incompatibilityError(url: url) {
                    throw CoreDataError.make(.migration, "The store \(url.path) could not be migrated: afterwards it would still differ from the model: \(error.localizedDescription)",
                                             [NSURLErrorKey: url, NSUnderlyingErrorKey: error])
                }
            }
        } catch let error as SQLiteError where !SQLiteStoreFileError.isDamage(error) && ![5, 6].contains(error.primaryCode) /* BUSY, LOCKED */ {
            // A damaged file or a store another connection holds is reported as when opening.
            throw CoreDataError.make(.migration, "The store \(url.path) could not be migrated: \(error)", [NSURLErrorKey: url, NSUnderlyingErrorKey: error])
        }
        guard let fitted else { throw CoreDataError.make(.migration, "The store \(url.path) was not checked after its migration") }
        committed = true
        return fitted
    }

    /// The model the store was written with (`SourceModelSearch`): a version of `model`'s file,
    /// or the store's model cache, that the store's hashes or tables fit.
    static func sourceModel(for model: NSManagedObjectModel, configuration: String, metadata: [String: Any],
                            options: [AnyHashable: Any]? = nil, on connection: SQLiteConnection, url: URL) throws -> SourceModelSearch.Found {
        try SourceModelSearch(destination: model, configuration: configuration, metadata: metadata, options: options).find(
            storedModel: storedModel(on: connection, url: url),
            fits: fits(configuration: configuration, metadata: metadata, on: connection, url: url),
            url: url)
    }

    /// Reads the model the store keeps in `Z_MODELCACHE`; nil when it keeps none.
    private static func storedModel(on connection: SQLiteConnection, url: URL) -> () throws -> NSManagedObjectModel? {
        {
            try StoreModelCache.content(of: connection, url: url).map { try CompiledModel.model(fromModelCache: $0, source: url) }
        }
    }

    /// Whether the store's hashes and tables fit a candidate source model.
    private static func fits(configuration: String, metadata: [String: Any], on connection: SQLiteConnection,
                             url: URL, unchanged: StoreTablesSnapshot? = nil) -> (NSManagedObjectModel) throws -> Bool {
        { candidate in
            try fittedSchema(for: entities(of: candidate, configuration: configuration), of: candidate, metadata: metadata,
                             on: connection, url: url, unchanged: unchanged).1.isCompatible
        }
    }

    /// The entities a store of `configuration` holds in `model`.
    static func entities(of model: NSManagedObjectModel, configuration: String) -> [NSEntityDescription] {
        NSManagedObjectModel.withSubentities(model.entities(forConfigurationName: configuration) ?? model.entities)
    }

    /// Whether the add's options ask not to compare version hashes (`NSIgnorePersistentStoreVersioningOption`).
    private var ignoresVersioning: Bool { StoreOptionFlag.isOn(options?[NSIgnorePersistentStoreVersioningOption]) }

    /// A store opened without comparing its version hashes records the model's from now on:
    /// Core Data "continues to update the version hash information in the metadata". Written
    /// with the next save.
    private func adoptModelVersion(of model: NSManagedObjectModel) {
        guard !isReadOnly, let updated = model.metadata(storedMetadata, adoptingVersionHashesOf: schema.orderedEntities) else { return }
        storedMetadata = updated
        metadataNeedsWriting = true
    }

    /// The store compares its hashes and tables with the model as it loads, and migrates in place.
    var comparesItselfWithModel: Bool { true }

    func destroyFiles() throws -> Bool {
        if let nullDeviceFile {
            unload()
            SQLiteNullDeviceStoreFile.remove(nullDeviceFile)
            return true
        }
        guard let url, !isReadOnly else { return false }
        try SQLiteStoreFiles.destroyUnlessInUse(at: url)
        return true
    }

    deinit {
        remoteChangeWatcher?.stop()
        if let nullDeviceFile { SQLiteNullDeviceStoreFile.remove(nullDeviceFile) }
    }

    func unload() {
        remoteChangeWatcher?.stop()
        lock.withLock {
            remoteChangeWatcher = nil
            connection = nil
            writerAsReader = nil
        }
        readers?.close()
        lock.withLock { externalData?.storeDidClose() }
        if let nullDeviceFile { SQLiteNullDeviceStoreFile.remove(nullDeviceFile) }
    }

    /// The readers of the store at `path`, opened as the writer was but refusing writes. The
    /// file's journal mode is the writer's: readers leave it alone.
    private func readerPool(path: String, configuration writer: SQLiteConnection.Configuration) -> SQLiteReaderPool {
        var configuration = writer
        configuration.walMode = false
        configuration.createIfMissing = false
        configuration.queryOnly = true
        return SQLiteReaderPool(capacity: readerCapacity, open: { [unowned self] in
            let reader = try SQLiteConnection(path: path, configuration: configuration)
            try registerFunctions(on: reader)
            try applyPragmas(on: reader, forReader: true)
            if let trace = sqlTrace.withLock({ $0 }) { reader.trace(trace) }
            return reader
        }, closedError: { [url] in
            // The store's URL, not the store: a generation's reader may outlive the store.
            Self.removedError(url: url)
        })
    }

    /// How many readers the pool keeps: `NSPersistentStoreConnectionPoolMaxSizeKey`, or the
    /// pool's default.
    private var readerCapacity: Int {
        let option = options?[NSPersistentStoreConnectionPoolMaxSizeKey]
        let size = (option as? NSNumber)?.intValue ?? (option as? Int) ?? (option as? String).flatMap { Int($0) }
        return size.map { max(1, $0) } ?? SQLiteReaderPool.defaultCapacity
    }

    /// `NSSQLiteManualVacuumOption` and `NSSQLiteAnalyzeOption`: the file rebuilt, then its
    /// statistics gathered, once it fits the model (a store only read is left as it is).
    private func tidyFile(on connection: SQLiteConnection) throws {
        guard !isReadOnly else { return }
        for (option, statement) in [(NSSQLiteManualVacuumOption, "VACUUM"), (NSSQLiteAnalyzeOption, "ANALYZE")]
        where StoreOptionFlag.isOn(options?[option]) {
            do {
                try connection.execute(statement)
            } catch {
                // Each is a transaction of its own: a failed one leaves the store as it was.
                throw CoreDataError.store(.persistentStoreOpen, "\(option) asked for \(statement), which failed on \(url?.path ?? "the store"); the store is unchanged",
                                          url: url, underlying: error)
            }
        }
    }

    /// Records every statement of the writer and of every reader opened or idle (for tests and
    /// diagnostics); nil stops.
    func traceSQL(_ observer: (@Sendable (String) -> Void)?) {
        sqlTrace.withLock { $0 = observer }
        lock.withLock { connection?.trace(observer) }
        readers?.forEachIdle { $0.connection.trace(observer) }
    }
    /// Under an `NSLock` (`LockedState`), not a `Mutex`: readers opening at once on several
    /// threads read it, and ThreadSanitizer reported that as a race through `Mutex`'s futex.
    private let sqlTrace = LockedState<(@Sendable (String) -> Void)?>(nil)

    /// Runs `body` with a connection to read on: the writer's when no save holds it, else one of
    /// the pool's readers, which sees the last commit while the save goes on. (The writer reads
    /// when it is free because it has every page the store just wrote in its cache: a store that
    /// is never read during a save opens no reader at all.)
    @inline(__always)
    func withReader<Result>(_ body: (SQLiteReader) throws -> Result) throws -> Result {
        if lock.try() {
            defer { lock.unlock() }
            guard let writerAsReader else { throw removedError() }
            // A read on the thread that holds a save open between its phases reads the last
            // commit too, not the save's uncommitted rows.
            if !writerAsReader.connection.isInTransaction { return try body(writerAsReader) }
        }
        guard let readers else { throw removedError() }
        // A reader may see rows from before a save that commits meanwhile: files that save gives
        // up stay until the read ends.
        let began = externalData.retired.beginRead()
        defer { externalData.retired.endRead(began) }
        return try readers.withReader(body)
    }

    /// Runs `body` with the connection `context`'s reads go through: the reader of the query
    /// generation it is pinned to, or else any (`withReader(_:)`).
    @inline(__always)
    func withReader<Result>(for context: NSManagedObjectContext?, _ body: (SQLiteReader) throws -> Result) throws -> Result {
        if let context, let pin = try context.generationPin(for: self) as? SQLitePinnedReader {
            return try pin.withReader(body)
        }
        return try withReader(body)
    }

    /// Keeps the store's state as it is now for a query generation: a reader holding a read
    /// transaction open. Only under WAL, where a reader holds back no writer (only checkpoints).
    func pinCurrentGeneration() throws -> (any StoreGenerationPin)? {
        guard keepsGenerations, let readers else { return nil }
        return try namingTheFile { try SQLitePinnedReader(pool: readers, retired: externalData.retired) }
    }

    // The seam's methods, implemented in SQLiteStore+Reading.swift and SQLiteStore+Writing.swift.
    // Reads name the store file when SQLite fails (saves are translated by the context).
    func execute(_ fetch: StoreFetch) throws -> StoreFetchResult { try namingTheFile { try executeFetch(fetch) } }
    func snapshot(for objectID: NSManagedObjectID, context: NSManagedObjectContext?) throws -> RowSnapshot? {
        try namingTheFile { try readSnapshots(for: [objectID], context: context).first }
    }
    func snapshots(for objectIDs: [NSManagedObjectID], context: NSManagedObjectContext?) throws -> [RowSnapshot] {
        try namingTheFile { try readSnapshots(for: objectIDs, context: context) }
    }
    func relatedSnapshots(of sources: [NSManagedObjectID], through relationship: NSRelationshipDescription,
                          context: NSManagedObjectContext?) throws -> [NSManagedObjectID: [RowSnapshot]] {
        try namingTheFile { try readRelatedSnapshots(of: sources, through: relationship, context: context) }
    }
    func prepareSave(_ changes: SaveChanges) throws -> SaveOutcome { try writeChanges(changes) }
    func commitPreparedSave() throws { try commitChanges() }
    func rollbackPreparedSave() { rollbackChanges() }
    // holdWrites(), openHeldWrites(_:) and releaseWrites(committing:) are in SQLiteStore+Writing.swift.
    func newPermanentIDs(for objects: [NSManagedObject]) throws -> [NSManagedObjectID] {
        try reservePermanentIDs(for: objects.map(\.entity))
    }

    /// Runs `body`, turning a SQLite error into one that names this store's file.
    @inline(__always)
    func namingTheFile<Result>(_ body: () throws -> Result) throws -> Result {
        do {
            return try body()
        } catch let error as SQLiteError {
            throw SQLiteStoreFileError.failure(error, url: url)
        }
    }

    // MARK: Creating

    private func createStore(on connection: SQLiteConnection, model: NSManagedObjectModel) throws {
        try connection.transaction {
            for statement in schema.creationStatements() { try connection.execute(statement) }
            let insert = try connection.prepare("INSERT INTO Z_PRIMARYKEY (Z_ENT, Z_NAME, Z_SUPER, Z_MAX) VALUES (?, ?, ?, 0)")
            for entity in schema.orderedEntities {
                let mapping = schema.mapping(for: entity)!
                try insert.bind(mapping.number, at: 1)
                try insert.bind(entity.name ?? "", at: 2)
                try insert.bind(entity.superentity.flatMap { schema.mapping(for: $0)?.number } ?? 0, at: 3)
                try insert.run()
            }
            // The keys Core Data writes: the version hashes of every entity the store holds
            // (with their digest and checksum), the model's identifiers, and the store's own.
            var metadata = model.versionMetadata(for: schema.orderedEntities)
            metadata[NSStoreTypeKey] = NSSQLiteStoreType
            metadata[NSStoreUUIDKey] = identifier
            metadata[StoreMetadataKey.frameworkVersion] = Self.frameworkVersion
            metadata[StoreMetadataKey.autoVacuumLevel] = "2"
            storedMetadata = metadata
            try writeMetadata(on: connection)
            if !model.isInferredFromStore { try StoreModelCache.write(model, on: connection) }
        }
    }

    /// The `Z_ENT` of each of `entities` in the store (`stored`: its `Z_PRIMARYKEY`), by model
    /// name; empty unless every entity is there with a number of its own (the compatibility
    /// check then says what differs).
    private static func numbers(of entities: [NSEntityDescription], in stored: [String: Int64]) -> [String: Int64] {
        let all = NSManagedObjectModel.withSubentities(entities)
        let numbers = StoredEntityNumbers.numbers(of: all, in: stored)
        return numbers.count == all.count && Set(numbers.values).count == numbers.count ? numbers : [:]
    }

    // MARK: Metadata

    private func readMetadata(from connection: SQLiteConnection) throws {
        var metadata = try SQLiteMetadataTable.read(from: connection, url: url)
        if let problem = StoreMetadataValidation.problem(in: metadata) {
            throw CoreDataError.store(.persistentStoreInvalidType,
                                      "The store \(url?.path ?? "?") has metadata (Z_METADATA) Core Data would not write: \(problem)", url: url)
        }
        if let uuid = metadata[NSStoreUUIDKey] as? String { identifier = uuid }
        metadata[NSStoreUUIDKey] = identifier
        storedMetadata = metadata
    }

    func writeMetadata(on connection: SQLiteConnection) throws {
        // Refused before writing: metadata this store would refuse at its next opening.
        if let problem = StoreMetadataValidation.problem(in: storedMetadata) {
            throw CoreDataError.store(.persistentStoreSave,
                                      "The metadata for the store \(url?.path ?? "?") cannot be saved: \(problem)", url: url)
        }
        try SQLiteMetadataTable.write(storedMetadata, uuid: identifier, on: connection, url: url)
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

    /// Set when the application changed the metadata; written with the next save.
    var metadataNeedsWriting = false
    /// Whether `holdWrites()` holds a write transaction open across the tries of one save.
    var writesHeld = false
    /// Whether the holding save's try is writing now (`openHeldWrites`); other writes are refused.
    var heldWritesOpen = false
    /// Whether the writer connection has the SQL functions (registered before a migration);
    /// set only while the store loads, under `lock`.
    private var writerHasFunctions = false

    // MARK: SQL functions

    /// Functions the generated SQL calls, and the ones Core Data's own triggers call.
    private func registerFunctions(on connection: SQLiteConnection) throws {
        try connection.createFunction("ocd_fold", argumentCount: 2) { arguments in
            guard case .text(let text) = arguments[0] else { return arguments[0] }
            let options = NSComparisonPredicate.Options(rawValue: UInt(arguments[1].int64Value ?? 0))
            return .text(ValueComparison.fold(text, options))
        }
        try connection.createFunction("ocd_string_compare", argumentCount: 4) { arguments in
            guard case .text(let text) = arguments[0], case .text(let pattern) = arguments[1],
                  let type = NSComparisonPredicate.Operator(rawValue: UInt(arguments[2].int64Value ?? -1)) else { return .integer(0) }
            let options = NSComparisonPredicate.Options(rawValue: UInt(arguments[3].int64Value ?? 0))
            return .integer(ValueComparison.evaluate(text, type, pattern, options: options) ? 1 : 0)
        }
        // `localizedStandardCompare:` sorting, by the same code as in memory.
        try connection.createCollation("ocd_standard", ValueComparison.standardOrder)
        // The predicate language's numeric functions, by the same code as in memory.
        try connection.createFunction("ocd_function", argumentCount: -1) { arguments in
            guard case .text(let name) = arguments.first else { return .null }
            return SQLiteValueCoding.sqliteValue(ofComputed: PredicateFunction.evaluate(name, arguments.dropFirst().map(Self.computedValue)))
        }
        // The predicate language's collection functions SQLite lacks (`median:`, `stddev:`):
        // `ocd_aggregate(name, value)` collects a group's values and hands them to the same
        // Swift code as in memory.
        try connection.createAggregateFunction("ocd_aggregate", argumentCount: 2, initial: { (name: "", values: [Any?]()) },
                                               step: { state, arguments in
            if case .text(let name) = arguments[0] { state.name = name }
            state.values.append(Self.computedValue(arguments[1]))
        }, final: { state in
            SQLiteValueCoding.sqliteValue(ofComputed: PredicateFunction.evaluate(state.name, [state.values]))
        })
        // A lightweight migration that changes whether an attribute allows external storage
        // rewrites its column: with the marker byte, or as the value itself (read from its
        // file, which goes once the migration is committed).
        try connection.createFunction("ocd_external_data_inline", argumentCount: 1) { arguments in
            guard case .blob(let data) = arguments[0] else { return arguments[0] }
            return .blob(ExternalDataColumn.inline(data))
        }
        try connection.createFunction("ocd_external_data_value", argumentCount: 2, deterministic: false) { [unowned self] arguments in
            guard case .blob(let column) = arguments[0] else { return arguments[0] }
            let data = try externalData.value(ofColumn: column, describedAs: "A value of the column \(arguments[1].stringValue ?? "?")")
            externalData.release(column)
            return .blob(data)
        }
        // Core Data's derived-attribute triggers report back through these; nothing to do here.
        for name in ["NSCoreDataDATriggerUpdatedAffectedObjectValue", "NSCoreDataDATriggerInsertUpdatedAffectedObjectValue"] {
            try connection.createFunction(name, argumentCount: -1, deterministic: false) { _ in .null }
        }
    }

    /// A SQL value as the in-memory functions take it: integers as `Int`.
    private static func computedValue(_ value: SQLiteValue) -> Any? {
        if case .integer(let number) = value { return Int(exactly: number) ?? Double(number) }
        return value.anyValue
    }

    /// Applies `NSSQLitePragmasOption`: pragma names → values (numbers or plain words). Names and
    /// words are checked to be identifiers, since pragmas cannot take bound parameters.
    /// Pragmas a reader leaves to the writer: they change the file, or would let the reader write.
    private static let writerPragmas: Set<String> = ["application_id", "auto_vacuum", "incremental_vacuum", "journal_mode", "optimize",
                                                     "page_size", "query_only", "schema_version", "user_version", "wal_checkpoint"]

    private func applyPragmas(on connection: SQLiteConnection, forReader: Bool = false) throws {
        guard let pragmas = options?[NSSQLitePragmasOption] as? [String: Any] else { return }
        func isIdentifier(_ text: String) -> Bool {
            !text.isEmpty && text.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_" || $0 == "-" || $0 == ".") }
        }
        for (name, value) in pragmas.sorted(by: { $0.key < $1.key }) {
            let text = (value as? NSNumber)?.stringValue ?? "\(value)"
            guard isIdentifier(name), isIdentifier(text) else {
                throw CoreDataError.make(.persistentStoreOpen, "Invalid SQLite pragma \(name) = \(text) in NSSQLitePragmasOption")
            }
            if forReader && Self.writerPragmas.contains(name.lowercased()) { continue }
            // journal_mode is Core Data's to choose (WAL), as in Core Data it may be overridden.
            try connection.execute("PRAGMA \(name) = \(text)")
        }
    }

    func liveConnection() throws -> SQLiteConnection {
        guard let connection else { throw removedError() }
        return connection
    }

    private func removedError() -> Error { Self.removedError(url: url) }

    private static func removedError(url: URL?) -> Error {
        CoreDataError.make(.persistentStoreOperation, "The store \(url?.path ?? "?") has been removed from its coordinator")
    }
}

/// What kind of SQLite file a store URL holds.
enum StoreFileKind {
    case empty, coreDataStore, otherDatabase

    init(of connection: SQLiteConnection) throws {
        let tables = try connection.rows("SELECT name FROM sqlite_master WHERE type = 'table'").compactMap { $0.first?.stringValue }
        if tables.isEmpty {
            self = .empty
        } else if tables.contains("Z_METADATA") && tables.contains("Z_PRIMARYKEY") {
            self = .coreDataStore
        } else {
            self = .otherDatabase
        }
    }
}

/// How the coordinator, which cannot name this module, finds the SQLite store (see
/// `BuiltInStores`).
extension BuiltInStores: SQLiteStoreProviding {
    package static var sqliteStoreClass: NSPersistentStore.Type { SQLiteStore.self }
}
