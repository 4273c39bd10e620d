import Foundation

/// `NSSecureCoding`: a model archived with `NSKeyedArchiver` and unarchived with
/// `NSKeyedUnarchiver` (the initializer is in the class, as a required one must be).
extension NSManagedObjectModel: NSSecureCoding {
    public static var supportsSecureCoding: Bool { true }

    /// Encodes the model as its compiled archive (what a `.mom` holds) under one key; see
    /// `init?(coder:)`. A model the archive cannot hold (a fetch request template with a block
    /// predicate) encodes nothing, and decodes as nil.
    public func encode(with coder: NSCoder) {
        guard let archive = try? KeyedArchiveModelEncoder.archive(self) else { return }
        coder.encode(archive as NSData, forKey: Self.archiveKey)
    }
}
