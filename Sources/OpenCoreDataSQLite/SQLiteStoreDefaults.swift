/// The settings the SQLite store gives its connections where SQLite's own defaults do not suit
/// a store of objects. The benchmark's raw side applies the same, so that its ratios compare code,
/// not configuration.
package enum SQLiteStoreDefaults {
    /// The page cache of each connection, in KiB: 8 MiB rather than SQLite's 2 MiB.
    ///
    /// A save that changes rows all over a table larger than the cache (deleting every second
    /// object of a large store, say) otherwise reads and writes the same pages again and again:
    /// measured here, 100,000 deletes by primary key from a 200,000-row table with an index took
    /// 2.2 times as long with 2 MiB as with 4 MiB or more. SQLite takes the pages as it uses them,
    /// so a small store costs no more. `cache_size` in `NSSQLitePragmasOption` overrides it.
    package static let pageCacheKiB = 8192
}
