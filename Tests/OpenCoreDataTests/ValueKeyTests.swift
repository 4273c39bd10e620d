import Foundation
import Testing
import OpenCoreData
@testable import OpenCoreDataCore
@testable import OpenCoreDataSQLite

/// Uniqueness and grouping compare values, not their printed text: two dates in the same second
/// or two blobs of the same length are different values, in memory as in SQLite.
@Suite struct ValueKeyTests {
    private static let base = Date(timeIntervalSinceReferenceDate: 700_000_000)

    private func stack(_ kind: StoreKind, unique: Bool = true) throws -> TestStack {
        let event = NSEntityDescription(name: "Event")
        event.properties = [NSAttributeDescription(name: "at", type: .dateAttributeType),
                            NSAttributeDescription(name: "blob", type: .binaryDataAttributeType)]
        if unique { event.uniquenessConstraints = [["at"], ["blob"]] }
        let model = NSManagedObjectModel()
        model.entities = [event]
        return try TestStack(kind, model: model)
    }

    @Test(arguments: StoreKind.allCases)
    func uniquenessTellsApartDatesInOneSecondAndBlobsOfOneLength(kind: StoreKind) throws {
        let stack = try stack(kind)
        _ = stack.insert("Event", ["at": Self.base, "blob": Data([1, 2, 3])])
        _ = stack.insert("Event", ["at": Self.base.addingTimeInterval(0.25), "blob": Data([4, 5, 6])])
        try stack.context.save()
        #expect(try stack.context.count(for: NSFetchRequest<NSManagedObject>(entityName: "Event")) == 2)

        _ = stack.insert("Event", ["at": Self.base.addingTimeInterval(0.25), "blob": Data([7, 8, 9])])
        let error = #expect(throws: CocoaError.self) { try stack.context.save() }
        #expect(error?.code == 133021)
    }

    @Test(arguments: StoreKind.allCases)
    func groupingTellsApartDatesInOneSecond(kind: StoreKind) throws {
        let stack = try stack(kind, unique: false)
        for (offset, byte) in [(0.0, 1), (0.25, 2), (0.25, 3)] as [(Double, UInt8)] {
            _ = stack.insert("Event", ["at": Self.base.addingTimeInterval(offset), "blob": Data([byte])])
        }
        try stack.context.save()
        let request = NSFetchRequest<NSDictionary>(entityName: "Event")
        request.resultType = .dictionaryResultType
        let count = NSExpressionDescription()
        count.name = "n"
        count.expression = NSExpression(forFunction: "count:", arguments: [NSExpression(forKeyPath: "blob")])
        count.expressionResultType = .integer64AttributeType
        request.propertiesToFetch = ["at", count]
        request.propertiesToGroupBy = ["at"]
        request.sortDescriptors = [NSSortDescriptor(key: "at", ascending: true)]
        let counts = try stack.context.fetch(request).map { ($0["n"] as? NSNumber)?.intValue ?? ($0["n"] as? Int) }
        #expect(counts == [1, 2])
    }
}
