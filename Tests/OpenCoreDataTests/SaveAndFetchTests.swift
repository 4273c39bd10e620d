import Foundation
import Testing
import OpenCoreData
@testable import OpenCoreDataCore
@testable import OpenCoreDataSQLite

@Suite struct SaveAndFetchTests {
    @Test(arguments: StoreKind.allCases)
    func everyAttributeTypeRoundTripsThroughTheStore(kind: StoreKind) throws {
        let stack = try TestStack(kind)
        let born = Date(timeIntervalSinceReferenceDate: 123_456_789.25)
        let uuid = UUID()
        let person = stack.insert("Person", [
            "name": "Ada", "age": 36, "email": "ada@example.com", "born": born, "height": 1.65, "active": false,
            "id": uuid, "website": URL(string: "https://example.com/ada")!, "photo": Data([1, 2, 3]),
            "balance": Decimal(string: "12.5")!, "small": Int16(-7), "tags": ["math", "engines"],
        ])
        #expect(person.objectID.isTemporaryID)
        try stack.context.save()
        #expect(!person.objectID.isTemporaryID)
        let uri = person.objectID.uriRepresentation().absoluteString
        try stack.reopen()

        let fetched = try #require(try stack.fetch("Person").first)
        #expect(fetched.objectID.uriRepresentation().absoluteString == uri)
        #expect(fetched.value(forKey: "name") as? String == "Ada")
        #expect(fetched.value(forKey: "age") as? Int == 36)
        #expect(fetched.value(forKey: "email") as? String == "ada@example.com")
        #expect(fetched.value(forKey: "born") as? Date == born)
        #expect(fetched.value(forKey: "height") as? Double == 1.65)
        #expect(fetched.value(forKey: "active") as? Bool == false)
        #expect(fetched.value(forKey: "id") as? UUID == uuid)
        #expect(fetched.value(forKey: "website") as? URL == URL(string: "https://example.com/ada"))
        #expect(fetched.value(forKey: "photo") as? Data == Data([1, 2, 3]))
        #expect(fetched.value(forKey: "balance") as? Decimal == Decimal(string: "12.5"))
        #expect(fetched.value(forKey: "small") as? Int16 == -7)
        #expect((fetched.value(forKey: "tags") as? [String]) == ["math", "engines"] || (fetched.value(forKey: "tags") as? NSArray)?.count == 2)
    }

    @Test func decimalsSurviveSaveAndReopenDigitForDigit() throws {
        // Decimals are stored as the nearest REAL, as Core Data stores them; reading one back must
        // give the same decimal, so that a re-save does not change the column.
        let stack = try TestStack(.sqlite)
        let values = ["3.3333333332999993", "0.1", "10.11", "-12345.678", "1e-7"].map { Decimal(string: $0)! }
        for (index, value) in values.enumerated() {
            _ = stack.insert("Person", ["name": "p\(index)", "balance": value])
        }
        try stack.context.save()
        try stack.reopen()
        let read = try stack.fetch("Person", sortedBy: "name").map { $0.value(forKey: "balance") as? Decimal }
        #expect(read == values)
    }

    @Test(arguments: StoreKind.allCases)
    func defaultsApplyToNewObjects(kind: StoreKind) throws {
        let stack = try TestStack(kind)
        let person = stack.insert("Person", ["name": "B"])
        #expect(person.value(forKey: "age") as? Int == 0)
        #expect(person.value(forKey: "active") as? Bool == true)
        #expect(person.value(forKey: "email") == nil)
    }

    @Test(arguments: StoreKind.allCases)
    func fetchFiltersSortsLimitsAndOffsets(kind: StoreKind) throws {
        let stack = try TestStack(kind)
        for (index, name) in ["d", "b", "e", "a", "c"].enumerated() {
            _ = stack.insert("Person", ["name": name, "age": index * 10, "email": "\(name)@x.org"])
        }
        try stack.context.save()
        try stack.reopen()
        let request = NSFetchRequest<NSManagedObject>(entityName: "Person")
        request.predicate = NSComparisonPredicate(key: "age", .greaterThanOrEqualTo, 10)
        request.sortDescriptors = [NSSortDescriptor(key: "name", ascending: true)]
        #expect(try stack.context.fetch(request).map { $0.value(forKey: "name") as! String } == ["a", "b", "c", "e"])
        request.fetchOffset = 1
        request.fetchLimit = 2
        #expect(try stack.context.fetch(request).map { $0.value(forKey: "name") as! String } == ["b", "c"])
        request.fetchOffset = 0
        request.fetchLimit = 0
        request.sortDescriptors = [NSSortDescriptor(key: "age", ascending: false)]
        #expect(try stack.context.fetch(request).map { $0.value(forKey: "name") as! String } == ["c", "a", "e", "b"])
        #expect(try stack.context.count(for: request) == 4)
    }

    @Test(arguments: StoreKind.allCases)
    func comparisonOperatorsAndStringOptions(kind: StoreKind) throws {
        let stack = try TestStack(kind)
        for name in ["Zoë", "zoe", "Zack", "Anna", "hannah"] {
            _ = stack.insert("Person", ["name": name, "age": name.count])
        }
        _ = stack.insert("Person", ["name": "Nobody"])
        try stack.context.save()
        try stack.reopen()
        func names(_ predicate: NSPredicate) throws -> [String] {
            try stack.fetch("Person", predicate, sortedBy: "name").map { $0.value(forKey: "name") as! String }
        }
        #expect(try names(NSComparisonPredicate(key: "name", .equalTo, "zoe")) == ["zoe"])
        #expect(try names(NSComparisonPredicate(key: "name", .equalTo, "ZOE", options: .caseInsensitive)) == ["zoe"])
        #expect(try names(NSComparisonPredicate(key: "name", .equalTo, "zoe", options: [.caseInsensitive, .diacriticInsensitive])) == ["Zoë", "zoe"])
        #expect(try names(NSComparisonPredicate(key: "name", .beginsWith, "Z")) == ["Zack", "Zoë"])
        #expect(try names(NSComparisonPredicate(key: "name", .beginsWith, "z", options: .caseInsensitive)) == ["Zack", "Zoë", "zoe"])
        #expect(try names(NSComparisonPredicate(key: "name", .endsWith, "nah")) == ["hannah"])
        #expect(try names(NSComparisonPredicate(key: "name", .contains, "NN", options: .caseInsensitive)) == ["Anna", "hannah"])
        #expect(try names(NSComparisonPredicate(key: "name", .in, ["Anna", "Zack", "none"])) == ["Anna", "Zack"])
        #expect(try names(NSComparisonPredicate(key: "age", .between, [4, 5])) == ["Anna", "Zack"])
        #expect(try names(NSComparisonPredicate(key: "age", .between, [5, 6])) == ["hannah"])
        #expect(try names(NSComparisonPredicate(key: "name", .like, "?a*")) == ["Zack", "hannah"])
        #expect(try names(NSCompoundPredicate(orPredicateWithSubpredicates: [
            NSComparisonPredicate(key: "name", .equalTo, "Anna"), NSComparisonPredicate(key: "age", .lessThan, 4),
        ])) == ["Anna", "Nobody", "Zoë", "zoe"])
        #expect(try names(NSCompoundPredicate(notPredicateWithSubpredicate: NSComparisonPredicate(key: "age", .greaterThan, 3))) == ["Nobody", "Zoë", "zoe"])
        #expect(try names(NSComparisonPredicate(key: "age", .equalTo, 0)) == ["Nobody"])
        #expect(try names(NSComparisonPredicate(key: "email", .equalTo, nil)).count == 6)
        #expect(try names(NSComparisonPredicate(key: "email", .notEqualTo, nil)).isEmpty)
    }
}

@Suite struct BatchedFetchTests {
    /// §6.5: with a batch size the results are all there (count is the full count), but values
    /// are loaded one batch at a time as objects are used.
    @Test func batchedFetchLoadsValuesOneBatchAtATime() throws {
        let stack = try TestStack(.sqlite)
        for index in 0..<100 { _ = stack.insert("Person", ["name": "p\(index)", "age": index]) }
        try stack.context.save()
        try stack.reopen()
        let request = NSFetchRequest<NSManagedObject>(entityName: "Person")
        request.sortDescriptors = [NSSortDescriptor(key: "age", ascending: true)]
        request.fetchBatchSize = 20
        let people = try stack.context.fetch(request)
        #expect(people.count == 100)
        #expect(people.allSatisfy { $0.isFault })
        let log = try #require(stack.recordSQL())
        #expect(people[50].value(forKey: "age") as? Int == 50)
        #expect(people[41].value(forKey: "age") as? Int == 41)  // same batch: no second query
        #expect(log.all.filter { $0.hasPrefix("SELECT") }.count == 1)
        #expect(people[0].isFault)
        #expect(people.map { $0.value(forKey: "age") as! Int } == Array(0..<100))
    }
}

@Suite struct UntypedFetchRequestTests {
    /// `NSFetchRequest<NSFetchRequestResult>`, common in Core Data code, compiles and returns
    /// whatever the result type says.
    @Test(arguments: StoreKind.allCases)
    func fetchRequestOfTheResultProtocolReturnsEveryResultType(kind: StoreKind) throws {
        let stack = try TestStack(kind)
        _ = stack.insert("Person", ["name": "Ada", "age": 36])
        try stack.context.save()
        let request = NSFetchRequest<NSFetchRequestResult>(entityName: "Person")
        #expect(try stack.context.fetch(request).map { ($0 as? NSManagedObject)?.value(forKey: "name") as? String } == ["Ada"])
        request.resultType = .dictionaryResultType
        request.propertiesToFetch = ["name"]
        #expect(try stack.context.fetch(request).map { ($0 as? NSDictionary)?["name"] as? String } == ["Ada"])
        request.resultType = .managedObjectIDResultType
        #expect(try stack.context.fetch(request).allSatisfy { $0 is NSManagedObjectID })
        #expect(try stack.context.count(for: request) == 1)
    }
}
