import Foundation
import Testing
import OpenCoreData

/// What an entity's descriptions say about each other: its sub-entities by name, and the way
/// back from a fetch index to its entity and from an index element to its index — for models
/// built in code and models read from Xcode's files alike.
@Suite struct EntityDescriptionLinksTests {
    static let contents = """
        <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
        <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0" minimumToolsVersion="Automatic" sourceLanguage="Swift">
        <entity name="Vehicle" representedClassName="Vehicle" isAbstract="YES" syncable="YES">
            <attribute name="wheels" optional="YES" attributeType="Integer 16" usesScalarValueType="YES"/>
        </entity>
        <entity name="Car" representedClassName="Car" parentEntity="Vehicle" syncable="YES">
            <attribute name="plate" optional="YES" attributeType="String"/>
            <fetchIndex name="byPlate"><fetchIndexElement property="plate" type="Binary" order="ascending"/></fetchIndex>
        </entity>
        <entity name="Bike" representedClassName="Bike" parentEntity="Vehicle" syncable="YES"/>
        </model>
        """

    @Test func aModelReadFromXcodeLinksSubentitiesAndIndexes() throws {
        let directory = TemporaryDirectory()
        let file = directory.file("Garage.xcdatamodel")
        try FileManager.default.createDirectory(at: file, withIntermediateDirectories: true)
        try Self.contents.write(to: file.appendingPathComponent("contents"), atomically: true, encoding: .utf8)
        let model = try NSManagedObjectModel(validatingContentsOf: file)
        let vehicle = try #require(model.entitiesByName["Vehicle"])
        let car = try #require(model.entitiesByName["Car"])

        #expect(Set(vehicle.subentitiesByName.keys) == ["Car", "Bike"])
        #expect(vehicle.subentitiesByName["Car"] === car)
        #expect(car.subentitiesByName.isEmpty)
        let index = try #require(car.indexes.first)
        #expect(index.entity === car)
        #expect(index.elements.first?.indexDescription === index)
    }

    @Test func indexesGivenToAnEntityInCodePointBackToIt() throws {
        let entity = NSEntityDescription(name: "Item")
        let score = NSAttributeDescription(name: "score", type: .integer64AttributeType)
        entity.properties = [score]
        let element = NSFetchIndexElementDescription(property: score, collationType: .binary)
        let index = NSFetchIndexDescription(name: "byScore", elements: nil)
        #expect(index.entity == nil)
        index.elements = [element]
        #expect(element.indexDescription === index)
        entity.indexes = [index]
        #expect(index.entity === entity)
        // Taken out again, they no longer point back.
        entity.indexes = []
        #expect(index.entity == nil)
        index.elements = []
        #expect(element.indexDescription == nil)
    }

    @Test func anIndexOutlivingItsEntityReadsNoEntity() {
        let index = NSFetchIndexDescription(name: "byName", elements: nil)
        do {
            let entity = NSEntityDescription(name: "Transient")
            entity.indexes = [index]
            #expect(index.entity === entity)
        }
        #expect(index.entity == nil)
    }
}
