import Foundation
import Testing
import OpenCoreData
@testable import OpenCoreDataCore

/// Composite attributes (`NSCompositeAttributeDescription`, iOS 17): a dictionary of elements,
/// reached by namespaced key paths in key-value coding, predicates and sort descriptors, as
/// Apple's documentation of the class describes them.
@Suite struct CompositeAttributeTests {
    /// Quakes with a `magnitude` composite: `richter` (required, at most 10), `depth`, `scale`
    /// (a string), `measured` (a date), `station` (a UUID) and `epicenter`, itself a composite
    /// of `latitude` and `longitude`.
    static func makeModel(extraElement: String? = nil, extraType: NSAttributeType = .integer64AttributeType,
                          depthType: NSAttributeType = .doubleAttributeType) -> NSManagedObjectModel {
        let richter = NSAttributeDescription(name: "richter", type: .doubleAttributeType, optional: false)
        richter.maxValue = 10
        let latitude = NSAttributeDescription(name: "latitude", type: .doubleAttributeType)
        let longitude = NSAttributeDescription(name: "longitude", type: .doubleAttributeType)
        let epicenter = NSCompositeAttributeDescription()
        epicenter.name = "epicenter"
        epicenter.elements = [latitude, longitude]
        let magnitude = NSCompositeAttributeDescription()
        magnitude.name = "magnitude"
        let scale = NSAttributeDescription(name: "scale", type: .stringAttributeType)
        scale.maxValue = 8
        magnitude.elements = [richter, NSAttributeDescription(name: "depth", type: depthType), scale,
                              NSAttributeDescription(name: "measured", type: .dateAttributeType),
                              NSAttributeDescription(name: "station", type: .UUIDAttributeType),
                              NSAttributeDescription(name: "felt", type: .booleanAttributeType),
                              epicenter]
        if let extraElement { magnitude.elements.append(NSAttributeDescription(name: extraElement, type: extraType)) }
        let quake = NSEntityDescription(name: "Quake")
        quake.properties = [NSAttributeDescription(name: "code", type: .stringAttributeType), magnitude]
        let model = NSManagedObjectModel()
        model.entities = [quake]
        return model
    }

    static let station = UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!
    static let measured = Date(timeIntervalSinceReferenceDate: 700_000_000)

    /// Four quakes: a, b, c with magnitudes, d without.
    private func fill(_ context: NSManagedObjectContext) {
        let magnitudes: [(String, [String: Any]?)] = [
            ("a", ["richter": 4.6, "depth": 10.0, "scale": "Mw", "measured": Self.measured, "station": Self.station, "felt": true,
                   "epicenter": ["latitude": -33.4, "longitude": -70.6]]),
            ("b", ["richter": 2.1, "scale": "ml", "measured": Self.measured.addingTimeInterval(3600), "felt": false,
                   "epicenter": ["latitude": 35.7, "longitude": 139.7]]),
            ("c", ["richter": 6.3, "depth": 30.0, "scale": "MW"]),
            ("d", nil),
        ]
        for (code, magnitude) in magnitudes {
            let quake = NSEntityDescription.insertNewObject(forEntityName: "Quake", into: context)
            quake.setValue(code, forKey: "code")
            quake.setValue(magnitude, forKey: "magnitude")
        }
    }

    private func stack(_ type: String, at url: URL?, model: NSManagedObjectModel = makeModel()) throws -> NSManagedObjectContext {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(ofType: type, configurationName: nil, at: url)
        let context = NSManagedObjectContext(concurrencyType: .confinementConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        return context
    }

    /// A store of `type` at `url` holding the four quakes, saved and closed (its write-ahead log
    /// in its file).
    private func saveQuakes(_ type: String, at url: URL) throws {
        let context = try stack(type, at: url)
        fill(context)
        try context.save()
        let coordinator = try #require(context.persistentStoreCoordinator)
        try coordinator.remove(coordinator.persistentStores[0])
    }

    private func quake(_ code: String, in context: NSManagedObjectContext) throws -> NSManagedObject {
        let request = NSFetchRequest<NSManagedObject>(entityName: "Quake")
        request.predicate = NSPredicate(format: "code == %@", code)
        return try #require(try context.fetch(request).first)
    }

    @Test(arguments: [NSSQLiteStoreType, NSBinaryStoreType, NSXMLStoreType])
    func valuesSurviveAReopen(type: String) throws {
        let directory = TemporaryDirectory()
        let url = directory.file("Quakes.store")
        try saveQuakes(type, at: url)
        let context = try stack(type, at: url)
        let a = try quake("a", in: context)
        let magnitude = try #require(a.value(forKey: "magnitude") as? [String: Any])
        #expect(magnitude["richter"] as? Double == 4.6 && magnitude["depth"] as? Double == 10)
        #expect(magnitude["scale"] as? String == "Mw" && magnitude["measured"] as? Date == Self.measured)
        #expect(magnitude["station"] as? UUID == Self.station && magnitude["felt"] as? Bool == true)
        #expect(a.value(forKeyPath: "magnitude.epicenter.latitude") as? Double == -33.4)
        #expect(a.value(forKeyPath: "magnitude.richter") as? NSNumber == 4.6)
        #expect(try quake("b", in: context).value(forKeyPath: "magnitude.depth") == nil)
        #expect(try quake("d", in: context).value(forKey: "magnitude") == nil)
    }

    @Test func anElementIsSetByItsKeyPathAndSaved() throws {
        let directory = TemporaryDirectory()
        let url = directory.file("Quakes.sqlite")
        do {
            let context = try stack(NSSQLiteStoreType, at: url)
            fill(context)
            try context.save()
            let b = try quake("b", in: context)
            b.setValue(3, forKeyPath: "magnitude.richter")
            b.setValue(12.5, forKeyPath: "magnitude.epicenter.longitude")
            b.setValue(nil, forKeyPath: "magnitude.scale")
            let d = try quake("d", in: context)
            d.setValue(1.5, forKeyPath: "magnitude.richter")
            #expect(b.hasChanges && d.hasChanges)
            #expect(b.changedValues()["magnitude"] != nil)
            try context.save()
        }
        let context = try stack(NSSQLiteStoreType, at: url)
        let b = try quake("b", in: context)
        #expect(b.value(forKeyPath: "magnitude.richter") as? Double == 3)
        #expect(b.value(forKeyPath: "magnitude.epicenter.longitude") as? Double == 12.5)
        #expect(b.value(forKeyPath: "magnitude.epicenter.latitude") as? Double == 35.7)
        #expect(b.value(forKeyPath: "magnitude.scale") == nil)
        #expect(try quake("d", in: context).value(forKey: "magnitude") as? [String: Double] == ["richter": 1.5])
    }

    /// The same predicates give the same quakes from the SQLite store (in SQL) and from the
    /// in-memory store (in memory).
    @Test(arguments: [
        ("magnitude.richter > 4.5", ["a", "c"]),
        ("magnitude.richter <= 4.6 AND magnitude.depth != nil", ["a"]),
        ("magnitude.depth == nil", ["b", "d"]),
        ("magnitude.scale ==[c] 'mw'", ["a", "c"]),
        ("magnitude.scale BEGINSWITH 'm'", ["b"]),
        ("magnitude.epicenter.latitude < 0", ["a"]),
        ("magnitude.felt == YES", ["a"]),
        ("magnitude.felt == NO", ["b"]),
        ("magnitude.measured > %@", ["b"]),
        ("magnitude.station == %@", ["a"]),
        ("magnitude.richter BETWEEN {2, 5}", ["a", "b"]),
        ("magnitude == nil", ["d"]),
    ])
    func predicatesOnElementsAgreeInSQLAndInMemory(format: String, expected: [String]) throws {
        let directory = TemporaryDirectory()
        let arguments: [Any] = format.contains("measured") ? [Self.measured] : format.contains("station") ? [Self.station] : []
        for (type, url) in [(NSSQLiteStoreType, directory.file("Quakes.sqlite") as URL?), (NSInMemoryStoreType, nil)] {
            let context = try stack(type, at: url)
            fill(context)
            try context.save()
            context.reset()
            let request = NSFetchRequest<NSManagedObject>(entityName: "Quake")
            request.predicate = NSPredicate(format: format, argumentArray: arguments)
            request.sortDescriptors = [NSSortDescriptor(key: "code", ascending: true)]
            let codes = try context.fetch(request).compactMap { $0.value(forKey: "code") as? String }
            #expect(codes == expected, "\(type): \(format)")
            let all = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Quake"))
            let evaluated = all.filter { request.predicate!.evaluate(with: $0) }.compactMap { $0.value(forKey: "code") as? String }.sorted()
            #expect(evaluated == expected, "evaluate(with:) \(type): \(format)")
        }
    }

    /// The SQLite store compares and sorts elements in SQL, with the element's path bound.
    @Test func theSQLiteStoreReadsElementsInSQL() throws {
        let request = NSFetchRequest<NSManagedObject>(entityName: "Quake")
        request.predicate = NSPredicate(format: "magnitude.epicenter.latitude < 0 AND magnitude.station == %@", Self.station)
        request.sortDescriptors = [NSSortDescriptor(key: "magnitude.richter", ascending: false)]
        let (sql, arguments) = try Self.makeModel().sqliteStatement(for: request)
        #expect(sql.contains("json_extract(t0.ZMAGNITUDE, ?) < ?"))
        #expect(sql.contains("ORDER BY json_extract(t0.ZMAGNITUDE, ?) DESC"))
        #expect(arguments.contains { $0 as? String == #"$."epicenter"."latitude""# })
        #expect(arguments.contains { $0 as? String == Self.station.uuidString })
    }

    @Test func quakesSortByAnElement() throws {
        let directory = TemporaryDirectory()
        for (type, url) in [(NSSQLiteStoreType, directory.file("Quakes.sqlite") as URL?), (NSInMemoryStoreType, nil)] {
            let context = try stack(type, at: url)
            fill(context)
            try context.save()
            let request = NSFetchRequest<NSManagedObject>(entityName: "Quake")
            request.predicate = NSPredicate(format: "magnitude != nil")
            request.sortDescriptors = [NSSortDescriptor(key: "magnitude.richter", ascending: false)]
            #expect(try context.fetch(request).compactMap { $0.value(forKey: "code") as? String } == ["c", "a", "b"], "\(type)")
        }
    }

    @Test func anUnknownElementOrAWrongValueIsRefusedNamingIt() throws {
        let context = try stack(NSInMemoryStoreType, at: nil)
        let quake = NSEntityDescription.insertNewObject(forEntityName: "Quake", into: context)
        #expect {
            try quake.setCheckedValue(["richter": 4.0, "intensity": 7], forKey: "magnitude")
        } throws: { error in
            (error as NSError).code == NSManagedObjectValidationError && "\(error)".contains("no element 'intensity'")
        }
        #expect {
            try quake.setCheckedValue(["richter": "strong"], forKey: "magnitude")
        } throws: { error in
            "\(error)".contains("element 'richter'")
        }
        #expect(quake.value(forKey: "magnitude") == nil)
        let request = NSFetchRequest<NSManagedObject>(entityName: "Quake")
        request.predicate = NSPredicate(format: "magnitude.intensity > 3")
        #expect {
            try context.fetch(request)
        } throws: { error in
            (error as NSError).code == NSPersistentStoreUnsupportedRequestTypeError && "\(error)".contains("no element 'intensity'")
        }
    }

    /// Each element is validated at save as an attribute is; the error names its key path.
    @Test func elementsAreValidatedAtSave() throws {
        let directory = TemporaryDirectory()
        let context = try stack(NSSQLiteStoreType, at: directory.file("Quakes.sqlite"))
        let quake = NSEntityDescription.insertNewObject(forEntityName: "Quake", into: context)
        quake.setValue(["depth": 3.0], forKey: "magnitude")
        #expect {
            try context.save()
        } throws: { error in
            let error = error as NSError
            return error.code == NSValidationMissingMandatoryPropertyError && error.userInfo[NSValidationKeyErrorKey] as? String == "magnitude.richter"
        }
        quake.setValue(12, forKeyPath: "magnitude.richter")
        #expect {
            try context.save()
        } throws: { error in
            let error = error as NSError
            return error.code == NSValidationNumberTooLargeError && error.userInfo[NSValidationKeyErrorKey] as? String == "magnitude.richter"
        }
        quake.setValue(7, forKeyPath: "magnitude.richter")
        try context.save()
    }

    @Test func aModelFileDeclaresCompositesByName() throws {
        let directory = TemporaryDirectory()
        let file = directory.file("Quakes.xcdatamodel")
        try FileManager.default.createDirectory(at: file, withIntermediateDirectories: true)
        try """
            <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
            <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0" lastSavedToolsVersion="22522" systemVersion="23A344" minimumToolsVersion="Automatic" sourceLanguage="Swift" userDefinedModelVersionIdentifier="">
                <entity name="Quake" representedClassName="Quake" syncable="YES" codeGenerationType="class">
                    <attribute name="code" optional="YES" attributeType="String"/>
                    <attribute name="magnitude" optional="YES" attributeType="Composite" composite="Magnitude"/>
                </entity>
                <entity name="Station" representedClassName="Station" syncable="YES" codeGenerationType="class">
                    <attribute name="strongest" optional="YES" attributeType="Composite" composite="Magnitude"/>
                </entity>
                <composite name="Magnitude">
                    <attribute name="richter" attributeType="Double" defaultValueString="0.0" usesScalarValueType="YES"/>
                    <attribute name="place" optional="YES" attributeType="Composite" composite="Place"/>
                </composite>
                <composite name="Place">
                    <attribute name="name" optional="YES" attributeType="String"/>
                </composite>
            </model>
            """.write(to: file.appendingPathComponent("contents"), atomically: true, encoding: .utf8)
        let model = try NSManagedObjectModel(validatingContentsOf: file)
        let magnitude = try #require(model.entitiesByName["Quake"]?.attributesByName["magnitude"] as? NSCompositeAttributeDescription)
        #expect(magnitude.attributeType == .compositeAttributeType)
        #expect(magnitude.elements.map(\.name) == ["richter", "place"])
        #expect(magnitude.elements.first?.isOptional == false)
        #expect((magnitude.elements.last as? NSCompositeAttributeDescription)?.elements.map(\.name) == ["name"])
        let strongest = try #require(model.entitiesByName["Station"]?.attributesByName["strongest"] as? NSCompositeAttributeDescription)
        #expect(strongest.elements.first !== magnitude.elements.first)

        let context = try stack(NSSQLiteStoreType, at: directory.file("Quakes.sqlite"), model: model)
        let quake = NSEntityDescription.insertNewObject(forEntityName: "Quake", into: context)
        quake.setValue(["richter": 5, "place": ["name": "Valparaíso"]], forKey: "magnitude")
        try context.save()
        let request = NSFetchRequest<NSManagedObject>(entityName: "Quake")
        request.predicate = NSPredicate(format: "magnitude.place.name CONTAINS[cd] 'valparaiso'")
        #expect(try context.count(for: request) == 1)
    }

    @Test func aModelFileNamingAnUnknownCompositeIsRefusedWithItsLine() throws {
        let directory = TemporaryDirectory()
        let file = directory.file("Broken.xcdatamodel")
        try FileManager.default.createDirectory(at: file, withIntermediateDirectories: true)
        try """
            <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
            <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0">
                <entity name="Quake">
                    <attribute name="magnitude" optional="YES" attributeType="Composite" composite="Magnitude"/>
                </entity>
            </model>
            """.write(to: file.appendingPathComponent("contents"), atomically: true, encoding: .utf8)
        #expect {
            try NSManagedObjectModel(validatingContentsOf: file)
        } throws: { error in
            "\(error)".contains("line 4") && "\(error)".contains("no composite named \"Magnitude\"")
        }
    }

    @Test func aCompositeOfElementsItCannotHoldIsAnInvalidModel() throws {
        let composite = NSCompositeAttributeDescription()
        composite.name = "payload"
        composite.elements = [NSAttributeDescription(name: "blob", type: .transformableAttributeType)]
        let entity = NSEntityDescription(name: "Message")
        entity.properties = [composite]
        let model = NSManagedObjectModel()
        model.entities = [entity]
        #expect {
            try model.validate()
        } throws: { error in
            "\(error)".contains("the element 'blob' is Transformable")
        }
    }

    @Test func aCompositeCopiesItsElements() throws {
        let model = Self.makeModel()
        let magnitude = try #require(model.entitiesByName["Quake"]?.attributesByName["magnitude"] as? NSCompositeAttributeDescription)
        let copy = try #require(magnitude.copy() as? NSCompositeAttributeDescription)
        #expect(copy.elements.map(\.name) == magnitude.elements.map(\.name))
        #expect(copy.elements.first !== magnitude.elements.first)
        #expect((copy.elements.last as? NSCompositeAttributeDescription)?.elements.count == 2)
        #expect(copy.versionHash == magnitude.versionHash)
    }

    /// The model a store keeps (`Z_MODELCACHE`) has the composites with their elements.
    @Test func theStoresModelCacheKeepsTheElements() throws {
        let directory = TemporaryDirectory()
        let url = directory.file("Quakes.sqlite")
        try saveQuakes(NSSQLiteStoreType, at: url)
        let cached = try NSPersistentStoreCoordinator.cachedModelForPersistentStore(at: url)
        let magnitude = try #require(cached.entitiesByName["Quake"]?.attributesByName["magnitude"] as? NSCompositeAttributeDescription)
        #expect(magnitude.elements.map(\.name) == ["richter", "depth", "scale", "measured", "station", "felt", "epicenter"])
        #expect(magnitude.elements.first?.isOptional == false && magnitude.elements.first?.attributeType == .doubleAttributeType)
        #expect((magnitude.elements.last as? NSCompositeAttributeDescription)?.elements.map(\.name) == ["latitude", "longitude"])
        #expect(cached.entitiesByName["Quake"]?.versionHash == Self.makeModel().entitiesByName["Quake"]?.versionHash)
    }

    /// A new element changes the entity's version hash; the store migrates and keeps its values.
    @Test func aStoreMigratesWhenACompositeGainsAnElement() throws {
        let directory = TemporaryDirectory()
        let url = directory.file("Quakes.sqlite")
        #expect(Self.makeModel().entitiesByName["Quake"]?.versionHash != Self.makeModel(extraElement: "intensity").entitiesByName["Quake"]?.versionHash)
        try saveQuakes(NSSQLiteStoreType, at: url)
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: Self.makeModel(extraElement: "intensity"))
        try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url,
                                           options: [NSMigratePersistentStoresAutomaticallyOption: true, NSInferMappingModelAutomaticallyOption: true])
        let context = NSManagedObjectContext(concurrencyType: .confinementConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        let a = try quake("a", in: context)
        #expect(a.value(forKeyPath: "magnitude.richter") as? Double == 4.6)
        a.setValue(7, forKeyPath: "magnitude.intensity")
        try context.save()
        let request = NSFetchRequest<NSManagedObject>(entityName: "Quake")
        request.predicate = NSPredicate(format: "magnitude.intensity == 7")
        #expect(try context.count(for: request) == 1)
        // The store now records the new model's hash: it was migrated, not merely opened.
        let hashes = coordinator.persistentStores[0].metadata[NSStoreModelVersionHashesKey] as? [String: Data]
        #expect(hashes?["Quake"] == Self.makeModel(extraElement: "intensity").entitiesByName["Quake"]?.versionHash)
    }

    /// An element whose stored values would not read as its new type stops the migration,
    /// naming the element; the store is left as it was.
    @Test func anElementChangingTypeIsNotInferred() throws {
        let directory = TemporaryDirectory()
        let url = directory.file("Quakes.sqlite")
        try saveQuakes(NSSQLiteStoreType, at: url)
        let bytes = try Data(contentsOf: url)
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: Self.makeModel(depthType: .stringAttributeType))
        #expect {
            try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url,
                                               options: [NSMigratePersistentStoresAutomaticallyOption: true, NSInferMappingModelAutomaticallyOption: true])
        } throws: { error in
            (error as NSError).code == 134140 && "\(error)".contains("element 'magnitude.depth' changes type from Double to String")
        }
        #expect(try Data(contentsOf: url) == bytes)
        // A wider number is inferred.
        let widened = NSPersistentStoreCoordinator(managedObjectModel: Self.makeModel(depthType: .decimalAttributeType))
        try widened.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url,
                                       options: [NSMigratePersistentStoresAutomaticallyOption: true, NSInferMappingModelAutomaticallyOption: true])
        let context = NSManagedObjectContext(concurrencyType: .confinementConcurrencyType)
        context.persistentStoreCoordinator = widened
        #expect(try quake("c", in: context).value(forKeyPath: "magnitude.depth") as? Decimal == 30)
    }

    @Test func aCompositeThatContainsItselfIsAnInvalidModelNotACrash() throws {
        let looping = NSCompositeAttributeDescription()
        looping.name = "looping"
        let inner = NSCompositeAttributeDescription()
        inner.name = "inner"
        inner.elements = [looping]
        looping.elements = [NSAttributeDescription(name: "x", type: .integer64AttributeType), inner]
        let entity = NSEntityDescription(name: "Loop")
        entity.properties = [looping]
        let model = NSManagedObjectModel()
        model.entities = [entity]
        #expect {
            try NSPersistentStoreCoordinator(managedObjectModel: model).addPersistentStore(ofType: NSInMemoryStoreType, configurationName: nil, at: nil)
        } throws: { error in
            "\(error)".contains("the element 'inner.looping' is the composite itself or one around it")
        }
        // Copying it ends too: the element that leads back is kept as it is.
        let copy = try #require(looping.copy() as? NSCompositeAttributeDescription)
        #expect((copy.elements.last as? NSCompositeAttributeDescription)?.elements.first === looping)
    }

    /// An attribute of the composite type that is not an `NSCompositeAttributeDescription` (no
    /// elements) keeps its value as a transformable one does.
    @Test func aPlainAttributeOfTheCompositeTypeKeepsItsValue() throws {
        let entity = NSEntityDescription(name: "Thing")
        entity.properties = [NSAttributeDescription(name: "payload", type: .compositeAttributeType)]
        let model = NSManagedObjectModel()
        model.entities = [entity]
        let directory = TemporaryDirectory()
        let context = try stack(NSSQLiteStoreType, at: directory.file("Things.sqlite"), model: model)
        let thing = NSEntityDescription.insertNewObject(forEntityName: "Thing", into: context)
        thing.setValue(["x": 1] as NSDictionary, forKey: "payload")
        try context.save()
        context.reset()
        let fetched = try #require(try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Thing")).first)
        #expect((fetched.value(forKey: "payload") as? NSDictionary)?["x"] as? Int == 1)
    }

    /// Elements belong to their composite's model: once it is in use they are frozen with it.
    @Test func elementsBelongToTheirCompositesModel() throws {
        let model = Self.makeModel()
        let magnitude = try #require(model.entitiesByName["Quake"]?.attributesByName["magnitude"] as? NSCompositeAttributeDescription)
        let latitude = try #require((magnitude.elements.last as? NSCompositeAttributeDescription)?.elements.first)
        #expect(magnitude.elements.first?.owningModel === model && latitude.owningModel === model)
        let removed = magnitude.elements.removeFirst()
        #expect(removed.owningModel == nil)
    }

    @Test func dictionaryFetchesReadElementsAsTheirTypes() throws {
        let directory = TemporaryDirectory()
        for (type, url) in [(NSSQLiteStoreType, directory.file("Quakes.sqlite") as URL?), (NSInMemoryStoreType, nil)] {
            let context = try stack(type, at: url)
            fill(context)
            try context.save()
            let request = NSFetchRequest<NSDictionary>(entityName: "Quake")
            request.resultType = .dictionaryResultType
            request.propertiesToFetch = ["code", "magnitude.richter", "magnitude.measured", "magnitude.station", "magnitude.epicenter"]
            request.predicate = NSPredicate(format: "code == 'a'")
            let row = try #require(try context.fetch(request).first)
            #expect(row["magnitude.richter"] as? Double == 4.6, "\(type)")
            #expect(row["magnitude.measured"] as? Date == Self.measured, "\(type)")
            #expect(row["magnitude.station"] as? UUID == Self.station, "\(type)")
            #expect((row["magnitude.epicenter"] as? [String: Any])?["latitude"] as? Double == -33.4, "\(type)")
        }
    }

    @Test func decimalsInfinityAndLengthsOfElements() throws {
        let amount = NSAttributeDescription(name: "amount", type: .decimalAttributeType)
        let rate = NSAttributeDescription(name: "rate", type: .doubleAttributeType)
        let price = NSCompositeAttributeDescription()
        price.name = "price"
        price.elements = [amount, rate]
        let entity = NSEntityDescription(name: "Offer")
        entity.properties = [price]
        let model = NSManagedObjectModel()
        model.entities = [entity]
        let directory = TemporaryDirectory()
        let url = directory.file("Offers.sqlite")
        do {
            let context = try stack(NSSQLiteStoreType, at: url, model: model)
            let offer = NSEntityDescription.insertNewObject(forEntityName: "Offer", into: context)
            offer.setValue(["amount": Decimal(string: "0.1")!], forKey: "price")
            #expect {
                try offer.setCheckedValue(["rate": Double.infinity], forKey: "price")
            } throws: { error in
                "\(error)".contains("cannot hold inf")
            }
            #expect(throws: (any Error).self) { try offer.setCheckedValue(["amount": Decimal.nan], forKey: "price") }
            try context.save()
        }
        let context = try stack(NSSQLiteStoreType, at: url, model: model.copy() as! NSManagedObjectModel)
        let offer = try #require(try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Offer")).first)
        #expect(offer.value(forKeyPath: "price.amount") as? Decimal == Decimal(string: "0.1"))

        // A string element's length rule names the element's key path.
        let quakes = try stack(NSInMemoryStoreType, at: nil)
        let quake = NSEntityDescription.insertNewObject(forEntityName: "Quake", into: quakes)
        quake.setValue(["richter": 3, "scale": "far too long a scale"], forKey: "magnitude")
        #expect {
            try quakes.save()
        } throws: { error in
            let error = error as NSError
            return error.code == NSValidationStringTooLongError && error.userInfo[NSValidationKeyErrorKey] as? String == "magnitude.scale"
        }
    }

    @Test func clearingAnElementOfNoValueLeavesNoValue() throws {
        let context = try stack(NSInMemoryStoreType, at: nil)
        let quake = NSEntityDescription.insertNewObject(forEntityName: "Quake", into: context)
        quake.setValue(nil, forKeyPath: "magnitude.depth")
        #expect(quake.value(forKey: "magnitude") == nil)
        // A case-insensitive comparison of a UUID element compares it as it is, in SQL as in memory.
        let directory = TemporaryDirectory()
        let sqlite = try stack(NSSQLiteStoreType, at: directory.file("Quakes.sqlite"))
        fill(sqlite)
        try sqlite.save()
        let request = NSFetchRequest<NSManagedObject>(entityName: "Quake")
        request.predicate = NSPredicate(format: "magnitude.station ==[c] %@", Self.station as NSUUID)
        #expect(try sqlite.count(for: request) == 1)
    }
}
