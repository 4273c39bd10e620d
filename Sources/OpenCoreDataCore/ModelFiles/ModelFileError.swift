import Foundation

/// A model file that cannot be loaded: which file, where in it, and what is wrong.
///
/// ```swift
/// do { _ = try NSManagedObjectModel(validatingContentsOf: url) }
/// catch let error as ModelFileError { print(error) }
/// // Model.xcdatamodel/contents, line 12: the relationship Person.pets names the destination
/// // entity "Pet", which the model does not have
/// ```
public struct ModelFileError: Error, CustomStringConvertible, Sendable, Equatable {
    /// The file that could not be loaded.
    public let file: URL
    /// The line in the file (from 1), when the file is text and the line is known.
    public let line: Int?
    /// The element at fault, for example `Person.pets` or `entity Person`; nil when the file
    /// as a whole is at fault.
    public let element: String?
    /// What is wrong.
    public let reason: String

    public init(file: URL, line: Int? = nil, element: String? = nil, reason: String) {
        self.file = file
        self.line = line
        self.element = element
        self.reason = reason
    }

    public var description: String {
        var text = file.path
        if let line { text += ", line \(line)" }
        text += ": "
        if let element { text += "\(element): " }
        return text + reason
    }
}
