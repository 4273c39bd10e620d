import Foundation
import Testing
import OpenCoreData
@testable import OpenCoreDataCore
@testable import OpenCoreDataSQLite

/// Batch insert, update and delete: straight into the store, with Core Data's results, delete
/// rules applied in the store, and merging into contexts in one call. Every test runs against
/// the SQLite and the in-memory store.
@Suite struct BatchRequestTests {
    static func people(_ stack: TestStack, _ names: [String]) throws {
        for (index, name) in names.enumerated() {
            _ = stack.insert("Person", ["name": name, "age": 20 + index, "email": "\(name.lowercased())@example.com"])
        }
        try stack.context.save()
    }

    // MARK: Delete

    @Test(arguments: StoreKind.allCases)
    func batchDeleteRemovesWhatThePredicateMatchesAndCascades(kind: StoreKind) throws {
        let stack = try TestStack(kind)
        try Self.people(stack, ["Ada", "Bo", "Cy"])
        let bo = try #require(try stack.fetch("Person", NSComparisonPredicate(key: "name", .equalTo, "Bo")).first)
        for name in ["Rex", "Tom"] { _ = stack.insert("Pet", ["name": name, "owner": bo]) }
        try stack.context.save()

        let request = NSFetchRequest<NSFetchRequestResult>(entityName: "Person")
        request.predicate = NSComparisonPredicate(key: "age", .greaterThanOrEqualTo, 21)
        let delete = NSBatchDeleteRequest(fetchRequest: request)
        delete.resultType = .resultTypeCount
        let result = try #require(try stack.context.execute(delete) as? NSBatchDeleteResult)
        // Bo and Cy, and Bo's pets by cascade (COREDATA-SEMANTICS: cascade deletes the destinations).
        #expect(result.result as? Int == 4)
        try stack.reopen()
        #expect(try stack.storedStrings("Person") == ["Ada"])
        #expect(try stack.storedCount("Pet") == 0)
    }

    @Test(arguments: StoreKind.allCases)
    func batchDeleteResultTypes(kind: StoreKind) throws {
        let stack = try TestStack(kind)
        try Self.people(stack, ["Ada", "Bo"])
        let ids = try stack.fetch("Person").map(\.objectID)
        let byIDs = NSBatchDeleteRequest(objectIDs: [ids[0]])
        byIDs.resultType = .resultTypeObjectIDs
        let deleted = try #require((try stack.context.execute(byIDs) as? NSBatchDeleteResult)?.result as? [NSManagedObjectID])
        #expect(deleted == [ids[0]])
        let rest = NSBatchDeleteRequest(fetchRequest: NSFetchRequest(entityName: "Person"))
        #expect((try stack.context.execute(rest) as? NSBatchDeleteResult)?.result as? Bool == true)
        #expect(try stack.storedCount("Person") == 0)
    }

    @Test(arguments: StoreKind.allCases)
    func aDenyRuleWithObjectsRefusesTheWholeBatchDelete(kind: StoreKind) throws {
        let stack = try TestStack(kind)
        let full = stack.insert("Playlist", ["title": "Full"])
        _ = stack.insert("Playlist", ["title": "Empty"])
        _ = stack.insert("Song", ["title": "One", "playlist": full])
        try stack.context.save()
        let error = try #require(throws: CocoaError.self) {
            try stack.context.execute(NSBatchDeleteRequest(fetchRequest: NSFetchRequest(entityName: "Playlist")))
        }
        #expect(error.code == .validationRelationshipDeniedDelete)
        #expect(error.userInfo[NSValidationKeyErrorKey] as? String == "songs")
        #expect((error.userInfo[NSLocalizedDescriptionKey] as? String)?.contains("Playlist.songs has the deny rule") == true)
        // Nothing was deleted, not even the empty playlist.
        #expect(try stack.storedCount("Playlist") == 2)
    }

    @Test(arguments: StoreKind.allCases)
    func nullifyClearsTheToOneOfObjectsThatRemain(kind: StoreKind) throws {
        let stack = try TestStack(kind, model: Self.teamModel())
        let team = stack.insert("Team", ["name": "Red"])
        for name in ["A", "B"] { _ = stack.insert("Player", ["name": name, "team": team]) }
        try stack.context.save()
        let delete = NSBatchDeleteRequest(fetchRequest: NSFetchRequest(entityName: "Team"))
        try stack.context.execute(delete)
        try stack.reopen()
        let players = try stack.fetch("Player")
        #expect(players.count == 2)
        #expect(players.allSatisfy { $0.value(forKey: "team") == nil })
    }

    @Test(arguments: StoreKind.allCases)
    func manyToManyMembershipsOfDeletedObjectsGo(kind: StoreKind) throws {
        let stack = try TestStack(kind)
        try Self.people(stack, ["Ada", "Bo"])
        let club = stack.insert("Club", ["name": "Chess"])
        club.mutableSetValue(forKey: "members").addObjects(from: try stack.fetch("Person"))
        try stack.context.save()
        let request = NSFetchRequest<NSFetchRequestResult>(entityName: "Person")
        request.predicate = NSComparisonPredicate(key: "name", .equalTo, "Ada")
        try stack.context.execute(NSBatchDeleteRequest(fetchRequest: request))
        try stack.reopen()
        let reread = try #require(try stack.fetch("Club").first)
        #expect(strings(members(reread, "members")) == ["Bo"])
    }

    // MARK: Merging

    @Test(arguments: StoreKind.allCases)
    func executeAndMergeChangesBringsTheContextUpToDate(kind: StoreKind) throws {
        let stack = try TestStack(kind)
        try Self.people(stack, ["Ada"])
        let ada = try #require(try stack.fetch("Person").first)
        let rex = stack.insert("Pet", ["name": "Rex", "owner": ada])
        let tom = stack.insert("Pet", ["name": "Tom", "owner": ada])
        try stack.context.save()
        #expect(members(ada, "pets").count == 2)

        let request = NSFetchRequest<NSFetchRequestResult>(entityName: "Pet")
        request.predicate = NSComparisonPredicate(key: "name", .equalTo, "Rex")
        try stack.context.executeAndMergeChanges(NSBatchDeleteRequest(fetchRequest: request))
        #expect(!stack.context.registeredObjects.contains(rex))
        #expect(rex.managedObjectContext == nil)
        #expect(members(ada, "pets") == [tom])

        let update = NSBatchUpdateRequest(entityName: "Person")
        update.propertiesToUpdate = ["age": 77]
        try stack.context.executeAndMergeChanges(update)
        #expect(ada.value(forKey: "age") as? Int == 77)
        // The context's version is the store's again, so a change saves without conflict.
        ada.setValue(78, forKey: "age")
        try stack.context.save()
    }

    @Test(arguments: StoreKind.allCases)
    func withoutMergingAContextHoldingAnUpdatedObjectConflicts(kind: StoreKind) throws {
        // As in Core Data: a batch update bypasses contexts, and their next save of the same
        // object meets an optimistic-locking conflict instead of silently undoing the update.
        let stack = try TestStack(kind)
        try Self.people(stack, ["Ada"])
        let ada = try #require(try stack.fetch("Person").first)
        let update = NSBatchUpdateRequest(entityName: "Person")
        update.propertiesToUpdate = ["age": 50]
        try stack.context.execute(update)
        #expect(ada.value(forKey: "age") as? Int == 20)
        ada.setValue(21, forKey: "age")
        let error = try #require(throws: CocoaError.self) { try stack.context.save() }
        #expect(error.code.rawValue == 133020)
    }

    @Test func mergeChangesFromRemoteContextSaveTakesIDsAndURIs() throws {
        let stack = try TestStack(.sqlite)
        try Self.people(stack, ["Ada", "Bo"])
        let other = stack.newContext()
        let objects = try stack.fetch("Person", sortedBy: "name", in: other)
        let delete = NSBatchDeleteRequest(objectIDs: [objects[0].objectID])
        delete.resultType = .resultTypeObjectIDs
        let ids = try #require((try stack.context.execute(delete) as? NSBatchDeleteResult)?.result as? [NSManagedObjectID])
        NSManagedObjectContext.mergeChanges(fromRemoteContextSave: [NSDeletedObjectsKey: ids.map { $0.uriRepresentation() }],
                                            into: [other])
        #expect(strings(other.registeredObjects) == ["Bo"])
    }

    // MARK: Update

    @Test(arguments: StoreKind.allCases)
    func batchUpdateSetsConstantsAndCopiesAttributes(kind: StoreKind) throws {
        let stack = try TestStack(kind)
        try Self.people(stack, ["Ada", "Bo", "Cy"])
        let update = NSBatchUpdateRequest(entityName: "Person")
        update.predicate = NSComparisonPredicate(key: "age", .lessThan, 22)
        update.propertiesToUpdate = ["active": false, "height": NSExpression(forConstantValue: 1.5),
                                     "small": NSExpression(forKeyPath: "age")]
        update.resultType = .updatedObjectsCountResultType
        #expect((try stack.context.execute(update) as? NSBatchUpdateResult)?.result as? Int == 2)
        try stack.reopen()
        let people = try stack.fetch("Person", sortedBy: "name")
        #expect(people.map { $0.value(forKey: "active") as? Bool } == [false, false, true])
        #expect(people.map { $0.value(forKey: "height") as? Double } == [1.5, 1.5, nil])
        #expect(people.map { $0.value(forKey: "small") as? Int } == [20, 21, nil])
    }

    /// Expressions over the row's own attributes are computed per row, from the values as
    /// they were before the update (Core Data's `propertiesToUpdate` with `NSExpression`s).
    @Test(arguments: StoreKind.allCases)
    func batchUpdateComputesExpressionsFromEachRow(kind: StoreKind) throws {
        let stack = try TestStack(kind)
        try Self.people(stack, ["Ada", "Bo", "Cy"])
        let update = NSBatchUpdateRequest(entityName: "Person")
        update.predicate = NSComparisonPredicate(key: "name", .notEqualTo, "Cy")
        update.propertiesToUpdate = [
            "age": NSExpression(format: "age * 2 + 1"),
            "height": NSExpression(format: "age / 10.0"),
            "email": NSExpression(format: "uppercase:(name)"),
            "small": NSExpression(format: "TERNARY(age > 20, 1, 0)"),
        ]
        update.resultType = .updatedObjectsCountResultType
        #expect((try stack.context.execute(update) as? NSBatchUpdateResult)?.result as? Int == 2)
        try stack.reopen()
        let people = try stack.fetch("Person", sortedBy: "name")
        #expect(people.map { $0.value(forKey: "age") as? Int } == [41, 43, 22])
        #expect(people.map { $0.value(forKey: "height") as? Double } == [2.0, 2.1, nil])
        #expect(people.map { $0.value(forKey: "email") as? String } == ["ADA", "BO", "cy@example.com"])
        #expect(people.map { $0.value(forKey: "small") as? Int } == [0, 1, nil])
    }

    @Test func batchUpdateRefusesExpressionsARowCannotAnswer() throws {
        let stack = try TestStack(.sqlite)
        try Self.people(stack, ["Ada"])
        func failure(_ expression: String, for key: String = "age") throws -> CocoaError {
            let update = NSBatchUpdateRequest(entityName: "Person")
            update.propertiesToUpdate = [key: NSExpression(format: expression)]
            return try #require(throws: CocoaError.self) { try stack.context.execute(update) }
        }
        let throughRelationship = try failure("pets.@count + 1")
        #expect(throughRelationship.code.rawValue == 134091)
        #expect(throughRelationship.message.contains("the key path 'pets.@count' leaves the object"))
        #expect(try failure("nope + 1").message.contains("'nope' is not a stored attribute of Person"))
        #expect(try failure("$limit").message.contains("the variable $limit has no value"))
        // A result the attribute can't hold names the object and what it computed.
        let wrongType = try failure("uppercase:(name)")
        #expect(wrongType.code.rawValue == 1550)
        #expect(wrongType.message.contains("of x-coredata://"))
        #expect(wrongType.message.contains("which gives ADA"))
        #expect(try stack.fetch("Person").map { $0.value(forKey: "age") as? Int } == [20])
    }

    @Test func batchUpdateRefusesWhatItCannotDo() throws {
        let stack = try TestStack(.sqlite)
        try Self.people(stack, ["Ada"])
        func failure(_ properties: [AnyHashable: Any]) throws -> CocoaError {
            let update = NSBatchUpdateRequest(entityName: "Person")
            update.propertiesToUpdate = properties
            return try #require(throws: CocoaError.self) { try stack.context.execute(update) }
        }
        #expect(try failure(["nope": 1]).message == "The batch update names 'nope', which is not a property of Person")
        #expect(try failure(["pets": NSNull()]).message.contains("can set attributes only; Person.pets is a relationship"))
        #expect(try failure(["age": "old"]).message.hasPrefix("Wrong value for Person.age: expected a value of type Integer 64"))
        let missing = try failure(["name": NSNull()])
        #expect(missing.code == .validationMissingMandatoryProperty)
        #expect(try stack.storedStrings("Person") == ["Ada"])
    }

    // MARK: Insert

    @Test(arguments: StoreKind.allCases)
    func batchInsertWritesRowsWithDefaults(kind: StoreKind) throws {
        let stack = try TestStack(kind)
        let insert = NSBatchInsertRequest(entityName: "Person", objects: [
            ["name": "Ada", "age": 36, "born": Date(timeIntervalSinceReferenceDate: 0)],
            ["name": "Bo"],
        ])
        insert.resultType = .objectIDs
        let ids = try #require((try stack.context.execute(insert) as? NSBatchInsertResult)?.result as? [NSManagedObjectID])
        #expect(ids.count == 2 && ids.allSatisfy { !$0.isTemporaryID })
        try stack.reopen()
        let people = try stack.fetch("Person", sortedBy: "name")
        #expect(strings(people) == ["Ada", "Bo"])
        #expect(people.map { $0.value(forKey: "age") as? Int } == [36, 0])         // default 0
        #expect(people.map { $0.value(forKey: "active") as? Bool } == [true, true]) // default true
        #expect(people[0].value(forKey: "born") as? Date == Date(timeIntervalSinceReferenceDate: 0))
    }

    @Test(arguments: StoreKind.allCases)
    func batchInsertFromHandlers(kind: StoreKind) throws {
        let stack = try TestStack(kind)
        var next = 0
        let dictionaries = NSBatchInsertRequest(entityName: "Pet", dictionaryHandler: { dictionary in
            guard next < 3 else { return true }
            dictionary["name"] = "pet \(next)"
            next += 1
            return false
        })
        dictionaries.resultType = .count
        #expect((try stack.context.execute(dictionaries) as? NSBatchInsertResult)?.result as? Int == 3)
        var made = 0
        let objects = NSBatchInsertRequest(entityName: "Pet", managedObjectHandler: { object in
            guard made < 2 else { return true }
            object.setValue("made \(made)", forKey: "name")
            object.setValue(2.5, forKey: "weight")
            made += 1
            return false
        })
        try stack.context.execute(objects)
        try stack.reopen()
        #expect(try stack.storedStrings("Pet") == ["made 0", "made 1", "pet 0", "pet 1", "pet 2"])
    }

    @Test(arguments: StoreKind.allCases)
    func batchInsertUpsertsOnUniquenessConstraints(kind: StoreKind) throws {
        // Person's email is unique: a dictionary with a stored email updates that person.
        let stack = try TestStack(kind)
        try Self.people(stack, ["Ada"])
        let insert = NSBatchInsertRequest(entityName: "Person", objects: [
            ["name": "Ada Lovelace", "email": "ada@example.com", "age": 36],
            ["name": "Bo", "email": "bo@example.com"],
        ])
        insert.resultType = .count
        #expect((try stack.context.execute(insert) as? NSBatchInsertResult)?.result as? Int == 2)
        try stack.reopen()
        #expect(try stack.storedStrings("Person") == ["Ada Lovelace", "Bo"])
    }

    @Test(arguments: StoreKind.allCases)
    func aLargeBatchUpsertsEveryStoredObjectItCollidesWith(kind: StoreKind) throws {
        // More rows than one candidate fetch asks for: every collision is still found.
        let stack = try TestStack(kind)
        let stored = (0..<1_000).map { ["name": "old \($0)", "email": "p\($0)@example.com"] as [String: Any] }
        try stack.context.execute(NSBatchInsertRequest(entityName: "Person", objects: stored))
        // New emails first, so that some collisions are only in the last candidate fetch.
        let upserts = (500..<1_500).reversed().map { ["name": "new \($0)", "email": "p\($0)@example.com"] as [String: Any] }
        let insert = NSBatchInsertRequest(entityName: "Person", objects: upserts)
        insert.resultType = .count
        #expect((try stack.context.execute(insert) as? NSBatchInsertResult)?.result as? Int == 1_000)
        try stack.reopen()
        // 500 stored people were updated, 500 new ones inserted, 500 left as they were.
        let names = try stack.storedStrings("Person")
        #expect(names.count == 1_500)
        #expect(names.filter { $0.hasPrefix("new") }.count == 1_000)
        #expect(names.contains("new 500") && names.contains("old 499") && !names.contains("old 500"))
    }

    @Test(arguments: StoreKind.allCases)
    func batchInsertChecksEveryObjectBeforeWritingAny(kind: StoreKind) throws {
        let stack = try TestStack(kind)
        let cases: [([String: Any], String)] = [
            (["name": "A", "colour": "red"], "The batch insert names 'colour', which is not a property of Person"),
            (["name": "A", "pets": NSNull()], "A batch insert can't set relationships (Person.pets), as in Core Data"),
            (["age": 3], "The batch insert gives no value for Person.name, which is not optional and has no default (object 2)"),
        ]
        for (object, message) in cases {
            let insert = NSBatchInsertRequest(entityName: "Person", objects: [["name": "Fine"], object])
            let error = try #require(throws: CocoaError.self) { try stack.context.execute(insert) }
            #expect(error.message == message)
        }
        #expect(try stack.storedCount("Person") == 0)
    }

    @Test func aReadOnlyStoreRefusesBatchRequests() throws {
        let stack = try TestStack(.sqlite)
        try Self.people(stack, ["Ada"])
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: stack.model)
        _ = try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: stack.storeURL,
                                               options: [NSReadOnlyPersistentStoreOption: true])
        let context = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        let error = try #require(throws: CocoaError.self) {
            try context.execute(NSBatchDeleteRequest(fetchRequest: NSFetchRequest(entityName: "Person")))
        }
        #expect(error.message.contains("is read-only"))
        #expect(try stack.storedCount("Person") == 1)
    }

    // MARK: Model

    /// Teams and players: deleting a team nullifies its players' to-one `team`.
    /// Owners cascade to pets, pets to toys; an owner's favorite pet is held by a deny rule; a
    /// tag of a pet is nullified when the pet goes.
    static func kennelModel() -> NSManagedObjectModel {
        let owner = NSEntityDescription(name: "Owner")
        let pet = NSEntityDescription(name: "Pet")
        let toy = NSEntityDescription(name: "Toy")
        let tag = NSEntityDescription(name: "Tag")
        func link(_ name: String, _ source: NSEntityDescription, _ destination: NSEntityDescription, toMany: Bool,
                  _ rule: NSDeleteRule, inverse: String, _ inverseRule: NSDeleteRule = .nullifyDeleteRule) {
            let forward = NSRelationshipDescription(name: name, destination: destination, toMany: toMany, deleteRule: rule)
            let backward = NSRelationshipDescription(name: inverse, destination: source, deleteRule: inverseRule)
            forward.inverseRelationship = backward
            backward.inverseRelationship = forward
            source.properties.append(forward)
            destination.properties.append(backward)
        }
        for entity in [owner, pet, toy, tag] { entity.properties = [NSAttributeDescription(name: "name", type: .stringAttributeType)] }
        link("pets", owner, pet, toMany: true, .cascadeDeleteRule, inverse: "owner")
        link("favorite", owner, pet, toMany: false, .denyDeleteRule, inverse: "favoredBy")
        link("toys", pet, toy, toMany: true, .cascadeDeleteRule, inverse: "pet")
        link("tags", pet, tag, toMany: true, .nullifyDeleteRule, inverse: "pet")
        let model = NSManagedObjectModel()
        model.entities = [owner, pet, toy, tag]
        return model
    }

    /// Cascades reach every level (rows read a level at a time), nullify rules clear what
    /// remains, and a deny rule does not hold back an owner whose favorite goes with it — as a
    /// context judges deny rules (deleted destinations don't count).
    @Test(arguments: StoreKind.allCases)
    func batchDeleteCascadesThroughLevelsAndJudgesDenyRulesAtTheEnd(kind: StoreKind) throws {
        let stack = try TestStack(kind, model: Self.kennelModel())
        for ownerIndex in 0..<3 {
            let owner = stack.insert("Owner", ["name": "owner \(ownerIndex)"])
            for petIndex in 0..<4 {
                let pet = stack.insert("Pet", ["name": "pet \(ownerIndex).\(petIndex)", "owner": owner])
                for toyIndex in 0..<2 { _ = stack.insert("Toy", ["name": "toy \(ownerIndex).\(petIndex).\(toyIndex)", "pet": pet]) }
                _ = stack.insert("Tag", ["name": "tag \(ownerIndex).\(petIndex)", "pet": pet])
                if petIndex == 0 { owner.setValue(pet, forKey: "favorite") }
            }
        }
        try stack.context.save()
        let request = NSFetchRequest<NSFetchRequestResult>(entityName: "Owner")
        request.predicate = NSComparisonPredicate(key: "name", .notEqualTo, "owner 2")
        let delete = NSBatchDeleteRequest(fetchRequest: request)
        delete.resultType = .resultTypeCount
        let result = try #require(try stack.context.execute(delete) as? NSBatchDeleteResult)
        #expect(result.result as? Int == 2 + 8 + 16)
        try stack.reopen()
        #expect(try stack.storedStrings("Owner") == ["owner 2"])
        #expect(try stack.storedCount("Pet") == 4)
        #expect(try stack.storedCount("Toy") == 8)
        let tags = try stack.fetch("Tag", sortedBy: "name")
        #expect(tags.count == 12)
        #expect(tags.filter { $0.value(forKey: "pet") == nil }.count == 8)
    }

    /// More sources than one query's list of keys holds (500): every level is read in chunks,
    /// and the cascade still reaches every row.
    @Test(arguments: StoreKind.allCases)
    func batchDeleteCascadesOverManyChunks(kind: StoreKind) throws {
        let stack = try TestStack(kind, model: Self.kennelModel())
        for ownerIndex in 0..<600 {
            let owner = stack.insert("Owner", ["name": "owner \(ownerIndex)"])
            for petIndex in 0..<2 {
                let pet = stack.insert("Pet", ["name": "pet \(ownerIndex).\(petIndex)", "owner": owner])
                _ = stack.insert("Toy", ["name": "toy \(ownerIndex).\(petIndex)", "pet": pet])
            }
        }
        try stack.context.save()
        let request = NSFetchRequest<NSFetchRequestResult>(entityName: "Owner")
        request.predicate = NSPredicate(format: "name != %@", "owner 7")
        let delete = NSBatchDeleteRequest(fetchRequest: request)
        delete.resultType = .resultTypeCount
        let result = try #require(try stack.context.execute(delete) as? NSBatchDeleteResult)
        #expect(result.result as? Int == 599 * 5)
        try stack.reopen()
        #expect(try stack.storedStrings("Owner") == ["owner 7"])
        #expect(try stack.storedStrings("Pet") == ["pet 7.0", "pet 7.1"])
        #expect(try stack.storedStrings("Toy") == ["toy 7.0", "toy 7.1"])
    }

    static func teamModel() -> NSManagedObjectModel {
        let team = NSEntityDescription(name: "Team")
        let player = NSEntityDescription(name: "Player")
        let players = NSRelationshipDescription(name: "players", destination: player, toMany: true, deleteRule: .nullifyDeleteRule)
        let playerTeam = NSRelationshipDescription(name: "team", destination: team)
        players.inverseRelationship = playerTeam
        playerTeam.inverseRelationship = players
        team.properties = [NSAttributeDescription(name: "name", type: .stringAttributeType), players]
        player.properties = [NSAttributeDescription(name: "name", type: .stringAttributeType), playerTeam]
        let model = NSManagedObjectModel()
        model.entities = [team, player]
        return model
    }

    /// A batch request whose predicate names no property of the entity is refused (134091)
    /// before anything changes, by the store that runs it.
    @Test(arguments: StoreKind.allCases)
    func batchRequestsWithAnInvalidPredicateChangeNothing(kind: StoreKind) throws {
        let stack = try TestStack(kind)
        try Self.people(stack, ["Ada", "Bo"])
        let fetch = NSFetchRequest<NSFetchRequestResult>(entityName: "Person")
        fetch.predicate = NSComparisonPredicate(key: "shoeSize", .greaterThan, 3)
        let deleteError = #expect(throws: CocoaError.self) { try stack.context.execute(NSBatchDeleteRequest(fetchRequest: fetch)) }
        #expect(deleteError?.code == 134091)
        let update = NSBatchUpdateRequest(entityName: "Person")
        update.predicate = fetch.predicate
        update.propertiesToUpdate = ["age": 1]
        let updateError = #expect(throws: CocoaError.self) { try stack.context.execute(update) }
        #expect(updateError?.code == 134091)
        try stack.reopen()
        #expect(try stack.storedStrings("Person") == ["Ada", "Bo"])
    }
}
