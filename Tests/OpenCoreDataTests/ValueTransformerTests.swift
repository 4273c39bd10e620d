import Foundation
import Testing
import OpenCoreData

/// A class of the app's own kept in a transformable attribute: `NSSecureCoding`, as secure
/// unarchiving needs.
final class Palette: NSObject, NSSecureCoding {
    static var supportsSecureCoding: Bool { true }
    let colors: [String]

    init(colors: [String]) {
        self.colors = colors
    }

    init?(coder: NSCoder) {
        guard let colors = coder.decodeObject(of: [NSArray.self, NSString.self], forKey: "colors") as? [String] else { return nil }
        self.colors = colors
    }

    func encode(with coder: NSCoder) {
        coder.encode(colors as NSArray, forKey: "colors")
    }
}

/// The transformer Apple's sample code writes for such a class: only the class itself listed.
final class PaletteTransformer: NSSecureUnarchiveFromDataTransformer {
    static let name = NSValueTransformerName(rawValue: "PaletteTransformer")
    override class var allowedTopLevelClasses: [AnyClass] { [Palette.self] }
}

/// A class that is `NSCoding` but not `NSSecureCoding`.
final class LegacySketch: NSObject, NSCoding {
    init(title: String) { self.title = title }
    let title: String
    init?(coder: NSCoder) { title = coder.decodeObject(forKey: "title") as? String ?? "" }
    func encode(with coder: NSCoder) { coder.encode(title as NSString, forKey: "title") }
}

/// `ValueTransformer` with Foundation's API (Foundation on Linux has none: issue 18, item 3):
/// the named registry and its built-in transformers, `ValueTransformer(forName:)`,
/// `NSSecureUnarchiveFromDataTransformer` in a store, and the binary store's secure decoding
/// options.
@Suite(.serialized) struct ValueTransformerTests {
    // MARK: The registry

    @Test func foundationsBuiltInTransformersAreRegistered() throws {
        let names = ValueTransformer.valueTransformerNames()
        for name: NSValueTransformerName in [.negateBooleanTransformerName, .isNilTransformerName, .isNotNilTransformerName,
                                             .keyedUnarchiveFromDataTransformerName, .secureUnarchiveFromDataTransformerName] {
            #expect(names.contains(name), "\(name.rawValue)")
        }
        let negate = try #require(ValueTransformer(forName: .negateBooleanTransformerName))
        #expect((negate.transformedValue(NSNumber(value: true)) as? NSNumber)?.boolValue == false)
        #expect((negate.reverseTransformedValue(NSNumber(value: false)) as? NSNumber)?.boolValue == true)
        let isNil = try #require(ValueTransformer(forName: .isNilTransformerName))
        #expect((isNil.transformedValue(nil) as? NSNumber)?.boolValue == true)
        #expect((isNil.transformedValue("x") as? NSNumber)?.boolValue == false)
        #expect(type(of: isNil).allowsReverseTransformation() == false)
        let isNotNil = try #require(ValueTransformer(forName: .isNotNilTransformerName))
        #expect((isNotNil.transformedValue("x") as? NSNumber)?.boolValue == true)
        #expect(ValueTransformer(forName: .secureUnarchiveFromDataTransformerName) is NSSecureUnarchiveFromDataTransformer)
    }

    @Test func forNameAnswersTheRegisteredTransformerItself() throws {
        let name = NSValueTransformerName("ValueTransformerTests.palette")
        #expect(ValueTransformer(forName: name) == nil)
        let transformer = PaletteTransformer()
        ValueTransformer.setValueTransformer(transformer, forName: name)
        defer { ValueTransformer.setValueTransformer(nil, forName: name) }
        #expect(ValueTransformer(forName: name) === transformer)
        #expect(PaletteTransformer(forName: name) === transformer)
        // A lookup through another class answers nil for a transformer not of that class.
        #expect(PaletteTransformer(forName: .negateBooleanTransformerName) == nil)
        ValueTransformer.setValueTransformer(nil, forName: name)
        #expect(ValueTransformer(forName: name) == nil)
    }

    @Test func theSecureTransformerRefusesToArchiveWhatIsNotSecureCoding() {
        #expect(NSSecureUnarchiveFromDataTransformer().reverseTransformedValue(LegacySketch(title: "old")) == nil)
        #expect(NSSecureUnarchiveFromDataTransformer().reverseTransformedValue(BookSettings(theme: "dark", fontSize: 12)) == nil)
        #expect(NSSecureUnarchiveFromDataTransformer().reverseTransformedValue(nil) == nil)
        // Inside a collection too, without stopping the archiver.
        #expect(NSSecureUnarchiveFromDataTransformer().reverseTransformedValue(["settings": BookSettings(theme: "dark", fontSize: 12)]) == nil)
        #expect(NSSecureUnarchiveFromDataTransformer().reverseTransformedValue([LegacySketch(title: "old")]) == nil)
    }

    /// Listing `NSObject`, which every class inherits from, allows no class more.
    @Test func listingNSObjectAllowsNothingMore() throws {
        final class AnythingTransformer: NSSecureUnarchiveFromDataTransformer {
            override class var allowedTopLevelClasses: [AnyClass] { [NSObject.self] }
        }
        let data = try #require(PaletteTransformer().reverseTransformedValue(Palette(colors: ["red"])) as? Data)
        #expect(AnythingTransformer().transformedValue(data) == nil)
    }

    /// An archive that describes its classes falsely: a `$classes` list claiming `NSArray` for a
    /// class that is not one, or `$classhints` the unarchiver would fall back to, is refused
    /// before anything is decoded.
    @Test(arguments: ["classes", "hints", "unknown"])
    func anArchiveThatMisdescribesItsClassesIsRefused(forgery: String) throws {
        let data = try NSKeyedArchiver.archivedData(withRootObject: LegacySketch(title: "x"), requiringSecureCoding: false)
        var plist = try #require(try PropertyListSerialization.propertyList(from: data, format: nil) as? [String: Any])
        var objects = try #require(plist["$objects"] as? [Any])
        let index = try #require(objects.firstIndex { ($0 as? [String: Any])?["$classname"] != nil })
        var descriptor = try #require(objects[index] as? [String: Any])
        switch forgery {
        case "classes": descriptor["$classes"] = [NSStringFromClass(LegacySketch.self), "NSArray", "NSObject"]
        case "hints": descriptor["$classhints"] = ["NSArray"]
        default: descriptor["$classname"] = "NoSuchModule.NoSuchClass"
        }
        objects[index] = descriptor
        plist["$objects"] = objects
        let forged = try PropertyListSerialization.data(fromPropertyList: plist, format: .binary, options: 0)
        #expect(NSSecureUnarchiveFromDataTransformer().transformedValue(forged) == nil)
        #expect(PaletteTransformer().transformedValue(forged) == nil)
    }

    @Test func theSecureTransformerUnarchivesOnlyItsAllowedClasses() throws {
        let palette = Palette(colors: ["red", "teal"])
        let data = try #require(PaletteTransformer().reverseTransformedValue(palette) as? Data)
        #expect((PaletteTransformer().transformedValue(data) as? Palette)?.colors == ["red", "teal"])
        // Foundation's own allows property-list classes only.
        #expect(NSSecureUnarchiveFromDataTransformer().transformedValue(data) == nil)
        let list = try #require(NSSecureUnarchiveFromDataTransformer().reverseTransformedValue(["a", "b"]) as? Data)
        #expect(NSSecureUnarchiveFromDataTransformer().transformedValue(list) as? [String] == ["a", "b"])
        #expect(NSSecureUnarchiveFromDataTransformer().transformedValue("not data") == nil)
    }

    // MARK: In a store

    private static func model(transformerName: String?) -> NSManagedObjectModel {
        let room = NSEntityDescription(name: "Room")
        let palette = NSAttributeDescription(name: "palette", type: .transformableAttributeType)
        palette.valueTransformerName = transformerName
        room.properties = [NSAttributeDescription(name: "name", type: .stringAttributeType), palette,
                           NSAttributeDescription(name: "tags", type: .transformableAttributeType)]
        let model = NSManagedObjectModel()
        model.entities = [room]
        return model
    }

    /// Saves one room into a new store of `type` at `url`: with a palette and tags, or with
    /// `palette` as the palette's value.
    private static func saveRoom(_ model: NSManagedObjectModel, type: String, at url: URL, palette: Any? = nil) throws {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(ofType: type, configurationName: nil, at: url)
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        try context.performAndWait {
            let room = NSEntityDescription.insertNewObject(forEntityName: "Room", into: context)
            room.setValue("Hall", forKey: "name")
            room.setValue(palette ?? Palette(colors: ["red", "teal"]), forKey: "palette")
            room.setValue(["quiet", "north"], forKey: "tags")
            try context.save()
        }
    }

    /// The room read back from a new coordinator opening the store with `options`.
    private static func readRoom(_ model: NSManagedObjectModel, type: String, at url: URL,
                                 options: [AnyHashable: Any]? = nil) throws -> NSManagedObject {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(ofType: type, configurationName: nil, at: url, options: options)
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        return try #require(try context.performAndWait { try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Room")).first })
    }

    @Test func anAttributeNamingASecureTransformerRoundTripsThroughTheSQLiteStore() throws {
        ValueTransformer.setValueTransformer(PaletteTransformer(), forName: PaletteTransformer.name)
        defer { ValueTransformer.setValueTransformer(nil, forName: PaletteTransformer.name) }
        let directory = TemporaryDirectory()
        let model = Self.model(transformerName: PaletteTransformer.name.rawValue)
        let url = directory.file("Rooms.sqlite")
        try Self.saveRoom(model, type: NSSQLiteStoreType, at: url)
        let room = try Self.readRoom(model, type: NSSQLiteStoreType, at: url)
        #expect((room.value(forKey: "palette") as? Palette)?.colors == ["red", "teal"])
        #expect(room.value(forKey: "tags") as? [String] == ["quiet", "north"])
    }

    @Test func theBinaryStoreRefusesAClassItWasNotToldOf() throws {
        let directory = TemporaryDirectory()
        let model = Self.model(transformerName: nil)
        let url = directory.file("Rooms.ocdbin")
        try Self.saveRoom(model, type: NSBinaryStoreType, at: url)
        let error = #expect(throws: (any Error).self) { try Self.readRoom(model, type: NSBinaryStoreType, at: url) }
        let message = "\(error.map { ($0 as NSError).localizedDescription } ?? "")"
        #expect(message.contains("Room.palette"), "\(message)")
        #expect(message.contains("NSBinaryStoreSecureDecodingClasses"), "\(message)")
    }

    @Test func theBinaryStoreDecodesTheClassesItIsToldOf() throws {
        let directory = TemporaryDirectory()
        let model = Self.model(transformerName: nil)
        let url = directory.file("Rooms.ocdbin")
        try Self.saveRoom(model, type: NSBinaryStoreType, at: url)
        let room = try Self.readRoom(model, type: NSBinaryStoreType, at: url,
                                     options: [NSBinaryStoreSecureDecodingClasses: [Palette.self]])
        #expect((room.value(forKey: "palette") as? Palette)?.colors == ["red", "teal"])
        #expect(room.value(forKey: "tags") as? [String] == ["quiet", "north"])
        let insecure = try Self.readRoom(model, type: NSBinaryStoreType, at: url,
                                         options: [NSBinaryStoreInsecureDecodingCompatibilityOption: true])
        #expect((insecure.value(forKey: "palette") as? Palette)?.colors == ["red", "teal"])
    }

    /// A transformable attribute holding bytes of its own — a property list that is no keyed
    /// archive — reads them back as they are, with secure decoding on.
    @Test func theBinaryStoreKeepsBytesThatAreNoArchive() throws {
        let directory = TemporaryDirectory()
        let model = Self.model(transformerName: nil)
        let url = directory.file("Rooms.ocdbin")
        let bytes = try PropertyListSerialization.data(fromPropertyList: ["plain": 1], format: .binary, options: 0)
        try Self.saveRoom(model, type: NSBinaryStoreType, at: url, palette: bytes)
        let room = try Self.readRoom(model, type: NSBinaryStoreType, at: url)
        #expect(room.value(forKey: "palette") as? Data == bytes)
    }

    @Test func theBinaryStoreDecodesPropertyListValuesAndItsAttributesValueClassWithoutOptions() throws {
        let directory = TemporaryDirectory()
        let model = Self.model(transformerName: nil)
        let palette = try #require(model.entitiesByName["Room"]?.attributesByName["palette"])
        palette.attributeValueClassName = NSStringFromClass(Palette.self)
        let url = directory.file("Rooms.ocdbin")
        try Self.saveRoom(model, type: NSBinaryStoreType, at: url)
        let room = try Self.readRoom(model, type: NSBinaryStoreType, at: url)
        #expect((room.value(forKey: "palette") as? Palette)?.colors == ["red", "teal"])
        #expect(room.value(forKey: "tags") as? [String] == ["quiet", "north"])
    }
}
