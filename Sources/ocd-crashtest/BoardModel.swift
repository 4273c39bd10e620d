import Foundation
import OpenCoreData

/// The many-writers test's model: a few boards that every writer process changes at once. Each
/// writer owns one slot attribute of every board (`slot0` … `slot7`) and writes its round number
/// there; every writer also bumps every board's shared `touches` and pins a `Mark` (its number
/// and round) to one board. What survives in the store tells what each merge policy kept.
enum BoardModel {
    static let boardCount = 4
    static let maximumWriters = 8

    static func make() -> NSManagedObjectModel {
        let board = NSEntityDescription(name: "Board")
        let mark = NSEntityDescription(name: "Mark")
        let marks = NSRelationshipDescription(name: "marks", destination: mark, toMany: true, deleteRule: .cascadeDeleteRule)
        let pinnedTo = NSRelationshipDescription(name: "board", destination: board)
        marks.inverseRelationship = pinnedTo
        pinnedTo.inverseRelationship = marks
        pinnedTo.isOptional = false
        var boardProperties: [NSPropertyDescription] = [
            NSAttributeDescription(name: "number", type: .integer64AttributeType, optional: false),
            counter("touches"),
            marks,
        ]
        boardProperties += (0..<maximumWriters).map { counter(slot($0)) }
        board.properties = boardProperties
        board.uniquenessConstraints = [["number"]]
        mark.properties = [
            NSAttributeDescription(name: "writer", type: .integer64AttributeType, optional: false),
            NSAttributeDescription(name: "round", type: .integer64AttributeType, optional: false),
            pinnedTo,
        ]
        let model = NSManagedObjectModel()
        model.entities = [board, mark]
        return model
    }

    /// The attribute writer `writer` owns.
    static func slot(_ writer: Int) -> String { "slot\(writer)" }

    private static func counter(_ name: String) -> NSAttributeDescription {
        let attribute = NSAttributeDescription(name: name, type: .integer64AttributeType, optional: false)
        attribute.defaultValue = Int64(0)
        return attribute
    }
}
