import Foundation

/// What a context archives (`NSManagedObjectContext`'s `NSCoding`): its concurrency type and
/// the settings an application chooses — name, transaction author, merge policy (by its merge
/// type), staleness interval, and the switches — under keys of OpenCoreData's own.
///
/// ```swift
/// ContextSettingsArchive(context).encode(into: coder)
/// let settings = ContextSettingsArchive(coder: coder)   // nil when the coder holds no context
/// ```
struct ContextSettingsArchive {
    let concurrencyType: NSManagedObjectContextConcurrencyType
    private let name: String?
    private let transactionAuthor: String?
    private let mergeType: NSMergePolicyType
    private let stalenessInterval: TimeInterval
    private let retainsRegisteredObjects: Bool
    private let propagatesDeletesAtEndOfEvent: Bool
    private let shouldDeleteInaccessibleFaults: Bool
    private let automaticallyMergesChangesFromParent: Bool

    init(_ context: NSManagedObjectContext) {
        concurrencyType = context.concurrencyType
        name = context.name
        transactionAuthor = context.transactionAuthor
        // The context treats a value that is not a merge policy as the error policy.
        mergeType = (context.mergePolicy as? NSMergePolicy)?.mergeType ?? .errorMergePolicyType
        stalenessInterval = context.stalenessInterval
        retainsRegisteredObjects = context.retainsRegisteredObjects
        propagatesDeletesAtEndOfEvent = context.propagatesDeletesAtEndOfEvent
        shouldDeleteInaccessibleFaults = context.shouldDeleteInaccessibleFaults
        automaticallyMergesChangesFromParent = context.automaticallyMergesChangesFromParent
    }

    func encode(into coder: NSCoder) {
        coder.encode(Int(concurrencyType.rawValue), forKey: Keys.concurrencyType)
        if let name { coder.encode(name as NSString, forKey: Keys.name) }
        if let transactionAuthor { coder.encode(transactionAuthor as NSString, forKey: Keys.transactionAuthor) }
        coder.encode(Int(mergeType.rawValue), forKey: Keys.mergeType)
        coder.encode(stalenessInterval, forKey: Keys.stalenessInterval)
        coder.encode(retainsRegisteredObjects, forKey: Keys.retainsRegisteredObjects)
        coder.encode(propagatesDeletesAtEndOfEvent, forKey: Keys.propagatesDeletesAtEndOfEvent)
        coder.encode(shouldDeleteInaccessibleFaults, forKey: Keys.shouldDeleteInaccessibleFaults)
        coder.encode(automaticallyMergesChangesFromParent, forKey: Keys.automaticallyMergesChangesFromParent)
    }

    /// The settings `encode(into:)` wrote; nil when the coder holds none or holds a concurrency
    /// type or merge type not known (the coder is then marked failed, when it collects errors).
    init?(coder: NSCoder) {
        // Optional keys are asked for only when present: asking for an absent one sets the
        // coder's error, which makes every later decode fail.
        func string(_ key: String) -> String? {
            coder.containsValue(forKey: key) ? coder.decodeObject(of: NSString.self, forKey: key).map { String($0) } : nil
        }
        func rawValue(_ key: String) -> UInt? {
            guard coder.containsValue(forKey: key) else { return nil }
            let raw = coder.decodeInteger(forKey: key)
            return raw >= 0 ? UInt(raw) : nil
        }
        guard let concurrencyType = rawValue(Keys.concurrencyType).flatMap(NSManagedObjectContextConcurrencyType.init(rawValue:)),
              let mergeType = rawValue(Keys.mergeType).flatMap(NSMergePolicyType.init(rawValue:)) else {
            if coder.decodingFailurePolicy == .setErrorAndReturn {
                coder.failWithError(CocoaError(.coderReadCorrupt, userInfo: [
                    NSDebugDescriptionErrorKey: "the coder holds no archived managed object context (\(Keys.concurrencyType), \(Keys.mergeType))",
                ]))
            }
            return nil
        }
        self.concurrencyType = concurrencyType
        self.mergeType = mergeType
        name = string(Keys.name)
        transactionAuthor = string(Keys.transactionAuthor)
        stalenessInterval = coder.decodeDouble(forKey: Keys.stalenessInterval)
        retainsRegisteredObjects = coder.decodeBool(forKey: Keys.retainsRegisteredObjects)
        propagatesDeletesAtEndOfEvent = coder.decodeBool(forKey: Keys.propagatesDeletesAtEndOfEvent)
        shouldDeleteInaccessibleFaults = coder.decodeBool(forKey: Keys.shouldDeleteInaccessibleFaults)
        automaticallyMergesChangesFromParent = coder.decodeBool(forKey: Keys.automaticallyMergesChangesFromParent)
    }

    /// Gives a new context these settings.
    func apply(to context: NSManagedObjectContext) {
        context.name = name
        context.transactionAuthor = transactionAuthor
        context.mergePolicy = NSMergePolicy(merge: mergeType)
        context.stalenessInterval = stalenessInterval
        context.retainsRegisteredObjects = retainsRegisteredObjects
        context.propagatesDeletesAtEndOfEvent = propagatesDeletesAtEndOfEvent
        context.shouldDeleteInaccessibleFaults = shouldDeleteInaccessibleFaults
        context.automaticallyMergesChangesFromParent = automaticallyMergesChangesFromParent
    }

    private enum Keys {
        static let concurrencyType = "OCDContextConcurrencyType"
        static let name = "OCDContextName"
        static let transactionAuthor = "OCDContextTransactionAuthor"
        static let mergeType = "OCDContextMergeType"
        static let stalenessInterval = "OCDContextStalenessInterval"
        static let retainsRegisteredObjects = "OCDContextRetainsRegisteredObjects"
        static let propagatesDeletesAtEndOfEvent = "OCDContextPropagatesDeletesAtEndOfEvent"
        static let shouldDeleteInaccessibleFaults = "OCDContextShouldDeleteInaccessibleFaults"
        static let automaticallyMergesChangesFromParent = "OCDContextAutomaticallyMergesChangesFromParent"
    }
}
