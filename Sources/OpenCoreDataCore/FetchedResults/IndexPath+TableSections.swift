import Foundation

#if !canImport(UIKit) && !canImport(AppKit)
/// The row, item and section of an index path, which UIKit and AppKit add to Foundation's
/// `IndexPath` and which every fetched results controller client reads.
///
/// ```swift
/// let path = IndexPath(row: 3, section: 0)
/// let object = controller.object(at: path)
/// ```
/// Defined only where neither UIKit nor AppKit is available, as on Linux.
extension IndexPath {
    /// An index path for a row in a section of a table.
    public init(row: Int, section: Int) {
        self.init(indexes: [section, row])
    }

    /// An index path for an item in a section of a collection.
    public init(item: Int, section: Int) {
        self.init(indexes: [section, item])
    }

    /// The section: the first index.
    public var section: Int {
        get { self[0] }
        set { self[0] = newValue }
    }

    /// The row within the section: the second index.
    public var row: Int {
        get { self[1] }
        set { self[1] = newValue }
    }

    /// The item within the section: the second index.
    public var item: Int {
        get { self[1] }
        set { self[1] = newValue }
    }
}
#endif
