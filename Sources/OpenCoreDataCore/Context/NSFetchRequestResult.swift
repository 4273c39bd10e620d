import Foundation

/// What a fetch request can return: managed objects, object IDs, dictionaries or counts.
public protocol NSFetchRequestResult: AnyObject {}

extension NSDictionary: NSFetchRequestResult {}
extension NSNumber: NSFetchRequestResult {}
