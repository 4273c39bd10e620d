import Foundation

/// A request for the events of `NSPersistentCloudKitContainer`'s mirroring — setting a store
/// up, importing, exporting — run with `NSManagedObjectContext.execute(_:)`; its answer is an
/// `NSPersistentCloudKitContainerEventResult`.
///
/// ```swift
/// let request = NSPersistentCloudKitContainerEventRequest.fetchEvents(after: lastCheck)
/// let result = try context.execute(request) as? NSPersistentCloudKitContainerEventResult
/// let failedExports = (result?.result as? [NSPersistentCloudKitContainer.Event] ?? [])
///     .filter { $0.type == .export && !$0.succeeded }
/// ```
/// Differences from Core Data: Linux has no CloudKit and OpenCoreData mirrors nothing, so no
/// event is ever recorded: the request answers an empty list (`.events`) or 0
/// (`.countEvents`). Events that Core Data recorded in a store on Apple's platforms are not
/// read. The class is `final`; `requestType` is the inherited `.fetchRequestType`.
public final class NSPersistentCloudKitContainerEventRequest: NSPersistentStoreRequest {
    /// Whether the request answers the events or their number.
    public var resultType: NSPersistentCloudKitContainerEventResult.ResultType = .events

    /// Which events the request asks for.
    enum Selection {
        case after(Date)
        case afterEvent(NSPersistentCloudKitContainer.Event?)
        case matching(NSFetchRequest<NSFetchRequestResult>)
    }

    let selection: Selection

    init(selection: Selection) {
        self.selection = selection
        super.init()
    }

    /// The events that started after `date`.
    public class func fetchEvents(after date: Date) -> Self { Self(selection: .after(date)) }

    /// The events after `event` (every event for nil).
    public class func fetchEvents(after event: NSPersistentCloudKitContainer.Event?) -> Self { Self(selection: .afterEvent(event)) }

    /// The events `fetchRequest` (made with `fetchForEvents()`, then given a predicate, sort
    /// descriptors or a limit) selects.
    public class func fetchEvents(matchingFetch fetchRequest: NSFetchRequest<NSFetchRequestResult>) -> Self {
        Self(selection: .matching(fetchRequest))
    }

    /// A fetch request over the events (Core Data's `NSCKEvent` entity), to narrow with a
    /// predicate on `type`, `startDate`, `endDate`, `succeeded` or `storeIdentifier` and pass
    /// to `fetchEvents(matchingFetch:)`.
    public class func fetchForEvents() -> NSFetchRequest<NSFetchRequestResult> {
        NSFetchRequest<NSFetchRequestResult>(entityName: eventEntityName)
    }

    /// The name of the entity Core Data keeps mirroring events in.
    static let eventEntityName = "NSCKEvent"

    /// A new request with the same selection, result type and affected stores (`NSCopying`).
    public override func copy(with zone: NSZone? = nil) -> Any {
        let copy = NSPersistentCloudKitContainerEventRequest(selection: selection)
        copy.resultType = resultType
        copy.affectedStores = affectedStores
        return copy
    }

    /// The answer: OpenCoreData records no mirroring events (it mirrors nothing), so whatever
    /// the selection, no event is selected.
    func resultWithoutMirroring() -> NSPersistentCloudKitContainerEventResult {
        switch resultType {
        case .events: return NSPersistentCloudKitContainerEventResult(resultType: .events, result: [NSPersistentCloudKitContainer.Event]())
        case .countEvents: return NSPersistentCloudKitContainerEventResult(resultType: .countEvents, result: 0)
        }
    }
}
