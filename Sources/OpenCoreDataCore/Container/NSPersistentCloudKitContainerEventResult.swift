import Foundation

/// What an `NSPersistentCloudKitContainerEventRequest` answers: the events, or their number.
///
/// ```swift
/// let result = try context.execute(request) as? NSPersistentCloudKitContainerEventResult
/// let events = result?.result as? [NSPersistentCloudKitContainer.Event] ?? []
/// ```
/// Difference from Core Data: the class is `final`; on Linux the answer is always empty (see
/// `NSPersistentCloudKitContainerEventRequest`).
public final class NSPersistentCloudKitContainerEventResult: NSPersistentStoreResult {
    /// The kinds of answer.
    public enum ResultType: Int, @unchecked Sendable {
        // @unchecked Sendable: as Apple declares it (a plain enum).
        /// `[NSPersistentCloudKitContainer.Event]`.
        case events = 0
        /// The number of events, an `Int`.
        case countEvents = 1
    }

    /// Which kind of answer `result` is.
    public let resultType: ResultType
    /// The events (`[NSPersistentCloudKitContainer.Event]`) or their number (`Int`).
    public let result: Any?

    init(resultType: ResultType, result: Any?) {
        self.resultType = resultType
        self.result = result
        super.init()
    }
}
