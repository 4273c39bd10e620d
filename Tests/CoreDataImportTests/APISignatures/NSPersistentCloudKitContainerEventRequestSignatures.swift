import Foundation
import CoreData

extension APISignatures {
    static func nsPersistentCloudKitContainerEventRequest(_ check: inout Checks) {
        check("NSPersistentCloudKitContainerEventRequest") {
            let _: NSPersistentStoreRequest.Type = NSPersistentCloudKitContainerEventRequest.self
        }
        check("NSPersistentCloudKitContainerEventRequest.resultType") {
            let _: ReferenceWritableKeyPath<NSPersistentCloudKitContainerEventRequest, NSPersistentCloudKitContainerEventResult.ResultType> = \.resultType
        }
        check("NSPersistentCloudKitContainerEventRequest.fetchEvents(after:) [date]") {
            let _: (Date) -> NSPersistentCloudKitContainerEventRequest = NSPersistentCloudKitContainerEventRequest.fetchEvents(after:)
        }
        check("NSPersistentCloudKitContainerEventRequest.fetchEvents(after:) [event]") {
            let _: (NSPersistentCloudKitContainer.Event?) -> NSPersistentCloudKitContainerEventRequest = NSPersistentCloudKitContainerEventRequest.fetchEvents(after:)
        }
        check("NSPersistentCloudKitContainerEventRequest.fetchEvents(matchingFetch:)") {
            let _: (NSFetchRequest<any NSFetchRequestResult>) -> NSPersistentCloudKitContainerEventRequest = NSPersistentCloudKitContainerEventRequest.fetchEvents(matchingFetch:)
        }
        check("NSPersistentCloudKitContainerEventRequest.fetchForEvents()") {
            let _: () -> NSFetchRequest<any NSFetchRequestResult> = NSPersistentCloudKitContainerEventRequest.fetchForEvents
        }
        check("NSPersistentCloudKitContainerEventResult") {
            let _: NSPersistentStoreResult.Type = NSPersistentCloudKitContainerEventResult.self
        }
        check("NSPersistentCloudKitContainerEventResult.result") {
            let _: KeyPath<NSPersistentCloudKitContainerEventResult, Any?> = \.result
        }
        check("NSPersistentCloudKitContainerEventResult.resultType") {
            let _: KeyPath<NSPersistentCloudKitContainerEventResult, NSPersistentCloudKitContainerEventResult.ResultType> = \.resultType
        }
        check("NSPersistentCloudKitContainerEventResult.ResultType") {
            let _: Int = NSPersistentCloudKitContainerEventResult.ResultType.events.rawValue
        }
        check("NSPersistentCloudKitContainerEventResult.ResultType.events") {
            let _: NSPersistentCloudKitContainerEventResult.ResultType = .events
        }
        check("NSPersistentCloudKitContainerEventResult.ResultType.countEvents") {
            let _: NSPersistentCloudKitContainerEventResult.ResultType = .countEvents
        }
    }
}
