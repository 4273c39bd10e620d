import Foundation
import CoreData

extension APISignatures {
    static func nsFetchedResultsController(_ check: inout Checks) {
        check("NSFetchedResultsController") {
            // differs: ResultType is unconstrained.
            let context = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
            let _: NSObject = NSFetchedResultsController(fetchRequest: NSFetchRequest<NSManagedObject>(entityName: "E"),
                                                         managedObjectContext: context, sectionNameKeyPath: nil, cacheName: nil)
            class Subclass: NSFetchedResultsController<NSManagedObject> {
                override func performFetch() throws { try super.performFetch() }
                override func sectionIndexTitle(forSectionName sectionName: String) -> String? { sectionName }
                override var sectionIndexTitles: [String] { [] }
                override func section(forSectionIndexTitle title: String, at sectionIndex: Int) -> Int { sectionIndex }
                override class func deleteCache(withName name: String?) {}
            }
        }
        check("NSFetchedResultsController.init(fetchRequest:managedObjectContext:sectionNameKeyPath:cacheName:)") {
            let _: (NSFetchRequest<NSManagedObject>, NSManagedObjectContext, String?, String?) -> NSFetchedResultsController<NSManagedObject>
                = NSFetchedResultsController<NSManagedObject>.init(fetchRequest:managedObjectContext:sectionNameKeyPath:cacheName:)
            let context = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
            let _: NSFetchedResultsController<any NSFetchRequestResult> = NSFetchedResultsController(
                fetchRequest: NSFetchRequest<any NSFetchRequestResult>(entityName: "E"), managedObjectContext: context,
                sectionNameKeyPath: "name", cacheName: "Cache")
        }
        check("NSFetchedResultsController.performFetch()") {
            let _: (NSFetchedResultsController<NSManagedObject>) -> () throws -> Void = NSFetchedResultsController<NSManagedObject>.performFetch
        }
        check("NSFetchedResultsController.fetchRequest") {
            let _: KeyPath<NSFetchedResultsController<NSManagedObject>, NSFetchRequest<NSManagedObject>> = \.fetchRequest
        }
        check("NSFetchedResultsController.managedObjectContext") {
            let _: KeyPath<NSFetchedResultsController<NSManagedObject>, NSManagedObjectContext> = \.managedObjectContext
        }
        check("NSFetchedResultsController.sectionNameKeyPath") {
            let _: KeyPath<NSFetchedResultsController<NSManagedObject>, String?> = \.sectionNameKeyPath
        }
        check("NSFetchedResultsController.cacheName") {
            let _: KeyPath<NSFetchedResultsController<NSManagedObject>, String?> = \.cacheName
        }
        check("NSFetchedResultsController.delegate") {
            let _: ReferenceWritableKeyPath<NSFetchedResultsController<NSManagedObject>, (any NSFetchedResultsControllerDelegate)?> = \.delegate
        }
        check("NSFetchedResultsController.deleteCache(withName:)") {
            let _: (String?) -> Void = NSFetchedResultsController<NSManagedObject>.deleteCache(withName:)
            NSFetchedResultsController<NSManagedObject>.deleteCache(withName: nil)
        }
        check("NSFetchedResultsController.fetchedObjects") {
            let _: KeyPath<NSFetchedResultsController<NSManagedObject>, [NSManagedObject]?> = \.fetchedObjects
        }
        check("NSFetchedResultsController.object(at:)") {
            let _: (NSFetchedResultsController<NSManagedObject>) -> (IndexPath) -> NSManagedObject = NSFetchedResultsController<NSManagedObject>.object(at:)
        }
        check("NSFetchedResultsController.indexPath(forObject:)") {
            let _: (NSFetchedResultsController<NSManagedObject>) -> (NSManagedObject) -> IndexPath? = NSFetchedResultsController<NSManagedObject>.indexPath(forObject:)
        }
        check("NSFetchedResultsController.sectionIndexTitle(forSectionName:)") {
            let _: (NSFetchedResultsController<NSManagedObject>) -> (String) -> String? = NSFetchedResultsController<NSManagedObject>.sectionIndexTitle(forSectionName:)
        }
        check("NSFetchedResultsController.sectionIndexTitles") {
            let _: KeyPath<NSFetchedResultsController<NSManagedObject>, [String]> = \.sectionIndexTitles
        }
        check("NSFetchedResultsController.sections") {
            let _: KeyPath<NSFetchedResultsController<NSManagedObject>, [any NSFetchedResultsSectionInfo]?> = \.sections
        }
        check("NSFetchedResultsController.section(forSectionIndexTitle:at:)") {
            let _: (NSFetchedResultsController<NSManagedObject>) -> (String, Int) -> Int = NSFetchedResultsController<NSManagedObject>.section(forSectionIndexTitle:at:)
        }
        check("NSFetchedResultsSectionInfo") {
            struct Section: NSFetchedResultsSectionInfo {
                var name: String { "" }
                var indexTitle: String? { nil }
                var numberOfObjects: Int { 0 }
                var objects: [Any]? { nil }
            }
            let _: any NSFetchedResultsSectionInfo = Section()
        }
        check("NSFetchedResultsSectionInfo.name") {
            let _: (any NSFetchedResultsSectionInfo) -> String = { $0.name }
        }
        check("NSFetchedResultsSectionInfo.indexTitle") {
            let _: (any NSFetchedResultsSectionInfo) -> String? = { $0.indexTitle }
        }
        check("NSFetchedResultsSectionInfo.numberOfObjects") {
            let _: (any NSFetchedResultsSectionInfo) -> Int = { $0.numberOfObjects }
        }
        check("NSFetchedResultsSectionInfo.objects") {
            let _: (any NSFetchedResultsSectionInfo) -> [Any]? = { $0.objects }
        }
        check("NSFetchedResultsChangeType") {
            let type: NSFetchedResultsChangeType = .insert
            let _: UInt = type.rawValue
            let _: NSFetchedResultsChangeType? = NSFetchedResultsChangeType(rawValue: 4)
            let _: any Sendable = type
        }
        check("NSFetchedResultsChangeType.insert") {
            let _: NSFetchedResultsChangeType = .insert
        }
        check("NSFetchedResultsChangeType.delete") {
            let _: NSFetchedResultsChangeType = .delete
        }
        check("NSFetchedResultsChangeType.move") {
            let _: NSFetchedResultsChangeType = .move
        }
        check("NSFetchedResultsChangeType.update") {
            let _: NSFetchedResultsChangeType = .update
        }
        check("NSFetchedResultsControllerDelegate") {
            // differs: AnyObject, not NSObjectProtocol; requirements with defaults, not optional.
            final class Delegate: NSObject, NSFetchedResultsControllerDelegate {}
            let _: any NSFetchedResultsControllerDelegate = Delegate()
        }
        check("NSFetchedResultsControllerDelegate.controller(_:didChangeContentWith:) [difference]") {
            final class Delegate: NSObject, NSFetchedResultsControllerDelegate {
                var removals = 0
                func controller(_ controller: NSFetchedResultsController<any NSFetchRequestResult>,
                                didChangeContentWith diff: CollectionDifference<NSManagedObjectID>) {
                    removals += diff.removals.count
                }
            }
            let _: any NSFetchedResultsControllerDelegate = Delegate()
            let _: (any NSFetchedResultsControllerDelegate, NSFetchedResultsController<any NSFetchRequestResult>,
                    CollectionDifference<NSManagedObjectID>) -> Void = { $0.controller($1, didChangeContentWith: $2) }
        }
        check("NSFetchedResultsControllerDelegate.controller(_:didChange:at:for:newIndexPath:)") {
            final class Delegate: NSObject, NSFetchedResultsControllerDelegate {
                var changes = 0
                func controller(_ controller: NSFetchedResultsController<any NSFetchRequestResult>, didChange anObject: Any,
                                at indexPath: IndexPath?, for type: NSFetchedResultsChangeType, newIndexPath: IndexPath?) {
                    changes += 1
                }
            }
            let _: any NSFetchedResultsControllerDelegate = Delegate()
            let _: (any NSFetchedResultsControllerDelegate, NSFetchedResultsController<any NSFetchRequestResult>, Any, IndexPath?,
                    NSFetchedResultsChangeType, IndexPath?) -> Void = { $0.controller($1, didChange: $2, at: $3, for: $4, newIndexPath: $5) }
        }
        check("NSFetchedResultsControllerDelegate.controller(_:didChange:atSectionIndex:for:)") {
            final class Delegate: NSObject, NSFetchedResultsControllerDelegate {
                var changes = 0
                func controller(_ controller: NSFetchedResultsController<any NSFetchRequestResult>,
                                didChange sectionInfo: any NSFetchedResultsSectionInfo, atSectionIndex sectionIndex: Int,
                                for type: NSFetchedResultsChangeType) {
                    changes += 1
                }
            }
            let _: any NSFetchedResultsControllerDelegate = Delegate()
            let _: (any NSFetchedResultsControllerDelegate, NSFetchedResultsController<any NSFetchRequestResult>,
                    any NSFetchedResultsSectionInfo, Int, NSFetchedResultsChangeType) -> Void
                = { $0.controller($1, didChange: $2, atSectionIndex: $3, for: $4) }
        }
        check("NSFetchedResultsControllerDelegate.controllerWillChangeContent(_:)") {
            final class Delegate: NSObject, NSFetchedResultsControllerDelegate {
                var rounds = 0
                func controllerWillChangeContent(_ controller: NSFetchedResultsController<any NSFetchRequestResult>) { rounds += 1 }
            }
            let _: any NSFetchedResultsControllerDelegate = Delegate()
            let _: (any NSFetchedResultsControllerDelegate, NSFetchedResultsController<any NSFetchRequestResult>) -> Void
                = { $0.controllerWillChangeContent($1) }
        }
        check("NSFetchedResultsControllerDelegate.controllerDidChangeContent(_:)") {
            final class Delegate: NSObject, NSFetchedResultsControllerDelegate {
                var rounds = 0
                func controllerDidChangeContent(_ controller: NSFetchedResultsController<any NSFetchRequestResult>) { rounds += 1 }
            }
            let _: any NSFetchedResultsControllerDelegate = Delegate()
            let _: (any NSFetchedResultsControllerDelegate, NSFetchedResultsController<any NSFetchRequestResult>) -> Void
                = { $0.controllerDidChangeContent($1) }
        }
        check("NSFetchedResultsControllerDelegate.controller(_:sectionIndexTitleForSectionName:)") {
            final class Delegate: NSObject, NSFetchedResultsControllerDelegate {
                func controller(_ controller: NSFetchedResultsController<any NSFetchRequestResult>,
                                sectionIndexTitleForSectionName sectionName: String) -> String? { sectionName }
            }
            let _: any NSFetchedResultsControllerDelegate = Delegate()
            let _: (any NSFetchedResultsControllerDelegate, NSFetchedResultsController<any NSFetchRequestResult>, String) -> String?
                = { $0.controller($1, sectionIndexTitleForSectionName: $2) }
        }
    }
}
