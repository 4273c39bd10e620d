import Foundation

/// The results of a fetch request, in sections, kept up to date as the context changes: what a
/// list screen shows, and the changes to animate.
///
/// ```swift
/// let request = NSFetchRequest<Item>(entityName: "Item")
/// request.sortDescriptors = [NSSortDescriptor(key: "name", ascending: true)]
/// let controller = NSFetchedResultsController(fetchRequest: request, managedObjectContext: context,
///                                             sectionNameKeyPath: nil, cacheName: nil)
/// controller.delegate = listModel
/// try controller.performFetch()
/// let first = controller.object(at: IndexPath(row: 0, section: 0))
/// ```
/// With a delegate, the controller follows the context's changes — each
/// `processPendingChanges()` (which `save()` and `perform(_:)` run), and each merge of another
/// context's save (`mergeChanges(fromContextDidSave:)`, `automaticallyMergesChangesFromParent`)
/// — and tells the delegate what moved, one round per change event. An object changed so that
/// it sorts elsewhere moves, one that stops matching the predicate is deleted, one that starts
/// is inserted; sections appear and go with their objects. A round costs O(k log n) for k
/// changed objects among n results: no refetch, no diff of the whole results.
///
/// The fetch request must have sort descriptors, and with a `sectionNameKeyPath` its first sort
/// descriptor must group the objects by section. Change the request's predicate or sort
/// descriptors, then call `performFetch()` again, to show other results.
///
/// Differences from Core Data:
/// - Apple's `init` raises an exception for a request without sort descriptors; here
///   `performFetch()` throws (`NSCoreDataError`), as it does for objects out of section order.
/// - Only managed object results (`.managedObjectResultType`) are supported; `performFetch()`
///   throws for the other result types.
/// - `ResultType` is not constrained to `NSFetchRequestResult` (as for this framework's
///   `NSFetchRequest`), so that `NSFetchedResultsController<NSFetchRequestResult>` can be named.
/// - The cache (`cacheName`) is accepted and kept, but nothing is written to disk: sections are
///   computed while the fetch's objects are read, which costs less than reading a cache file.
///   `deleteCache(withName:)` has nothing to delete.
/// - `fetchLimit` and `fetchOffset` apply to `performFetch()`; later changes are tracked without
///   them, as Core Data's controller does.
/// - After `reset()` of the context the controller's objects are no longer the context's; call
///   `performFetch()` again.
open class NSFetchedResultsController<ResultType>: NSObject {
    /// The request whose results the controller holds. (The view of this controller its delegate
    /// is handed holds a copy, taken again at each `performFetch()`.)
    public private(set) var fetchRequest: NSFetchRequest<ResultType>
    /// The context the objects belong to and whose changes the controller follows.
    public let managedObjectContext: NSManagedObjectContext
    /// The key path whose value names each object's section; nil for one section.
    public let sectionNameKeyPath: String?
    /// The name of the section cache (see the type's doc comment).
    public let cacheName: String?

    let core: FetchedResultsControllerCore
    /// This controller as the delegate sees it, when `ResultType` is not `NSFetchRequestResult`.
    private var delegateView: NSFetchedResultsController<NSFetchRequestResult>?
    /// `fetchedObjects` as `ResultType`s, and the tracker version they were cast at.
    private var typedObjects: (version: Int, objects: [ResultType])?

    /// A controller of `fetchRequest`'s results in `context`, grouped in sections by the value
    /// at `sectionNameKeyPath` (nil: one section). Nothing is fetched until `performFetch()`.
    public init(fetchRequest: NSFetchRequest<ResultType>, managedObjectContext context: NSManagedObjectContext,
                sectionNameKeyPath: String?, cacheName name: String?) {
        self.fetchRequest = fetchRequest
        self.managedObjectContext = context
        self.sectionNameKeyPath = sectionNameKeyPath
        self.cacheName = name
        let tracker = FetchedResultsTracker(context: context, sectionNameKeyPath: sectionNameKeyPath)
        core = FetchedResultsControllerCore(tracker: tracker, context: context) { try Self.fetchObjects(fetchRequest, in: context) }
        isDelegateView = false
        super.init()
        // Through `self`, so that a subclass's override titles the sections.
        core.ownerIndexTitle = { [weak self] name in
            self?.sectionIndexTitle(forSectionName: name) ?? TrackedSection.capitalizedFirstLetter(name)
        }
        tracker.indexTitle = { [weak core] name in
            guard let core else { return TrackedSection.capitalizedFirstLetter(name) }
            if let delegate = core.delegate, let view = core.delegateView {
                return delegate.controller(view, sectionIndexTitleForSectionName: name)
            }
            return core.ownerIndexTitle(name)
        }
        setUpDelegateView()
    }

    /// The view the delegate is handed shares this controller's core.
    private init(viewOf core: FetchedResultsControllerCore, fetchRequest: NSFetchRequest<ResultType>,
                 context: NSManagedObjectContext, sectionNameKeyPath: String?, cacheName: String?) {
        self.fetchRequest = fetchRequest
        self.managedObjectContext = context
        self.sectionNameKeyPath = sectionNameKeyPath
        self.cacheName = cacheName
        self.core = core
        isDelegateView = true
    }

    private func setUpDelegateView() {
        if let view = self as? NSFetchedResultsController<NSFetchRequestResult> {
            core.delegateView = view
            return
        }
        let view = NSFetchedResultsController<NSFetchRequestResult>(
            viewOf: core, fetchRequest: fetchRequest.copy(as: NSFetchRequestResult.self), context: managedObjectContext,
            sectionNameKeyPath: sectionNameKeyPath, cacheName: cacheName)
        delegateView = view
        core.delegateView = view
    }

    /// Whether this is the view of another controller handed to the delegate.
    private let isDelegateView: Bool

    /// Told of the changes to the results (see `NSFetchedResultsControllerDelegate`). Without a
    /// delegate the controller does not follow the context's changes, as in Core Data.
    public weak var delegate: NSFetchedResultsControllerDelegate? {
        get { core.delegate }
        set { core.delegate = newValue }
    }

    // MARK: Fetching

    /// Runs the fetch request and takes its results, replacing any earlier ones. Throws the
    /// fetch's error, or `NSCoreDataError` for a request without sort descriptors, of another
    /// result type than managed objects, or whose objects do not come grouped by section; the
    /// earlier results then stay.
    open func performFetch() throws {
        try core.performFetch()
        delegateView?.fetchRequest = fetchRequest.copy(as: NSFetchRequestResult.self)
    }

    private static func fetchObjects(_ request: NSFetchRequest<ResultType>, in context: NSManagedObjectContext)
        throws -> ([NSManagedObject], FetchedResultsTracker.Request) {
        guard let sortDescriptors = request.sortDescriptors, !sortDescriptors.isEmpty else {
            throw CoreDataError.make(CocoaError.Code(rawValue: NSCoreDataError),
                                     "An instance of NSFetchedResultsController requires a fetch request with sort descriptors")
        }
        return try context.fetchForTracking(request, by: "NSFetchedResultsController")
    }

    // MARK: Results

    /// The results in order; nil before `performFetch()`.
    public var fetchedObjects: [ResultType]? {
        guard let objects = core.tracker.objects else { return nil }
        if let typedObjects, typedObjects.version == core.tracker.version { return typedObjects.objects }
        let typed = objects.map { $0 as! ResultType }
        typedObjects = (core.tracker.version, typed)
        return typed
    }

    /// The object at `indexPath` (section, then row). An index path outside the results stops
    /// the program, as Core Data's exception does.
    public func object(at indexPath: IndexPath) -> ResultType {
        guard let object = core.tracker.object(at: indexPath) else {
            preconditionFailure("NSFetchedResultsController has no object at index path \(indexPath)")
        }
        return object as! ResultType
    }

    /// Where `object` is in the results, or nil when they do not hold it.
    public func indexPath(forObject object: ResultType) -> IndexPath? {
        guard let object = object as? NSManagedObject else { return nil }
        return core.tracker.indexPath(of: object)
    }

    /// The sections in order; nil before `performFetch()`. A controller without a
    /// `sectionNameKeyPath` has one section, named "", even when the results are empty.
    public var sections: [NSFetchedResultsSectionInfo]? {
        guard core.tracker.list != nil else { return nil }
        return core.tracker.sections
    }

    // MARK: Section index

    /// The section index title of a section name: by default its first letter, capitalized.
    /// Override it to title sections otherwise (or implement the delegate's
    /// `controller(_:sectionIndexTitleForSectionName:)`).
    open func sectionIndexTitle(forSectionName sectionName: String) -> String? {
        // The view handed to the delegate answers as the controller it shows.
        if isDelegateView { return core.ownerIndexTitle(sectionName) }
        return TrackedSection.capitalizedFirstLetter(sectionName)
    }

    /// The index titles of the sections, in order, each once.
    open var sectionIndexTitles: [String] {
        var seen: Set<String> = []
        var titles: [String] = []
        for section in core.tracker.sections {
            if let title = section.indexTitle, seen.insert(title).inserted { titles.append(title) }
        }
        return titles
    }

    /// The section a section index entry leads to: the first section titled `title`, or, when
    /// none is, the section at `sectionIndex` within the sections there are.
    ///
    /// Difference from Core Data: a title no section has does not raise an exception.
    open func section(forSectionIndexTitle title: String, at sectionIndex: Int) -> Int {
        let sections = core.tracker.sections
        if let index = sections.firstIndex(where: { $0.indexTitle == title }) { return index }
        return max(0, min(sectionIndex, sections.count - 1))
    }

    /// Deletes a section cache; nil deletes every one. This framework writes no cache, so there
    /// is nothing to delete (see the type's doc comment).
    open class func deleteCache(withName name: String?) {}
}
